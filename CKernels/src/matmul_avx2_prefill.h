// Private: the AVX2 prefill kernel (matmul_avx2_prefill.c), called by ck_matmul_avx2 for M > 1.
#ifndef CK_MATMUL_AVX2_PREFILL_H
#define CK_MATMUL_AVX2_PREFILL_H

#include "ck_matmul.h"

/// ck_matmul_avx2 for an integer weight format and d->m > 1: output columns [n0, n1), all rows.
void ck_matmul_avx2_prefill(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);

#endif
