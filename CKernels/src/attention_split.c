// Split-K ("flash-decoding") attention of one query row against the KV cache (ck_ops.h), any
// cache format.
//
// The visible positions [first, last] (n of them) are cut into T contiguous ranges, unit u
// covering first + n*u/T ..< first + n*(u+1)/T. A unit walks its range once, a block of rows at
// a time, and serves every query head h from KV head g = h / (heads / kv_heads) of the same
// rows (so a row is read from memory once, whole, and from L1 by the other heads):
//   scores   s[h][p] = q_h · k_p[g]                    (heads x len floats of the thread's scratch)
//   max      m_h     = max_p s[h][p]
//   weights  w[h][p] = e^(s[h][p] - m_h),  l_h = sum_p w[h][p]
//   partial  o_h[d]  = sum_p w[h][p] * v_p[d]           (unnormalised, fp32)
// and leaves (o, m, l) of every head in its partial slot. The calling thread then merges the
// T partials in unit order with the log-sum-exp correction:
//   M = max_u m_u,  out[d] = sum_u e^(m_u - M) o_u[d] / sum_u e^(m_u - M) l_u.
// Range boundaries and merge order depend only on (first, last, T), never on which thread ran
// which unit, so a result is bitwise the same on every run with the same thread count.
//
// Two paths with the same structure: scalar C over rows decoded by ck_kv_load_row (the
// reference, any head_dim) and AVX2/F16C (vector exp, eight-position score blocks, V in blocks
// of positions so each row is read from memory once and from L1 by the other heads), one
// instantiation per format: fp16 (head_dim a multiple of 8) converts 8 halves at a time; q8_0
// and MXFP8 convert 8 codes at a time and apply each 32-element block's scale once per block
// (after the block's four FMAs for a score, folded into the weight for V), so the block formats
// read half the bytes for about the same arithmetic.
#include <math.h>
#include <immintrin.h>
#include "ck_ops.h"
#include "ck_convert.h"
#include "ck_matmul.h"
#include "attention_internal.h"
#include "avx2_exp.h"
#include "attention_kv_avx2.h"

#define T256 __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline))

/// One unit's view: `len` rows from the range's first position, every head.
typedef struct {
    const float *q;             // [heads][hd]
    const uint8_t *k, *v;       // the range's first row; KV head g at byte g * head_bytes
    int64_t row_bytes, head_bytes, hd, len, heads, group;
    ck_kv_format format;
    float *s;                   // [heads][len] scores, then weights
    float *tmp;                 // hd floats: one decoded head segment (scalar path)
    float *o, *m, *l;           // partial slot: o [heads][hd], m [heads], l [heads]
} range_job;

/// Floats of one partial slot: o [heads][hd], m [heads], l [heads].
static int64_t partial_floats(const ck_attention_desc *d) { return d->heads * (d->head_dim + 2); }

/// Decodes the segment of KV head g of row p of `base` (K or V) into j->tmp.
static const float *decode(const range_job *j, const uint8_t *base, int64_t p, int64_t g) {
    ck_kv_load_row(j->format, base + p * j->row_bytes + g * j->head_bytes, j->tmp, j->hd);
    return j->tmp;
}

/// Scalar reference: scores, per-head max and e^(s - m) with libm, then the weighted V sum,
/// over each row decoded to fp32 by ck_kv_load_row.
static void range_ref(const range_job *j) {
    const int64_t hd = j->hd, len = j->len;
    for (int64_t h = 0; h < j->heads; h++) {
        const float *q = j->q + h * hd;
        float *s = j->s + h * len, mx = -INFINITY;
        for (int64_t p = 0; p < len; p++) {
            const float *kp = decode(j, j->k, p, h / j->group);
            float dot = 0;
            for (int64_t d = 0; d < hd; d++) dot += q[d] * kp[d];
            s[p] = dot;
            if (dot > mx) mx = dot;
        }
        float sum = 0;
        for (int64_t p = 0; p < len; p++) { s[p] = expf(s[p] - mx); sum += s[p]; }
        j->m[h] = mx;
        j->l[h] = sum;
        for (int64_t d = 0; d < hd; d++) j->o[h * hd + d] = 0;
    }
    for (int64_t p = 0; p < len; p++) {
        for (int64_t h = 0; h < j->heads; h++) {
            const float *vp = decode(j, j->v, p, h / j->group);
            const float w = j->s[h * len + p];
            float *o = j->o + h * hd;
            for (int64_t d = 0; d < hd; d++) o[d] += w * vp[d];
        }
    }
}

