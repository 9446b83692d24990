// The MXFP8, F16 and BF16 kernel body, written once for any vector width and included by matmul_float_avx2.c
// (8 lanes) and matmul_float_avx512.c (16 lanes), which define before including:
//   TARGET          the function attribute of the width
//   VEC, LANES      the fp32 vector type and its lanes (8 or 16)
//   V_ZERO() V_SET1(f) V_MUL(a, b) V_FMA(a, b, c) V_LOADU(p) V_STOREU(p, v) V_PREFETCH(p)
//   V_DECODE_SCALED(codes, E4M3)   LANES codes -> fp32 values, E4M3 ones times 2^-8 (exact)
//   V_DECODE_E4M3_BIASED(codes)    LANES E4M3 codes -> fp32 values times 2^-120 (exact)
//   V_DECODE_F16(halves)           LANES binary16 values -> fp32 (exact)
//   V_DECODE_BF16(values)          LANES bfloat16 values -> fp32 (exact: the top halves)
//   V_E8M0_SCALES(codes, off)      LANES ue8m0 codes -> 2^(code - off), as ck_e8m0_bits
//   ROWS            activation rows of the largest prefill tile
//   PASS_UNITS      units per prefill tile (registers: ROWS x PASS_UNITS chains, PASS_UNITS
//                   weights and one broadcast)
//   KERNEL          the entry point's name
//   DECODE_PAIRS    1: decode runs a block pair's chains side by side (fp8_decode_band)
// and may define BAND_OWN_READY() with BAND_OWN_E4M3(d, w, x, y, band, n0, n1) and
// BAND_OWN_E5M2(...), decodes of one band with the activation scaled by 2^120 (E4M3) or 2^112
// (E5M2) that the kernel takes instead of its own when ready (AVX-512's GFNI decode, AVX2's
// four codes a dword).
//
// Layout (ck_matmul.h): qs = [band][block pair][32][2][64] codes, dw = [band][block][64] ue8m0 scale codes.
// A "unit" is LANES consecutive rows from u * LANES. Per output and block: p = fma(value_i,
// x_i, p) from 0 over i = 0..31, then acc = fma(scale, p, acc) — the reference's sequence, so
// every output is bit-identical to it.
//
// Decode (M = 1) takes a band at a time, its units' chains side by side (on AVX-512 four a block,
// a block pair's eight; eight on AVX2), reading the band's blocks in address order. E4M3 decode scales the activation by
// 2^120 or 2^8 where that stays finite (ck_fp8_activation_shift) and
// the weights by the inverse, which their decode gets for free: the 2^-120 form is the code's
// bits moved under fp32's exponent (three integer ops per register, about 1.6 times the rate of
// the 2^-8 form's binary16 conversion, AVX2 and AVX-512 alike, on Zen 5; the includers' own band
// decodes, where ready, go further). Prefill
// decodes a block of PASS_UNITS units once per pass of up to FP8_PASS_ROWS activation rows into
// an L1 buffer, then runs tiles of up to ROWS rows x PASS_UNITS units over it (loads, broadcasts
// and FMAs only): the code -> fp32 conversion, which bounds decode, is spread over the pass, and
// each broadcast activation feeds PASS_UNITS FMAs. (On Zen 3, 2 units x 4 rows beat 1 x 8, which
// spent a broadcast per FMA, and 3 x 4, which ran out of registers.) The prefill_units driver
// (prefill_units.c) hands out row and column ranges.
#include "matmul_fp8_common.h"

/// Activation rows per prefill pass: each block's codes are decoded once per pass (the
/// prefill_units driver hands out 32 rows at a time).
enum { FP8_PASS_ROWS = 32 };

#ifndef INLINE
#define INLINE static inline __attribute__((always_inline))
#endif
#ifndef UNROLL
#define UNROLL _Pragma("clang loop unroll(full)")
#endif

/// What a kernel's qs holds: MXFP8 codes (E5M2, E4M3) or F16 / BF16 values (no block scales: a
/// unit scale, so acc = fma(1, p, acc) = acc + p, the reference's order for them).
enum { FK_E5M2, FK_E4M3, FK_F16, FK_BF16 };

