// AVX-512 VNNI twins of ck_matmul_ref and ck_quantize_act_ref (same signatures, bit-identical).
//
// Layout (ck_matmul.h): each 64-byte load of the repacked weights is 16 rows x 4 consecutive k
// (u8), so one `vpdpbusd` against the 4 matching activation bytes broadcast to all lanes gives
// 16 rows' partial dots with no horizontal sums, and lane r accumulates row r's fp32 result in
// exactly the reference's order. Tiles:
//  - decode (M = 1): 1 activation row x 1 group, one group after another (see below);
//    the weights stream once, 4-bit formats unpack with one and + one shift + and per 64 bytes,
//    Q5_0 from its compact copy (nibbles + bit-sliced fifth bits, 5.5 bits per weight) with
//    two more shifts, an and and a ternary-logic merge per 64 bytes;
//  - prefill: 8 activation rows x 1 group: each unpacked weight register feeds 8 `vpdpbusd`;
//    the N range is walked in chunks of ~256 KiB of weights (L2-resident) for every 8-row
//    activation tile, so weights leave DRAM/L3 once per chunk and activations stay in L1/L2.
// Per 32-block and output the fp32 epilogue is cvt, mul by dw, fma by da, fma of mw by da*sum;
// the K-quants sum code * dot in int32 over a super-block and take their fp32 steps once a 256.
//
// matmul_avx512_emu.c compiles this file a second time with CK_AVX512_EMULATED against SIMDe's
// portable implementations of the same intrinsics (and renamed entry points), so the kernel's
// correctness is tested on CPUs without AVX-512.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include <math.h>
#include <string.h>
#include "ck_matmul.h"

#include "avx512_target.h"
#include "scales_avx512.h"

T512 INLINE __m512i bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

T512 void ck_quantize_act_avx512(const ck_act *a, int64_t m0, int64_t m1) {
    const int64_t nb = a->k / 32;
    const __m512i lim = _mm512_set1_epi32(127);
    for (int64_t m = m0; m < m1; m++) {
        for (int64_t b = 0; b < nb; b++) {
            const float *x = a->x + m * a->k + b * 32;
            int8_t *q = a->q + m * a->k + b * 32;
            const __m512 x0 = _mm512_loadu_ps(x), x1 = _mm512_loadu_ps(x + 16);
            const __m512 ax = _mm512_max_ps(_mm512_abs_ps(x0), _mm512_abs_ps(x1));
            const float amax = _mm512_reduce_max_ps(ax);
            const float d = amax / 127.0f;
            const float id = d != 0.0f ? 1.0f / d : 0.0f;
            const __m512 vid = _mm512_set1_ps(id);
            // cvtps uses MXCSR rounding (nearest even), as nearbyintf does in the reference.
            __m512i q0 = _mm512_cvtps_epi32(_mm512_mul_ps(x0, vid));
            __m512i q1 = _mm512_cvtps_epi32(_mm512_mul_ps(x1, vid));
            q0 = _mm512_max_epi32(_mm512_min_epi32(q0, lim), _mm512_sub_epi32(_mm512_setzero_si512(), lim));
            q1 = _mm512_max_epi32(_mm512_min_epi32(q1, lim), _mm512_sub_epi32(_mm512_setzero_si512(), lim));
            _mm_storeu_si128((__m128i *)q, _mm512_cvtsepi32_epi8(q0));
            _mm_storeu_si128((__m128i *)(q + 16), _mm512_cvtsepi32_epi8(q1));
            const int s0 = _mm512_reduce_add_epi32(q0), s1 = _mm512_reduce_add_epi32(q1);
            float *meta = a->meta + (m * nb + b) * CK_ACT_META;
            meta[0] = d;
            meta[1] = d * (float)(s0 + s1);
            a->sums[m * nb + b] = (int16_t)(s0 + s1);
            a->half_sums[2 * (m * nb + b)] = (int16_t)s0;
            a->half_sums[2 * (m * nb + b) + 1] = (int16_t)s1;
        }
    }
}

