// AMX-INT8 twin of ck_matmul_ref for 16 or more activation rows (bit-identical); fewer rows, Q6_K
// and the float formats run the AVX-512 kernel. Written over the tile layer (ck_tile.h) and
// compiled twice: here with the intrinsics, and in matmul_amx_emu.c over the portable tiles and
// SIMDe's AVX-512.
//
// tdpbsud multiplies signed bytes (A) by unsigned bytes (B), so A is the int8 activations and B
// the unsigned canonical weights u, and C[act row][weight row] is already y's orientation:
//  - A: up to 16 activation rows x one 32-block (32 bytes), straight from ck_act.q (stride k);
//  - B: one 16-row group's 32-block in the repacked byte layout, which IS the tile layout B needs
//    (8 rows of 64 bytes = 4 consecutive k x 16 weight rows), so byte formats load it as stored and
//    4-bit / Q5_0 formats unpack their chunk of groups once per call into a per-thread buffer;
//  - C: up to 16 x 16 int32 dots of one block.
// Each block has its own scale, so K per tile is 32 and every block's C tile is stored and the
// canonical epilogue (ck_matmul.h) applied with AVX-512 to 16 accumulator registers (one per
// activation row, 16 weight rows each) in block order (the K-quants multiply each block's dots by
// their codes into 16 integer sums and take their fp32 steps once a super-block), so the result
// equals the reference's bit for bit. Measured on a Xeon with AMX-INT8 (the per-block fp32
// epilogue): a block's tile work (zero, two loads, product, store) takes ~15 ns and its epilogue
// (cvt, mul, two fma per row) ~12 ns, and the two do not overlap, so this reaches ~1.1-1.5x the
// VNNI tile, not the tile unit's peak.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include <stdlib.h>
#include <string.h>
#include "ck_matmul.h"
#include "ck_tile.h"
#include "scales_avx512.h"

#ifdef CK_AMX_EMULATED
#include "avx512_simde.h"
#define TAMX
#else
#include <immintrin.h>
#define TAMX __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))
#endif
#define INLINE static inline __attribute__((always_inline))
#define UNROLL _Pragma("clang loop unroll(full)")

/// Tile numbers: C, A and B tiles alternate between two sets by item parity.
enum { TC = 0, TA = 2, TB = 4 };
/// Items (block, activation tile, group) whose tile products are in flight ahead of the
/// epilogue: a tile product's result reaches memory hundreds of cycles after it is issued, so
/// the epilogue reads results issued this many items earlier (a power of two).
#ifndef CK_AMX_DEPTH
#define CK_AMX_DEPTH 4
#endif

/// Fewer activation rows than this run the AVX-512 kernel (measured crossover).
#define CK_AMX_MIN_ROWS 16

/// Per-thread scratch: the stored C tiles of the items in flight, and one chunk's unpacked
/// weights (4-bit formats and Q5_0's compact copy), grown on demand.
typedef struct {
    int32_t dot[CK_AMX_DEPTH][16][16];   ///< [item % depth][act row][weight row]
    uint8_t *bytes;                         ///< [group][block][512]: the chunk's byte layout
    int64_t cap;
} amx_scratch;
static _Thread_local amx_scratch scratch;

/// One tile product into C tile `c` from A tile `ta` (activations at aq, row stride lda) and B
/// tile `tb` (weight bytes at bw), stored to `out`.
#define TILE_DOT(c, ta, tb, aq, lda, bw, out) \
    do {                                     \
        tile_zero(c);                        \
        tile_load(ta, (aq), (lda));          \
        tile_load(tb, (bw), 64);             \
        tile_dp(c, ta, tb);                  \
        tile_store(c, (out), 64);            \
    } while (0)

/// One item's tile product (aq: its activation tile's block, bw: its 512 weight bytes) into
/// scratch.dot[slot], on the tiles of parity p.
TAMX INLINE void item_dots(const int8_t *aq, int64_t k, const uint8_t *bw, int slot, int p) {
    if (p) TILE_DOT(TC + 1, TA + 1, TB + 1, aq, k, bw, scratch.dot[slot]);
    else TILE_DOT(TC + 0, TA, TB, aq, k, bw, scratch.dot[slot]);
}