T256 static inline float hsum256(__m256 x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

T256 static inline __m256 load_half8(const uint8_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

/// q · (one head segment) into acc, 32 elements at a time: their dot with q in a short chain of
/// four FMAs, then added (fp16; hd a multiple of 8) or times unit * scale (block formats; hd a
/// multiple of 32) into acc. The short chains let the rows of dots8 overlap (one long chain per
/// row over d measured up to 2x slower at head_dim 256).
T256 INLINE __m256 seg_dot(ck_kv_format F, const float *q, const uint8_t *seg, int64_t hd, __m256 acc) {
    if (F == CK_KV_F16) {
        for (int64_t d = 0; d < hd; d += 32) {
            __m256 t = _mm256_mul_ps(_mm256_loadu_ps(q + d), load_half8(seg + 2 * d));
            for (int64_t e = d + 8; e < d + 32 && e < hd; e += 8) t = _mm256_fmadd_ps(_mm256_loadu_ps(q + e), load_half8(seg + 2 * e), t);
            acc = _mm256_add_ps(acc, t);
        }
        return acc;
    }
    const int64_t bb = kv_block_bytes(F);
    for (int64_t b = 0; b < hd / 32; b++) {
        const uint8_t *blk = seg + b * bb;
        __m256 t = _mm256_mul_ps(_mm256_loadu_ps(q + 32 * b), kv_codes8(F, blk, 0));
        for (int c = 1; c < 4; c++) t = _mm256_fmadd_ps(_mm256_loadu_ps(q + 32 * b + 8 * c), kv_codes8(F, blk, 8 * c), t);
        acc = _mm256_fmadd_ps(t, _mm256_set1_ps(kv_unit(F) * kv_block_scale(F, blk)), acc);
    }
    return acc;
}

/// Scores of positions p .. p+7 for one query head from their rows kp + i*row_bytes (already
/// offset to the KV head): one seg_dot per row, then a hadd tree puts the eight dots in one
/// register (lane i = p + i).
T256 INLINE __m256 dots8(ck_kv_format F, const float *q, const uint8_t *kp, int64_t row_bytes, int64_t hd) {
    __m256 acc[8];
    for (int i = 0; i < 8; i++) acc[i] = seg_dot(F, q, kp + i * row_bytes, hd, _mm256_setzero_ps());
    const __m256 h0 = _mm256_hadd_ps(acc[0], acc[1]), h1 = _mm256_hadd_ps(acc[2], acc[3]);
    const __m256 h2 = _mm256_hadd_ps(acc[4], acc[5]), h3 = _mm256_hadd_ps(acc[6], acc[7]);
    const __m256 u0 = _mm256_hadd_ps(h0, h1), u1 = _mm256_hadd_ps(h2, h3);
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

/// The score of one position (the tail after the blocks of 8).
T256 INLINE float dot1(ck_kv_format F, const float *q, const uint8_t *kp, int64_t hd) {
    return hsum256(seg_dot(F, q, kp, hd, _mm256_setzero_ps()));
}

/// Positions per V block: 16 rows (8 KiB for 2 KV heads of 128 in fp16) stay in L1 while every
/// query head and every 64-dim chunk passes over them.
enum { VB = 16, VCHUNK = 64 };

/// acc[0 .. n8) += sum_p w[p] * V[p][dims of the chunk] over bn rows from vc (the chunk's first
/// element of the first row). Block formats: the chunk is n8 / 4 whole blocks; w[p] * unit *
/// scale is one broadcast per block and row.
T256 INLINE void v_chunk(ck_kv_format F, const float *w, const uint8_t *vc, int64_t row_bytes, int64_t bn, int n8, __m256 *acc) {
    for (int64_t p = 0; p < bn; p++) {
        const uint8_t *row = vc + p * row_bytes;
        if (F == CK_KV_F16) {
            const __m256 wp = _mm256_set1_ps(w[p]);
            for (int i = 0; i < n8; i++) acc[i] = _mm256_fmadd_ps(wp, load_half8(row + 16 * i), acc[i]);
        } else {
            for (int b = 0; b < n8 / 4; b++) {
                const uint8_t *blk = row + b * kv_block_bytes(F);
                const __m256 ws = _mm256_set1_ps(w[p] * (kv_unit(F) * kv_block_scale(F, blk)));
                for (int c = 0; c < 4; c++) acc[4 * b + c] = _mm256_fmadd_ps(ws, kv_codes8(F, blk, 8 * c), acc[4 * b + c]);
            }
        }
    }
}

/// The AVX2 unit for cache format F (a constant in each instantiation below).
T256 INLINE void range_simd(const range_job *j, const ck_kv_format F) {
    const int64_t hd = j->hd, len = j->len, H = j->heads;
    // Scores: each block of 8 K rows comes from memory once, then from L1 for the other heads.
    __m256 vmax[64];
    const int64_t gv = H < 64 ? H : 64;   // heads with a vector running max (the rest: scalar)
    for (int64_t h = 0; h < gv; h++) vmax[h] = _mm256_set1_ps(-INFINITY);
    int64_t p0 = 0;
    for (; p0 + 8 <= len; p0 += 8) {
        for (int64_t h = 0; h < H; h++) {
            const __m256 s8 = dots8(F, j->q + h * hd, j->k + p0 * j->row_bytes + (h / j->group) * j->head_bytes, j->row_bytes, hd);
            _mm256_storeu_ps(j->s + h * len + p0, s8);
            if (h < gv) vmax[h] = _mm256_max_ps(vmax[h], s8);
        }
    }
    for (int64_t h = 0; h < H; h++) {
        float mx = -INFINITY, *s = j->s + h * len;
        if (h < gv) {
            float lanes[8];
            _mm256_storeu_ps(lanes, vmax[h]);
            for (int i = 0; i < 8; i++) mx = lanes[i] > mx ? lanes[i] : mx;
        } else {
            for (int64_t p = 0; p < p0; p++) mx = s[p] > mx ? s[p] : mx;
        }
        for (int64_t p = p0; p < len; p++) {
            s[p] = dot1(F, j->q + h * hd, j->k + p * j->row_bytes + (h / j->group) * j->head_bytes, hd);
            mx = s[p] > mx ? s[p] : mx;
        }
        // Weights e^(s - m) in place (whole groups of 8, the tail through a padded copy).
        const __m256 mv = _mm256_set1_ps(mx);
        __m256 sum = _mm256_setzero_ps();
        int64_t p = 0;
        for (; p + 8 <= len; p += 8) {
            const __m256 e = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + p), mv));
            _mm256_storeu_ps(s + p, e);
            sum = _mm256_add_ps(sum, e);
        }
        if (p < len) {
            float tail[8] = {0};
            const int left = (int)(len - p);
            for (int i = 0; i < left; i++) tail[i] = s[p + i];
            _mm256_storeu_ps(tail, ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), mv)));
            for (int i = 0; i < left; i++) s[p + i] = tail[i];
            for (int i = left; i < 8; i++) tail[i] = 0;
            sum = _mm256_add_ps(sum, _mm256_loadu_ps(tail));
        }
        j->m[h] = mx;
        j->l[h] = hsum256(sum);
        for (int64_t d = 0; d < hd; d += 8) _mm256_storeu_ps(j->o + h * hd + d, _mm256_setzero_ps());
    }
    // Weighted V: blocks of VB positions (from memory once, from L1 for the other heads); per
    // head and 64-dim chunk the accumulators live in registers across the block and in the
    // partial slot between blocks. (Decoding the block to fp32 once for all heads measured
    // slower: the extra stores cost more than the conversions they save.)
    for (int64_t b0 = 0; b0 < len; b0 += VB) {
        const int64_t bn = len - b0 < VB ? len - b0 : VB;
        for (int64_t h = 0; h < H; h++) {
            const float *w = j->s + h * len + b0;
            for (int64_t d0 = 0; d0 < hd; d0 += VCHUNK) {
                const int n8 = (int)((hd - d0 < VCHUNK ? hd - d0 : VCHUNK) / 8);
                float *o = j->o + h * hd + d0;
                // Chunk start inside the row: fp16 2 bytes an element, block formats d0 / 32 blocks.
                const int64_t at = F == CK_KV_F16 ? 2 * d0 : d0 / 32 * kv_block_bytes(F);
                const uint8_t *vc = j->v + b0 * j->row_bytes + (h / j->group) * j->head_bytes + at;
                __m256 acc[VCHUNK / 8];
                if (n8 == VCHUNK / 8) {
                    for (int i = 0; i < VCHUNK / 8; i++) acc[i] = _mm256_loadu_ps(o + 8 * i);
                    v_chunk(F, w, vc, j->row_bytes, bn, VCHUNK / 8, acc);
                    for (int i = 0; i < VCHUNK / 8; i++) _mm256_storeu_ps(o + 8 * i, acc[i]);
                } else {
                    for (int i = 0; i < n8; i++) acc[i] = _mm256_loadu_ps(o + 8 * i);
                    v_chunk(F, w, vc, j->row_bytes, bn, n8, acc);
                    for (int i = 0; i < n8; i++) _mm256_storeu_ps(o + 8 * i, acc[i]);
                }
            }
        }
    }
}

