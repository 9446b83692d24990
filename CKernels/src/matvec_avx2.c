// AVX2 single-row (M = 1, decode) twin of ck_matmul_ref for the integer formats: streams the
// repacked weights once, at the speed of a plain read when it can.
//
// Decode reads every weight byte once per token from DRAM, so the loop is shaped for the memory
// system rather than for reuse: one group of 16 rows at a time, its blocks in address order, so
// the weight bytes (and each scale plane) are consumed as one forward stream per array and the
// next group starts where this one ended; software prefetches run CK_DECODE_PF_BYTES ahead of
// the loads so DRAM is already fetching while the current lines are unpacked. Both 8-row halves of a block
// share the activation broadcasts. The integer dots use the same non-saturating i16 partial
// sums as the prefill tiles (see matmul_avx2.c) and the fp32 epilogue (the K-quants': their
// integer super-block sums, then its fp32 steps) is the reference's, lane by lane, so results
// are bit-identical to ck_matmul_ref.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include "matmul_avx2_common.h"

/// Value classes: 4-bit nibbles, Q5_0's compact nibbles + fifth-bit plane,
/// Q6_K's nibbles + 2-bit planes (two scales per block), 8-bit bytes, MXFP4's 4-bit codes
/// (nibbles looked up in CK_MXFP4_U, u <= 24), IQ4_NL's and IQ4_XS's 4-bit codes (u <= 241, looked up as
/// its high and low nibbles, CK_IQ4_NL_U >> 4 and & 15, then as V_S8), Q3_K's 2-bit and 1-bit planes
/// (u <= 7, two scales per block).
enum { V_U4, V_U5C, V_Q6, V_S8, V_C4, V_C4W, V_Q3 };

/// A 16-entry table in both 128-bit lanes (vpshufb looks up within lanes).
T256 INLINE __m256i lanes16(const uint8_t *table) { return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table)); }

/// Bits 2j..2j+1 of every byte of a 2-bit plane (Q6_K, ck_weights) moved to bits 4-5, masked.
/// 16-bit shifts are fine: for shifts of at most 4 the bits that land on bits 4-5 come from the
/// same byte.
T256 INLINE __m256i top2_bits(__m256i x, const int j) {
    const __m256i b45 = _mm256_set1_epi8(0x30);
    if (j < 2) return _mm256_and_si256(_mm256_slli_epi16(x, 4 - 2 * j), b45);
    if (j > 2) return _mm256_and_si256(_mm256_srli_epi16(x, 2), b45);
    return _mm256_and_si256(x, b45);
}

T256 INLINE void prefetch_range(const uint8_t *p, int bytes) {
    for (int o = 0; o < bytes; o += 64) _mm_prefetch((const char *)p + o, _MM_HINT_T0);
}