/// Units per band.
enum { BAND_UNITS = CK_FLOAT_BAND / LANES };

/// Index (codes, or halves for F16) of unit u's values at block b, k i.
static inline int64_t fp8_code_offset(int64_t u, int64_t nb, int64_t b, int i) {
    return ck_float_value_index(nb, u * LANES, b, i);
}

/// Offset (bytes: scale codes) of unit u's scales at block b.
static inline int64_t fp8_scale_offset(int64_t u, int64_t nb, int64_t b) {
    return ck_float_scale_index(nb, u * LANES, b);
}

/// LANES codes -> their fp32 values (exact: times 2^8 undoes E4M3's 2^-8).
TARGET INLINE VEC fp8_decode(const uint8_t *codes, const int E4M3) {
    const VEC v = V_DECODE_SCALED(codes, E4M3);
    return E4M3 ? V_MUL(v, V_SET1(256.0f)) : v;
}

/// LANES values of one k from qs at index `at` -> fp32, exact. SX (E4M3 only): the codes' values
/// times 2^-SX, SX = 120 or 8 (the activation carries the 2^SX); 0 = the values themselves.
TARGET INLINE VEC code_value(const uint8_t *qs, int64_t at, const int KIND, const int SX) {
    if (KIND == FK_F16) return V_DECODE_F16((const uint16_t *)qs + at);
    if (KIND == FK_BF16) return V_DECODE_BF16((const uint16_t *)qs + at);
    if (SX == 120) return V_DECODE_E4M3_BIASED(qs + at);
    return SX ? V_DECODE_SCALED(qs + at, KIND == FK_E4M3) : fp8_decode(qs + at, KIND == FK_E4M3);
}

/// Unit u's scales at block b from their ue8m0 codes (a unit scale for F16 and BF16).
TARGET INLINE VEC block_scale(const ck_weights *w, int64_t u, int64_t nb, int64_t b, const int KIND) {
    return KIND >= FK_F16 ? V_SET1(1.0f) : V_E8M0_SCALES((const uint8_t *)w->dw + fp8_scale_offset(u, nb, b), CK_MXFP8_E8M0_OFFSET);
}

/// Unit u's block b decoded into wj[32][LANES] (prefill); returns the block's scales.
TARGET INLINE VEC decode_block(const ck_weights *w, int64_t u, int64_t nb, int64_t b, float *wj, const int KIND) {
    for (int i = 0; i < 32; i++) V_STOREU(wj + i * LANES, code_value(w->qs, fp8_code_offset(u, nb, b, i), KIND, 0));
    return block_scale(w, u, nb, b, KIND);
}

/// Writes lanes [0, valid) of `v` to out[0..valid), added to what is there when accumulating.
TARGET INLINE void fp8_store(const ck_matmul_desc *d, float *out, VEC v, int valid) {
    float tmp[LANES];
    V_STOREU(tmp, v);
    for (int r = 0; r < valid; r++) out[r] = d->accumulate ? out[r] + tmp[r] : tmp[r];
}

/// Writes the lanes of `v` (rows row0 ..) that fall in [n0, n1) to y, added to what is there
/// when accumulating.
TARGET INLINE void fp8_store_rows(const ck_matmul_desc *d, float *y, int64_t row0, VEC v, int64_t n0, int64_t n1) {
    float tmp[LANES];
    V_STOREU(tmp, v);
    for (int r = 0; r < LANES; r++)
        if (row0 + r >= n0 && row0 + r < n1) y[row0 + r] = d->accumulate ? y[row0 + r] + tmp[r] : tmp[r];
}

/// Asks for the lines `bytes` bytes from `at` (one k of a band's blocks that share k steps)
/// `ahead` bytes ahead in the band's stream (CK_DECODE_PF_BYTES times the bytes a value, read
/// once a block by the caller): a line a load rather than a block's lines in one burst, which
/// outran the core's outstanding misses.
TARGET INLINE void fp8_prefetch_k(const char *at, const int64_t bytes, const int64_t ahead) {
    UNROLL for (int64_t o = 0; o < bytes; o += 64) V_PREFETCH(at + o + ahead);
}

