// Reference transformer ops; see ck_ops.h for shapes and contracts.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include <pthread.h>
#include "ck_ops.h"
#include "ck_convert.h"
#include "ck_matmul.h"
#include "exp_scalar.h"

void ck_rms_norm(const float *x, const float *w, float *y, int64_t n, float eps) {
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += (double)x[i] * (double)x[i];
    const float scale = 1.0f / sqrtf((float)(sum / (double)n) + eps);
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * scale * w[i];
}

void ck_rms_norm_vectors_ref(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps) {
    for (int64_t v = 0; v < count; v++) ck_rms_norm(x + v * width, w, y + v * width, width, eps);
}

/// c[i], s[i] for the next n pairs: cos and sin of *theta, which is then multiplied by scale
/// (ggml's repeated multiplication; every rope entry point runs this one sequence).
static void angles_from(float *theta, float scale, int64_t n, float *c, float *s) {
    for (int64_t i = 0; i < n; i++, *theta *= scale) {
        c[i] = cosf(*theta);
        s[i] = sinf(*theta);
    }
}

/// Rotates pairs [i0, i0 + n) of every head by (c[i - i0], s[i - i0]). Heads outside, pairs
/// inside: the pair loop vectorizes (the other order was scalar, ~2 % of a Gemma 3 prefill).
static void rotate_pairs(float *x, int64_t n_heads, int64_t head_dim, int64_t half, int64_t i0, int64_t n,
                         const float *c, const float *s, int neox) {
    for (int64_t h = 0; h < n_heads; h++) {
        float *head = x + h * head_dim;
        if (neox) {
            float *lo = head + i0, *hi = head + i0 + half;
            for (int64_t i = 0; i < n; i++) {
                const float x0 = lo[i], x1 = hi[i];
                lo[i] = x0 * c[i] - x1 * s[i];
                hi[i] = x0 * s[i] + x1 * c[i];
            }
        } else {
            float *pair = head + 2 * i0;
            for (int64_t i = 0; i < n; i++) {
                const float x0 = pair[2 * i], x1 = pair[2 * i + 1];
                pair[2 * i] = x0 * c[i] - x1 * s[i];
                pair[2 * i + 1] = x0 * s[i] + x1 * c[i];
            }
        }
    }
}

void ck_rope(float *x, int64_t n_heads, int64_t head_dim, int64_t n_rot, int64_t pos, float base, int neox) {
    const float scale = powf(base, -2.0f / (float)n_rot);
    const int64_t half = n_rot / 2;
    enum { PAIRS = 64 };   // angles a stack chunk at a time
    float theta = (float)pos, c[PAIRS], s[PAIRS];
    for (int64_t i0 = 0; i0 < half; i0 += PAIRS) {
        const int64_t n = half - i0 < PAIRS ? half - i0 : PAIRS;
        angles_from(&theta, scale, n, c, s);
        rotate_pairs(x, n_heads, head_dim, half, i0, n, c, s, neox);
    }
}

void ck_rope_angles(int64_t pos, int64_t n_rot, float base, float *c, float *s) {
    float theta = (float)pos;
    angles_from(&theta, powf(base, -2.0f / (float)n_rot), n_rot / 2, c, s);
}

void ck_rope_apply(float *x, int64_t n_heads, int64_t head_dim, int64_t n_rot, const float *c, const float *s, int neox) {
    rotate_pairs(x, n_heads, head_dim, n_rot / 2, 0, n_rot / 2, c, s, neox);
}

/// silu(g) * u as ck_swiglu_avx2 computes each lane: e^(0 - g) by the canonical exp, then
/// g / (1 + e) * u.
void ck_swiglu_ref(float *gate, const float *up, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        const float g = gate[i];
        const float e = ck_exp_scalar(0.0f - g);
        gate[i] = g / (1.0f + e) * up[i];
    }
}

void ck_swiglu(float *gate, const float *up, int64_t n) {
    ck_kernels(ck_kernel_path_get())->swiglu(gate, up, n);
}

/// gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in fp32.
static float gelu_tanh(float x) {
    const float sqrt_2_over_pi = 0.79788456080286535587989211986876f;
    return 0.5f * x * (1.0f + tanhf(sqrt_2_over_pi * x * (1.0f + 0.044715f * x * x)));
}

/// gelu_tanh of every fp16 value, rounded to fp16 and held as fp32 (exact), indexed by the fp16
/// bits (4 bytes x 65536), built once on first use. fp32 entries so the AVX2 twin can gather
/// them directly.
static float gelu_table[1 << 16];
static pthread_once_t gelu_table_once = PTHREAD_ONCE_INIT;

static void build_gelu_table(void) {
    for (uint32_t h = 0; h < (1u << 16); h++)
        gelu_table[h] = ck_fp16_to_fp32(ck_fp32_to_fp16(gelu_tanh(ck_fp16_to_fp32((ck_half)h))));
}

const float *ck_gelu_table(void) {
    pthread_once(&gelu_table_once, build_gelu_table);
    return gelu_table;
}

void ck_geglu_ref(float *gate, const float *up, int64_t n) {
    const float *table = ck_gelu_table();
    for (int64_t i = 0; i < n; i++) {
        const float g = gate[i];
        // Outside (-10, 10) gelu is 0 or g to fp32 precision; inside, the fp16 table.
        if (g <= -10.0f) gate[i] = 0.0f;
        else if (g >= 10.0f) gate[i] = g * up[i];
        else gate[i] = table[ck_fp32_to_fp16(g)] * up[i];
    }
}

void ck_geglu(float *gate, const float *up, int64_t n) {
    ck_kernels(ck_kernel_path_get())->geglu(gate, up, n);
}

void ck_add(float *y, const float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] += x[i];
}

void ck_scale(float *x, float s, int64_t n) {
    for (int64_t i = 0; i < n; i++) x[i] *= s;
}