T256 static void range_f16(const range_job *j) { range_simd(j, CK_KV_F16); }
T256 static void range_q8_0(const range_job *j) { range_simd(j, CK_KV_Q8_0); }
T256 static void range_mxfp8(const range_job *j) { range_simd(j, CK_KV_MXFP8_E4M3); }

typedef struct {
    const ck_attention_desc *d;
    int64_t first, n, units, longest;   // longest: positions of the longest unit
    void (*fn)(const range_job *);
} split_job;

/// Unit u: positions first + n*u/units ..< first + n*(u+1)/units, every head. Thread t's
/// scratch block starts with the working scores [heads][len]; unit u's partial sits in the tail of
/// block u (units <= blocks; ck_attention_split_k checked that the two do not meet).
static void run_unit(void *ctx, int64_t u, int t) {
    const split_job *sj = ctx;
    const ck_attention_desc *d = sj->d;
    const int64_t a = sj->first + sj->n * u / sj->units, b = sj->first + sj->n * (u + 1) / sj->units;
    const int64_t hd = d->head_dim;
    float *part = d->scratch + u * d->scratch_stride + (d->scratch_stride - partial_floats(d));
    const range_job j = {
        .q = d->q, .k = d->k + a * d->row_bytes, .v = d->v + a * d->row_bytes,
        .row_bytes = d->row_bytes, .head_bytes = ck_kv_row_bytes(d->format, hd), .hd = hd, .len = b - a,
        .heads = d->heads, .group = d->heads / d->kv_heads, .format = d->format,
        .s = d->scratch + (int64_t)t * d->scratch_stride,
        .tmp = d->scratch + (int64_t)t * d->scratch_stride + d->heads * sj->longest,
        .o = part, .m = part + d->heads * hd, .l = part + d->heads * (hd + 1),
    };
    sj->fn(&j);
}

