// Reference dequantizers, one per GGUF type; layouts in ck_blocks.h.
//
// Bit-exact with ggml and the `gguf` Python package: each element is computed with the same
// fp32 operations in the same order. Contraction into FMA would change rounding, so it is off.
#pragma STDC FP_CONTRACT OFF

#include <string.h>
#include "ck_dequant.h"
#include "ck_convert.h"

int64_t ck_type_block_size(ck_type type) {
    switch (type) {
    case CK_TYPE_F32: case CK_TYPE_F16: case CK_TYPE_BF16: return 1;
    case CK_TYPE_Q4_0: case CK_TYPE_Q4_1: case CK_TYPE_Q5_0: case CK_TYPE_Q5_1:
    case CK_TYPE_Q8_0: case CK_TYPE_Q8_1: case CK_TYPE_IQ4_NL: return CK_QK32;
    case CK_TYPE_Q3_K: case CK_TYPE_Q4_K: case CK_TYPE_Q5_K: case CK_TYPE_Q6_K: case CK_TYPE_Q8_K: case CK_TYPE_IQ4_XS: return CK_QK_K;
    }
    return 0;
}

int64_t ck_type_block_bytes(ck_type type) {
    switch (type) {
    case CK_TYPE_F32: return 4;
    case CK_TYPE_F16: case CK_TYPE_BF16: return 2;
    case CK_TYPE_Q4_0: return sizeof(ck_block_q4_0);
    case CK_TYPE_Q4_1: return sizeof(ck_block_q4_1);
    case CK_TYPE_Q5_0: return sizeof(ck_block_q5_0);
    case CK_TYPE_Q5_1: return sizeof(ck_block_q5_1);
    case CK_TYPE_Q8_0: return sizeof(ck_block_q8_0);
    case CK_TYPE_Q8_1: return sizeof(ck_block_q8_1);
    case CK_TYPE_IQ4_NL: return sizeof(ck_block_iq4_nl);
    case CK_TYPE_IQ4_XS: return sizeof(ck_block_iq4_xs);
    case CK_TYPE_Q3_K: return sizeof(ck_block_q3_K);
    case CK_TYPE_Q4_K: return sizeof(ck_block_q4_K);
    case CK_TYPE_Q5_K: return sizeof(ck_block_q5_K);
    case CK_TYPE_Q6_K: return sizeof(ck_block_q6_K);
    case CK_TYPE_Q8_K: return sizeof(ck_block_q8_K);
    }
    return 0;
}

void ck_dequantize_row_f32(const float *x, float *y, int64_t n) { memcpy(y, x, (size_t)n * sizeof(float)); }

void ck_dequantize_row_f16(const ck_half *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = ck_fp16_to_fp32(x[i]);
}

void ck_dequantize_row_bf16(const ck_bf16 *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = ck_bf16_to_fp32(x[i]);
}

void ck_dequantize_row_q4_0(const ck_block_q4_0 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK32; b++, y += CK_QK32) {
        const float d = ck_fp16_to_fp32(x[b].d);
        for (int j = 0; j < 16; j++) {
            y[j] = d * (float)((x[b].qs[j] & 0x0F) - 8);
            y[j + 16] = d * (float)((x[b].qs[j] >> 4) - 8);
        }
    }
}

void ck_dequantize_row_q4_1(const ck_block_q4_1 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK32; b++, y += CK_QK32) {
        const float d = ck_fp16_to_fp32(x[b].d), m = ck_fp16_to_fp32(x[b].m);
        for (int j = 0; j < 16; j++) {
            y[j] = d * (float)(x[b].qs[j] & 0x0F) + m;
            y[j + 16] = d * (float)(x[b].qs[j] >> 4) + m;
        }
    }
}

