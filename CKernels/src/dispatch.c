// The threaded matmul / activation-quantization / repack drivers, running the kernels the active
// path's table (kernel_table.c) names. One activation row over an int8 or repacked layout runs the
// format's decode kernel, the threads splitting the 16-row groups (the float formats' 64-row
// bands) by streamed bytes; everything
// else runs the format's threaded prefill region.
#pragma STDC FP_CONTRACT OFF
#include "ck_matmul.h"

// MARK: - Drivers

/// Below this many multiply-accumulates a matmul runs on the calling thread only.
#define CK_MIN_PARALLEL_MACS (256 * 1024)
/// Decode: below this many weight bytes a matmul runs on the calling thread only.
#define CK_MIN_PARALLEL_BYTES (32 * 1024)

typedef struct {
    const ck_act *a;
    ck_quantize_kernel quantize;
} quantize_job;

static void quantize_part(void *ctx, int t, int nt) {
    const quantize_job *j = ctx;
    const int64_t m0 = j->a->m * t / nt, m1 = j->a->m * (t + 1) / nt;
    if (m0 < m1) j->quantize(j->a, m0, m1);
}

void ck_quantize_act(const ck_act *a, int threads, int path) {
    quantize_job j = {a, NULL};
    j.quantize = ck_kernels_for_path(path)->quantize[a->format >= 0 && a->format < CK_ACT_COUNT ? a->format : CK_ACT_Q8_32];
    if (!j.quantize) return;   // CK_ACT_F32: nothing to quantize
    // Small inputs (decode) are cheaper on one thread than a fork/join.
    if (a->m * a->k < 65536) threads = 1;
    if (threads > a->m) threads = (int)a->m;
    ck_parallel(quantize_part, &j, threads < 1 ? 1 : threads);
}

/// Whether `w` has the layout a decode kernel streams: every integer format; float formats only
/// with their decode repack (MXFP8's qs).
static int has_decode(const ck_weights *w) {
    return ck_weight_format_info(w->format).int8_path || w->qs;
}

void ck_matmul(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int threads, int path) {
    const ck_path_kernels *t = ck_kernels_for_path(path);
    float *const ys[1] = {y};
    if (d->m == 1 && has_decode(w)) ck_matmul_multi(d, w, a, ys, 1, threads, t->path);   // split by streamed bytes
    else t->format[w->format].prefill(d, w, a, ys, 1, threads, CK_MIN_PARALLEL_MACS);
}

// MARK: - Several weights on one input

/// Rows the M = 1 kernel takes as one piece: a 16-row group, or a float format's 64-row band
/// (its stream: ck_weights).
static int64_t piece_rows(const ck_weights *w) {
    return ck_repacked_groups(w->format, 1) * CK_R;
}

/// Bytes the M = 1 kernel streams for one piece (weights and scale planes).
static int64_t piece_bytes(const ck_weights *w) {
    return (w->k / 32) * ck_weight_format_info(w->format).repacked_block_bytes * (piece_rows(w) / CK_R);
}

/// Weights that read one input, as one list of pieces (matrix by matrix).
typedef struct {
    const ck_matmul_desc *d;
    const ck_weights *w;
    const ck_act *a;
    float *const *y;
    int count;
    const ck_path_kernels *t;
    ck_matmul_kernel kernel;   // the kernel for every matrix, or NULL: each format's decode
    int64_t total;   // sum of every matrix's pieces x piece_bytes
} multi_job;

/// Thread t takes the pieces whose byte range starts in [total*t/nt, total*(t+1)/nt): one
/// contiguous run of the concatenated pieces, so each thread streams about the same bytes
/// however the matrices differ in size and format.
static void multi_part(void *ctx, int t, int nt) {
    const multi_job *j = ctx;
    const int64_t lo = j->total * t / nt, hi = j->total * (t + 1) / nt;
    int64_t base = 0;
    for (int i = 0; i < j->count && base < hi; i++) {
        const int64_t pb = piece_bytes(&j->w[i]), rows = piece_rows(&j->w[i]), pieces = (j->d[i].n + rows - 1) / rows;
        // Pieces p with base + p*pb in [lo, hi): p in [ceil((lo-base)/pb), ceil((hi-base)/pb)).
        int64_t p0 = lo <= base ? 0 : (lo - base + pb - 1) / pb, p1 = (hi - base + pb - 1) / pb;
        if (p1 > pieces) p1 = pieces;
        const ck_matmul_kernel kernel = j->kernel ? j->kernel : j->t->format[j->w[i].format].decode;
        if (p0 < p1) kernel(&j->d[i], &j->w[i], j->a, j->y[i], p0 * rows, p1 * rows < j->d[i].n ? p1 * rows : j->d[i].n);
        base += pieces * pb;
    }
}

/// One parallel region over the matrices' pieces, each thread one contiguous run holding an
/// equal share of the streamed bytes (multi_part), through `kernel` or each format's decode on t.
static void split_by_bytes(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                           int threads, const ck_path_kernels *t, ck_matmul_kernel kernel) {
    multi_job j = {d, w, a, y, count, t, kernel, 0};
    for (int i = 0; i < count; i++) j.total += ((d[i].n + piece_rows(&w[i]) - 1) / piece_rows(&w[i])) * piece_bytes(&w[i]);
    // Below ~32 KiB the fork/join costs more than the second thread's bandwidth brings.
    if (j.total < CK_MIN_PARALLEL_BYTES) threads = 1;
    ck_parallel(multi_part, &j, threads < 1 ? 1 : threads);
}

void ck_matmul_multi(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                     int threads, int path) {
    const ck_path_kernels *t = ck_kernels_for_path(path);
    int same = 1;   // one prefill region (m > 1) or one decode region (m = 1) covers them all
    for (int i = 0; i < count && same; i++) {
        const ck_format_kernels *k = &t->format[w[i].format];
        same = d[i].m == d[0].m && d[i].k == d[0].k &&
               (d[0].m > 1 ? k->prefill == t->format[w[0].format].prefill : has_decode(&w[i]));
    }
    if (!same) {   // one matmul after another
        for (int i = 0; i < count; i++) ck_matmul(&d[i], &w[i], a, y[i], threads, t->path);
        return;
    }
    if (d[0].m > 1) { t->format[w[0].format].prefill(d, w, a, y, count, threads, CK_MIN_PARALLEL_MACS); return; }
    split_by_bytes(d, w, a, y, count, threads, t, NULL);
}

void ck_matmul_split_by_bytes(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                              int threads, ck_matmul_kernel kernel) {
    split_by_bytes(d, w, a, y, count, threads, NULL, kernel);
}

typedef struct {
    const ck_weights *w;
    int64_t n0, n1;
} repack_job;

static void repack_part(void *ctx, int t, int nt) {
    const repack_job *j = ctx;
    const int64_t first = j->n0 / CK_R, groups = (j->n1 - j->n0 + CK_R - 1) / CK_R;
    const int64_t g0 = first + groups * t / nt, g1 = first + groups * (t + 1) / nt;
    if (g0 < g1) ck_repack_rows(j->w, g0 * CK_R, g1 * CK_R < j->n1 ? g1 * CK_R : j->n1);
}

void ck_repack(const ck_weights *w, int64_t n0, int64_t n1, int threads) {
    repack_job j = {w, n0, n1 < w->n ? n1 : w->n};
    if (j.n0 < j.n1) ck_parallel(repack_part, &j, threads < 1 ? 1 : threads);
}
