// Runtime ISA dispatch (CPUID once, QUANTA_KERNEL_PATH or ck_kernel_path_set to override) and
// the threaded matmul / activation-quantization drivers. Work is split over N in whole groups
// of 16 rows, statically, one contiguous range per thread.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "ck_matmul.h"

static int cpu_has_avx2(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

static int cpu_has_avx512(void) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") && cpu_has_avx2();
}

ck_kernel_path ck_best_kernel_path(void) {
    __builtin_cpu_init();
    if (cpu_has_avx512()) return CK_PATH_AVX512;
    if (cpu_has_avx2()) return CK_PATH_AVX2;
    return CK_PATH_REF;
}

static ck_kernel_path lower_to_supported(int p) {
    const ck_kernel_path best = ck_best_kernel_path();
    if (p < 0) return best;
    return p > (int)best ? best : (ck_kernel_path)p;
}

/// -2: not initialised yet; -1: no override; else the forced path.
static _Atomic int override_path = -2;

static int env_path(void) {
    const char *s = getenv("QUANTA_KERNEL_PATH");
    if (!s) return -1;
    if (!strcmp(s, "ref")) return CK_PATH_REF;
    if (!strcmp(s, "avx2")) return CK_PATH_AVX2;
    if (!strcmp(s, "avx512")) return CK_PATH_AVX512;
    return -1;
}

ck_kernel_path ck_kernel_path_get(void) {
    int p = atomic_load(&override_path);
    if (p == -2) {
        int expected = -2;
        atomic_compare_exchange_strong(&override_path, &expected, env_path());
        p = atomic_load(&override_path);
    }
    return lower_to_supported(p);
}

ck_kernel_path ck_kernel_path_set(int path) {
    atomic_store(&override_path, path < 0 ? -1 : path);
    return ck_kernel_path_get();
}

// MARK: - Drivers

/// Below this many multiply-accumulates a matmul runs on the calling thread only.
#define CK_MIN_PARALLEL_MACS (256 * 1024)
/// Decode: below this many weight bytes a matmul runs on the calling thread only.
#define CK_MIN_PARALLEL_BYTES (32 * 1024)

typedef struct {
    const ck_matmul_desc *d;
    const ck_weights *w;
    const ck_act *a;
    float *y;
    ck_matmul_kernel kernel;
    void (*quantize)(const ck_act *, int64_t, int64_t);
} job;

static void matmul_part(void *ctx, int t, int nt) {
    const job *j = ctx;
    const int64_t groups = (j->d->n + CK_R - 1) / CK_R;
    const int64_t g0 = groups * t / nt, g1 = groups * (t + 1) / nt;
    if (g0 < g1) j->kernel(j->d, j->w, j->a, j->y, g0 * CK_R, g1 * CK_R < j->d->n ? g1 * CK_R : j->d->n);
}

static void quantize_part(void *ctx, int t, int nt) {
    const job *j = ctx;
    const int64_t m0 = j->a->m * t / nt, m1 = j->a->m * (t + 1) / nt;
    if (m0 < m1) j->quantize(j->a, m0, m1);
}

void ck_quantize_act(const ck_act *a, int threads, int path) {
    const ck_kernel_path p = path < 0 ? ck_kernel_path_get() : lower_to_supported(path);
    job j = {0};
    j.a = a;
    // The AVX-512 quantizer implements our Q8_32 scheme only; the llama.cpp-compatible schemes
    // run on the AVX2 twin (every AVX-512 CPU has AVX2; the result is bit-identical anyway).
    j.quantize = p == CK_PATH_AVX512 && a->format == CK_ACT_Q8_32 ? ck_quantize_act_avx512
               : p != CK_PATH_REF ? ck_quantize_act_avx2 : ck_quantize_act_ref;
    // Small inputs (decode) are cheaper on one thread than a fork/join.
    if (a->m * a->k < 65536) threads = 1;
    if (threads > a->m) threads = (int)a->m;
    ck_parallel(quantize_part, &j, threads < 1 ? 1 : threads);
}

/// Float formats off the reference path: one OpenBLAS sgemm on the fp32 weights.
static void sgemm_path(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int threads) {
    openblas_set_num_threads(threads);
    const float *wf = w->f32 ? w->f32 : (const float *)w->raw;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)d->m, (blasint)d->n, (blasint)d->k, 1.0f,
                a->x, (blasint)d->k, wf, (blasint)d->k, d->accumulate ? 1.0f : 0.0f, y, (blasint)d->n);
}