/// The items in order (groups, then activation tiles, then blocks), as the tile products issue
/// them ahead of the epilogue.
typedef struct {
    int64_t next, count;   ///< items issued so far, of count
    int64_t g, t, b;       ///< the next item's group (from the first), activation tile, block
} cursor;

/// Issues the next item's tile products, if any is left.
TAMX INLINE void issue(cursor *c, const int8_t *aq0, int64_t k, int64_t nb, int64_t ntiles, const uint8_t *bytes0) {
    if (c->next == c->count) return;
    item_dots(aq0 + c->t * 16 * k + c->b * 32, k, bytes0 + (c->g * nb + c->b) * 512,
              (int)(c->next & (CK_AMX_DEPTH - 1)), (int)(c->next & 1));
    c->next++;
    if (++c->b == nb) {
        c->b = 0;
        if (++c->t == ntiles) { c->t = 0; c->g++; }
    }
}

/// Groups [g0, g1) (their byte layouts from bytes0, nb * 512 bytes apart) x `ntiles` activation
/// tiles of `rows` rows (FULL: 16, unrolled) from row m0, over the whole K: per item the
/// epilogue of the tile products issued CK_AMX_DEPTH - 1 items earlier into 16 accumulator
/// registers (one per activation row), then y, masked to the valid columns below n1. HASMIN:
/// stored mw; SC: the scale storage (scale_storage.h).
TAMX INLINE void run_items(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t g0,
                           int64_t g1, int64_t n1, int64_t m0, int64_t ntiles, int rows, const uint8_t *bytes0,
                           float negoff, const int HASMIN, const int SC, const int FULL) {
    const int64_t k = d->k, nb = k / 32;
    const int R = FULL ? 16 : rows;
    const __m512 vneg = _mm512_set1_ps(negoff);
    const int8_t *aq0 = a->q + m0 * k;
    cursor c = {0, (g1 - g0) * ntiles * nb, 0, 0, 0};
    for (int i = 0; i < CK_AMX_DEPTH - 1; i++) issue(&c, aq0, k, nb, ntiles, bytes0);
    int64_t item = 0;
    for (int64_t g = g0; g < g1; g++) {
        const int nvalid = n1 - g * CK_R < CK_R ? (int)(n1 - g * CK_R) : CK_R;
        const __mmask16 mask = (__mmask16)((1u << nvalid) - 1);
        for (int64_t t = 0; t < ntiles; t++) {
            const float *meta0 = a->meta + (m0 + 16 * t) * nb * CK_ACT_META;
            __m512 acc[16];
            __m512i ksum[16];   // K-quants: sum of code * dot(u, q) over the super-block so far
            UNROLL for (int r = 0; r < 16; r++) { acc[r] = _mm512_setzero_ps(); ksum[r] = _mm512_setzero_si512(); }
            for (int64_t b = 0; b < nb; b++, item++) {
                issue(&c, aq0, k, nb, ntiles, bytes0);
                const int s = (int)(item & (CK_AMX_DEPTH - 1));
                if (SC == CK_SC_K) {   // Q4_K, Q5_K: integer per super-block, then its fp32 steps
                    const uint8_t *rec = ck_kscale_record(w->dw, nb, g, b, 1);
                    const __m512i c0 = ck_kcodes16(rec + ck_kscale_codes((int)(b % 8), 0, 1), 0);
                    UNROLL for (int r = 0; r < 16; r++)
                        if (FULL || r < R) ksum[r] = _mm512_add_epi32(ksum[r], _mm512_mullo_epi32(_mm512_loadu_si512(scratch.dot[s][r]), c0));
                    if (b % 8 == 7) {
                        __m512i pairs[8];
                        ck_kterm_pairs16(rec, 1, pairs);
                        UNROLL for (int r = 0; r < 16; r++) {
                            if (FULL || r < R) {
                                const int64_t first = (m0 + 16 * t + r) * nb + b - 7;
                                const __m512 da = _mm512_set1_ps(meta0[(r * nb + b) * CK_ACT_META]);
                                acc[r] = ck_kfold16(acc[r], ksum[r], ck_kterm16(pairs, a->sums + first, 1), rec, da, 0, 1);
                                ksum[r] = _mm512_setzero_si512();
                            }
                        }
                    }
                    continue;
                }
                const __m512 d0 = ck_scales16(w->dw, w->mw, nb, g, b, 0, SC);
                const __m512 mw = HASMIN ? ck_scales16(w->dw, w->mw, nb, g, b, 2, SC) : _mm512_mul_ps(d0, vneg);
                UNROLL for (int r = 0; r < 16; r++) {
                    if (FULL || r < R) {
                        const float *meta = meta0 + (r * nb + b) * CK_ACT_META;
                        const __m512 dot = _mm512_cvtepi32_ps(_mm512_loadu_si512(scratch.dot[s][r]));
                        acc[r] = _mm512_fmadd_ps(_mm512_mul_ps(dot, d0), _mm512_set1_ps(meta[0]), acc[r]);
                        acc[r] = _mm512_fmadd_ps(mw, _mm512_set1_ps(meta[1]), acc[r]);
                    }
                }
            }
            UNROLL for (int r = 0; r < 16; r++) {
                if (FULL || r < R) {
                    float *out = y + (m0 + 16 * t + r) * d->n + g * CK_R;
                    __m512 v = acc[r];
                    if (d->accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, out), v);
                    _mm512_mask_storeu_ps(out, mask, v);
                }
            }
        }
    }
}