/// Rows [16g, 16g + 16) of y (nvalid of them stored) for one activation row.
T256 INLINE void group(const ck_weights *w, const ck_act *a, float *y, int64_t g, int nvalid, int accumulate,
                       float negoff, const int V, const int NSC, const int HASMIN, const int SC) {
    const int64_t nb = w->k / 32;
    const int qb = V == V_U4 || V == V_C4 || V == V_C4W ? 256 : V == V_U5C ? CK_Q5_0_COMPACT_BYTES : V == V_Q6 ? CK_Q6_K_PACKED_BYTES
                 : V == V_Q3 ? CK_Q3_K_PACKED_BYTES : 512;   // per block and group
    const int64_t dwb = ck_dw_block_bytes(NSC, SC), mwb = ck_mw_block_bytes(HASMIN, SC);
    const uint8_t *q = (V == V_U5C ? w->qs_dec : w->qs) + g * nb * qb;
    const uint8_t *dwp = (const uint8_t *)w->dw + g * nb * dwb;
    const uint8_t *mwp = mwb ? (const uint8_t *)w->mw + g * nb * mwb : NULL;
    const int8_t *aq = a->q;
    const float *meta = a->meta;
    const __m256i ones = _mm256_set1_epi16(1), low4 = _mm256_set1_epi8(0x0F);
    const __m256 vneg = _mm256_set1_ps(negoff);
    const int off = -(int)negoff;
    // The code4 formats' u table (MXFP4, IQ4_NL, IQ4_XS), looked up once a group: read inside
    // the block loop, the call (an external function) cost a vzeroupper and spills per block
    // (MXFP4 decode ran at half of Q4_0's bytes a second).
    const int CODE4 = V == V_C4 || V == V_C4W;
    const __m256i code_u = CODE4 ? lanes16(ck_code4_u(w->format)) : low4;
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    __m256i ksum[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};   // K-quants: sum of code * dot this super-block
    const int64_t ahead = CK_DECODE_PF_BYTES;   // read once a group
    for (int64_t b = 0; b < nb; b++, q += qb, aq += 32, meta += CK_ACT_META) {
        prefetch_range(q + ahead, qb);
        _mm_prefetch((const char *)dwp + b * dwb + ahead / 8, _MM_HINT_T0);
        if (mwb) _mm_prefetch((const char *)mwp + b * mwb + ahead / 8, _MM_HINT_T0);
        // What each flushed i16 partial is multiplied by as vpmaddwd widens it: ones, or for the
        // K-quants its rows' codes as pairs (the prefill's form; a block's dots then need no
        // vpmulld and its codes no lane-crossing widening), m1 for a block's second 16 elements.
        const uint8_t *rec = SC == CK_SC_K ? ck_kscale_record(w->dw, nb, g, b, NSC) : NULL;
        __m256i m0[2] = {ones, ones}, m1[2] = {ones, ones};
        if (SC == CK_SC_K)
            UNROLL for (int s = 0; s < 2; s++) ck_block_code_pairs8(rec, b, s, NSC, &m0[s], &m1[s]);
        __m256i dot0[2], dot1[2];
        if (V == V_U4) {
            // u <= 15: |pair| <= 3810, all 8 quads of a half fit one i16 partial.
            __m256i p[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i alo = ck_bcast4(aq + 4 * j), ahi = ck_bcast4(aq + 16 + 4 * j);
                UNROLL for (int s = 0; s < 2; s++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(q + 64 * j + 32 * s));
                    const __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                    p[s] = _mm256_add_epi16(p[s], _mm256_maddubs_epi16(lo, alo));
                    p[s] = _mm256_add_epi16(p[s], _mm256_maddubs_epi16(hi, ahi));
                }
            }
            UNROLL for (int s = 0; s < 2; s++) dot0[s] = _mm256_madd_epi16(p[s], m0[s]);
        } else if (V == V_Q3) {
            // u <= 7: |pair| <= 1778, the four quads of each half-block fit one i16 partial; the
            // elements 0..15 (dot0) and 16..31 (dot1) have scales of their own.
            __m256i pl[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()}, ph[2] = {pl[0], pl[1]};
            const __m256i x[2] = {_mm256_loadu_si256((const __m256i *)(q + 128)), _mm256_loadu_si256((const __m256i *)(q + 160))};
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i alo = ck_bcast4(aq + 4 * j), ahi = ck_bcast4(aq + 16 + 4 * j);
                UNROLL for (int s = 0; s < 2; s++) {
                    const __m256i v2 = _mm256_loadu_si256((const __m256i *)(q + 64 * (j / 2) + 32 * s));
                    pl[s] = _mm256_add_epi16(pl[s], _mm256_maddubs_epi16(ck_q3_values(v2, x[s], j, 0), alo));
                    ph[s] = _mm256_add_epi16(ph[s], _mm256_maddubs_epi16(ck_q3_values(v2, x[s], j, 1), ahi));
                }
            }
            UNROLL for (int s = 0; s < 2; s++) {
                dot0[s] = _mm256_madd_epi16(pl[s], m0[s]);
                dot1[s] = _mm256_madd_epi16(ph[s], m1[s]);
            }
        } else if (V == V_U5C || V == V_C4) {
            // nibble | fifth bit << 4 (<= 31): |pair| <= 7874; MXFP4's looked-up codes (<= 24):
            // 6096; either way flush to i32 every 4 maddubs.
            __m256i p[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            dot0[0] = dot0[1] = _mm256_setzero_si256();
            __m256i x[2] = {low4, low4};
            if (V == V_U5C) x[0] = _mm256_loadu_si256((const __m256i *)(q + 256)), x[1] = _mm256_loadu_si256((const __m256i *)(q + 288));
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i alo = ck_bcast4(aq + 4 * j), ahi = ck_bcast4(aq + 16 + 4 * j);
                UNROLL for (int s = 0; s < 2; s++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(q + 64 * j + 32 * s));
                    __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                    if (V == V_C4) {
                        lo = _mm256_shuffle_epi8(code_u, lo);
                        hi = _mm256_shuffle_epi8(code_u, hi);
                    } else {
                        lo = _mm256_or_si256(lo, ck_fifth_bits(x[s], j));
                        hi = _mm256_or_si256(hi, ck_fifth_bits(x[s], 4 + j));
                    }
                    p[s] = _mm256_add_epi16(p[s], _mm256_maddubs_epi16(lo, alo));
                    p[s] = _mm256_add_epi16(p[s], _mm256_maddubs_epi16(hi, ahi));
                }
                if (j % 2 == 1) {
                    UNROLL for (int s = 0; s < 2; s++) {
                        dot0[s] = _mm256_add_epi32(dot0[s], _mm256_madd_epi16(p[s], m0[s]));
                        p[s] = _mm256_setzero_si256();
                    }
                }
            }
        } else if (V == V_Q6) {
            // Each nibble merged with its top two bits (u <= 63): |pair| <= 16002, flush to i32
            // every 2 maddubs; low nibbles are elements 0..15 (dot0), high nibbles 16..31 (dot1).
            __m256i pl[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()}, ph[2] = {pl[0], pl[1]};
            dot0[0] = dot0[1] = dot1[0] = dot1[1] = _mm256_setzero_si256();
            const __m256i xl[2] = {_mm256_loadu_si256((const __m256i *)(q + 256)), _mm256_loadu_si256((const __m256i *)(q + 288))};
            const __m256i xh[2] = {_mm256_loadu_si256((const __m256i *)(q + 320)), _mm256_loadu_si256((const __m256i *)(q + 352))};
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i alo = ck_bcast4(aq + 4 * j), ahi = ck_bcast4(aq + 16 + 4 * j);
                UNROLL for (int s = 0; s < 2; s++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(q + 64 * j + 32 * s));
                    const __m256i lo = _mm256_or_si256(_mm256_and_si256(v, low4), top2_bits(xl[s], j));
                    const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), low4), top2_bits(xh[s], j));
                    pl[s] = _mm256_add_epi16(pl[s], _mm256_maddubs_epi16(lo, alo));
                    ph[s] = _mm256_add_epi16(ph[s], _mm256_maddubs_epi16(hi, ahi));
                }
                if (j % 2 == 1) {
                    UNROLL for (int s = 0; s < 2; s++) {
                        dot0[s] = _mm256_add_epi32(dot0[s], _mm256_madd_epi16(pl[s], m0[s]));
                        dot1[s] = _mm256_add_epi32(dot1[s], _mm256_madd_epi16(ph[s], m1[s]));
                        pl[s] = ph[s] = _mm256_setzero_si256();
                    }
                }
            }
        } else if (V == V_C4W) {
            // IQ4_NL: each code's u = 16*hi + lo, both parts looked up (<= 15), two 4-bit dots as
            // V_S8's: quad j's low codes are elements 4j.., its high codes 16 + 4j...
            const __m256i th = _mm256_and_si256(_mm256_srli_epi16(code_u, 4), low4), tl = _mm256_and_si256(code_u, low4);
            __m256i plo[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            __m256i phi[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i alo = ck_bcast4(aq + 4 * j), ahi = ck_bcast4(aq + 16 + 4 * j);
                UNROLL for (int s = 0; s < 2; s++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(q + 64 * j + 32 * s));
                    const __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                    plo[s] = _mm256_add_epi16(plo[s], _mm256_maddubs_epi16(_mm256_shuffle_epi8(tl, lo), alo));
                    plo[s] = _mm256_add_epi16(plo[s], _mm256_maddubs_epi16(_mm256_shuffle_epi8(tl, hi), ahi));
                    phi[s] = _mm256_add_epi16(phi[s], _mm256_maddubs_epi16(_mm256_shuffle_epi8(th, lo), alo));
                    phi[s] = _mm256_add_epi16(phi[s], _mm256_maddubs_epi16(_mm256_shuffle_epi8(th, hi), ahi));
                }
            }
            UNROLL for (int s = 0; s < 2; s++)
                dot0[s] = _mm256_add_epi32(_mm256_slli_epi32(_mm256_madd_epi16(phi[s], ones), 4), _mm256_madd_epi16(plo[s], ones));
        } else {
            // V_S8: u = 16*hi + lo with nibbles <= 15: two 4-bit dots, each fits one i16 partial.
            __m256i plo[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            __m256i phi[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            UNROLL for (int j = 0; j < 8; j++) {
                const __m256i av = ck_bcast4(aq + 4 * j);
                UNROLL for (int s = 0; s < 2; s++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(q + 64 * j + 32 * s));
                    const __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                    plo[s] = _mm256_add_epi16(plo[s], _mm256_maddubs_epi16(lo, av));
                    phi[s] = _mm256_add_epi16(phi[s], _mm256_maddubs_epi16(hi, av));
                }
            }
            UNROLL for (int s = 0; s < 2; s++)
                dot0[s] = _mm256_add_epi32(_mm256_slli_epi32(_mm256_madd_epi16(phi[s], ones), 4), _mm256_madd_epi16(plo[s], ones));
        }
        const __m256 da = _mm256_set1_ps(meta[0]);
        if (SC == CK_SC_K) {   // integer per super-block, then its fp32 steps (ck_matmul.h)
            UNROLL for (int s = 0; s < 2; s++)   // the dots already carry their codes (m0, m1)
                ksum[s] = _mm256_add_epi32(ksum[s], NSC == 2 ? _mm256_add_epi32(dot0[s], dot1[s]) : dot0[s]);
            if (b % 8 == 7) {
                const int16_t *sums = NSC == 2 ? a->half_sums + 2 * (b - 7) : a->sums + (b - 7);
                UNROLL for (int s = 0; s < 2; s++) {
                    __m256i pairs[8];
                    ck_kterm_pairs8(rec, s, NSC, pairs);
                    acc[s] = ck_kfold8(acc[s], ksum[s], ck_kterm8(pairs, sums, NSC), rec, s, da, off, NSC);
                    ksum[s] = _mm256_setzero_si256();
                }
            }
            continue;
        }
        UNROLL for (int s = 0; s < 2; s++) {
            const __m256 d0 = ck_scales8(w->dw, w->mw, nb, g, b, s, 0, SC);
            const __m256 mw = HASMIN ? ck_scales8(w->dw, w->mw, nb, g, b, s, 2, SC) : _mm256_mul_ps(d0, vneg);
            acc[s] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot0[s]), d0), da, acc[s]);
            acc[s] = _mm256_fmadd_ps(mw, _mm256_set1_ps(meta[1]), acc[s]);
        }
    }
    float *out = y + g * CK_R;
    if (nvalid == CK_R) {
        UNROLL for (int s = 0; s < 2; s++) {
            __m256 v = acc[s];
            if (accumulate) v = _mm256_add_ps(_mm256_loadu_ps(out + 8 * s), v);
            _mm256_storeu_ps(out + 8 * s, v);
        }
    } else {
        float tmp[CK_R];
        _mm256_storeu_ps(tmp, acc[0]);
        _mm256_storeu_ps(tmp + 8, acc[1]);
        for (int i = 0; i < nvalid; i++) out[i] = accumulate ? out[i] + tmp[i] : tmp[i];
    }
}

