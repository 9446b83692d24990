// Measurement kernels for `bench kernels` (see ck_bench.h). The peak loops keep 8-12
// independent accumulators so latency never limits them; their results are folded into a
// volatile sink so the compiler cannot drop them.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <stdatomic.h>
#include "ck_blas.h"
#include "ck_bench.h"
#include "ck_matmul.h"

static volatile int64_t sink;

#if defined(__x86_64__)   // the x86 peak loops
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
static double peak_avx512(int64_t iters) {
    __m512i acc[12];
    const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
    for (int i = 0; i < 12; i++) acc[i] = _mm512_set1_epi32(i);
    for (int64_t it = 0; it < iters; it++) {
        for (int i = 0; i < 12; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
        __asm__ volatile("" : "+v"(acc[0]), "+v"(acc[1]), "+v"(acc[2]), "+v"(acc[3]), "+v"(acc[4]), "+v"(acc[5]));
    }
    int64_t s = 0;
    for (int i = 0; i < 12; i++) s += _mm512_reduce_add_epi32(acc[i]);
    sink = s;
    return (double)iters * 12 * 64;
}

__attribute__((target("avx2")))
static double peak_avx2(int64_t iters) {
    __m256i acc[8];
    __m256i a = _mm256_set1_epi8(3);
    const __m256i b = _mm256_set1_epi8(-2);
    for (int i = 0; i < 8; i++) acc[i] = _mm256_set1_epi16((short)i);
    for (int64_t it = 0; it < iters; it++) {
        __asm__ volatile("" : "+x"(a));   // keep the multiply inside the loop
        for (int i = 0; i < 8; i++) acc[i] = _mm256_add_epi16(acc[i], _mm256_maddubs_epi16(a, _mm256_add_epi8(b, _mm256_set1_epi8((char)i))));
        __asm__ volatile("" : "+x"(acc[0]), "+x"(acc[1]), "+x"(acc[2]), "+x"(acc[3]));
    }
    int64_t s = 0;
    for (int i = 0; i < 8; i++) s += _mm256_extract_epi16(acc[i], 0);
    sink = s;
    return (double)iters * 8 * 32;
}
#endif

#if defined(__aarch64__)   // the ARM64 peak loops: SDOT (16 MACs) and USMMLA (32 MACs) per instruction
#include <arm_neon.h>

__attribute__((target("dotprod")))
static double peak_sdot(int64_t iters) {
    int32x4_t acc[12];
    const int8x16_t a = vdupq_n_s8(3), b = vdupq_n_s8(-2);
    for (int i = 0; i < 12; i++) acc[i] = vdupq_n_s32(i);
    for (int64_t it = 0; it < iters; it++) {
        for (int i = 0; i < 12; i++) acc[i] = vdotq_s32(acc[i], a, b);
        __asm__ volatile("" : "+w"(acc[0]), "+w"(acc[1]), "+w"(acc[2]), "+w"(acc[3]), "+w"(acc[4]), "+w"(acc[5]));
    }
    int64_t s = 0;
    for (int i = 0; i < 12; i++) s += vaddvq_s32(acc[i]);
    sink = s;
    return (double)iters * 12 * 16;
}

__attribute__((target("i8mm")))
static double peak_usmmla(int64_t iters) {
    int32x4_t acc[12];
    const uint8x16_t a = vdupq_n_u8(3);
    const int8x16_t b = vdupq_n_s8(-2);
    for (int i = 0; i < 12; i++) acc[i] = vdupq_n_s32(i);
    for (int64_t it = 0; it < iters; it++) {
        for (int i = 0; i < 12; i++) acc[i] = vusmmlaq_s32(acc[i], a, b);
        __asm__ volatile("" : "+w"(acc[0]), "+w"(acc[1]), "+w"(acc[2]), "+w"(acc[3]), "+w"(acc[4]), "+w"(acc[5]));
    }
    int64_t s = 0;
    for (int i = 0; i < 12; i++) s += vaddvq_s32(acc[i]);
    sink = s;
    return (double)iters * 12 * 32;
}
#endif

static double peak_scalar(int64_t iters) {
    int32_t acc[8] = {0};
    volatile int8_t a = 3, b = -2;
    for (int64_t it = 0; it < iters; it++)
        for (int i = 0; i < 8; i++) acc[i] += (int32_t)a * b;
    sink = acc[0] + acc[7];
    return (double)iters * 8;
}

typedef struct { int path; int64_t iters; _Atomic int64_t macs; const uint8_t *p; size_t bytes; _Atomic uint64_t sum; } bench_ctx;

static void peak_part(void *c, int t, int nt) {
    (void)t; (void)nt;
    bench_ctx *b = c;
    // AMX's tiles are measured by the prefill rows themselves; its VNNI peak is the reference.
    const int vnni = b->path == CK_PATH_AVX512 || b->path == CK_PATH_AMX;
#if defined(__x86_64__)
    const double macs = vnni ? peak_avx512(b->iters) : b->path == CK_PATH_AVX2 ? peak_avx2(b->iters) : peak_scalar(b->iters);
#elif defined(__aarch64__)
    (void)vnni;
    const double macs = b->path == CK_PATH_I8MM ? peak_usmmla(b->iters)
                      : b->path == CK_PATH_DOTPROD ? peak_sdot(b->iters) : peak_scalar(b->iters);
#else
    (void)vnni;
    const double macs = peak_scalar(b->iters);
#endif
    atomic_fetch_add(&b->macs, (int64_t)macs);
}

double ck_bench_int8_peak(int path, int threads, int64_t iters) {
    bench_ctx b = {path, iters, 0, NULL, 0, 0};
    ck_parallel(peak_part, &b, threads);
    return (double)atomic_load(&b.macs);
}

#if defined(__x86_64__)   // the AVX2 stream read
__attribute__((target("avx2")))
static uint64_t read_avx2(const uint8_t *p, size_t bytes) {
    __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    size_t i = 0;
    for (; i + 128 <= bytes; i += 128)
        for (int j = 0; j < 4; j++) acc[j] = _mm256_xor_si256(acc[j], _mm256_loadu_si256((const __m256i *)(p + i + 32 * j)));
    uint64_t s = 0;
    for (; i < bytes; i++) s += p[i];
    const __m256i x = _mm256_xor_si256(_mm256_xor_si256(acc[0], acc[1]), _mm256_xor_si256(acc[2], acc[3]));
    return s + (uint64_t)_mm256_extract_epi64(x, 0) + (uint64_t)_mm256_extract_epi64(x, 3);
}
#endif

static void read_part(void *c, int t, int nt) {
    bench_ctx *b = c;
    const size_t chunk = (b->bytes / (size_t)nt) & ~(size_t)63;
    const size_t begin = chunk * (size_t)t, len = t == nt - 1 ? b->bytes - begin : chunk;
    uint64_t s;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) s = read_avx2(b->p + begin, len);
    else
#endif
    { s = 0; for (size_t i = 0; i < len; i += 8) s += b->p[begin + i]; }
    atomic_fetch_add(&b->sum, s);
}

uint64_t ck_bench_stream_read(const void *p, size_t bytes, int threads) {
    bench_ctx b = {0, 0, 0, p, bytes, 0};
    ck_parallel(read_part, &b, threads);
    return atomic_load(&b.sum);
}

void ck_sgemm_f32(int64_t m, int64_t n, int64_t k, const float *x, const float *w, float *y, int threads) {
    ck_blas_threads(threads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)m, (blasint)n, (blasint)k, 1.0f, x, (blasint)k, w,
                (blasint)k, 0.0f, y, (blasint)n);
}