typedef void (*items_fn)(const ck_matmul_desc *, const ck_weights *, const ck_act *, float *, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int, const uint8_t *, float);

#define ITEMS(NAME, HASMIN, SC, FULL)                                                                      \
    TAMX static void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t g0,   \
                          int64_t g1, int64_t n1, int64_t m0, int64_t ntiles, int rows, const uint8_t *bytes0,   \
                          float negoff) {                                                                        \
        run_items(d, w, a, y, g0, g1, n1, m0, ntiles, rows, bytes0, negoff, HASMIN, SC, FULL);              \
    }
#define ITEMS_PAIR(P, HASMIN, SC) \
    ITEMS(P##_full, HASMIN, SC, 1) ITEMS(P##_part, HASMIN, SC, 0) \
    static const items_fn P[2] = {P##_part, P##_full};

ITEMS_PAIR(i_h, 0, CK_SC_F16)      // Q4_0, Q5_0, Q8_0, IQ4_NL (fp16 d)
ITEMS_PAIR(i_hmin, 1, CK_SC_F16)   // Q4_1, Q5_1 (fp16 d, m)
ITEMS_PAIR(i_kmin, 1, CK_SC_K)     // Q4_K, Q5_K (d, dmin and codes)
ITEMS_PAIR(i_f, 0, CK_SC_F32)      // IQ4_XS (fp32 scale plane)
ITEMS_PAIR(i_e8, 0, CK_SC_E8)      // MXFP4 (ue8m0 codes, 2^(e - 128))
ITEMS_PAIR(i_e8i, 0, CK_SC_E8I)    // MXINT8 (ue8m0 codes, 2^(e - 133))


/// Group g's byte layout (nb blocks x 512 bytes) into `out`: 4-bit formats split each packed
/// quad's nibbles (quad j's low nibbles are quad j, its high nibbles quad 4 + j); the code4
/// formats' codes (MXFP4, IQ4_NL) then go through their u table (ck_code4_u).
TAMX static void unpack_group(const ck_weights *w, const ck_format_info *info, int64_t g, int64_t nb, uint8_t *out) {
    if (!info->packed4) {
        for (int64_t b = 0; b < nb; b++) ck_byte_layout_block(w, g, b, out + b * 512);
        return;
    }
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    const __m512i code_u = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)ck_code4_u(w->format)));
    const uint8_t *q = w->qs + g * nb * 256;
    for (int64_t b = 0; b < nb; b++)
        UNROLL for (int j = 0; j < 4; j++) {
            const __m512i v = _mm512_loadu_si512(q + b * 256 + 64 * j);
            __m512i lo = _mm512_and_si512(v, low4), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low4);
            if (info->code4) { lo = _mm512_shuffle_epi8(code_u, lo); hi = _mm512_shuffle_epi8(code_u, hi); }
            _mm512_storeu_si512(out + b * 512 + 64 * j, lo);
            _mm512_storeu_si512(out + b * 512 + 64 * (4 + j), hi);
        }
}

