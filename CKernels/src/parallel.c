// Threads from libomp's pool without compiling with -fopenmp (no unsafeFlags in Package.swift):
// we call the GNU-compatible entry point that `#pragma omp parallel` lowers to. libomp creates
// its workers on the first region and reuses them afterwards, so the per-token path never
// creates a thread.
#pragma STDC FP_CONTRACT OFF
#include <stdatomic.h>
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

typedef struct {
    void (*unit)(void *ctx, int64_t u, int t);
    void *ctx;
    int64_t units;
    _Atomic int64_t next;
} units_region;

static void units_part(void *data, int t, int nthreads) {
    (void)nthreads;
    units_region *r = data;
    for (int64_t u; (u = atomic_fetch_add(&r->next, 1)) < r->units;) r->unit(r->ctx, u, t);
}

void ck_parallel_units(void (*unit)(void *ctx, int64_t u, int t), void *ctx, int64_t units, int nthreads) {
    if (nthreads > units) nthreads = (int)units;
    if (nthreads <= 1) {
        for (int64_t u = 0; u < units; u++) unit(ctx, u, 0);
        return;
    }
    units_region r = {unit, ctx, units, 0};
    ck_parallel(units_part, &r, nthreads);
}