void ck_matmul(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int threads, int path) {
    const ck_kernel_path p = path < 0 ? ck_kernel_path_get() : lower_to_supported(path);
    const ck_format_info info = ck_weight_format_info(w->format);
    // Float formats: OpenBLAS sgemm on the fp32 copy, except MXFP8 decode, which streams the
    // 2-byte repack with the SIMD kernel instead of 4-byte fp32 rows.
    const int fp8_decode = (w->format == CK_WF_MXFP8_E4M3 || w->format == CK_WF_MXFP8_E5M2) && d->m == 1 && w->qs;
    if (!info.int8_path && p != CK_PATH_REF && !fp8_decode) { sgemm_path(d, w, a, y, threads < 1 ? 1 : threads); return; }
    if (d->m == 1 && p != CK_PATH_REF && info.int8_path) {   // decode: split by streamed bytes
        float *const ys[1] = {y};
        ck_matmul_multi(d, w, a, ys, 1, threads, p);
        return;
    }
    if (d->m > 1 && p == CK_PATH_AVX2 && info.int8_path) {   // prefill: dynamic units
        float *const ys[1] = {y};
        ck_matmul_avx2_prefill_multi(d, w, a, ys, 1, threads, CK_MIN_PARALLEL_MACS);
        return;
    }
    job j = {d, w, a, y, p == CK_PATH_AVX512 ? ck_matmul_avx512 : p == CK_PATH_AVX2 ? ck_matmul_avx2 : ck_matmul_ref, NULL};
    const int64_t groups = (d->n + CK_R - 1) / CK_R;
    if (threads > groups) threads = (int)groups;
    // A fork/join costs microseconds (more when the machine is busy); below ~0.25 M MACs
    // (e.g. decode with 576 x 576) one thread finishes first.
    if (d->m * d->n * d->k < CK_MIN_PARALLEL_MACS) threads = 1;
    ck_parallel(matmul_part, &j, threads < 1 ? 1 : threads);
}

// MARK: - Several weights on one input

/// Bytes the M = 1 kernel streams for one group of 16 rows (weights and scale planes).
static int64_t group_bytes(const ck_weights *w) {
    const ck_format_info info = ck_weight_format_info(w->format);
    const int64_t nb = w->k / 32;
    if (!info.int8_path) return nb * 32 * CK_R * 2;
    const int64_t q = w->qs_dec ? 320 : info.packed4 ? 256 : 512;
    return nb * (q + (info.half_scales ? 2 : 4) * CK_R * (info.nsc + info.has_min));
}

/// Weights that read one input, as one list of 16-row groups (matrix by matrix).
typedef struct {
    const ck_matmul_desc *d;
    const ck_weights *w;
    const ck_act *a;
    float *const *y;
    int count;
    ck_matmul_kernel kernel;
    int64_t total;   // sum of every matrix's groups x group_bytes
} multi_job;

/// Thread t takes the groups whose byte range starts in [total*t/nt, total*(t+1)/nt): one
/// contiguous run of the concatenated groups, so each thread streams about the same bytes
/// however the matrices differ in size and format.
static void multi_part(void *ctx, int t, int nt) {
    const multi_job *j = ctx;
    const int64_t lo = j->total * t / nt, hi = j->total * (t + 1) / nt;
    int64_t base = 0;
    for (int i = 0; i < j->count && base < hi; i++) {
        const int64_t gb = group_bytes(&j->w[i]), groups = (j->d[i].n + CK_R - 1) / CK_R;
        // Groups g with base + g*gb in [lo, hi): g in [ceil((lo-base)/gb), ceil((hi-base)/gb)).
        int64_t g0 = lo <= base ? 0 : (lo - base + gb - 1) / gb, g1 = (hi - base + gb - 1) / gb;
        if (g1 > groups) g1 = groups;
        if (g0 < g1) j->kernel(&j->d[i], &j->w[i], j->a, j->y[i], g0 * CK_R, g1 * CK_R < j->d[i].n ? g1 * CK_R : j->d[i].n);
        base += groups * gb;
    }
}

void ck_matmul_multi(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                     int threads, int path) {
    const ck_kernel_path p = path < 0 ? ck_kernel_path_get() : lower_to_supported(path);
    if (p == CK_PATH_AVX2 && d[0].m > 1) {   // prefill: all matrices in one region
        int fast = 1;
        for (int i = 0; i < count; i++) fast = fast && ck_weight_format_info(w[i].format).int8_path && d[i].m == d[0].m;
        if (fast) { ck_matmul_avx2_prefill_multi(d, w, a, y, count, threads, CK_MIN_PARALLEL_MACS); return; }
    }
    int single = p == CK_PATH_REF || d[0].m != 1;
    for (int i = 0; i < count && !single; i++)
        single = !ck_weight_format_info(w[i].format).int8_path || d[i].m != 1 || d[i].k != d[0].k;
    if (single) {   // prefill and the float formats: one matmul after another
        for (int i = 0; i < count; i++) ck_matmul(&d[i], &w[i], a, y[i], threads, path);
        return;
    }
    multi_job j = {d, w, a, y, count, p == CK_PATH_AVX512 ? ck_matmul_avx512 : ck_matmul_avx2, 0};
    for (int i = 0; i < count; i++) j.total += ((d[i].n + CK_R - 1) / CK_R) * group_bytes(&w[i]);
    // Below ~32 KiB the fork/join costs more than the second thread's bandwidth brings.
    if (j.total < CK_MIN_PARALLEL_BYTES) threads = 1;
    ck_parallel(multi_part, &j, threads < 1 ? 1 : threads);
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
