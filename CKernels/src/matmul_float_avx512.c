// MXFP8 (E4M3 / E5M2 codes, one ue8m0 scale per 32) and F16 / BF16 on AVX-512 with fp32 activations:
// matmul_float_kernel.h on 16 lanes (16 rows per register, tiles of up to 16 activation rows).
// Weights stay 8-bit in memory (ck_matmul.h: qs = [band][block pair][32][2][64] codes).
//
// A code becomes its value in registers, exactly: sign-extended to 16 bits and shifted left 7,
// with bit 14 cleared, an E4M3 code is the binary16 of its value times 2^-8 (subnormals
// included); an E5M2 code shifted left 8 is its binary16. vcvtph2ps is exact, and so is the
// multiplication by 2^8. (A block holding an E4M3 NaN code has a NaN scale from the repack, so
// its outputs are NaN as in the reference; the shift alone would read the code as 480.)
//
// matmul_float_avx512_emu.c compiles this file again against SIMDe (CK_AVX512_EMULATED), so the
// tests check it bit for bit on CPUs without AVX-512.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include "ck_matmul.h"

#include "avx512_target.h"
#include "scales_avx512.h"

/// The 16 codes of one k in a 16-row group -> their fp32 values, E4M3 ones times 2^-8 (exact).
T512 static inline __attribute__((always_inline)) __m512 decode16_scaled(const uint8_t *codes, const int E4M3) {
    const __m128i c = _mm_loadu_si128((const __m128i *)codes);
    const __m256i h = E4M3 ? _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(c), 7), _mm256_set1_epi16((short)0xBFFF))
                           : _mm256_slli_epi16(_mm256_cvtepu8_epi16(c), 8);
    return _mm512_cvtph_ps(h);
}

/// The 16 E4M3 codes of one k in a 16-row group -> their fp32 values times 2^-120, exactly:
/// sign-extended to 32 bits and shifted left 20, a code's sign lands in bit 31 and its exponent
/// and mantissa under fp32's (bias 127 against E4M3's 7, hence 2^-120); clearing bits 30..27
/// (copies of the sign) leaves the value. Subnormal codes become fp32 subnormals, read exactly
/// by the fma. The NaN code reads as 480 * 2^-120; its block's NaN scale makes the output NaN.
T512 static inline __attribute__((always_inline)) __m512 decode16_e4m3_biased(const uint8_t *codes) {
    const __m512i c = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)codes));
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_slli_epi32(c, 20), _mm512_set1_epi32((int)0x87FFFFFF)));
}

/// The band decodes with GFNI, when this CPU has it (matmul_float_kernel.h's BAND_OWN_READY).
static int gfni_decode_ready(void);
static void band_e4m3_gfni(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                           int64_t n0, int64_t n1);
static void band_e5m2_gfni(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                           int64_t n0, int64_t n1);
#define BAND_OWN_READY() gfni_decode_ready()
#define BAND_OWN_E4M3 band_e4m3_gfni
#define BAND_OWN_E5M2 band_e5m2_gfni

#define TARGET T512
#define VEC __m512
#define LANES 16
#define ROWS 8
#define PASS_UNITS 2
#define DECODE_PAIRS 1
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(f) _mm512_set1_ps(f)
#define V_MUL(a, b) _mm512_mul_ps(a, b)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define V_DECODE_SCALED(codes, E4M3) decode16_scaled(codes, E4M3)
#define V_DECODE_E4M3_BIASED(codes) decode16_e4m3_biased(codes)
#define V_DECODE_F16(h) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(h)))
#define V_DECODE_BF16(h) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(h))), 16))
#define V_E8M0_SCALES(codes, off) ck_e8m0_scales16(codes, off)
#define KERNEL ck_matmul_float_avx512
#include "matmul_float_kernel.h"

// MARK: - MXFP8 decode with GFNI
//
// The decode above spends three integer ops per 16 E4M3 weights (vpmovsxbd, vpslld, vpandq)
// beside the FMA, and E5M2's binary16 route a slow vcvtph2ps. Here one 64-byte load is one k of
// the band's 64 rows, and two vgf2p8affineqb form each code's two high bytes of its value as
// an fp32 times a power of two (E4M3: 2^-120, byte 3 the sign and exponent bits 3..1, byte 2
// exponent bit 0, the mantissa and four zero bits; E5M2: 2^-112, byte 3 the sign and exponent
// bits 4..1, byte 2 exponent bit 0, the mantissa and five zero bits), the activation carrying
// the inverse; the unpacks interleave them under two zero bytes: eight ops per 64 weights. The
// unpacks work within 128-bit lanes, so register j holds rows 16L + 4j + d in lane 4L + d (L, d =
// 0..3): the block scales take that order (a 4 x 4 transpose of 128-bit lanes) and the sums give
// it back before they are stored. Each lane still runs its row's chain in k order: bits as the
// reference. E5M2's infinity and NaN codes (exponent 31) would read as finite numbers: a block
// holding one, flagged by the repack (ck_weights' mw), is summed again through vcvtph2ps. (Found
// as the block was read, it cost two ops of every fourteen per 64 codes.)