/// Tiles configured for `rows` activation rows (1..16) and K = 32 bytes per tile.
TAMX static void configure(int rows) {
    ck_tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 2; t++) {
        cfg.rows[TC + t] = (uint8_t)rows; cfg.colsb[TC + t] = 64;   // C: rows x 16 int32
        cfg.rows[TA + t] = (uint8_t)rows; cfg.colsb[TA + t] = 32;   // A: rows x 32 bytes
        cfg.rows[TB + t] = 8; cfg.colsb[TB + t] = 64;               // B: 8 x 64 bytes (K = 32)
    }
    tile_config(&cfg);
}

TAMX static void amx_prefill(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0,
                             int64_t n1, const items_fn *fn) {
    const ck_format_info info = ck_weight_format_info(w->format);
    const int64_t nb = d->k / 32, g0 = n0 / CK_R, g1 = (n1 + CK_R - 1) / CK_R;
    const int stored = w->qs && info.qs_block_bytes == 512;   // already the byte layout
    const int64_t need = stored ? 0 : (g1 - g0) * nb * 512;
    if (need > scratch.cap) {
        uint8_t *p = realloc(scratch.bytes, (size_t)need);
        if (!p) { ck_matmul_avx512(d, w, a, y, n0, n1); return; }
        scratch.bytes = p;
        scratch.cap = need;
    }
    // Every group's bytes once per call (the driver's unit: an L2 chunk of groups).
    if (!stored)
        for (int64_t g = g0; g < g1; g++) unpack_group(w, &info, g, nb, scratch.bytes + (g - g0) * nb * 512);
    const uint8_t *bytes0 = stored ? w->qs + g0 * nb * 512 : scratch.bytes;
    const float negoff = (float)(-info.off);
    // Full 16-row activation tiles, then the partial last one (fewer A and C rows).
    const int64_t full = d->m / 16;
    if (full) {
        configure(16);
        fn[1](d, w, a, y, g0, g1, n1, 0, full, 16, bytes0, negoff);
    }
    if (full * 16 < d->m) {
        const int rows = (int)(d->m - full * 16);
        configure(rows);
        fn[0](d, w, a, y, g0, g1, n1, full * 16, 1, rows, bytes0, negoff);
    }
    tile_release();
}

void ck_matmul_amx(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    if (n1 > d->n) n1 = d->n;
    const items_fn *fn;
    switch (w->format) {
    case CK_WF_Q4_0: case CK_WF_Q5_0: case CK_WF_Q8_0: case CK_WF_IQ4_NL: fn = i_h; break;
    case CK_WF_Q4_1: case CK_WF_Q5_1: fn = i_hmin; break;
    case CK_WF_Q4_K: case CK_WF_Q5_K: fn = i_kmin; break;
    case CK_WF_IQ4_XS: fn = i_f; break;
    case CK_WF_MXINT8: fn = i_e8i; break;
    case CK_WF_MXFP4: fn = i_e8; break;
    // Q6_K and Q3_K (two half-block scales: the VNNI tile is faster, see kernel_table.c); float formats
    // never come here (their own kernels in the table).
    default: fn = NULL; break;
    }
    // Below one full activation tile the VNNI tile is faster (a partial tile pays the whole tile
    // product and store for fewer rows): on a Xeon with AMX-INT8, one thread, m = 8: 0.65-0.96x.
    if (d->m < CK_AMX_MIN_ROWS || !fn) { ck_matmul_avx512(d, w, a, y, n0, n1); return; }
    amx_prefill(d, w, a, y, n0, n1, fn);
}
#endif