// Decode (MT = 1) walks one group at a time in address order and prefetches its weight and
// scale streams CK_DECODE_PF_BYTES ahead, as the AVX2 matvec does. Before, decode took four
// groups at a time (four streams, no prefetch) and was slower than the AVX2 matvec on an AVX-512
// EPYC (Zen 5, 2 threads, tg128, 4 interleaved rounds, median t/s: SmolLM2 223 vs AVX2's 245,
// Gemma 3 110 vs 113); this way 255 and 123.

/// Most activation rows per tile. The tiles' arrays take this constant bound, not MT: a
/// parameter-sized array is a VLA, which clang kept on the stack in the 4-bit 8-row tile (a store
/// and a reload around every vpdpbusd).
enum { MT_MAX = 8 };

/// Bit `bit` of every byte of x moved to bit 4, the other bits cleared (Q5_0's fifth bits; the
/// 16-bit shifts carry bits across bytes, which the mask drops). Literal shift counts, as SIMDe
/// requires for the emulated build.
T512 INLINE __m512i fifth_bits(__m512i x, const int bit) {
    const __m512i b4 = _mm512_set1_epi8(0x10);
    switch (bit) {
    case 0: return _mm512_and_si512(_mm512_slli_epi16(x, 4), b4);
    case 1: return _mm512_and_si512(_mm512_slli_epi16(x, 3), b4);
    case 2: return _mm512_and_si512(_mm512_slli_epi16(x, 2), b4);
    case 3: return _mm512_and_si512(_mm512_slli_epi16(x, 1), b4);
    case 4: return _mm512_and_si512(x, b4);
    case 5: return _mm512_and_si512(_mm512_srli_epi16(x, 1), b4);
    case 6: return _mm512_and_si512(_mm512_srli_epi16(x, 2), b4);
    default: return _mm512_and_si512(_mm512_srli_epi16(x, 3), b4);
    }
}

/// How a format's repacked values are stored (ck_matmul.h, ck_repack_sizes): qs bytes, qs
/// nibble pairs, Q5_0's compact copy in qs_dec, Q6_K's nibbles and 2-bit planes, MXFP4's
/// 4-bit codes as nibble pairs (one vpshufb through CK_MXFP4_U per 64 unpacked bytes), or
/// Q3_K's 2-bit and 1-bit planes.
enum { V_BYTES, V_NIBBLES, V_NIBBLES5, V_NIBBLES6, V_CODES4, V_BITS3 };

/// x shifted right by n (0..7) bits in 16-bit lanes; literal counts, as SIMDe requires.
T512 INLINE __m512i srl16(__m512i x, const int n) {
    switch (n) {
    case 0: return x;
    case 1: return _mm512_srli_epi16(x, 1);
    case 2: return _mm512_srli_epi16(x, 2);
    case 3: return _mm512_srli_epi16(x, 3);
    case 4: return _mm512_srli_epi16(x, 4);
    case 5: return _mm512_srli_epi16(x, 5);
    case 6: return _mm512_srli_epi16(x, 6);
    default: return _mm512_srli_epi16(x, 7);
    }
}

/// Q3_K's values (u <= 7) of quad j from its compact layout (ck_weights): the 2-bit fields at
/// bits 4(j%2) + 2*hi of the 2-bit plane word v2, under the third bit j + 4*hi of the bit plane
/// x moved to bit 2 ((A & B) | C); hi = 0: elements 4j.., 1: 16 + 4j... Every kept bit comes
/// from its own byte.
T512 INLINE __m512i q3_values(__m512i v2, __m512i x, const int j, const int hi) {
    const int bit = j + 4 * hi;
    const __m512i top = bit == 0 ? _mm512_slli_epi16(x, 2) : bit == 1 ? _mm512_slli_epi16(x, 1) : srl16(x, bit - 2);
    return _mm512_ternarylogic_epi32(srl16(v2, 4 * (j % 2) + 2 * hi), _mm512_set1_epi8(3), _mm512_and_si512(top, _mm512_set1_epi8(4)), 0xEA);
}