void ck_dequantize_row_q5_0(const ck_block_q5_0 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK32; b++, y += CK_QK32) {
        const float d = ck_fp16_to_fp32(x[b].d);
        uint32_t qh; memcpy(&qh, x[b].qh, 4);
        for (int j = 0; j < 16; j++) {
            const int lo = (x[b].qs[j] & 0x0F) | (int)(((qh >> j) & 1) << 4);
            const int hi = (x[b].qs[j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
            y[j] = d * (float)(lo - 16);
            y[j + 16] = d * (float)(hi - 16);
        }
    }
}

void ck_dequantize_row_q5_1(const ck_block_q5_1 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK32; b++, y += CK_QK32) {
        const float d = ck_fp16_to_fp32(x[b].d), m = ck_fp16_to_fp32(x[b].m);
        uint32_t qh; memcpy(&qh, x[b].qh, 4);
        for (int j = 0; j < 16; j++) {
            const int lo = (x[b].qs[j] & 0x0F) | (int)(((qh >> j) & 1) << 4);
            const int hi = (x[b].qs[j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
            y[j] = d * (float)lo + m;
            y[j + 16] = d * (float)hi + m;
        }
    }
}

void ck_dequantize_row_q8_0(const ck_block_q8_0 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK32; b++, y += CK_QK32) {
        const float d = ck_fp16_to_fp32(x[b].d);
        for (int j = 0; j < CK_QK32; j++) y[j] = (float)x[b].qs[j] * d;
    }
}

/// Unpacks the 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K super-block.
static inline void scale_min_k4(int j, const uint8_t *q, uint8_t *sc, uint8_t *m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

void ck_dequantize_row_q4_K(const ck_block_q4_K *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK_K; b++) {
        const float d = ck_fp16_to_fp32(x[b].d), dmin = ck_fp16_to_fp32(x[b].dmin);
        const uint8_t *q = x[b].qs;
        // Four chunks of 64: low nibbles are sub-block 2c, high nibbles sub-block 2c+1.
        for (int c = 0; c < 4; c++, q += 32) {
            uint8_t sc, m;
            scale_min_k4(2 * c, x[b].scales, &sc, &m);
            const float d1 = d * (float)sc, m1 = dmin * (float)m;
            scale_min_k4(2 * c + 1, x[b].scales, &sc, &m);
            const float d2 = d * (float)sc, m2 = dmin * (float)m;
            for (int l = 0; l < 32; l++) *y++ = d1 * (float)(q[l] & 0x0F) - m1;
            for (int l = 0; l < 32; l++) *y++ = d2 * (float)(q[l] >> 4) - m2;
        }
    }
}

void ck_dequantize_row_q5_K(const ck_block_q5_K *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK_K; b++) {
        const float d = ck_fp16_to_fp32(x[b].d), dmin = ck_fp16_to_fp32(x[b].dmin);
        const uint8_t *ql = x[b].qs, *qh = x[b].qh;
        uint8_t u1 = 1, u2 = 2;   // the qh bits that hold the fifth bit of this chunk's halves
        for (int c = 0; c < 4; c++, ql += 32, u1 <<= 2, u2 <<= 2) {
            uint8_t sc, m;
            scale_min_k4(2 * c, x[b].scales, &sc, &m);
            const float d1 = d * (float)sc, m1 = dmin * (float)m;
            scale_min_k4(2 * c + 1, x[b].scales, &sc, &m);
            const float d2 = d * (float)sc, m2 = dmin * (float)m;
            for (int l = 0; l < 32; l++) *y++ = d1 * (float)((ql[l] & 0x0F) + (qh[l] & u1 ? 16 : 0)) - m1;
            for (int l = 0; l < 32; l++) *y++ = d2 * (float)((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
        }
    }
}

void ck_dequantize_row_q3_K(const ck_block_q3_K *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK_K; b++) {
        const float d = ck_fp16_to_fp32(x[b].d);
        // 32-element run j: two bits at 2(j%4) of qs[32(j/4) + l], the third bit j of hmask[l]
        // (clear means minus 4), scale codes 2j (elements 0..15) and 2j + 1.
        for (int j = 0; j < 8; j++, y += 32) {
            const uint8_t *q = x[b].qs + 32 * (j / 4);
            for (int l = 0; l < 32; l++) {
                const float dl = d * (float)(ck_q3_K_scale(&x[b], 2 * j + l / 16) - 32);
                const int v = ((q[l] >> (2 * (j % 4))) & 3) - ((x[b].hmask[l] >> j) & 1 ? 0 : 4);
                y[l] = dl * (float)v;
            }
        }
    }
}

void ck_dequantize_row_q6_K(const ck_block_q6_K *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK_K; b++) {
        const float d = ck_fp16_to_fp32(x[b].d);
        const uint8_t *ql = x[b].ql, *qh = x[b].qh;
        const int8_t *sc = x[b].scales;
        // Two halves of 128 elements, each four runs of 32 sharing ql/qh bytes.
        for (int half = 0; half < 2; half++, y += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; l++) {
                const int is = l / 16;
                const int q1 = (int)((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = (int)((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = (int)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = (int)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l] = d * (float)sc[is] * (float)q1;
                y[l + 32] = d * (float)sc[is + 2] * (float)q2;
                y[l + 64] = d * (float)sc[is + 4] * (float)q3;
                y[l + 96] = d * (float)sc[is + 6] * (float)q4;
            }
        }
    }
}

/// 32 IQ4 values: y[j] = d * value(code j), codes as Q4_0's nibbles (IQ4_NL, an IQ4_XS sub-block).
static void iq4_block32(float d, const uint8_t qs[16], float y[32]) {
    static const int8_t values[16] = {CK_IQ4_NL_VALUES};
    for (int j = 0; j < 16; j++) {
        y[j] = d * (float)values[qs[j] & 15];
        y[j + 16] = d * (float)values[qs[j] >> 4];
    }
}

void ck_dequantize_row_iq4_nl(const ck_block_iq4_nl *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK32; b++) iq4_block32(ck_fp16_to_fp32(x[b].d), x[b].qs, y + b * CK_QK32);
}

void ck_dequantize_row_iq4_xs(const ck_block_iq4_xs *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK_K; b++) {
        const float d = ck_fp16_to_fp32(x[b].d);
        for (int j = 0; j < 8; j++, y += 32) iq4_block32(d * (float)(ck_iq4_xs_scale(&x[b], j) - 32), x[b].qs + 16 * j, y);
    }
}