/// Block b's 32 activations times `scale` into xs, which the decode loop broadcasts from memory
/// (a load, no ALU op).
TARGET INLINE void fp8_scaled_block(const float *x, int64_t b, float scale, float xs[32]) {
    UNROLL for (int i = 0; i < 32; i += LANES) V_STOREU(xs + i, V_MUL(V_LOADU(x + b * 32 + i), V_SET1(scale)));
}

/// Blocks b .. b + NB - 1 of band units u0.. (NB = 2: a pair sharing k steps in qs; 1: a block
/// alone) into acc: per block p = fma(value, x, p) over its k in order, the blocks' chains side
/// by side, then acc = fma(scale, p, acc) block by block. SX as fp8_decode_band.
TARGET INLINE void fp8_band_blocks(const ck_weights *w, const float *x, int64_t nb, int64_t u0, int64_t b, VEC *acc,
                                   const int NB, const int KIND, const int SX) {
    const int64_t esize = KIND >= FK_F16 ? 2 : 1;   // bytes per value in qs
    const int64_t pf = CK_DECODE_PF_BYTES;           // read once a block
    if (KIND < FK_F16)
        UNROLL for (int j = 0; j < NB; j++)
            V_PREFETCH((const char *)w->dw + fp8_scale_offset(u0, nb, b + j) + pf / 32);
    float xs[2 * 32] __attribute__((aligned(64)));
    const float *xb = x + b * 32;
    if (SX) {
        UNROLL for (int j = 0; j < NB; j++) fp8_scaled_block(x, b + j, SX == 120 ? 0x1p120f : 0x1p8f, xs + 32 * j);
        xb = xs;
    }
    VEC p[2][BAND_UNITS];
    UNROLL for (int j = 0; j < NB; j++) UNROLL for (int u = 0; u < BAND_UNITS; u++) p[j][u] = V_ZERO();
    // Each k asks for its blocks' lines, except that 16-bit values run a block at a time (AVX2)
    // ask for the whole pair's from the pair's first block, the second finding them in L1: on one
    // Zen 5 core from the L3, F16 48-50 GB/s that way against 37-41 line by line, while MXFP8's
    // one line a k went the other way (27 against 22).
    const int64_t first = b & ~(int64_t)1;
    const int whole_pair = NB == 1 && esize == 2;
    const int64_t pf_bytes = (whole_pair ? (b == first ? (first + 1 < nb ? 2 : 1) : 0) : NB) * CK_FLOAT_BAND * esize;
    const int64_t ahead = pf * esize;
    for (int i = 0; i < 32; i++) {
        if (pf_bytes) fp8_prefetch_k((const char *)w->qs + fp8_code_offset(u0, nb, whole_pair ? first : b, i) * esize, pf_bytes, ahead);
        UNROLL for (int j = 0; j < NB; j++) {
            const VEC xv = V_SET1(xb[32 * j + i]);
            const int64_t at = fp8_code_offset(u0, nb, b + j, i);   // the band's units follow LANES apart
            UNROLL for (int u = 0; u < BAND_UNITS; u++) p[j][u] = V_FMA(code_value(w->qs, at + u * LANES, KIND, SX), xv, p[j][u]);
        }
    }
    UNROLL for (int j = 0; j < NB; j++)
        UNROLL for (int u = 0; u < BAND_UNITS; u++) acc[u] = V_FMA(block_scale(w, u0 + u, nb, b + j, KIND), p[j][u], acc[u]);
}

