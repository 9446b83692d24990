// Split-K ("flash-decoding") attention of one query row against the KV cache (ck_ops.h), any
// cache format.
//
// The visible positions [first, last] (n of them) are cut into U = min(ceil(n / 64), 16) contiguous
// ranges, unit u covering first + n*u/U ..< first + n*(u+1)/U; the threads take the units. A unit walks its range once, a block of rows at
// a time, and serves every query head h from KV head g = h / (heads / kv_heads) of the same
// rows (so a row is read from memory once, whole, and from L1 by the other heads):
//   scores   s[h][p] = q_h · k_p[g]                    (heads x len floats of the thread's scratch)
//   max      m_h     = max_p s[h][p]
//   weights  w[h][p] = e^(s[h][p] - m_h),  l_h = sum_p w[h][p]
//   partial  o_h[d]  = sum_p w[h][p] * v_p[d]           (unnormalised, fp32)
// and leaves (o, m, l) of every head in its partial slot. The calling thread then merges the
// U partials in unit order with the log-sum-exp correction:
//   M = max_u m_u,  out[d] = sum_u e^(m_u - M) o_u[d] / sum_u e^(m_u - M) l_u.
// Range boundaries and merge order depend only on (first, last), never on the thread count or on
// which thread ran which unit, so a result is bitwise the same on every run and every thread count.
//
// The units compute in one order, which ref's scalar unit (attention_ref.c, any head_dim) spells
// out; here the AVX2/F16C units, one instantiation per format (fp16 with head_dim a
// multiple of 8; q8_0 and MXFP8, whose blocks of 32 carry one scale each). The AVX2 path walks
// K eight rows at a time and V in 8-row blocks, every KV head of a row in turn, and converts
// each K row segment or V chunk once for up to four of the query heads that share it (the
// conversion, not the FMAs, was the cost when each head converted its own); MXFP8 block scales
// are applied once per block and head for a score and folded into the converted codes for V.
// q8_0 skips the conversion to fp32: its codes meet an int16 query and int16 weights in
// vpmaddwd, V in blocks of up to 64 rows (attention_split_q8_0.h).
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include "ck_ops.h"
#include "ck_convert.h"
#include "ck_matmul.h"
#include "attention_split_unit.h"
#include "exp_scalar.h"
#include "attention_avx2.h"

/// Floats of one partial slot: o [heads][hd], m [heads], l [heads].
static int64_t partial_floats(const ck_attention_desc *d) { return d->heads * (d->head_dim + 2); }

/// Ranges a decode row's positions are cut into: one per RANGE_POSITIONS, at most SPLIT_UNITS,
/// so that the sums and their merge order depend on the positions alone, never on the thread
/// count. 16 keeps up to 16 threads busy at depth and costs one partial slot [heads][hd + 2]
/// each to merge; 64 positions keep a short context from paying that per handful of rows.
enum { SPLIT_UNITS = 16, RANGE_POSITIONS = 64 };

/// Floats after a thread's scores: a decoded segment (hd floats) for the scalar path, then the
/// int16 query and its per-head scales for the q8_0 path.
static int64_t unit_tmp_floats(int64_t heads, int64_t hd) { return hd + heads * ((hd + 1) / 2 + 1); }

int64_t ck_attention_split_scratch_floats(int64_t capacity, int64_t heads, int64_t head_dim) {
    // Scores [heads][longest range], the unit's temporaries, and the partial slots of every unit
    // (all of them in one block when one thread runs them), for any visible count n <= capacity:
    // up to SPLIT_UNITS * RANGE_POSITIONS positions a range holds at most RANGE_POSITIONS (and at
    // most n), beyond it ceil(n / SPLIT_UNITS).
    const int64_t spread = (int64_t)SPLIT_UNITS * RANGE_POSITIONS;
    const int64_t longest = capacity > spread ? (capacity + SPLIT_UNITS - 1) / SPLIT_UNITS
                                              : capacity < RANGE_POSITIONS ? capacity : RANGE_POSITIONS;
    const int64_t ranges = (capacity + RANGE_POSITIONS - 1) / RANGE_POSITIONS;
    const int64_t units = ranges < SPLIT_UNITS ? ranges : SPLIT_UNITS;
    return heads * longest + unit_tmp_floats(heads, head_dim) + units * heads * (head_dim + 2);
}

