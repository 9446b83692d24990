// Threads from libomp's pool without compiling with -fopenmp (no unsafeFlags in Package.swift):
// we call the GNU-compatible entry point that `#pragma omp parallel` lowers to. libomp creates
// its workers on the first region and reuses them afterwards, so the per-token path never
// creates a thread.
#include "ck_matmul.h"

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);

typedef struct {
    void (*fn)(void *ctx, int t, int nthreads);
    void *ctx;
} region;

static void trampoline(void *data) {
    const region *r = data;
    r->fn(r->ctx, omp_get_thread_num(), omp_get_num_threads());
}

void ck_parallel(void (*fn)(void *ctx, int t, int nthreads), void *ctx, int nthreads) {
    if (nthreads <= 1) { fn(ctx, 0, 1); return; }
    region r = {fn, ctx};
    GOMP_parallel(trampoline, &r, (unsigned)nthreads, 0);
}