/// Band `band` for one activation row (decode), its rows in [n0, n1) stored. SX (E4M3): x
/// scales exactly by 2^SX (ck_fp8_activation_shift), so the weights are decoded times 2^-SX and
/// the broadcast activation takes the 2^SX, once for all BAND_UNITS units. A pair's blocks run
/// side by side where the registers hold both (DECODE_PAIRS: AVX-512's four chains a block
/// would wait on the fma latency; AVX2's eight do not, and sixteen would not fit).
TARGET INLINE void fp8_decode_band(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y,
                                   int64_t band, int64_t n0, int64_t n1, const int KIND, const int SX) {
    const int64_t nb = d->k / 32, u0 = band * BAND_UNITS;
    VEC acc[BAND_UNITS];
    UNROLL for (int u = 0; u < BAND_UNITS; u++) acc[u] = V_ZERO();
    int64_t b = 0;
    if (DECODE_PAIRS)
        for (; b + 2 <= nb; b += 2) fp8_band_blocks(w, x, nb, u0, b, acc, 2, KIND, SX);
    for (; b < nb; b++) fp8_band_blocks(w, x, nb, u0, b, acc, 1, KIND, SX);
    UNROLL for (int u = 0; u < BAND_UNITS; u++) fp8_store_rows(d, y, (u0 + u) * LANES, acc[u], n0, n1);
}

/// MT activation rows (x: the first row's block, rows k apart) x UT units over one 32-block whose
/// decoded weights are wv[UT][32][LANES] (prefill): p = the block's partial sums in the
/// reference's order, then acc = fma(scale, p, acc), acc[UT][FP8_PASS_ROWS][LANES] kept in
/// memory between blocks.
TARGET INLINE void fp8_prefill_block(const float *x, int64_t k, const float *wv, const VEC *s, float *acc,
                                     const int MT, const int UT) {
    VEC p[UT][MT];
    UNROLL for (int u = 0; u < UT; u++) UNROLL for (int m = 0; m < MT; m++) p[u][m] = V_ZERO();
    for (int i = 0; i < 32; i++) {
        VEC v[UT];
        UNROLL for (int u = 0; u < UT; u++) v[u] = V_LOADU(wv + (u * 32 + i) * LANES);
        UNROLL for (int m = 0; m < MT; m++) {
            const VEC xm = V_SET1(x[m * k + i]);
            UNROLL for (int u = 0; u < UT; u++) p[u][m] = V_FMA(v[u], xm, p[u][m]);
        }
    }
    UNROLL for (int u = 0; u < UT; u++) UNROLL for (int m = 0; m < MT; m++) {
        float *o = acc + (u * FP8_PASS_ROWS + m) * LANES;
        V_STOREU(o, V_FMA(s[u], p[u][m], V_LOADU(o)));
    }
}

#define FP8_DECODE(NAME, E, SX)                                                                                 \
    TARGET static void NAME(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *y, int64_t band, \
                            int64_t n0, int64_t n1) { fp8_decode_band(d, w, x, y, band, n0, n1, E, SX); }
FP8_DECODE(dec_e4m3, FK_E4M3, 0) FP8_DECODE(dec_e4m3_s8, FK_E4M3, 8) FP8_DECODE(dec_e4m3_s120, FK_E4M3, 120)
FP8_DECODE(dec_e5m2, FK_E5M2, 0) FP8_DECODE(dec_f16, FK_F16, 0) FP8_DECODE(dec_bf16, FK_BF16, 0)

#define FP8_PREFILL(NAME, MT, UT)                                                                               \
    TARGET static void NAME(const float *x, int64_t k, const float *wv, const VEC *s, float *acc) {           \
        fp8_prefill_block(x, k, wv, s, acc, MT, UT);                                                           \
    }
FP8_PREFILL(pre_full, ROWS, PASS_UNITS) FP8_PREFILL(pre_half, ROWS / 2, PASS_UNITS)
FP8_PREFILL(pre_quarter, ROWS / 4, PASS_UNITS) FP8_PREFILL(pre_1, 1, PASS_UNITS)
FP8_PREFILL(pre1_full, ROWS, 1) FP8_PREFILL(pre1_half, ROWS / 2, 1)
FP8_PREFILL(pre1_quarter, ROWS / 4, 1) FP8_PREFILL(pre1_1, 1, 1)

typedef void (*fp8_decode_fn)(const ck_matmul_desc *, const ck_weights *, const float *, float *, int64_t, int64_t, int64_t);
typedef void (*fp8_prefill_fn)(const float *, int64_t, const float *, const VEC *, float *);