#ifdef CK_AVX512_EMULATED
#define T512G
#else
#define T512G __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c,gfni")))
#endif

/// 1: the GFNI decode when this CPU has it; 0: the decode above (tests check both on one CPU).
static _Atomic int gfni_wanted = 1;

int ck_float_avx512_use_gfni(int on) {
    if (on >= 0) gfni_wanted = on != 0;
    return gfni_decode_ready();
}

static int gfni_decode_ready(void) {
#ifdef CK_AVX512_EMULATED
    return gfni_wanted;   // SIMDe's GFNI runs anywhere
#else
    return gfni_wanted && __builtin_cpu_supports("gfni");
#endif
}

/// The 4 x 4 transpose of four registers' 128-bit lanes: out[j] lane L = in[L] lane j.
T512G INLINE void transpose_lanes(const __m512 in[4], __m512 out[4]) {
    const __m512 t0 = _mm512_shuffle_f32x4(in[0], in[1], 0x44), t1 = _mm512_shuffle_f32x4(in[2], in[3], 0x44);
    const __m512 t2 = _mm512_shuffle_f32x4(in[0], in[1], 0xEE), t3 = _mm512_shuffle_f32x4(in[2], in[3], 0xEE);
    out[0] = _mm512_shuffle_f32x4(t0, t1, 0x88);
    out[1] = _mm512_shuffle_f32x4(t0, t1, 0xDD);
    out[2] = _mm512_shuffle_f32x4(t2, t3, 0x88);
    out[3] = _mm512_shuffle_f32x4(t2, t3, 0xDD);
}

/// vgf2p8affineqb matrices (output bit i is the parity of the code AND byte 7 - i): a code's
/// byte 3 and byte 2 of its fp32 value times 2^-120 (E4M3: s 0000 e3 e2 e1, e0 m2 m1 m0 0000) or
/// 2^-112 (E5M2: s 000 e4 e3 e2 e1, e0 m1 m0 00000).
#define E4M3_TO_BYTE3 (0x80ull | 0x40ull << 40 | 0x20ull << 48 | 0x10ull << 56)
#define E4M3_TO_BYTE2 0x01020408ull
#define E5M2_TO_BYTE3 (0x80ull | 0x40ull << 32 | 0x20ull << 40 | 0x10ull << 48 | 0x08ull << 56)
#define E5M2_TO_BYTE2 0x010204ull

/// One k of a band's codes c (64 bytes, row r at byte r) -> four registers of fp32 values times
/// 2^-120 (E4M3) or 2^-112 (E5M2), exactly (register j, lane 4L + d: row 16L + 4j + d).
T512G INLINE void decode64_biased(__m512i c, __m512 v[4], const int E5M2) {
    const __m512i to_byte3 = _mm512_set1_epi64((long long)(E5M2 ? E5M2_TO_BYTE3 : E4M3_TO_BYTE3));
    const __m512i to_byte2 = _mm512_set1_epi64((long long)(E5M2 ? E5M2_TO_BYTE2 : E4M3_TO_BYTE2));
    const __m512i zero = _mm512_setzero_si512();
    const __m512i b3 = _mm512_gf2p8affine_epi64_epi8(c, to_byte3, 0);
    const __m512i b2 = _mm512_gf2p8affine_epi64_epi8(c, to_byte2, 0);
    const __m512i lo = _mm512_unpacklo_epi8(b2, b3), hi = _mm512_unpackhi_epi8(b2, b3);
    v[0] = _mm512_castsi512_ps(_mm512_unpacklo_epi16(zero, lo));
    v[1] = _mm512_castsi512_ps(_mm512_unpackhi_epi16(zero, lo));
    v[2] = _mm512_castsi512_ps(_mm512_unpacklo_epi16(zero, hi));
    v[3] = _mm512_castsi512_ps(_mm512_unpackhi_epi16(zero, hi));
}

/// The partial sums of a band's NB blocks that share k steps in qs (a pair, or an odd last block
/// alone; q: their k = 0; xs: their 32 * NB activations, scaled): p[j][r] = the sum over block j's
/// k in order of value times activation, as the reference forms it. A block's four chains wait
/// on the fma before them (four cycles) every k; a pair's eight keep the FMA pipes busy.
T512G INLINE void gfni_block_sums(const uint8_t *q, const float *xs, __m512 p[][4], const int NB, const int E5M2) {
    UNROLL for (int j = 0; j < NB; j++) UNROLL for (int l = 0; l < 4; l++) p[j][l] = _mm512_setzero_ps();
    const int64_t ahead = CK_DECODE_PF_BYTES;   // read once a block
    for (int i = 0; i < 32; i++) {
        UNROLL for (int j = 0; j < NB; j++) {
            const uint8_t *at = q + (i * NB + j) * CK_FLOAT_BAND;
            _mm_prefetch((const char *)at + ahead, _MM_HINT_T0);   // a line a load, not a burst a block
            const __m512 xv = _mm512_set1_ps(xs[j * 32 + i]);
            __m512 v[4];
            decode64_biased(_mm512_loadu_si512((const void *)at), v, E5M2);
            UNROLL for (int l = 0; l < 4; l++) p[j][l] = _mm512_fmadd_ps(v[l], xv, p[j][l]);
        }
    }
}

