// Reference matmul: the specification every SIMD path must reproduce (see ck_matmul.h).
//
// Reads the original (GGUF or MX) blocks through ck_decode_block32, one output at a time, with
// the canonical fp32 operation sequence spelled out with fmaf. Slow by design.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include "ck_matmul.h"
#include "ck_convert.h"

/// One output of an integer format: row `row` of W (raw blocks) against quantized activation row m.
static float dot_int(ck_weight_format f, const void *row, const ck_act *a, int64_t m) {
    const int64_t nb = a->k / 32;
    const int8_t *q = a->q + m * a->k;
    const float *meta = a->meta + m * nb * CK_ACT_META;
    float acc = 0.0f;
    for (int64_t b = 0; b < nb; b++, q += 32, meta += CK_ACT_META) {
        uint8_t u[32];
        float dw, mw;
        ck_decode_block32(f, row, b, u, &dw, &mw);
        int32_t dot = 0;
        for (int i = 0; i < 32; i++) dot += (int32_t)u[i] * q[i];
        acc = fmaf((float)dot * dw, meta[0], acc);
        acc = fmaf(mw, meta[1], acc);
    }
    return acc;
}

/// One output of a K-quant (Q3_K, Q4_K, Q5_K, Q6_K; Q8_K activations, one da per 256): per
/// super-block its integer terms, exact in int32, then one or two fp32 steps (ck_matmul.h).
static float dot_kquant(const ck_format_info *info, ck_weight_format f, const void *row, const ck_act *a, int64_t m) {
    const int64_t nb = a->k / 32;
    const int8_t *q = a->q + m * a->k;
    const float *meta = a->meta + m * nb * CK_ACT_META;
    float acc = 0.0f;
    for (int64_t sb = 0; sb < nb / 8; sb++) {
        ck_kscales ks;
        ck_kscales_of(f, row, sb, &ks);
        int32_t s = 0, mins = 0;
        for (int j = 0; j < 8; j++, q += 32) {
            uint8_t u[32];
            float dw, mw;   // 0 for the K-quants: their scales are ks
            ck_decode_block32(f, row, sb * 8 + j, u, &dw, &mw);
            for (int h = 0; h < 2; h++) {
                int32_t dot = 0, sum = 0;
                for (int i = 16 * h; i < 16 * h + 16; i++) { dot += (int32_t)u[i] * q[i]; sum += q[i]; }
                s += ks.sc[j][h] * (dot - info->off * sum);
                mins += ks.m[j] * sum;
            }
        }
        const float da = meta[(sb * 8 + 7) * CK_ACT_META];   // Q8_K: the same in the 8 blocks
        acc = fmaf((float)s * ck_fp16_to_fp32(ks.d), da, acc);
        if (info->nsc == 1) acc = fmaf((float)mins * -ck_fp16_to_fp32(ks.dmin), da, acc);
    }
    return acc;
}

/// One output of a float format: F32 a sequential fp32 FMA over k; F16, BF16 and MXFP8 per
/// 32-block a partial sum p = fma(w[i], x[i], p) in k order, then acc = fma(scale, p, acc) with
/// the block scale (MXFP8) or 1 (F16, BF16: acc + p, exactly), the order their SIMD kernels keep.
static float dot_float(ck_weight_format f, const void *row, const float *x, int64_t k) {
    float acc = 0.0f;
    switch (f) {
    case CK_WF_F32: {
        const float *w = row;
        for (int64_t i = 0; i < k; i++) acc = fmaf(w[i], x[i], acc);
        break;
    }
    case CK_WF_F16: case CK_WF_BF16: {
        const uint16_t *w = row;
        for (int64_t b = 0; b < k / 32; b++) {
            float p = 0.0f;
            for (int i = 0; i < 32; i++) {
                const float v = f == CK_WF_F16 ? ck_fp16_to_fp32(w[b * 32 + i]) : ck_bf16_to_fp32(w[b * 32 + i]);
                p = fmaf(v, x[b * 32 + i], p);
            }
            acc = fmaf(1.0f, p, acc);
        }
        break;
    }
    case CK_WF_MXFP8_E4M3: case CK_WF_MXFP8_E5M2: {
        const ck_mx_elem kind = f == CK_WF_MXFP8_E4M3 ? CK_MX_E4M3 : CK_MX_E5M2;
        const ck_block_mxfp8 *w = row;
        for (int64_t b = 0; b < k / 32; b++) {
            float p = 0.0f;
            for (int i = 0; i < 32; i++) p = fmaf(ck_mx_elem_decode(kind, w[b].qs[i]), x[b * 32 + i], p);
            acc = fmaf(ck_e8m0_to_fp32(w[b].e), p, acc);
        }
        break;
    }
    default: break;
    }
    return acc;
}

void ck_matmul_ref(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    if (n1 > d->n) n1 = d->n;
    for (int64_t n = n0; n < n1; n++) {
        const void *row = (const uint8_t *)w->raw + n * w->raw_row_bytes;
        for (int64_t m = 0; m < d->m; m++) {
            const float v = info.kscale_rec ? dot_kquant(&info, w->format, row, a, m)
                          : info.int8_path  ? dot_int(w->format, row, a, m)
                                            : dot_float(w->format, row, a->x + m * d->k, d->k);
            float *out = y + m * d->n + n;
            *out = d->accumulate ? *out + v : v;
        }
    }
}
