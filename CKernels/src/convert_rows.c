// Load-time conversion of a tensor's rows into another weight format (`--weights`): each thread
// dequantizes one row at a time into fp32 scratch of its own and quantizes it into place, so an
// fp32 copy of the tensor never exists (a 1B model's head alone would be 1 GB of it).
#pragma STDC FP_CONTRACT OFF
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "ck_convert.h"
#include "ck_dequant.h"
#include "ck_matmul.h"
#include "ck_mx.h"

typedef struct {
    ck_type type;
    const uint8_t *src;
    int64_t src_row_bytes;
    ck_weight_format format;
    uint8_t *dst;
    int64_t dst_row_bytes, n, k;
    atomic_int failed;   // a row the dequantizer rejected, or no scratch
} convert_job;

/// Quantizes one fp32 row of k values into `format`; 0, or -1 for a format with no quantizer.
static int quantize_row(ck_weight_format format, const float *x, void *y, int64_t k) {
    switch (format) {
    case CK_WF_F32: memcpy(y, x, (size_t)k * sizeof(float)); return 0;
    case CK_WF_F16: for (int64_t i = 0; i < k; i++) ((ck_half *)y)[i] = ck_fp32_to_fp16(x[i]); return 0;
    case CK_WF_BF16: for (int64_t i = 0; i < k; i++) ((ck_bf16 *)y)[i] = ck_fp32_to_bf16(x[i]); return 0;
    case CK_WF_MXINT8: ck_quantize_row_mxint8(x, y, k); return 0;
    case CK_WF_MXFP8_E4M3: ck_quantize_row_mxfp8_e4m3(x, y, k); return 0;
    case CK_WF_MXFP8_E5M2: ck_quantize_row_mxfp8_e5m2(x, y, k); return 0;
    case CK_WF_MXFP4: ck_quantize_row_mxfp4(x, y, k); return 0;
    default: return -1;
    }
}

static void convert_part(void *ctx, int t, int nt) {
    convert_job *j = ctx;
    const int64_t r0 = j->n * t / nt, r1 = j->n * (t + 1) / nt;
    float *row = malloc((size_t)j->k * sizeof(float));
    if (!row) { atomic_store(&j->failed, 1); return; }
    for (int64_t r = r0; r < r1 && !atomic_load_explicit(&j->failed, memory_order_relaxed); r++) {
        if (ck_dequantize_row(j->type, j->src + r * j->src_row_bytes, row, j->k) != 0 ||
            quantize_row(j->format, row, j->dst + r * j->dst_row_bytes, j->k) != 0)
            atomic_store(&j->failed, 1);
    }
    free(row);
}

int ck_convert_rows(ck_type type, const void *src, int64_t src_row_bytes, ck_weight_format format, void *dst,
                    int64_t dst_row_bytes, int64_t n, int64_t k, int threads) {
    if (threads > n) threads = (int)n;
    if (threads < 1) threads = 1;
    convert_job j = {type, src, src_row_bytes, format, dst, dst_row_bytes, n, k, 0};
    ck_parallel(convert_part, &j, threads);
    return atomic_load(&j.failed) ? -1 : 0;
}
