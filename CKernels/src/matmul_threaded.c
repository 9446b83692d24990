// The threaded regions of the formats whose path has no prefill driver of its own: the reference
// kernel split over N (ref, every format) and OpenBLAS sgemm on the fp32 weights (F32 and F16
// off the reference path). Both serve any number of activation rows, so they also take the rows
// no decode kernel covers (m = 1 without an int8 or repacked layout).
#pragma STDC FP_CONTRACT OFF
#include "ck_blas.h"
#include "ck_matmul.h"

typedef struct {
    const ck_matmul_desc *d;
    const ck_weights *w;
    const ck_act *a;
    float *y;
} ref_job;

/// Thread t of nt computes the columns of its share of the 16-row groups.
static void ref_part(void *ctx, int t, int nt) {
    const ref_job *j = ctx;
    const int64_t groups = (j->d->n + CK_R - 1) / CK_R;
    const int64_t g0 = groups * t / nt, g1 = groups * (t + 1) / nt;
    if (g0 < g1) ck_matmul_ref(j->d, j->w, j->a, j->y, g0 * CK_R, g1 * CK_R < j->d->n ? g1 * CK_R : j->d->n);
}

void ck_prefill_ref(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                    int nthreads, int64_t min_parallel_macs) {
    for (int i = 0; i < count; i++) {
        ref_job j = {&d[i], &w[i], a, y[i]};
        const int64_t groups = (d[i].n + CK_R - 1) / CK_R;
        int threads = nthreads > groups ? (int)groups : nthreads;
        // A fork/join costs microseconds; below min_parallel_macs one thread finishes first.
        if (d[i].m * d[i].n * d[i].k < min_parallel_macs) threads = 1;
        ck_parallel(ref_part, &j, threads < 1 ? 1 : threads);
    }
}

void ck_prefill_sgemm(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                      int nthreads, int64_t min_parallel_macs) {
    (void)min_parallel_macs;   // OpenBLAS picks its own threshold
    ck_blas_threads(nthreads < 1 ? 1 : nthreads);
    for (int i = 0; i < count; i++) {
        const float *wf = (const float *)w[i].raw;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)d[i].m, (blasint)d[i].n, (blasint)d[i].k, 1.0f,
                    a->x, (blasint)d[i].k, wf, (blasint)d[i].k, d[i].accumulate ? 1.0f : 0.0f, y[i], (blasint)d[i].n);
    }
}