typedef void (*group_fn)(const ck_weights *, const ck_act *, float *, int64_t, int, int, float);

#define GROUP(NAME, V, NSC, HASMIN, SC)                                                                       \
    T256 static void NAME(const ck_weights *w, const ck_act *a, float *y, int64_t g, int nvalid, int acc, \
                          float negoff) {                                                                     \
        group(w, a, y, g, nvalid, acc, negoff, V, NSC, HASMIN, SC);                                         \
    }
GROUP(g_q4_0, V_U4, 1, 0, CK_SC_F16)
GROUP(g_q4_1, V_U4, 1, 1, CK_SC_F16)
GROUP(g_q4_K, V_U4, 1, 1, CK_SC_K)
GROUP(g_q5_K, V_U5C, 1, 1, CK_SC_K)
GROUP(g_q5_0c, V_U5C, 1, 0, CK_SC_F16)
GROUP(g_q5_1c, V_U5C, 1, 1, CK_SC_F16)
GROUP(g_mxfp4, V_C4, 1, 0, CK_SC_E8)
GROUP(g_iq4_nl, V_C4W, 1, 0, CK_SC_F16)
GROUP(g_iq4_xs, V_C4W, 1, 0, CK_SC_F32)
GROUP(g_q6_K, V_Q6, 2, 0, CK_SC_K)
GROUP(g_q3_K, V_Q3, 2, 0, CK_SC_K)
GROUP(g_q8_0, V_S8, 1, 0, CK_SC_F16)
GROUP(g_mxint8, V_S8, 1, 0, CK_SC_E8I)