/// out[h] = sum_u e^(m_u - M) o_u / sum_u e^(m_u - M) l_u, units in order 0, 1, ...
static void merge(const ck_attention_desc *d, int64_t units) {
    const int64_t hd = d->head_dim, pf = partial_floats(d);
    for (int64_t h = 0; h < d->heads; h++) {
        float mx = -INFINITY;
        for (int64_t u = 0; u < units; u++) {
            const float *part = d->scratch + u * d->scratch_stride + (d->scratch_stride - pf);
            const float m = part[d->heads * hd + h];
            mx = m > mx ? m : mx;
        }
        float *out = d->out + h * hd, total = 0;
        for (int64_t u = 0; u < units; u++) {
            const float *part = d->scratch + u * d->scratch_stride + (d->scratch_stride - pf);
            const float c = expf(part[d->heads * hd + h] - mx);
            total += c * part[d->heads * (hd + 1) + h];
            const float *o = part + h * hd;
            if (u == 0) for (int64_t i = 0; i < hd; i++) out[i] = c * o[i];
            else for (int64_t i = 0; i < hd; i++) out[i] += c * o[i];
        }
        const float inv = 1.0f / total;
        for (int64_t i = 0; i < hd; i++) out[i] *= inv;
    }
}

int ck_attention_split_k(const ck_attention_desc *d, int nthreads) {
    if (d->rows != 1 || nthreads < 1) return 0;
    const int64_t last = d->positions[0];
    const int64_t first = d->window > 0 && last - d->window + 1 > 0 ? last - d->window + 1 : 0;
    const int64_t n = last - first + 1;
    const int64_t units = nthreads < n ? nthreads : n;
    const int64_t longest = (n + units - 1) / units;
    if (d->heads * longest + d->head_dim + partial_floats(d) > d->scratch_stride) return 0;
    split_job sj = {d, first, n, units, longest, range_ref};
    if (ck_kernels(ck_kernel_path_get())->simd_rows) {
        switch (d->format) {
        case CK_KV_F16: if (d->head_dim % 8 == 0) sj.fn = range_f16; break;
        case CK_KV_Q8_0: sj.fn = range_q8_0; break;
        case CK_KV_MXFP8_E4M3: sj.fn = range_mxfp8; break;
        }
    }
    ck_parallel_units(run_unit, &sj, units, (int)units);
    merge(d, units);
    return 1;
}
