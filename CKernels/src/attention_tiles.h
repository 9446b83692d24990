// Private to the blocked prefill attention (attention_tiled.c) and its wide tiles
// (attention_tiles_avx512.c): the unit's buffer shapes, the prefetch cursor the tile phases
// advance, and the two FMA-bound phases of a chunk as functions of any vector width.
#ifndef CK_ATTENTION_TILES_H
#define CK_ATTENTION_TILES_H

#include <stdint.h>

/// Query lanes per unit and positions per decoded K/V chunk. 48 lanes (16 SmolLM2 rows x 3
/// heads, 12 Gemma 3 rows x 4) share each decoded chunk among more queries than 32 did; with the
/// online softmax no buffer grows with them but Qt and O.
enum { QL = 48, CP = 30 };

/// A cursor over the cache lines of rows [row, end) of one KV head, prefetched a few lines per
/// step between the tiles of one phase so that the rows the next phase decodes are in cache when
/// it starts: the scores prefetch the chunk's V rows, the weighted values the next chunk's K rows.
/// Before, decode_rows prefetched 16 rows ahead of itself and still waited on L3 (Gemma-shaped
/// global layer at depth 4096, 1 thread: decode_rows 18 % of the samples, 8 % with this;
/// 185-192 -> 164-176 ms in interleaved rounds).
typedef struct ck_row_prefetch {
    const uint8_t *base;
    int64_t row, end, line, lines_per_row, row_bytes;
    int64_t per_step;   ///< lines per step: all of them over the phase's tile calls
} row_prefetch;

/// Spreads the cursor's lines over `steps` calls of prefetch_step.
static inline void prefetch_spread(row_prefetch *f, int64_t steps) {
    if (steps < 1) steps = 1;
    f->per_step = ((f->end - f->row) * f->lines_per_row + steps - 1) / steps;
}

static inline __attribute__((always_inline)) void prefetch_step(row_prefetch *f) {
    for (int64_t i = 0; i < f->per_step && f->row < f->end; i++) {
        __builtin_prefetch(f->base + f->row * f->row_bytes + 64 * f->line, 0, 3);
        if (++f->line == f->lines_per_row) { f->line = 0; f->row++; }
    }
}

/// The scores of one chunk: s[p][lane] = sum_d kc[p][d] * qt[d][lane] for p < cn and every lane
/// below nl (a multiple of 8; a phase may also write lanes up to QL, whose queries are padding),
/// one FMA per (p, d, lane) with d ascending; pf advanced between tiles.
typedef void (*attention_scores_fn)(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl,
                                    row_prefetch *pf);
/// The weighted values of one chunk: o[lane][dim] += sum_p w[p][lane] * vc[p][dim] for lanes
/// below nl, p ascending; pf advanced between tiles.
typedef void (*attention_values_fn)(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl,
                                    row_prefetch *pf);

/// The scores of one chunk over a q8_0 cache in integer arithmetic: s[p][lane] = qs[lane] *
/// sum_b ks[p][b] * (sum_{d in block b} kc[p][d] * qt[d][lane]), with kc the chunk's K codes
/// sign-extended to int16 ([cn][hd]), ks their block scales ([cn][hd/32]), qt the query lanes
/// rounded to int16 (quantize_query) and stored in pairs of dims, qt[(d/2) * 2QL + 2 lane + d%2],
/// and qs their scales. Each block's sum is exact in int32; the blocks accumulate in fp32 in
/// ascending order (one FMA each), times qs last.
typedef void (*attention_scores_q8_0_fn)(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                         int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);

/// The weighted values of one chunk over a q8_0 cache in integer arithmetic: w[p][lane] (n
/// positions) times each V block's scale vs[p][b] ([n][hd/32]) rounded to int16 into wp (pairs
/// of positions, [hd/32][(n+1)/2][QL] int32) against the lane's largest weight times the block's
/// bound: bound[b * QL + lane] (a masked chunk: the largest scale the lane sees), or with bound
/// NULL the chunk's largest scale for every lane; the scales back in ws ([hd/32][QL]); then
/// o[lane][dim] += ws[b][lane] * sum_pp wp[b][pp][lane] . vp[pp][dim] for the dims of block b,
/// where each int32 of vp holds the int16 codes of positions 2pp (low half) and 2pp + 1 (high
/// half) at one dim ([(n+1)/2][hd]). The pair sums are exact in int32 (n <= 32: below 2^28).
typedef void (*attention_values_q8_0_fn)(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                         int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf);

/// The online softmax of one chunk, between the two phases: per lane below nl (a multiple of 8),
/// the chunk's largest score among the positions the lane sees (p0 + p in [first, last]; all of
/// them when !masked) raises run_max, and then the lane's sum and o row so far are scaled by
/// e^(old - new); s becomes the weights e^(s - run_max) (exactly 0 where hidden), added to
/// run_sum in position order. Every path's version gives the same bits (the same exp per lane).
typedef void (*attention_softmax_fn)(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                                     const int32_t *first, const int32_t *last, float *run_max, float *run_sum);

/// 8-lane versions (attention_tiled.c; head_dim a multiple of 8), named by the AVX2 kernel table.
void ck_attention_scores_avx2(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_values_avx2(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_softmax_avx2(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                               const int32_t *first, const int32_t *last, float *run_max, float *run_sum);

/// Scalar versions (attention_ref.c), the same sums in the same order, named by ref's table.
void ck_attention_scores_ref(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_values_ref(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_softmax_ref(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                              const int32_t *first, const int32_t *last, float *run_max, float *run_sum);

/// The integer phases in plain C (attention_q8_0_scalar.h): ref's as they are, the AVX2 path's
/// compiled for its target (attention_tiled.c); the AVX-512 ones below give the same bits.
void ck_attention_scores_q8_0_ref(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                  int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_values_q8_0_ref(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                  int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf);
void ck_attention_scores_q8_0_avx2(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                   int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_values_q8_0_avx2(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                   int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf);

/// 16-lane versions, native and compiled against SIMDe, named by the AVX-512 paths' kernel
/// tables; a head_dim that is not a multiple of 16 they hand to the 8-lane ones. Every output is
/// the same sum in the same order as the AVX2 tiles', so the results are identical.
void ck_attention_scores_avx512(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_values_avx512(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_scores_avx512_emu(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
/// The integer scores and values on 16-lane vectors with AVX512-VNNI (vpdpwssd), native and emulated.
void ck_attention_scores_q8_0_avx512(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                     int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_scores_q8_0_avx512_emu(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                         int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);
void ck_attention_values_q8_0_avx512(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                     int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf);
void ck_attention_values_q8_0_avx512_emu(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                         int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf);
void ck_attention_softmax_avx512(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                                 const int32_t *first, const int32_t *last, float *run_max, float *run_sum);
void ck_attention_softmax_avx512_emu(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                                     const int32_t *first, const int32_t *last, float *run_max, float *run_sum);
void ck_attention_values_avx512_emu(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf);

#endif
