// AVX2 twins of the reference kernels. Until the AVX2 integer kernel lands, the matmul forwards
// to the reference (correct, slow); the activation quantizer is the reference as well.
#include "ck_matmul.h"

void ck_quantize_act_avx2(const ck_act *a, int64_t m0, int64_t m1) { ck_quantize_act_ref(a, m0, m1); }

void ck_matmul_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    ck_matmul_ref(d, w, a, y, n0, n1);
}
