// MXFP8 (E4M3 / E5M2 codes, one ue8m0 scale per 32) and F16 / BF16 on AVX2 + F16C + FMA with fp32
// activations: matmul_float_kernel.h on 8 lanes (half a 16-row group per register, tiles of up to
// 8 activation rows in the 16 ymm registers). The conversion is matmul_float_avx512.c's, but for
// MXFP8 decode with scaled activations, which runs this file's own band decode (below).
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include "matmul_avx2_common.h"

/// The 8 codes of one k in a half group -> their fp32 values, E4M3 ones times 2^-8 (exact).
T256 INLINE __m256 decode8_scaled(const uint8_t *codes, const int E4M3) {
    const __m128i c = _mm_loadl_epi64((const __m128i *)codes);
    const __m128i h = E4M3 ? _mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(c), 7), _mm_set1_epi16((short)0xBFFF))
                           : _mm_slli_epi16(_mm_cvtepu8_epi16(c), 8);
    return _mm256_cvtph_ps(h);
}

/// The 8 E4M3 codes of one k in a half group -> their fp32 values times 2^-120, exactly (as
/// matmul_float_avx512.c's decode16_e4m3_biased), for the header's generic band when the
/// four-codes-a-dword decode below is turned off.
T256 INLINE __m256 decode8_e4m3_biased(const uint8_t *codes) {
    const __m256i c = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)codes));
    return _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(c, 20), _mm256_set1_epi32((int)0x87FFFFFF)));
}

/// The band decodes of four codes a dword (below), which the kernel takes for scaled activations.
static void band_e4m3_dwords(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                             int64_t n0, int64_t n1);
static void band_e5m2_dwords(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                             int64_t n0, int64_t n1);
static _Atomic int dwords_wanted = 1;   // ck_float_avx2_use_dwords
#define BAND_OWN_READY() dwords_wanted
#define BAND_OWN_E4M3 band_e4m3_dwords
#define BAND_OWN_E5M2 band_e5m2_dwords

#define TARGET T256
#define VEC __m256
#define LANES 8
#define ROWS 4
#define PASS_UNITS 2
#define DECODE_PAIRS 0
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(f) _mm256_set1_ps(f)
#define V_MUL(a, b) _mm256_mul_ps(a, b)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define V_DECODE_SCALED(codes, E4M3) decode8_scaled(codes, E4M3)
#define V_DECODE_E4M3_BIASED(codes) decode8_e4m3_biased(codes)
#define V_DECODE_F16(h) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h)))
#define V_DECODE_BF16(h) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(h))), 16))
#define V_E8M0_SCALES(codes, off) ck_e8m0_scales8(codes, off)
#define KERNEL ck_matmul_float_avx2
#include "matmul_float_kernel.h"

// MARK: - MXFP8 decode, four codes a dword
//
// decode8_e4m3_biased spends a sign extension (two uops on Zen 3, both on the two pipes that
// shift and shuffle) and a shift per 8 codes, so those pipes cap it at ~1.5 cycles per 8 codes
// beside the FMA: 13.6 GB/s a Zen 3 core, under half its share of DRAM's rate. Here one 32-byte
// load is one k of 32 rows; each dword holds four rows' codes. An arithmetic shift of the 16-bit
// words right by 4 (E4M3) or 3 (E5M2) puts the exponent and mantissa of a high word's top byte
// under fp32's (a low word's: a multiply by 2^12 or 2^13 into the dword), the even bytes take a
// shift left 8 first, and an AND keeps one copy of the sign: the value times 2^-120 or 2^-112,
// exactly, as the other decodes form it; three shifts, two multiplies and four ANDs per 32
// codes. Register j of a half then holds rows 4d + j in lane d: the block scales take that order
// and the sums give it back when stored. Each lane still runs its row's chain in k order, so the
// bits are the reference's. E5M2's infinity and NaN codes read as finite numbers this way; a
// block the repack flagged for holding one (ck_weights' mw) sets their exponents to all ones,
// which gives the same products as the reference's (an infinity times an activation scaled by a
// power of two keeps its sign; times zero it is NaN either way).

/// One k of 32 rows' codes c (row 4d + j in byte j of dword d) -> v[j] lane d = the value of row
/// 4d + j times 2^-120 (E4M3) or 2^-112 (E5M2), exact; SPECIAL (E5M2): infinity and NaN codes
/// as such.
T256 INLINE void decode32_dwords(__m256i c, __m256 v[4], const int E5M2, const int SPECIAL) {
    const int sh = E5M2 ? 3 : 4;
    const __m256i keep = _mm256_set1_epi32(E5M2 ? (int)0x8FE00000 : (int)0x87F00000);
    // Odd bytes (j = 1, 3) from c, even ones (0, 2) from c with its words shifted left 8. A high
    // word's byte: an arithmetic shift of the words right by sh. A low word's: vpmaddwd by
    // 2^(16 - sh) in the low word and 0 in the high one, the same bits already at the dword's top
    // (sign extended), on the multiply pipes rather than Zen 3's two shift pipes, which the FMAs
    // share: +16 % codes a cycle from the L1 over shifting both words.
    const __m256i c8 = _mm256_slli_epi16(c, 8), low_word = _mm256_set1_epi32(1 << (16 - sh));
    const __m256i top[4] = {_mm256_madd_epi16(c8, low_word), _mm256_madd_epi16(c, low_word), _mm256_srai_epi16(c8, sh),
                            _mm256_srai_epi16(c, sh)};
    UNROLL for (int j = 0; j < 4; j++) {
        __m256i bits = _mm256_and_si256(top[j], keep);
        if (SPECIAL) {   // exponent 31 -> 255: infinity for a zero mantissa, NaN otherwise
            const __m256i e31 = _mm256_set1_epi32(0x0F800000);
            const __m256i is = _mm256_cmpeq_epi32(_mm256_and_si256(bits, e31), e31);
            bits = _mm256_or_si256(bits, _mm256_and_si256(is, _mm256_set1_epi32(0x7F800000)));
        }
        v[j] = _mm256_castsi256_ps(bits);
    }
}