/// Bits 2j..2j+1 of every byte of a 2-bit plane (Q6_K, ck_weights) moved to bits 4-5 (the
/// bits above a nibble), masked. 16-bit shifts are fine: for shifts of at most 4 the bits that
/// land on bits 4-5 come from the same byte.
T512 INLINE __m512i top2_bits(__m512i x, const int j) {
    const __m512i b45 = _mm512_set1_epi8(0x30);
    switch (j) {
    case 0: return _mm512_and_si512(_mm512_slli_epi16(x, 4), b45);
    case 1: return _mm512_and_si512(_mm512_slli_epi16(x, 2), b45);
    case 2: return _mm512_and_si512(x, b45);
    default: return _mm512_and_si512(_mm512_srli_epi16(x, 2), b45);
    }
}

/// MT activation rows (from m0) x the 16 weight rows of group g, the whole K.
/// V: value layout; NSC: scales per 32; HASMIN: stored mw. nvalid: valid rows of the group (the
/// others are padding and are not stored).
T512 INLINE void tile(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0,
                      int64_t g, int nvalid, float negoff, const int V, const int NSC, const int HASMIN,
                      const int SC, const int MT) {
    const int64_t k = d->k, nb = k / 32;
    const int64_t dwb = ck_dw_block_bytes(NSC, SC), mwb = ck_mw_block_bytes(HASMIN, SC);
    const int64_t qb = V == V_NIBBLES || V == V_CODES4 ? 256 : V == V_NIBBLES5 ? CK_Q5_0_COMPACT_BYTES : V == V_NIBBLES6 ? CK_Q6_K_PACKED_BYTES
                     : V == V_BITS3 ? CK_Q3_K_PACKED_BYTES : 512;
    const uint8_t *const qbase = V == V_NIBBLES5 ? w->qs_dec : w->qs;
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    // A code4 format's u table in each 128-bit lane (vpshufb looks up within lanes).
    const __m512i code_u = V == V_CODES4 ? _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)ck_code4_u(w->format))) : low4;
    const __m512 vneg = _mm512_set1_ps(negoff);
    const int off = -(int)negoff;
    __m512 acc[MT_MAX];
    __m512i ksum[MT_MAX];   // K-quants: sum of code * dot(u, q) over the super-block so far
    UNROLL for (int r = 0; r < MT; r++) { acc[r] = _mm512_setzero_ps(); ksum[r] = _mm512_setzero_si512(); }
    const int64_t ahead = CK_DECODE_PF_BYTES;   // read once a tile
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *qs = qbase + (g * nb + b) * qb;
        // Prefetch where the weights stream from memory: decode, and steps of fewer than 8 rows
        // (batched decode of a few sequences), which take one pass per L2 chunk.
        if (MT == 1 || d->m < 8) {
            UNROLL for (int o = 0; o < qb; o += 64) _mm_prefetch((const char *)qs + ahead + o, _MM_HINT_T0);
            _mm_prefetch((const char *)w->dw + (g * nb + b) * dwb + ahead / 8, _MM_HINT_T0);
            if (mwb) _mm_prefetch((const char *)w->mw + (g * nb + b) * mwb + ahead / 8, _MM_HINT_T0);
        }
        __m512i dot0[MT_MAX], dot1[MT_MAX];
        UNROLL for (int r = 0; r < MT; r++) { dot0[r] = _mm512_setzero_si512(); dot1[r] = _mm512_setzero_si512(); }
        if (V == V_NIBBLES5) {
            // Byte p of the fifth-bit plane belongs to byte p of every quad: bit j is the fifth
            // bit of quad j's low nibble, bit 4 + j of its high nibble. Shifted to bit 4 and
            // merged under the nibble ((A & B) | C: 0xEA), the values are Q5_0's u <= 31.
            const __m512i x = _mm512_loadu_si512(qs + 256);
            UNROLL for (int j = 0; j < 4; j++) {
                const __m512i v = _mm512_loadu_si512(qs + 64 * j);
                const __m512i lo = _mm512_ternarylogic_epi32(v, low4, fifth_bits(x, j), 0xEA);
                const __m512i hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(v, 4), low4, fifth_bits(x, 4 + j), 0xEA);
                UNROLL for (int r = 0; r < MT; r++) {
                    const int8_t *aq = a->q + (m0 + r) * k + b * 32;
                    dot0[r] = _mm512_dpbusd_epi32(dot0[r], lo, bcast4(aq + 4 * j));
                    dot1[r] = _mm512_dpbusd_epi32(dot1[r], hi, bcast4(aq + 16 + 4 * j));
                }
            }
        } else if (V == V_NIBBLES6) {
            // Q6_K: each nibble merged with its top two bits ((A & B) | C), u <= 63; quad j's
            // low nibbles are elements 4j.. (the first half-block, dot0), its high nibbles 16 + 4j.. (dot1).
            const __m512i xl = _mm512_loadu_si512(qs + 256), xh = _mm512_loadu_si512(qs + 320);
            UNROLL for (int j = 0; j < 4; j++) {
                const __m512i v = _mm512_loadu_si512(qs + 64 * j);
                const __m512i lo = _mm512_ternarylogic_epi32(v, low4, top2_bits(xl, j), 0xEA);
                const __m512i hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(v, 4), low4, top2_bits(xh, j), 0xEA);
                UNROLL for (int r = 0; r < MT; r++) {
                    const int8_t *aq = a->q + (m0 + r) * k + b * 32;
                    dot0[r] = _mm512_dpbusd_epi32(dot0[r], lo, bcast4(aq + 4 * j));
                    dot1[r] = _mm512_dpbusd_epi32(dot1[r], hi, bcast4(aq + 16 + 4 * j));
                }
            }
        } else if (V == V_BITS3) {
            const __m512i x = _mm512_loadu_si512(qs + 128);
            UNROLL for (int j = 0; j < 4; j++) {
                const __m512i v2 = _mm512_loadu_si512(qs + 64 * (j / 2));
                const __m512i lo = q3_values(v2, x, j, 0), hi = q3_values(v2, x, j, 1);
                UNROLL for (int r = 0; r < MT; r++) {
                    const int8_t *aq = a->q + (m0 + r) * k + b * 32;
                    dot0[r] = _mm512_dpbusd_epi32(dot0[r], lo, bcast4(aq + 4 * j));
                    dot1[r] = _mm512_dpbusd_epi32(dot1[r], hi, bcast4(aq + 16 + 4 * j));
                }
            }
        } else if (V == V_NIBBLES || V == V_CODES4) {
            UNROLL for (int j = 0; j < 4; j++) {
                const __m512i v = _mm512_loadu_si512(qs + 64 * j);
                __m512i lo = _mm512_and_si512(v, low4);
                __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low4);
                if (V == V_CODES4) { lo = _mm512_shuffle_epi8(code_u, lo); hi = _mm512_shuffle_epi8(code_u, hi); }
                UNROLL for (int r = 0; r < MT; r++) {
                    const int8_t *aq = a->q + (m0 + r) * k + b * 32;
                    dot0[r] = _mm512_dpbusd_epi32(dot0[r], lo, bcast4(aq + 4 * j));
                    dot1[r] = _mm512_dpbusd_epi32(dot1[r], hi, bcast4(aq + 16 + 4 * j));
                }
            }
        } else {
            UNROLL for (int j = 0; j < 8; j++) {
                const __m512i v = _mm512_loadu_si512(qs + 64 * j);
                UNROLL for (int r = 0; r < MT; r++) {
                    const int8_t *aq = a->q + (m0 + r) * k + b * 32;
                    if (j < 4) dot0[r] = _mm512_dpbusd_epi32(dot0[r], v, bcast4(aq + 4 * j));
                    else dot1[r] = _mm512_dpbusd_epi32(dot1[r], v, bcast4(aq + 4 * j));
                }
            }
        }
        if (SC == CK_SC_K) {   // integer per super-block, then its fp32 steps (ck_matmul.h)
            const uint8_t *rec = ck_kscale_record(w->dw, nb, g, b, NSC);
            const int j = (int)(b % 8);
            const __m512i c0 = ck_kcodes16(rec + ck_kscale_codes(j, 0, NSC), NSC == 2);
            const __m512i c1 = NSC == 2 ? ck_kcodes16(rec + ck_kscale_codes(j, 1, 2), 1) : c0;
            UNROLL for (int r = 0; r < MT; r++) {
                const __m512i t = NSC == 2 ? _mm512_add_epi32(_mm512_mullo_epi32(dot0[r], c0), _mm512_mullo_epi32(dot1[r], c1))
                                           : _mm512_mullo_epi32(_mm512_add_epi32(dot0[r], dot1[r]), c0);
                ksum[r] = _mm512_add_epi32(ksum[r], t);
            }
            if (j == 7) {
                __m512i pairs[8];
                ck_kterm_pairs16(rec, NSC, pairs);
                UNROLL for (int r = 0; r < MT; r++) {
                    const int64_t first = (m0 + r) * nb + b - 7;
                    const __m512i t = ck_kterm16(pairs, NSC == 2 ? a->half_sums + 2 * first : a->sums + first, NSC);
                    acc[r] = ck_kfold16(acc[r], ksum[r], t, rec, _mm512_set1_ps(a->meta[(first + 7) * CK_ACT_META]), off, NSC);
                    ksum[r] = _mm512_setzero_si512();
                }
            }
            continue;
        }
        const __m512 d0 = ck_scales16(w->dw, w->mw, nb, g, b, 0, SC);
        const __m512 mw = HASMIN ? ck_scales16(w->dw, w->mw, nb, g, b, 2, SC) : _mm512_mul_ps(d0, vneg);
        UNROLL for (int r = 0; r < MT; r++) {
            const float *meta = a->meta + ((m0 + r) * nb + b) * CK_ACT_META;
            const __m512 dot = _mm512_cvtepi32_ps(_mm512_add_epi32(dot0[r], dot1[r]));
            acc[r] = _mm512_fmadd_ps(_mm512_mul_ps(dot, d0), _mm512_set1_ps(meta[0]), acc[r]);
            acc[r] = _mm512_fmadd_ps(mw, _mm512_set1_ps(meta[1]), acc[r]);
        }
    }
    const __mmask16 mask = nvalid < CK_R ? (__mmask16)((1u << nvalid) - 1) : (__mmask16)0xFFFF;
    UNROLL for (int r = 0; r < MT; r++) {
        float *out = y + (m0 + r) * d->n + g * CK_R;
        __m512 v = acc[r];
        if (d->accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, out), v);
        _mm512_mask_storeu_ps(out, mask, v);
    }
}

