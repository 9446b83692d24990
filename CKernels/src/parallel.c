// Threads from libomp's pool without compiling with -fopenmp (no unsafeFlags in Package.swift):
// we call the GNU-compatible entry point that `#pragma omp parallel` lowers to. libomp creates
// its workers on the first region and reuses them afterwards, so the per-token path never
// creates a thread.
//
// A decode step runs ~150 small parallel regions (a few to a few tens of microseconds each); a
// libomp fork/join costs microseconds on top, more when the machine is busy. ck_parallel_session
// therefore opens ONE libomp region for a whole step: thread 0 runs the caller's body, the other
// threads wait on a shared generation counter, and every ck_parallel the body issues is handed to
// them through that counter (a store and a spin instead of a team fork and barrier).
#include <sched.h>
#include <stdatomic.h>
#include <immintrin.h>
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

/// One open session: the job posted last and the counters that hand it over. The posting
/// thread's and the workers' counters sit on separate cache lines.
typedef struct {
    _Alignas(64) _Atomic unsigned generation;   // bumped by thread 0 to post a job
    _Atomic int quit;                           // set by thread 0 when the body returned
    void (*fn)(void *ctx, int t, int nthreads);
    void *ctx;
    int job_threads;                            // threads the posted job is split over
    int team;                                   // threads in the session
    void (*body)(void *);
    void *body_ctx;
    _Alignas(64) _Atomic int finished;          // workers done with the posted job
} session;

/// The session opened by this thread (thread 0 of its team), if any.
static _Thread_local session *open_session;

/// Spins with `pause`; after a while yields, so a waiter does not starve a descheduled peer
/// when the machine runs more threads than it has cores.
static inline void backoff(unsigned *spins) {
    if (++*spins < 4096) _mm_pause();
    else sched_yield();
}

static void worker(session *s, int t) {
    unsigned seen = 0;   // not the current value: thread 0 may have posted before this thread got here
    for (;;) {
        unsigned spins = 0, g;
        while ((g = atomic_load_explicit(&s->generation, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&s->quit, memory_order_acquire)) return;
            backoff(&spins);
        }
        seen = g;
        if (t < s->job_threads) s->fn(s->ctx, t, s->job_threads);
        atomic_fetch_add_explicit(&s->finished, 1, memory_order_acq_rel);
    }
}

static void session_thread(void *data) {
    session *s = data;
    const int t = omp_get_thread_num();
    if (t != 0) { worker(s, t); return; }
    open_session = s;
    s->body(s->body_ctx);
    open_session = NULL;
    atomic_store_explicit(&s->quit, 1, memory_order_release);
}

void ck_parallel_session(void (*body)(void *ctx), void *ctx, int nthreads) {
    if (nthreads <= 1 || open_session) { body(ctx); return; }
    session s = {.team = nthreads, .body = body, .body_ctx = ctx};
    atomic_init(&s.generation, 0);
    atomic_init(&s.quit, 0);
    atomic_init(&s.finished, 0);
    GOMP_parallel(session_thread, &s, (unsigned)nthreads, 0);
}

/// Runs one job on the open session's team: post, do part 0, wait for every worker.
static void run_in_session(session *s, void (*fn)(void *ctx, int t, int nthreads), void *ctx, int nthreads) {
    s->fn = fn;
    s->ctx = ctx;
    s->job_threads = nthreads;
    atomic_store_explicit(&s->finished, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->generation, 1, memory_order_release);
    fn(ctx, 0, nthreads);
    unsigned spins = 0;
    while (atomic_load_explicit(&s->finished, memory_order_acquire) < s->team - 1) backoff(&spins);
}

void ck_parallel(void (*fn)(void *ctx, int t, int nthreads), void *ctx, int nthreads) {
    if (nthreads <= 1) { fn(ctx, 0, 1); return; }
    session *s = open_session;
    if (s) { run_in_session(s, fn, ctx, nthreads < s->team ? nthreads : s->team); return; }
    region r = {fn, ctx};
    GOMP_parallel(trampoline, &r, (unsigned)nthreads, 0);
}