#if defined(__x86_64__)   // the AVX2 split-K units
/// Query heads served per pass over a K row or a V chunk (SPLIT_GW): each K row and V chunk is
/// converted once per four heads (SmolLM2: 3 per KV head, Gemma 3: 4) instead of once per head.
enum { GMAX = SPLIT_GW };
_Static_assert(GMAX <= F16_DOTS_MAX, "f16_dots serves every pass");

#include "attention_split_q8_0.h"

/// acc[i] (lanes summing to q_i · k) for the G query heads q + i*hd against one K row segment.
/// fp16: one FMA per head per eight converted elements. Block formats: a 32-element block's
/// four FMAs per head in a short chain, then times unit * scale into acc.
T256 INLINE void row_dots(ck_kv_format F, const float *q, int64_t hd, const uint8_t *seg, int G, __m256 *acc) {
    if (F == CK_KV_F16) {
        f16_dots(q, hd, seg, G, acc);   // two chains per head halve the FMA latency per row
        return;
    }
    for (int i = 0; i < G; i++) acc[i] = _mm256_setzero_ps();
    for (int64_t b = 0; b < hd / 32; b++) {
        const uint8_t *blk = seg + b * kv_block_bytes(F);
        __m256 t[GMAX];
        for (int i = 0; i < G; i++) t[i] = _mm256_setzero_ps();
        for (int c = 0; c < 4; c++) {
            const __m256 k = kv_codes8(F, blk, 8 * c);
            for (int i = 0; i < G; i++) t[i] = _mm256_fmadd_ps(_mm256_loadu_ps(q + i * hd + 32 * b + 8 * c), k, t[i]);
        }
        const __m256 sc = _mm256_set1_ps(kv_unit(F) * kv_block_scale(F, blk));
        for (int i = 0; i < G; i++) acc[i] = _mm256_fmadd_ps(t[i], sc, acc[i]);
    }
}

/// The last two levels of a hadd tree: lane j of the result is (h[j/2] lanes 2m + 2m+1) +
/// (h[j/2] lanes 4+2m + 5+2m), m = j % 2.
T256 INLINE __m256 hsum_pairs4(const __m256 *h) {
    const __m256 u0 = _mm256_hadd_ps(h[0], h[1]), u1 = _mm256_hadd_ps(h[2], h[3]);
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

/// Lane i of the result = the horizontal sum of a[i] (a hadd tree over eight vectors).
T256 INLINE __m256 hsum8(const __m256 *a) {
    const __m256 h[4] = {_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]),
                         _mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7])};
    return hsum_pairs4(h);
}

/// Scores s[i*len + p] of G query heads (q + i*hd) for the rows p of [p0, p1) of one KV head
/// (kg: its segment in the range's first row), eight rows at a time reduced by one hsum8 per
/// head; a last group of fewer rows repeats its last row and keeps only its own scores, so every
/// score is the same sum wherever its row falls.
T256 INLINE void score_rows(ck_kv_format F, const float *q, int64_t hd, const uint8_t *kg, int64_t row_bytes,
                            int64_t p0, int64_t p1, int G, float *s, int64_t len) {
    for (int64_t p = p0; p < p1; p += 8) {
        const int64_t n = p1 - p < 8 ? p1 - p : 8;
        __m256 acc[GMAX][8];
        for (int r = 0; r < 8; r++) {
            __m256 a[GMAX];
            row_dots(F, q, hd, kg + (p + (r < n ? r : n - 1)) * row_bytes, G, a);
            for (int i = 0; i < G; i++) acc[i][r] = a[i];
        }
        for (int i = 0; i < G; i++) {
            const __m256 sc = hsum8(acc[i]);
            if (n == 8) _mm256_storeu_ps(s + i * len + p, sc);
            else {
                float lanes[8];
                _mm256_storeu_ps(lanes, sc);
                for (int64_t r = 0; r < n; r++) s[i * len + p + r] = lanes[r];
            }
        }
    }
}