typedef void (*tile_fn)(const ck_matmul_desc *, const ck_weights *, const ck_act *, float *, int64_t, int64_t, int, float);

#define TILE(NAME, V, NSC, HASMIN, SC, MT)                                                                    \
    T512 static void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0, \
                          int64_t g, int nvalid, float negoff) {                                              \
        tile(d, w, a, y, m0, g, nvalid, negoff, V, NSC, HASMIN, SC, MT);                                      \
    }
/// Per format, by activation rows: [0] 8, [1] 4, [2] 2, [3] 1 (decode).
#define TILES(P, V, NSC, HASMIN, SC)                \
    TILE(P##_8, V, NSC, HASMIN, SC, 8)              \
    TILE(P##_4, V, NSC, HASMIN, SC, 4)              \
    TILE(P##_2, V, NSC, HASMIN, SC, 2)              \
    TILE(P##_1, V, NSC, HASMIN, SC, 1)              \
    static const tile_fn P[4] = {P##_8, P##_4, P##_2, P##_1};

TILES(t_q4_0, V_NIBBLES, 1, 0, CK_SC_F16)
TILES(t_q4_1, V_NIBBLES, 1, 1, CK_SC_F16)
TILES(t_q4_K, V_NIBBLES, 1, 1, CK_SC_K)
TILES(t_q5_0, V_NIBBLES5, 1, 0, CK_SC_F16)
TILES(t_q5_K, V_NIBBLES5, 1, 1, CK_SC_K)
TILES(t_q5_1, V_NIBBLES5, 1, 1, CK_SC_F16)
TILES(t_q8_0, V_BYTES, 1, 0, CK_SC_F16)
TILES(t_u8, V_BYTES, 1, 0, CK_SC_E8I)     // MXINT8
TILES(t_mxfp4, V_CODES4, 1, 0, CK_SC_E8)
TILES(t_iq4_nl, V_CODES4, 1, 0, CK_SC_F16)
TILES(t_iq4_xs, V_CODES4, 1, 0, CK_SC_F32)
TILES(t_q6_K, V_NIBBLES6, 2, 0, CK_SC_K)
TILES(t_q3_K, V_BITS3, 2, 0, CK_SC_K)

/// Groups per L2 chunk in the prefill loop: about 256 KiB of repacked weights.
static int64_t chunk_groups(const ck_format_info *info, int64_t k) {
    const int64_t bytes = (k / 32) * info->repacked_block_bytes;
    const int64_t c = (256 * 1024) / (bytes > 0 ? bytes : 1);
    return c < 1 ? 1 : c;
}

/// Runs the tiles over groups [g0, g1) (decode: one group after another, a single forward stream;
/// prefill: L2 chunks of groups for each activation tile).
T512 static void run_tiles(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, const tile_fn *t,
                           const ck_format_info *info, int64_t g0, int64_t g1, int lastvalid) {
    const float negoff = (float)(-info->off);
    if (d->m == 1) {
        for (int64_t g = g0; g < g1; g++) t[3](d, w, a, y, 0, g, g + 1 == g1 ? lastvalid : CK_R, negoff);
        return;
    }
    const int64_t cg = chunk_groups(info, d->k);
    for (int64_t c0 = g0; c0 < g1; c0 += cg) {
        const int64_t c1 = c0 + cg < g1 ? c0 + cg : g1;
        int64_t m = 0;
        while (m < d->m) {
            const int64_t left = d->m - m;
            const int sel = left >= 8 ? 0 : left >= 4 ? 1 : left >= 2 ? 2 : 3;
            for (int64_t g = c0; g < c1; g++) t[sel](d, w, a, y, m, g, g + 1 == g1 ? lastvalid : CK_R, negoff);
            m += sel == 0 ? 8 : sel == 1 ? 4 : sel == 2 ? 2 : 1;
        }
    }
}

T512 void ck_matmul_avx512(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    if (!info.int8_path) { ck_matmul_ref(d, w, a, y, n0, n1); return; }   // float formats run their own kernels (kernel_table.c)
    const tile_fn *t;
    switch (w->format) {
    case CK_WF_Q4_0: t = t_q4_0; break;
    case CK_WF_Q4_1: t = t_q4_1; break;
    case CK_WF_Q4_K: t = t_q4_K; break;
    case CK_WF_Q5_0: t = t_q5_0; break;
    case CK_WF_Q5_K: t = t_q5_K; break;
    case CK_WF_Q5_1: t = t_q5_1; break;
    case CK_WF_Q8_0: t = t_q8_0; break;
    case CK_WF_Q6_K: t = t_q6_K; break;
    case CK_WF_Q3_K: t = t_q3_K; break;
    case CK_WF_MXFP4: t = t_mxfp4; break;
    case CK_WF_IQ4_NL: t = t_iq4_nl; break;
    case CK_WF_IQ4_XS: t = t_iq4_xs; break;
    default: t = t_u8; break;
    }
    if (n1 > d->n) n1 = d->n;
    const int64_t g0 = n0 / CK_R, g1 = (n1 + CK_R - 1) / CK_R;
    run_tiles(d, w, a, y, t, &info, g0, g1, (int)(n1 - (g1 - 1) * CK_R));
}
#endif
