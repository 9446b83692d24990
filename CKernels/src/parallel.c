// A persistent pool of spinning worker threads behind ck_parallel.
//
// Decode runs a few hundred parallel regions per token with 5-50 us of work each, so the cost of
// a fork/join matters as much as the kernels. A region here is one release store of a 32-bit
// word (sequence << 8 | thread count) that the workers are spinning on, then a spin on a pending
// counter until every participant has acknowledged: two cache-line transfers, no system call.
// Workers spin for CK_SPIN_NS after their last region, then sleep on a futex (the next region
// wakes them with one FUTEX_WAKE), so an idle process does not burn a core. The pool is created
// once, on the first region that asks for more than one thread, and grows (once) when a caller
// asks for more threads than it has; it never creates threads afterwards. Only one region runs
// at a time: a region opened while another is running (from another thread, or nested inside a
// region) runs its parts one after another on the calling thread, which gives the same results
// because every caller's parts are independent.
#define _GNU_SOURCE
#include <immintrin.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "ck_matmul.h"

/// Most threads a region can use (the word below keeps the count in 8 bits).
#define CK_MAX_THREADS 64
/// How long an idle worker spins before it sleeps (ns): longer than the gaps between the
/// regions of one decode step, short enough not to steal a core from other work for long.
#define CK_SPIN_NS 1000000

static struct {
    _Alignas(64) _Atomic uint32_t word;    // sequence << 8 | threads of the current region
    _Alignas(64) _Atomic int pending;      // participants (besides the caller) still running
    _Atomic int sleepers;                  // workers blocked (or about to block) in futex_wait
    void (*fn)(void *ctx, int t, int nthreads);
    void *ctx;
    _Alignas(64) _Atomic int busy;         // a region is open
    int workers;                           // threads created so far (thread ids 1..workers)
    pthread_mutex_t grow;
} pool = {.grow = PTHREAD_MUTEX_INITIALIZER};

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *w, uint32_t expected) {
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *w) {
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/// Waits until the word differs from `seen`: spins, then sleeps. The spin yields the CPU every
/// ~8 us (256 pauses of ~33 ns here): when the machine is oversubscribed and this worker shares
/// a core with the thread that will post the next region, a pure spin would hold that thread
/// off the core for a whole scheduler slice (milliseconds) per region.
static uint32_t wait_for_region(uint32_t seen) {
    int64_t start = 0;
    for (unsigned spins = 0;; spins++) {
        const uint32_t w = atomic_load_explicit(&pool.word, memory_order_acquire);
        if (w != seen) return w;
        _mm_pause();
        if ((spins & 255) != 255) continue;
        sched_yield();
        const int64_t t = now_ns();
        if (!start) start = t;
        if (t - start < CK_SPIN_NS) continue;
        atomic_fetch_add(&pool.sleepers, 1);
        if (atomic_load(&pool.word) == seen) futex_wait(&pool.word, seen);
        atomic_fetch_sub(&pool.sleepers, 1);
        start = 0;
    }
}

/// arg: the word when the thread was created (by a region's caller, before it posts) << 8 | id.
static void *worker(void *arg) {
    const int id = (int)((uintptr_t)arg & 0xFF);
    uint32_t seen = (uint32_t)((uintptr_t)arg >> 8);
    for (;;) {
        seen = wait_for_region(seen);
        const int nt = (int)(seen & 0xFF);
        if (id >= nt) continue;   // not a participant: fn/ctx may already belong to a later region
        pool.fn(pool.ctx, id, nt);
        atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_release);
    }
    return NULL;
}

/// Makes sure threads 1..n-1 exist; returns how many threads a region can use (<= n). Called
/// with the pool busy, so the word cannot change while threads are created.
static int ensure_workers(int n) {
    if (n - 1 <= pool.workers) return n;
    pthread_mutex_lock(&pool.grow);
    while (pool.workers < n - 1) {
        pthread_t t;
        const uintptr_t arg = (uintptr_t)atomic_load(&pool.word) << 8 | (uintptr_t)(pool.workers + 1);
        if (pthread_create(&t, NULL, worker, (void *)arg) != 0) break;
        pthread_detach(t);
        pool.workers++;
    }
    pthread_mutex_unlock(&pool.grow);
    return pool.workers + 1 < n ? pool.workers + 1 : n;
}

void ck_parallel(void (*fn)(void *ctx, int t, int nthreads), void *ctx, int nthreads) {
    if (nthreads > CK_MAX_THREADS) nthreads = CK_MAX_THREADS;
    int expected = 0;
    if (nthreads <= 1 || !atomic_compare_exchange_strong(&pool.busy, &expected, 1)) {
        for (int t = 0; t < (nthreads < 1 ? 1 : nthreads); t++) fn(ctx, t, nthreads < 1 ? 1 : nthreads);
        return;
    }
    const int nt = ensure_workers(nthreads);
    if (nt < nthreads) {   // could not create every thread: same parts, fewer threads
        atomic_store(&pool.busy, 0);
        for (int t = 0; t < nthreads; t++) fn(ctx, t, nthreads);
        return;
    }
    pool.fn = fn;
    pool.ctx = ctx;
    atomic_store_explicit(&pool.pending, nt - 1, memory_order_relaxed);
    const uint32_t word = atomic_load_explicit(&pool.word, memory_order_relaxed);
    atomic_store(&pool.word, ((word >> 8) + 1) << 8 | (uint32_t)nt);   // seq_cst: ordered before the sleepers check
    if (atomic_load(&pool.sleepers) > 0) futex_wake_all(&pool.word);
    fn(ctx, 0, nt);
    for (unsigned spins = 0; atomic_load_explicit(&pool.pending, memory_order_acquire) > 0; spins++) {
        _mm_pause();
        if ((spins & 63) == 63) sched_yield();   // a participant may be waiting for this core
    }
    atomic_store_explicit(&pool.busy, 0, memory_order_release);
}