/// Block b's scales for the band's rows 32h.. in decode32_dwords' order: s[j] lane d = row 32h + 4d + j.
T256 INLINE void dword_scales(const uint8_t *codes, __m256 s[4]) {
    const __m256i c = _mm256_loadu_si256((const __m256i *)codes), byte = _mm256_set1_epi32(0xFF);
    UNROLL for (int j = 0; j < 4; j++)
        s[j] = ck_e8m0_dwords8(_mm256_and_si256(_mm256_srli_epi32(c, 8 * j), byte), CK_MXFP8_E8M0_OFFSET);
}

/// Block b of the band into acc[h][j] (decode32_dwords' order, in memory: the loop's eight
/// chains, two codes and their shifts take every register): per row p = fma(value, x, p) over
/// the block's k in order from 0, then acc = fma(scale, p, acc). xs: the block's activations
/// times 2^120 or 2^112.
T256 INLINE void dword_block(const ck_weights *w, const float *xs, int64_t nb, int64_t band, int64_t b, float *acc,
                             const int E5M2, const int SPECIAL) {
    const int64_t row0 = band * CK_FLOAT_BAND;
    const uint8_t *scale_codes = (const uint8_t *)w->dw + ck_float_scale_index(nb, row0, b);
    const int64_t ahead = CK_DECODE_PF_BYTES;   // read once a block
    _mm_prefetch((const char *)scale_codes + ahead / 32, _MM_HINT_T0);
    __m256 p[2][4];
    UNROLL for (int h = 0; h < 2; h++) UNROLL for (int j = 0; j < 4; j++) p[h][j] = _mm256_setzero_ps();
    for (int i = 0; i < 32; i++) {
        const uint8_t *at = w->qs + ck_float_value_index(nb, row0, b, i);
        fp8_prefetch_k((const char *)at, CK_FLOAT_BAND, ahead);
        const __m256 xv = _mm256_set1_ps(xs[i]);
        UNROLL for (int h = 0; h < 2; h++) {
            __m256 v[4];
            decode32_dwords(_mm256_loadu_si256((const __m256i *)(at + 32 * h)), v, E5M2, SPECIAL);
            UNROLL for (int j = 0; j < 4; j++) p[h][j] = _mm256_fmadd_ps(v[j], xv, p[h][j]);
        }
    }
    UNROLL for (int h = 0; h < 2; h++) {
        __m256 s[4];
        dword_scales(scale_codes + 32 * h, s);
        UNROLL for (int j = 0; j < 4; j++) {
            float *a = acc + 8 * (4 * h + j);
            _mm256_storeu_ps(a, _mm256_fmadd_ps(s[j], p[h][j], _mm256_loadu_ps(a)));
        }
    }
}

#define DWORD_BLOCK(NAME, E5M2, SPECIAL)                                                                           \
    T256 __attribute__((noinline)) static void NAME(const ck_weights *w, const float *xs, int64_t nb, int64_t band, \
                                                    int64_t b, float *acc) {                                      \
        dword_block(w, xs, nb, band, b, acc, E5M2, SPECIAL);                                                      \
    }
DWORD_BLOCK(block_e4m3_dwords, 0, 0)
DWORD_BLOCK(block_e5m2_dwords, 1, 0)
DWORD_BLOCK(block_e5m2_special_dwords, 1, 1)

/// fp8_decode_band for MXFP8 with the activation scaled by 2^120 (E4M3) or 2^112 (E5M2), a block
/// at a time (eight chains: a pair's sixteen would not fit the registers).
T256 INLINE void band_dwords(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                             int64_t n0, int64_t n1, const int E5M2) {
    const int64_t nb = d->k / 32;
    float acc[CK_FLOAT_BAND] __attribute__((aligned(32))) = {0};   // decode32_dwords' order
    for (int64_t b = 0; b < nb; b++) {
        float xs[32] __attribute__((aligned(32)));
        fp8_scaled_block(x, b, E5M2 ? 0x1p112f : 0x1p120f, xs);
        (!E5M2 ? block_e4m3_dwords
               : ck_e5m2_band_flags(w, nb, band * CK_FLOAT_BAND, b) ? block_e5m2_special_dwords : block_e5m2_dwords)(w, xs, nb, band, b, acc);
    }
    for (int r = 0; r < CK_FLOAT_BAND; r++) {   // row 32h + 4l + j is at acc[8 * (4h + j) + l]
        const int64_t row = band * CK_FLOAT_BAND + r;
        const float v = acc[8 * (4 * (r / 32) + r % 4) + (r % 32) / 4];
        if (row >= n0 && row < n1) y[row] = d->accumulate ? y[row] + v : v;
    }
}

int ck_float_avx2_use_dwords(int on) {
    if (on >= 0) dwords_wanted = on != 0;
    return dwords_wanted;
}

T256 static void band_e4m3_dwords(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                                  int64_t n0, int64_t n1) { band_dwords(d, w, x, y, band, n0, n1, 0); }
T256 static void band_e5m2_dwords(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                                  int64_t n0, int64_t n1) { band_dwords(d, w, x, y, band, n0, n1, 1); }
#endif