T256 void ck_matvec_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    group_fn f;
    switch (w->format) {
    case CK_WF_Q4_0: f = g_q4_0; break;
    case CK_WF_Q4_1: f = g_q4_1; break;
    case CK_WF_Q4_K: f = g_q4_K; break;
    case CK_WF_Q5_0: f = g_q5_0c; break;
    case CK_WF_Q5_1: f = g_q5_1c; break;
    case CK_WF_Q5_K: f = g_q5_K; break;
    case CK_WF_MXFP4: f = g_mxfp4; break;
    case CK_WF_IQ4_NL: f = g_iq4_nl; break;
    case CK_WF_IQ4_XS: f = g_iq4_xs; break;
    case CK_WF_Q6_K: f = g_q6_K; break;
    case CK_WF_Q3_K: f = g_q3_K; break;
    case CK_WF_Q8_0: f = g_q8_0; break;
    case CK_WF_MXINT8: f = g_mxint8; break;
    default: ck_matmul_ref(d, w, a, y, n0, n1); return;
    }
    const float negoff = (float)(-ck_weight_format_info(w->format).off);
    if (n1 > d->n) n1 = d->n;
    for (int64_t g = n0 / CK_R; g * CK_R < n1; g++) {
        const int64_t left = n1 - g * CK_R;
        f(w, a, y, g, left < CK_R ? (int)left : CK_R, (int)d->accumulate, negoff);
    }
}
#endif