/// score_rows for q8_0, with the int16 query q16 + i*hd and its scales qs[i]: eight rows at a
/// time (score8_q8); a last group of fewer rows repeats its last row and keeps only its own
/// scores, so every row's score is the same sum wherever it falls.
T256 INLINE void score_rows_q8(const int16_t *q16, const float *qs, int64_t hd, const uint8_t *kg, int64_t row_bytes,
                               int64_t p0, int64_t p1, int G, float *s, int64_t len) {
    for (int64_t p = p0; p < p1; p += 8) {
        const int64_t n = p1 - p < 8 ? p1 - p : 8;
        const uint8_t *rows[8];
        for (int r = 0; r < 8; r++) rows[r] = kg + (p + (r < n ? r : n - 1)) * row_bytes;
        __m256 sc[GMAX];
        score8_q8(q16, qs, hd, rows, G, sc);
        for (int i = 0; i < G; i++) {
            if (n == 8) _mm256_storeu_ps(s + i * len + p, sc[i]);
            else {
                float lanes[8];
                _mm256_storeu_ps(lanes, sc[i]);
                for (int64_t k = 0; k < n; k++) s[i * len + p + k] = lanes[k];
            }
        }
    }
}

/// acc[i][c] += w_i[p] * (row p's chunk vector c) for the G heads: the chunk of NV vectors at
/// dim d0 of one KV head's segment `seg` of row p, converted once for all heads.
T256 INLINE void v_row(ck_kv_format F, const float *w, int64_t len, const uint8_t *seg, int64_t d0, int64_t p,
                       int G, int NV, __m256 acc[][2]) {
    __m256 v[2];
    if (F == CK_KV_F16) {
        for (int c = 0; c < NV; c++) v[c] = load_half8(seg + 2 * d0 + 16 * c);
    } else {
        const uint8_t *blk = seg + d0 / 32 * kv_block_bytes(F);
        const __m256 sc = _mm256_set1_ps(kv_unit(F) * kv_block_scale(F, blk));
        for (int c = 0; c < NV; c++) v[c] = _mm256_mul_ps(kv_codes8(F, blk, (int)(d0 % 32) + 8 * c), sc);
    }
    for (int i = 0; i < G; i++) {
        const __m256 wp = _mm256_broadcast_ss(w + i * len + p);
        for (int c = 0; c < NV; c++) acc[i][c] = _mm256_fmadd_ps(wp, v[c], acc[i][c]);
    }
}

/// o_i[0 .. 8*NV) += sum_{p in [p0, p1)} w_i[p] * V_p[chunk] for the G heads (w_i = w + i*len,
/// o_i = o + i*hd) over one chunk of 8*NV dims (NV 1 or 2) starting at dim d0 of one KV head
/// (vg: its segment in the range's first row): one FMA chain per output over the rows in order
/// (the canonical order), the G*NV accumulators in registers over the rows; each row's chunk is
/// converted once for all G heads. Block formats (NV = 2, d0 a multiple of 16): the chunk is half
/// a block, its codes times unit * scale once for all heads.
T256 INLINE void v_rows(ck_kv_format F, const float *w, int64_t len, const uint8_t *vg, int64_t row_bytes, int64_t d0,
                        int64_t p0, int64_t p1, int G, int NV, float *o, int64_t hd) {
    __m256 acc[GMAX][2];
    for (int i = 0; i < G; i++)
        for (int c = 0; c < NV; c++) acc[i][c] = _mm256_loadu_ps(o + i * hd + d0 + 8 * c);
    for (int64_t p = p0; p < p1; p++) v_row(F, w, len, vg + p * row_bytes, d0, p, G, NV, acc);
    for (int i = 0; i < G; i++)
        for (int c = 0; c < NV; c++) _mm256_storeu_ps(o + i * hd + d0 + 8 * c, acc[i][c]);
}

/// V rows per block (3 KiB at SmolLM2's 384-byte rows): read from memory once and from L1 by the
/// other KV heads' and chunks' passes; the accumulators go through the partial slot between
/// blocks. 8 measured faster than 16 or 32 in a decode microbenchmark (fp16 cache, depth 4096);
/// the whole model moved within the machine's noise.
enum { PB = 8 };

