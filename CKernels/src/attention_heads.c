// The per-head attention kernel (attention_heads.h): one decoded query row over a short fp16
// context, the query heads of one KV head per job: scores q·k over the visible positions,
// softmax, weighted sum of v, each head alone in its sums. The AVX2/F16C kernel's order is the
// one ref (ck_attention_head_f16_ref, attention_ref.c) and NEON (attention_head_neon.c) follow,
// so every path gives its bits.
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include "ck_ops.h"
#include "ck_matmul.h"
#include "attention_heads.h"
#include "attention_avx2.h"

#if defined(__x86_64__)   // the AVX2/F16C per-head kernel

/// w[0..n) = e^(w - max) with the vector exp (as the blocked prefill kernel's softmax); returns
/// 1 / their sum. Whole groups of 8 in place, the tail through a padded copy.
T256 static float softmax_avx2(float *w, int64_t n, float max) {
    const __m256 mx = _mm256_set1_ps(max);
    __m256 sum = _mm256_setzero_ps();
    int64_t p = 0;
    for (; p + 8 <= n; p += 8) {
        const __m256 e = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(w + p), mx));
        _mm256_storeu_ps(w + p, e);
        sum = _mm256_add_ps(sum, e);
    }
    const int left = (int)(n - p);
    if (left > 0) {
        float tail[8] = {0};
        for (int i = 0; i < left; i++) tail[i] = w[p + i];
        _mm256_storeu_ps(tail, ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), mx)));
        for (int i = 0; i < left; i++) w[p + i] = tail[i];
        for (int i = left; i < 8; i++) tail[i] = 0;
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(tail));
    }
    return 1.0f / ck_hsum256(sum);
}

/// Query heads a pass over K or V serves at most: each K or V vector is loaded and widened once
/// for both (two heads: 8 accumulators, 2 query vectors and one K vector in the 16 ymm; three
/// spilled an accumulator to the stack in both loops).
#define CK_HEADS_PER_PASS 2
_Static_assert(CK_HEADS_PER_PASS <= F16_DOTS_MAX, "f16_dots serves every pass");
/// Output dimensions accumulated per pass over the positions: 4 registers of 8 lanes per head.
#define CK_V_CHUNK 32

/// Prefetches the next job's K and V rows (its head segments) that this job's positions
/// [p0, p1) stand for: its rows spread over this job's score pass, so they arrive while this
/// job computes without a burst (attention_prefetch.h). Into L1 when the next job's rows fit
/// half of it, else into L2 (a long next row, a wide head), where they would evict this job's.
T256 INLINE void prefetch_next(const head_job *j, int64_t p0, int64_t p1) {
    if (!j->next_k) return;
    const int64_t r0 = p0 * j->next_n / j->n, r1 = p1 * j->next_n / j->n, bytes = 2 * j->head_dim;
    const int to_l1 = j->next_n * 2 * bytes <= 24 * 1024;
    for (int64_t r = r0; r < r1; r++)
        for (int64_t b = 0; b < bytes; b += 64) {
            const uint8_t *k = j->next_k + r * j->row_bytes + b, *v = j->next_v + r * j->row_bytes + b;
            if (to_l1) { _mm_prefetch((const char *)k, _MM_HINT_T0); _mm_prefetch((const char *)v, _MM_HINT_T0); }
            else { _mm_prefetch((const char *)k, _MM_HINT_T1); _mm_prefetch((const char *)v, _MM_HINT_T1); }
        }
}

