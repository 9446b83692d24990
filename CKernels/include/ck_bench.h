// Measurement kernels for the benchmark (not used by inference): register-only int8 dot peak,
// a streaming read, and OpenBLAS sgemm as the float baseline.
#ifndef CK_BENCH_H
#define CK_BENCH_H

#include <stddef.h>
#include <stdint.h>

/// Runs `iters` iterations of a register-only int8 multiply-accumulate loop on `threads` threads
/// with the path's best instruction (AVX-512: vpdpbusd zmm; AVX2: vpmaddubsw + vpaddw ymm;
/// dotprod: SDOT; i8mm: USMMLA; ref and neon: scalar) and returns the number of int8 MACs
/// executed in total.
double ck_bench_int8_peak(int path, int threads, int64_t iters);
/// Reads `bytes` bytes from p (split over `threads` threads) with vector loads; returns a checksum.
uint64_t ck_bench_stream_read(const void *p, size_t bytes, int threads);
/// y[m][n] = x[m][k] . w[n][k]^T with OpenBLAS on `threads` threads.
void ck_sgemm_f32(int64_t m, int64_t n, int64_t k, const float *x, const float *w, float *y, int threads);

#endif
