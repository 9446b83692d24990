// ARM64 matmul of MXFP8 weights (E4M3 / E5M2), and of F16 and BF16 (below), with fp32 activations, every ARM path (ARMv8.0
// has what it needs). The 8-bit codes become exact fp32 values through FP16 conversion (FCVTL),
// not FP16 arithmetic: an E5M2 code is the top byte of the binary16 with the same value; an E4M3
// code's sign and 7 exponent/mantissa bits shifted into a binary16 give its value times 2^-8
// (subnormals included), so one exact multiply by 256 follows. Code S.1111.111 (E4M3 NaN) reads
// as 480 and the repacked block's scale code is 255, NaN (repack.c), so the output is NaN as in
// the reference.
// Per output and block, in k order: p = fma(w[i], x[i], p); then acc = fma(scale, p, acc): the
// reference's operations (matmul_ref.c), so its bits. The repacked codes are k-major (one 16-byte
// load = one k of 16 rows; a band's four groups side by side); a block is converted once per
// tile of activation rows. F16 and BF16 weights take the same kernel: their repacked values
// (k-major, two bytes each) convert exactly (FCVTL; BF16 by a 16-bit left shift) and their block
// scale is 1 (acc = fma(1, p, acc) = acc + p, as the reference).
#pragma STDC FP_CONTRACT OFF

#include "matmul_neon_common.h"

#if defined(__aarch64__)

/// 16 codes (one k, 16 rows) -> 16 fp32 values in out[0..15].
static inline void fp8_to_fp32(uint8x16_t c, int e4m3, float out[16]) {
    uint16x8_t h[2];
    if (e4m3) {
        const uint8x16_t sign = vandq_u8(c, vdupq_n_u8(0x80)), mag = vandq_u8(c, vdupq_n_u8(0x7F));
        h[0] = vorrq_u16(vshll_n_u8(vget_low_u8(sign), 8), vshlq_n_u16(vmovl_u8(vget_low_u8(mag)), 7));
        h[1] = vorrq_u16(vshll_n_u8(vget_high_u8(sign), 8), vshlq_n_u16(vmovl_high_u8(mag), 7));
    } else {
        h[0] = vshll_n_u8(vget_low_u8(c), 8);
        h[1] = vshll_high_n_u8(c, 8);
    }
    for (int p = 0; p < 2; p++) {
        float32x4_t lo = vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h[p])));
        float32x4_t hi = vcvt_high_f32_f16(vreinterpretq_f16_u16(h[p]));
        if (e4m3) { lo = vmulq_n_f32(lo, 256.0f); hi = vmulq_n_f32(hi, 256.0f); }
        vst1q_f32(out + 8 * p, lo);
        vst1q_f32(out + 8 * p + 4, hi);
    }
}

/// 16 halves or bfloat16s (one k, 16 rows) -> 16 fp32 values in out[0..15].
static inline void half16_to_fp32(const uint16_t *h, int bf16, float out[16]) {
    for (int p = 0; p < 2; p++) {
        const uint16x8_t v = vld1q_u16(h + 8 * p);
        if (bf16) {
            vst1q_f32(out + 8 * p, vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(v), 16)));
            vst1q_f32(out + 8 * p + 4, vreinterpretq_f32_u32(vshll_high_n_u16(v, 16)));
        } else {
            vst1q_f32(out + 8 * p, vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(v))));
            vst1q_f32(out + 8 * p + 4, vcvt_high_f32_f16(vreinterpretq_f16_u16(v)));
        }
    }
}

void ck_matmul_float_neon(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const int bf16 = w->format == CK_WF_BF16, f16 = w->format == CK_WF_F16 || bf16;   // f16: a 16-bit float kind
    if (w->format != CK_WF_MXFP8_E4M3 && w->format != CK_WF_MXFP8_E5M2 && !f16) { ck_matmul_ref(d, w, a, y, n0, n1); return; }
    const int e4m3 = w->format == CK_WF_MXFP8_E4M3;
    static const float unit[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const int64_t nb = d->k / 32;
    if (n1 > d->n) n1 = d->n;
    // A band's four groups side by side, block by block: the band is one stream (ck_weights).
    enum { GROUPS = CK_FLOAT_BAND / CK_R };
    float acc[GROUPS][NEON_ROW_TILE][16], wf[32][16];
    for (int64_t band = n0 / CK_FLOAT_BAND; band * CK_FLOAT_BAND < n1; band++) {
        const int64_t g_lo = band * GROUPS > n0 / CK_R ? band * GROUPS : n0 / CK_R;
        const int64_t g_hi = (band + 1) * GROUPS < (n1 + CK_R - 1) / CK_R ? (band + 1) * GROUPS : (n1 + CK_R - 1) / CK_R;
        for (int64_t m0 = 0; m0 < d->m; m0 += NEON_ROW_TILE) {
            const int64_t mt = d->m - m0 < NEON_ROW_TILE ? d->m - m0 : NEON_ROW_TILE;
            memset(acc, 0, sizeof acc);
            for (int64_t b = 0; b < nb; b++)
                for (int64_t g = g_lo; g < g_hi; g++) {
                    float (*ga)[16] = acc[g - band * GROUPS];
                    float codes_scale[16];
                    if (!f16)
                        for (int r = 0; r < 4; r++)
                            vst1q_f32(codes_scale + 4 * r, neon_e8m0_bits4((const uint8_t *)w->dw + ck_float_scale_index(nb, g * CK_R, b) + 4 * r,
                                                                           CK_MXFP8_E8M0_OFFSET));
                    const float *scale = f16 ? unit : codes_scale;
                    if (f16) {
                        const uint16_t *halves = (const uint16_t *)w->qs;
                        for (int i = 0; i < 32; i++) half16_to_fp32(halves + ck_float_value_index(nb, g * CK_R, b, i), bf16, wf[i]);
                    } else {
                        for (int i = 0; i < 32; i++) fp8_to_fp32(vld1q_u8(w->qs + ck_float_value_index(nb, g * CK_R, b, i)), e4m3, wf[i]);
                    }
                    for (int64_t t = 0; t < mt; t++) {
                        const float *x = a->x + (m0 + t) * d->k + 32 * b;
                        float32x4_t p[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
                        for (int i = 0; i < 32; i++) {
                            const float32x4_t xi = vdupq_n_f32(x[i]);
                            for (int r = 0; r < 4; r++) p[r] = vfmaq_f32(p[r], vld1q_f32(wf[i] + 4 * r), xi);
                        }
                        for (int r = 0; r < 4; r++)
                            vst1q_f32(ga[t] + 4 * r, vfmaq_f32(vld1q_f32(ga[t] + 4 * r), vld1q_f32(scale + 4 * r), p[r]));
                    }
                }
            for (int64_t g = g_lo; g < g_hi; g++)
                for (int64_t t = 0; t < mt; t++) neon_store(d, y, m0 + t, g, n1, acc[g - band * GROUPS][t]);
        }
    }
}

#endif
