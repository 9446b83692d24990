// Private to the kernels that call BLAS (matmul_threaded.c, bench_support.c): single-precision
// GEMM and its thread count. Linux (x86-64 and arm64 alike) uses OpenBLAS's <cblas.h>; macOS
// uses Accelerate, which picks its own threads. Where no BLAS header is installed (the arm64
// cross-compile check of this tree) the standard CBLAS C interface is declared here, and the
// library must provide it at link time.
#ifndef CK_BLAS_H
#define CK_BLAS_H

#if defined(__APPLE__)
#include <Accelerate/Accelerate.h>
typedef int blasint;
static inline void ck_blas_threads(int n) { (void)n; }
#elif __has_include(<cblas.h>)
#include <cblas.h>
static inline void ck_blas_threads(int n) { openblas_set_num_threads(n); }
#else
typedef int blasint;
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };
void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                 float alpha, const float *a, blasint lda, const float *b, blasint ldb, float beta, float *c, blasint ldc);
void openblas_set_num_threads(int n);
static inline void ck_blas_threads(int n) { openblas_set_num_threads(n); }
#endif

#endif
