// Scalar number-format conversions, exact (subnormals, infinities and NaN included).
#ifndef CK_CONVERT_H
#define CK_CONVERT_H

#include "ck_blocks.h"

/// IEEE binary16 bits -> fp32, exact for every input.
float ck_fp16_to_fp32(ck_half h);
/// fp32 -> IEEE binary16 bits, round to nearest even, overflow to infinity, NaN kept quiet.
ck_half ck_fp32_to_fp16(float f);
/// bfloat16 bits -> fp32 (exact: the top half of an fp32).
float ck_bf16_to_fp32(ck_bf16 h);
/// fp32 -> bfloat16 bits, round to nearest even (overflow to infinity), NaN kept quiet.
ck_bf16 ck_fp32_to_bf16(float f);

#endif