/// Rows ahead that the K and V passes prefetch: a block's rows are contiguous bytes, but the
/// passes read them KV head by KV head (stride row_bytes), which the hardware prefetchers do not
/// follow far enough; without it the 2-thread decode at depth 4096 streamed K and V at a third of the
/// machine's read rate. 16 rows (6-8 KiB of fp16 rows) keep the prefetched lines in the 32 KiB
/// L1 until they are read: in the decode microbenchmark (2 threads, depth 4096, fp16, interleaved
/// rounds) 16 took SmolLM2's 30 layers from 11.9-14.0 to 10.2-12.1 ms and Gemma's 18 from
/// 7.5-8.0 to 6.5-7.1 ms against 64; 128 and 256 were slower still; q8_0 moved within noise.
/// Rechecked once kv_prefetch's loop was kept rolled: 8, 24 and 32 rows within noise of 16.
enum { PREFETCH_ROWS = 16 };

/// score_rows and v_rows with G a constant (1 .. GMAX), so their head loops unroll into registers.
#define FOR_G(G, CALL) switch (G) { case 1: { const int g_ = 1; CALL; } break; case 2: { const int g_ = 2; CALL; } break; \
                                    case 3: { const int g_ = 3; CALL; } break; default: { const int g_ = 4; CALL; } break; }

/// Per head: max, weights e^(s - m) in place and their sum in the canonical 16-lane order
/// (range_softmax16, attention_split_avx512.h: whole 32-position pairs into two 16-lane sums A
/// and B, A += B, the rest 16 at a time into A, the lanes reduced by sum16's tree), here as two
/// 8-lane halves of each; the partial output starts at zero.
T256 void range_softmax(const range_job *j) {
    const int64_t hd = j->hd, len = j->len, H = j->heads;
    float *const s = j->s;
    for (int64_t h = 0; h < H; h++) {
        float *sh = s + h * len;
        __m256 vmax = _mm256_set1_ps(-INFINITY);
        int64_t p = 0;
        for (; p + 8 <= len; p += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(sh + p));
        float lanes[8], mx = -INFINITY;
        _mm256_storeu_ps(lanes, vmax);
        for (int i = 0; i < 8; i++) mx = lanes[i] > mx ? lanes[i] : mx;
        for (; p < len; p++) mx = sh[p] > mx ? sh[p] : mx;
        const __m256 mv = _mm256_set1_ps(mx);
        __m256 a[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()}, b[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
        for (p = 0; p + 32 <= len; p += 32)
            for (int k = 0; k < 2; k++) {
                const __m256 e0 = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(sh + p + 8 * k), mv));
                const __m256 e1 = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(sh + p + 16 + 8 * k), mv));
                _mm256_storeu_ps(sh + p + 8 * k, e0);
                _mm256_storeu_ps(sh + p + 16 + 8 * k, e1);
                a[k] = _mm256_add_ps(a[k], e0);
                b[k] = _mm256_add_ps(b[k], e1);
            }
        for (int k = 0; k < 2; k++) a[k] = _mm256_add_ps(a[k], b[k]);
        for (; p < len; p += 8) {
            __m256 e;
            if (p + 8 <= len) {
                e = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(sh + p), mv));
                _mm256_storeu_ps(sh + p, e);
            } else {
                float tail[8] = {0};
                const int left = (int)(len - p);
                for (int i = 0; i < left; i++) tail[i] = sh[p + i];
                _mm256_storeu_ps(tail, ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), mv)));
                for (int i = 0; i < left; i++) sh[p + i] = tail[i];
                for (int i = left; i < 8; i++) tail[i] = 0;
                e = _mm256_loadu_ps(tail);
            }
            const int k = (int)((p / 8) % 2);   // which half of the 16-lane group
            a[k] = _mm256_add_ps(a[k], e);
        }
        j->m[h] = mx;
        j->l[h] = ck_hsum256(_mm256_add_ps(a[0], a[1]));
        for (int64_t d = 0; d < hd; d += 8) _mm256_storeu_ps(j->o + h * hd + d, _mm256_setzero_ps());
    }
}