/// Scores of the HC heads from h0 against every position (w[h * n + p]) and each head's
/// maximum. Positions in whole groups of eight: one 8-lane chain over the dims per position and
/// head, four positions' chains reduced by one hadd tree (per position the tree of the
/// eight-position form, so the same sums); the rest: two chains (the lower and upper eight dims
/// of each 16) added. `first`: the job's first pass, which prefetches the next job's rows.
T256 INLINE void scores(const head_job *j, int64_t h0, const int HC, float *mx, int first) {
    const int64_t hd = j->head_dim, n = j->n, rb = j->row_bytes, grouped = n - n % 8;
    const float *q = j->q + h0 * hd;
    float *w = j->w + h0 * n;
    __m128 vmax[CK_HEADS_PER_PASS];
    for (int c = 0; c < HC; c++) vmax[c] = _mm_set1_ps(-INFINITY);
    for (int64_t p = 0; p < grouped; p += 4) {
        if (first) prefetch_next(j, p, p + 4);
        const uint8_t *kp = j->k + p * rb;
        __m256 acc[4][CK_HEADS_PER_PASS];
        for (int i = 0; i < 4; i++) for (int c = 0; c < HC; c++) acc[i][c] = _mm256_setzero_ps();
        for (int64_t d = 0; d < hd; d += 8) {
            __m256 qv[CK_HEADS_PER_PASS];
            for (int c = 0; c < HC; c++) qv[c] = _mm256_loadu_ps(q + c * hd + d);
            for (int i = 0; i < 4; i++) {
                const __m256 kv = load_half8(kp + i * rb + 2 * d);
                for (int c = 0; c < HC; c++) acc[i][c] = _mm256_fmadd_ps(qv[c], kv, acc[i][c]);
            }
        }
        for (int c = 0; c < HC; c++) {
            const __m256 u = _mm256_hadd_ps(_mm256_hadd_ps(acc[0][c], acc[1][c]), _mm256_hadd_ps(acc[2][c], acc[3][c]));
            const __m128 dots = _mm_add_ps(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1));   // [p .. p+3]
            _mm_storeu_ps(w + c * n + p, dots);
            vmax[c] = _mm_max_ps(dots, vmax[c]);   // dots > max ? dots : max: a NaN score is skipped, as ref's `>` skips it
        }
    }
    for (int c = 0; c < HC; c++) {
        float lanes[4];
        _mm_storeu_ps(lanes, vmax[c]);
        mx[c] = -INFINITY;
        for (int i = 0; i < 4; i++) if (lanes[i] > mx[c]) mx[c] = lanes[i];
    }
    for (int64_t p = grouped; p < n; p++) {
        if (first) prefetch_next(j, p, p + 1);
        __m256 acc[CK_HEADS_PER_PASS];
        f16_dots(q, hd, j->k + p * rb, HC, acc);
        for (int c = 0; c < HC; c++) {
            const float dot = ck_hsum256(acc[c]);
            w[c * n + p] = dot;
            if (dot > mx[c]) mx[c] = dot;
        }
    }
}

/// out[h] = sum over p of w[h][p] v[p], times inv[h], for the HC heads from h0: one FMA chain
/// per output dim over the positions in order, CK_V_CHUNK dims of every head per pass.
T256 INLINE void values(const head_job *j, int64_t h0, const int HC, const float *inv) {
    const int64_t hd = j->head_dim, n = j->n, rb = j->row_bytes;
    const float *w = j->w + h0 * n;
    for (int64_t d0 = 0; d0 < hd; d0 += CK_V_CHUNK) {
        const int n8 = (int)((hd - d0 < CK_V_CHUNK ? hd - d0 : CK_V_CHUNK) / 8);
        __m256 acc[CK_HEADS_PER_PASS][CK_V_CHUNK / 8];
        for (int c = 0; c < HC; c++) for (int i = 0; i < CK_V_CHUNK / 8; i++) acc[c][i] = _mm256_setzero_ps();
        const uint8_t *vp = j->v + 2 * d0;
        if (n8 == CK_V_CHUNK / 8) {
            for (int64_t p = 0; p < n; p++, vp += rb) {
                __m256 wp[CK_HEADS_PER_PASS];
                for (int c = 0; c < HC; c++) wp[c] = _mm256_set1_ps(w[c * n + p]);
                for (int i = 0; i < CK_V_CHUNK / 8; i++) {
                    const __m256 vv = load_half8(vp + 16 * i);
                    for (int c = 0; c < HC; c++) acc[c][i] = _mm256_fmadd_ps(wp[c], vv, acc[c][i]);
                }
            }
        } else {
            for (int64_t p = 0; p < n; p++, vp += rb) {
                __m256 wp[CK_HEADS_PER_PASS];
                for (int c = 0; c < HC; c++) wp[c] = _mm256_set1_ps(w[c * n + p]);
                for (int i = 0; i < n8; i++) {
                    const __m256 vv = load_half8(vp + 16 * i);
                    for (int c = 0; c < HC; c++) acc[c][i] = _mm256_fmadd_ps(wp[c], vv, acc[c][i]);
                }
            }
        }
        for (int c = 0; c < HC; c++) {
            const __m256 s = _mm256_set1_ps(inv[c]);
            for (int i = 0; i < n8; i++) _mm256_storeu_ps(j->out + (h0 + c) * hd + d0 + 8 * i, _mm256_mul_ps(acc[c][i], s));
        }
    }
}