/// Block b's partial sums p (register order) into acc (q: its codes at k = 0, one k every
/// `stride` bytes): first, for an E5M2 block whose band holds an infinity or NaN code there (the
/// repack's flags), p again from its binary16 values and the activations themselves (the same
/// exact products, so the same sums where the codes are finite); then acc = fma(scale, p, acc).
T512G INLINE void gfni_block_into(const ck_weights *w, const uint8_t *q, int64_t stride, const float *x, int64_t nb,
                                  int64_t band, int64_t b, __m512 p[4], __m512 acc[4], const int E5M2) {
    const int64_t at = ck_float_scale_index(nb, band * CK_FLOAT_BAND, b);
    if (E5M2 && ck_e5m2_band_flags(w, nb, band * CK_FLOAT_BAND, b)) {
        __m512 pn[4];
        UNROLL for (int l = 0; l < 4; l++) pn[l] = _mm512_setzero_ps();
        for (int i = 0; i < 32; i++) {
            const __m512 xv = _mm512_set1_ps(x[b * 32 + i]);
            UNROLL for (int l = 0; l < 4; l++) pn[l] = _mm512_fmadd_ps(decode16_scaled(q + i * stride + 16 * l, 0), xv, pn[l]);
        }
        transpose_lanes(pn, p);
    }
    __m512 s[4], sj[4];
    UNROLL for (int l = 0; l < 4; l++) s[l] = ck_e8m0_scales16((const uint8_t *)w->dw + at + 16 * l, CK_MXFP8_E8M0_OFFSET);
    transpose_lanes(s, sj);
    UNROLL for (int j = 0; j < 4; j++) acc[j] = _mm512_fmadd_ps(sj[j], p[j], acc[j]);
}

/// fp8_decode_band for MXFP8 with the activation scaled by 2^120 (E4M3) or 2^112 (E5M2),
/// decoding with GFNI, a block pair at a time.
T512G INLINE void band_gfni(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                            int64_t n0, int64_t n1, const int E5M2) {
    const int64_t nb = d->k / 32;
    const uint8_t *scale_codes = (const uint8_t *)w->dw + ck_float_scale_index(nb, band * CK_FLOAT_BAND, 0);
    const float scale_x = E5M2 ? 0x1p112f : 0x1p120f;
    __m512 acc[4];
    UNROLL for (int j = 0; j < 4; j++) acc[j] = _mm512_setzero_ps();
    const int64_t ahead = CK_DECODE_PF_BYTES;   // read once a band
    int64_t b = 0;
    for (; b + 2 <= nb; b += 2) {
        const uint8_t *q = w->qs + ck_float_value_index(nb, band * CK_FLOAT_BAND, b, 0);
        _mm_prefetch((const char *)scale_codes + b * CK_FLOAT_BAND + ahead / 32, _MM_HINT_T0);
        _mm_prefetch((const char *)scale_codes + (b + 1) * CK_FLOAT_BAND + ahead / 32, _MM_HINT_T0);
        float xs[64] __attribute__((aligned(64)));   // the activations times the inverse power
        fp8_scaled_block(x, b, scale_x, xs);
        fp8_scaled_block(x, b + 1, scale_x, xs + 32);
        __m512 p[2][4];
        gfni_block_sums(q, xs, p, 2, E5M2);
        gfni_block_into(w, q, 2 * CK_FLOAT_BAND, x, nb, band, b, p[0], acc, E5M2);
        gfni_block_into(w, q + CK_FLOAT_BAND, 2 * CK_FLOAT_BAND, x, nb, band, b + 1, p[1], acc, E5M2);
    }
    if (b < nb) {   // an odd last block
        const uint8_t *q = w->qs + ck_float_value_index(nb, band * CK_FLOAT_BAND, b, 0);
        float xs[32] __attribute__((aligned(64)));
        fp8_scaled_block(x, b, scale_x, xs);
        __m512 p[1][4];
        gfni_block_sums(q, xs, p, 1, E5M2);
        gfni_block_into(w, q, CK_FLOAT_BAND, x, nb, band, b, p[0], acc, E5M2);
    }
    __m512 out[4];
    transpose_lanes(acc, out);
    UNROLL for (int l = 0; l < 4; l++) fp8_store_rows(d, y, band * CK_FLOAT_BAND + 16 * l, out[l], n0, n1);
}

T512G static void band_e4m3_gfni(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                                 int64_t n0, int64_t n1) { band_gfni(d, w, x, y, band, n0, n1, 0); }
T512G static void band_e5m2_gfni(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band,
                                 int64_t n0, int64_t n1) { band_gfni(d, w, x, y, band, n0, n1, 1); }
#endif