/// The K pass's step: scores of heads h .. h+G-1 for rows [b0, b1), format F.
T256 INLINE void k_step(const range_job *j, ck_kv_format F, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    const uint8_t *kg = j->k + g * j->head_bytes;
    const int64_t hd = j->hd, len = j->len;
    if (F == CK_KV_Q8_0) { FOR_G(G, score_rows_q8(j->q16 + h * hd, j->qs + h, hd, kg, j->row_bytes, b0, b1, g_, j->s + h * len, len)) }
    else { FOR_G(G, score_rows(F, j->q + h * hd, hd, kg, j->row_bytes, b0, b1, g_, j->s + h * len, len)) }
}

/// The V pass's step (fp16, MXFP8): per 16-dim chunk (8 at the fp16 tail) the accumulators of
/// heads h .. h+G-1 in registers over rows [b0, b1).
T256 INLINE void v_step(const range_job *j, ck_kv_format F, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    const uint8_t *vg = j->v + g * j->head_bytes;
    const int64_t hd = j->hd, len = j->len;
    for (int64_t d0 = 0; d0 < hd; d0 += 16) {
        if (hd - d0 >= 16) { FOR_G(G, v_rows(F, j->s + h * len, len, vg, j->row_bytes, d0, b0, b1, g_, 2, j->o + h * hd, hd)) }
        else { FOR_G(G, v_rows(F, j->s + h * len, len, vg, j->row_bytes, d0, b0, b1, g_, 1, j->o + h * hd, hd)) }
    }
}

/// The q8_0 V pass's step: one block of up to VROWS_Q8 rows, the next block's rows prefetched a
/// few lines per chunk over its KV heads' passes (by the first head of each KV head).
T256 INLINE void v_step_q8(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    const uint8_t *pf;
    const int64_t pf_bytes = v_step_prefetch(j, g, h, b1, VROWS_Q8, &pf);
    FOR_G(G, v_block_q8(j->s + h * j->len, j->len, j->v + g * j->head_bytes, j->row_bytes, b0, b1, g_, j->o + h * j->hd, j->hd, pf, pf_bytes))
}