/// The HC heads from h0: scores, each head's softmax, the weighted V.
T256 INLINE void heads_pass(const head_job *j, int64_t h0, const int HC) {
    float mx[CK_HEADS_PER_PASS], inv[CK_HEADS_PER_PASS];
    scores(j, h0, HC, mx, h0 == 0);
    for (int c = 0; c < HC; c++) inv[c] = softmax_avx2(j->w + (h0 + c) * j->n, j->n, mx[c]);
    values(j, h0, HC, inv);
}

/// The job's heads in passes of two (one for an odd last head), each reading the K and V rows
/// once for both of its heads.
T256 void ck_attention_head_f16_avx2(const head_job *j) {
    int64_t h = 0;
    for (; h + 2 <= j->heads; h += 2) heads_pass(j, h, 2);
    if (h < j->heads) heads_pass(j, h, 1);
}
#endif

int64_t ck_attention_heads_scratch_floats(int64_t capacity, int64_t heads, int64_t head_dim) {
    const int64_t n = capacity < CK_SPLIT_MIN_POSITIONS ? capacity : CK_SPLIT_MIN_POSITIONS;
    return heads * n + head_dim;   // w [heads][n], tmp [head_dim]
}

typedef struct {
    const ck_attention_desc *rows;   // one decoded row each
    int64_t count;
    int64_t units;                   // (row, head) units: the rows' heads summed
    const ck_path_kernels *k;
} job;

/// Thread t's share of the (row, query head) units: one contiguous run of them, rows in order
/// and each row's heads in order, so a thread takes the query heads that share a KV head one
/// after another; each run of them on one KV head is one kernel job, which reads that head's K
/// and V rows once for all of its heads while the next job's rows are prefetched. Each head is
/// computed alone, so neither the thread count nor the other rows change a sum.
static void run(void *ctx, int t, int nthreads) {
    const job *jb = ctx;
    const int64_t from = jb->units * t / nthreads, to = jb->units * (t + 1) / nthreads;
    head_job pending = {0};
    int64_t base = 0;
    for (int64_t i = 0; i < jb->count && base < to; base += jb->rows[i].heads, i++) {
        const ck_attention_desc *d = &jb->rows[i];
        const int64_t group = d->heads / d->kv_heads, last = d->positions[0];
        const int64_t first = d->window > 0 && last - d->window + 1 > 0 ? last - d->window + 1 : 0, n = last - first + 1;
        float *scratch = d->scratch + (int64_t)t * d->scratch_stride;
        const int64_t h0 = from > base ? from - base : 0, h1 = to - base < d->heads ? to - base : d->heads;
        for (int64_t h = h0; h < h1;) {
            const int64_t end = (h / group + 1) * group < h1 ? (h / group + 1) * group : h1;
            const int64_t at = first * d->row_bytes + ck_kv_row_bytes(d->format, h / group * d->head_dim);
            const head_job next = {
                .q = d->q + h * d->head_dim, .k = d->k + at, .v = d->v + at,
                .row_bytes = d->row_bytes, .head_dim = d->head_dim, .n = n, .heads = end - h,
                .w = scratch, .tmp = scratch + (end - h) * n, .out = d->out + h * d->head_dim,
            };
            if (pending.heads) {
                pending.next_k = next.k, pending.next_v = next.v, pending.next_n = next.n;
                jb->k->attention_head_f16(&pending);
            }
            pending = next;
            h = end;
        }
    }
    if (pending.heads) jb->k->attention_head_f16(&pending);
}

void ck_attention_heads(const ck_attention_desc *rows, int64_t count, int nthreads, const ck_path_kernels *k) {
    job jb = {rows, count, 0, k};
    for (int64_t i = 0; i < count; i++) jb.units += rows[i].heads;
    if (nthreads > jb.units) nthreads = (int)jb.units;
    ck_parallel(run, &jb, nthreads < 1 ? 1 : nthreads);
}
