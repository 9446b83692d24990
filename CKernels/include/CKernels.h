// Umbrella header of the CKernels target: block formats, conversions and kernels.
#ifndef CKERNELS_H
#define CKERNELS_H

#include "ck_bench.h"   // measurement kernels for `bench kernels`

#include "ck_blocks.h"
#include "ck_convert.h"
#include "ck_dequant.h"
#include "ck_mx.h"
#include "ck_matmul.h"
#include "ck_ops.h"
#include <cblas.h>   // OpenBLAS: the fp32 GEMM baseline

#endif