T256 static void k_step_f16(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { k_step(j, CK_KV_F16, g, h, G, b0, b1); }
T256 static void k_step_q8_0(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { k_step(j, CK_KV_Q8_0, g, h, G, b0, b1); }
T256 static void k_step_mxfp8(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { k_step(j, CK_KV_MXFP8_E4M3, g, h, G, b0, b1); }
T256 static void v_step_f16(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { v_step(j, CK_KV_F16, g, h, G, b0, b1); }
T256 static void v_step_mxfp8(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { v_step(j, CK_KV_MXFP8_E4M3, g, h, G, b0, b1); }
T256 static void v_step_q8_0(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { v_step_q8(j, g, h, G, b0, b1); }

T256 void ck_attention_split_f16_avx2(const range_job *j) {
    if (j->hd % 8 != 0) { ck_attention_split_ref(j); return; }
    split_pass(j, 8, j->k, PREFETCH_ROWS, k_step_f16);
    range_softmax(j);
    split_pass(j, PB, j->v, PREFETCH_ROWS, v_step_f16);
}
T256 void ck_attention_split_q8_0_avx2(const range_job *j) {
    quantize_query(j->q, j->heads, j->hd, j->q16, j->qs);
    split_pass(j, 8, j->k, PREFETCH_ROWS, k_step_q8_0);
    range_softmax(j);
    split_pass(j, VROWS_Q8, 0, 0, v_step_q8_0);
}
T256 void ck_attention_split_mxfp8_avx2(const range_job *j) {
    split_pass(j, 8, j->k, PREFETCH_ROWS, k_step_mxfp8);
    range_softmax(j);
    split_pass(j, PB, j->v, PREFETCH_ROWS, v_step_mxfp8);
}
#endif

typedef struct {
    const ck_attention_desc *d;
    int64_t first, n, units, longest;   // longest: positions of the longest unit
    int threads;                        // scratch blocks in use
    void (*fn)(const range_job *);
} split_job;

/// Unit u's partial slot: slot u / threads from the end of scratch block u % threads (each block's
/// tail holds ceil(units / threads) slots; ck_attention_split_k checked that they do not reach the
/// working scores at the block's start).
static float *partial(const ck_attention_desc *d, int64_t u, int threads) {
    return d->scratch + (u % threads) * d->scratch_stride + d->scratch_stride - (u / threads + 1) * partial_floats(d);
}

/// Unit u: positions first + n*u/units ..< first + n*(u+1)/units, every head. Thread t's
/// scratch block starts with the working scores [heads][len].
static void run_unit(void *ctx, int64_t u, int t) {
    const split_job *sj = ctx;
    const ck_attention_desc *d = sj->d;
    const int64_t a = sj->first + sj->n * u / sj->units, b = sj->first + sj->n * (u + 1) / sj->units;
    const int64_t hd = d->head_dim;
    float *part = partial(d, u, sj->threads);
    float *tmp = d->scratch + (int64_t)t * d->scratch_stride + d->heads * sj->longest;   // unit_tmp_floats
    const range_job j = {
        .q = d->q, .k = d->k + a * d->row_bytes, .v = d->v + a * d->row_bytes,
        .row_bytes = d->row_bytes, .head_bytes = ck_kv_row_bytes(d->format, hd), .hd = hd, .len = b - a,
        .heads = d->heads, .group = d->heads / d->kv_heads, .format = d->format,
        .s = d->scratch + (int64_t)t * d->scratch_stride,
        .tmp = tmp,
        .q16 = (int16_t *)(tmp + hd),
        .qs = tmp + hd + d->heads * ((hd + 1) / 2),
        .o = part, .m = part + d->heads * hd, .l = part + d->heads * (hd + 1),
    };
    sj->fn(&j);
}

/// out[h] = sum_u e^(m_u - M) o_u / sum_u e^(m_u - M) l_u, units in order 0, 1, ..., e^x the
/// canonical exp (exp_scalar.h) on every path and CPU.
static void merge(const ck_attention_desc *d, int64_t units, int threads) {
    const int64_t hd = d->head_dim;
    for (int64_t h = 0; h < d->heads; h++) {
        float mx = -INFINITY;
        for (int64_t u = 0; u < units; u++) {
            const float *part = partial(d, u, threads);
            const float m = part[d->heads * hd + h];
            mx = m > mx ? m : mx;
        }
        float *out = d->out + h * hd, total = 0;
        for (int64_t u = 0; u < units; u++) {
            const float *part = partial(d, u, threads);
            const float c = ck_exp_scalar(part[d->heads * hd + h] - mx);   // not libm's, whose variant follows the CPU
            total += c * part[d->heads * (hd + 1) + h];
            const float *o = part + h * hd;
            if (u == 0) for (int64_t i = 0; i < hd; i++) out[i] = c * o[i];
            else for (int64_t i = 0; i < hd; i++) out[i] += c * o[i];
        }
        const float inv = 1.0f / total;
        for (int64_t i = 0; i < hd; i++) out[i] *= inv;
    }
}

int ck_attention_split_k_with(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k) {
    if (d->rows != 1 || nthreads < 1) return 0;
    const int64_t last = d->positions[0];
    const int64_t first = d->window > 0 && last - d->window + 1 > 0 ? last - d->window + 1 : 0;
    const int64_t n = last - first + 1;
    const int64_t ranges = (n + RANGE_POSITIONS - 1) / RANGE_POSITIONS;
    const int64_t units = ranges < SPLIT_UNITS ? ranges : SPLIT_UNITS;
    const int threads = nthreads < units ? nthreads : (int)units;
    const int64_t longest = (n + units - 1) / units;
    // Room for every unit's partial in one block, whatever the thread count, so that whether
    // split-K runs does not depend on it either.
    if (d->heads * longest + unit_tmp_floats(d->heads, d->head_dim) + units * partial_floats(d) > d->scratch_stride) return 0;
    split_job sj = {d, first, n, units, longest, threads, k->attention_split[d->format]};
    ck_parallel_units(run_unit, &sj, units, threads);
    merge(d, units, threads);
    return 1;
}

int ck_attention_split_k(const ck_attention_desc *d, int nthreads) {
    return ck_attention_split_k_with(d, nthreads, ck_kernels(ck_kernel_path_get()));
}

int ck_attention_split_k_on(const ck_attention_desc *d, int nthreads, int path) {
    return ck_kernel_path_supported(path) ? ck_attention_split_k_with(d, nthreads, ck_kernels((ck_kernel_path)path)) : 0;
}
