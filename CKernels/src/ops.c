// Reference transformer ops; see ck_ops.h for shapes and contracts.
#include <math.h>
#include <pthread.h>
#include "ck_ops.h"
#include "ck_convert.h"
#include "ck_matmul.h"

void ck_rms_norm(const float *x, const float *w, float *y, int64_t n, float eps) {
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += (double)x[i] * (double)x[i];
    const float scale = 1.0f / sqrtf((float)(sum / (double)n) + eps);
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * scale * w[i];
}

void ck_rope(float *x, int64_t n_heads, int64_t head_dim, int64_t n_rot, int64_t pos, float base, int neox) {
    const float theta_scale = powf(base, -2.0f / (float)n_rot);
    const int64_t half = n_rot / 2;
    float theta = (float)pos;
    for (int64_t i = 0; i < half; i++, theta *= theta_scale) {
        const float c = cosf(theta), s = sinf(theta);
        for (int64_t h = 0; h < n_heads; h++) {
            float *head = x + h * head_dim;
            const int64_t a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
            const float x0 = head[a], x1 = head[b];
            head[a] = x0 * c - x1 * s;
            head[b] = x0 * s + x1 * c;
        }
    }
}

void ck_swiglu_ref(float *gate, const float *up, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        const float g = gate[i];
        gate[i] = g / (1.0f + expf(-g)) * up[i];
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