int ck_dequantize_row(ck_type type, const void *x, float *y, int64_t n) {
    const int64_t bs = ck_type_block_size(type);
    if (bs == 0 || n < 0 || n % bs != 0) return -1;
    switch (type) {
    case CK_TYPE_F32: ck_dequantize_row_f32(x, y, n); return 0;
    case CK_TYPE_F16: ck_dequantize_row_f16(x, y, n); return 0;
    case CK_TYPE_BF16: ck_dequantize_row_bf16(x, y, n); return 0;
    case CK_TYPE_Q4_0: ck_dequantize_row_q4_0(x, y, n); return 0;
    case CK_TYPE_Q4_1: ck_dequantize_row_q4_1(x, y, n); return 0;
    case CK_TYPE_Q5_0: ck_dequantize_row_q5_0(x, y, n); return 0;
    case CK_TYPE_Q5_1: ck_dequantize_row_q5_1(x, y, n); return 0;
    case CK_TYPE_Q8_0: ck_dequantize_row_q8_0(x, y, n); return 0;
    case CK_TYPE_Q4_K: ck_dequantize_row_q4_K(x, y, n); return 0;
    case CK_TYPE_Q5_K: ck_dequantize_row_q5_K(x, y, n); return 0;
    case CK_TYPE_Q3_K: ck_dequantize_row_q3_K(x, y, n); return 0;
    case CK_TYPE_Q6_K: ck_dequantize_row_q6_K(x, y, n); return 0;
    case CK_TYPE_IQ4_NL: ck_dequantize_row_iq4_nl(x, y, n); return 0;
    case CK_TYPE_IQ4_XS: ck_dequantize_row_iq4_xs(x, y, n); return 0;
    default: return -1;
    }
}