/// Output rows [n0, n1) for every activation row (n0 a multiple of 16); MXFP8, F16 and BF16 weights.
TARGET void KERNEL(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const int e4m3 = w->format == CK_WF_MXFP8_E4M3, f16 = w->format == CK_WF_F16, bf16 = w->format == CK_WF_BF16;
    const int kind = f16 ? FK_F16 : bf16 ? FK_BF16 : e4m3 ? FK_E4M3 : FK_E5M2;
    if (n1 > d->n) n1 = d->n;
    const int64_t u0 = n0 / LANES, u1 = (n1 + LANES - 1) / LANES;
    const int last_valid = (int)(n1 - (u1 - 1) * LANES);
    if (d->m == 1) {
        const int sx = e4m3 ? ck_fp8_activation_shift(a->x, d->k) : 0;
        fp8_decode_fn band = f16 ? dec_f16 : bf16 ? dec_bf16 : !e4m3 ? dec_e5m2 : sx == 120 ? dec_e4m3_s120 : sx == 8 ? dec_e4m3_s8 : dec_e4m3;
#ifdef BAND_OWN_READY
        if (BAND_OWN_READY()) {
            if (band == dec_e4m3_s120) band = BAND_OWN_E4M3;
            else if (band == dec_e5m2 && ck_e5m2_activation_scalable(a->x, d->k)) band = BAND_OWN_E5M2;
        }
#endif
        for (int64_t b = n0 / CK_FLOAT_BAND; b * CK_FLOAT_BAND < n1; b++) band(d, w, a->x, y, b, n0, n1);
        return;
    }
    static const fp8_prefill_fn tiles[2][4] = {{pre1_full, pre1_half, pre1_quarter, pre1_1},
                                               {pre_full, pre_half, pre_quarter, pre_1}};
    static const int rows[4] = {ROWS, ROWS / 2, ROWS / 4, 1};
    const int64_t nb = d->k / 32, k = d->k;
    float wv[PASS_UNITS * 32 * LANES] __attribute__((aligned(64)));               // the units' block, decoded
    float acc[PASS_UNITS * FP8_PASS_ROWS * LANES] __attribute__((aligned(64)));   // the pass's outputs so far
    for (int64_t u = u0; u < u1;) {
        const int ut = u + PASS_UNITS <= u1 ? PASS_UNITS : 1;
        for (int64_t m0 = 0; m0 < d->m; m0 += FP8_PASS_ROWS) {
            const int64_t mc = d->m - m0 < FP8_PASS_ROWS ? d->m - m0 : FP8_PASS_ROWS;
            for (int64_t i = 0; i < ut * FP8_PASS_ROWS * LANES; i++) acc[i] = 0.0f;
            for (int64_t b = 0; b < nb; b++) {
                VEC s[PASS_UNITS];
                for (int j = 0; j < ut; j++) {
                    float *wj = wv + j * 32 * LANES;
                    switch (kind) {   // each case a compile-time kind
                    case FK_F16: s[j] = decode_block(w, u + j, nb, b, wj, FK_F16); break;
                    case FK_BF16: s[j] = decode_block(w, u + j, nb, b, wj, FK_BF16); break;
                    case FK_E4M3: s[j] = decode_block(w, u + j, nb, b, wj, FK_E4M3); break;
                    default: s[j] = decode_block(w, u + j, nb, b, wj, FK_E5M2); break;
                    }
                }
                const float *xb = a->x + m0 * k + b * 32;
                for (int64_t m = 0; m < mc;) {
                    const int64_t left = mc - m;
                    const int t = left >= rows[0] ? 0 : left >= rows[1] ? 1 : left >= rows[2] ? 2 : 3;
                    tiles[ut == PASS_UNITS][t](xb + m * k, k, wv, s, acc + m * LANES);
                    m += rows[t];
                }
            }
            for (int j = 0; j < ut; j++) {
                const int valid = u + j + 1 == u1 ? last_valid : LANES;
                for (int64_t m = 0; m < mc; m++)
                    fp8_store(d, y + (m0 + m) * d->n + (u + j) * LANES, V_LOADU(acc + (j * FP8_PASS_ROWS + m) * LANES), valid);
            }
        }
        u += ut;
    }
}
