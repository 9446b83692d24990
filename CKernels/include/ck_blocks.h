// GGUF / ggml quantization block layouts, byte for byte.
//
// Each struct mirrors one ggml block (see ggml-common.h); the size assertions pin the on-disk
// layout so a block pointer can be laid directly over mmap'd tensor data. `ck_half` is the raw
// IEEE binary16 bit pattern (ggml_half), converted with ck_fp16_to_fp32.
#ifndef CK_BLOCKS_H
#define CK_BLOCKS_H

#include <stdint.h>

typedef uint16_t ck_half;
typedef uint16_t ck_bf16;

/// Elements per block of the "legacy" 32-wide formats.
#define CK_QK32 32
/// Elements per K-quant super-block.
#define CK_QK_K 256
/// Bytes of packed 6-bit scales and mins in Q4_K / Q5_K.
#define CK_K_SCALE_SIZE 12

/// GGUF tensor type ids (ggml_type). Values are the on-disk ids.
typedef enum {
    CK_TYPE_F32 = 0,
    CK_TYPE_F16 = 1,
    CK_TYPE_Q4_0 = 2,
    CK_TYPE_Q4_1 = 3,
    CK_TYPE_Q5_0 = 6,
    CK_TYPE_Q5_1 = 7,
    CK_TYPE_Q8_0 = 8,
    CK_TYPE_Q8_1 = 9,
    CK_TYPE_Q3_K = 11,
    CK_TYPE_Q4_K = 12,
    CK_TYPE_Q5_K = 13,
    CK_TYPE_Q6_K = 14,
    CK_TYPE_Q8_K = 15,
    CK_TYPE_IQ4_NL = 20,
    CK_TYPE_IQ4_XS = 23,
    CK_TYPE_BF16 = 30,
} ck_type;

/// IQ4_NL's 16 values, a non-linear int8 codebook indexed by the 4-bit code (ggml-common.h's
/// kvalues_iq4nl).
#define CK_IQ4_NL_VALUES -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113

/// y = d * (q - 8), q a 4-bit nibble. Low nibbles are elements 0..15, high nibbles 16..31.
typedef struct { ck_half d; uint8_t qs[16]; } ck_block_q4_0;
/// y = d * q + m.
typedef struct { ck_half d; ck_half m; uint8_t qs[16]; } ck_block_q4_1;
/// y = d * (q - 16), q = nibble | (bit j of qh) << 4.
typedef struct { ck_half d; uint8_t qh[4]; uint8_t qs[16]; } ck_block_q5_0;
/// y = d * q + m with a 5-bit q.
typedef struct { ck_half d; ck_half m; uint8_t qh[4]; uint8_t qs[16]; } ck_block_q5_1;
/// y = d * q, q signed 8-bit.
typedef struct { ck_half d; int8_t qs[32]; } ck_block_q8_0;
/// y = d * CK_IQ4_NL_VALUES[code], codes as Q4_0's nibbles (low: elements 0..15, high: 16..31).
typedef struct { ck_half d; uint8_t qs[16]; } ck_block_iq4_nl;
/// 8 sub-blocks of 32: y = d * (ls[j] - 32) * CK_IQ4_NL_VALUES[code], a 6-bit ls[j] split over
/// scales_l (4 bits, two per byte) and scales_h (2 bits each); sub-block j's codes are
/// qs[16j..16j+15], laid out as IQ4_NL's.
typedef struct { ck_half d; uint16_t scales_h; uint8_t scales_l[CK_QK_K / 64]; uint8_t qs[CK_QK_K / 2]; } ck_block_iq4_xs;
/// Activation-side Q8_0 with s = d * sum(qs), used against formats with a minimum (Q4_1, Q5_1).
typedef struct { ck_half d; ck_half s; int8_t qs[32]; } ck_block_q8_1;
/// 16 sub-blocks of 16: y = d * (sc[j] - 32) * (q - 4), q = 2 bits of qs | 1 bit of hmask << 2
/// (elements 32j..32j+31: bits 2(j%4).. of qs[32(j/4) + l], bit j of hmask[l]); the 6-bit sc[j]
/// are split over `scales` (ck_q3_K_scale). d is last.
typedef struct { uint8_t hmask[CK_QK_K / 8]; uint8_t qs[CK_QK_K / 4]; uint8_t scales[12]; ck_half d; } ck_block_q3_K;
/// 8 sub-blocks of 32: y = d*sc[j]*q - dmin*m[j], 6-bit sc/m packed in `scales`.
typedef struct { ck_half d; ck_half dmin; uint8_t scales[CK_K_SCALE_SIZE]; uint8_t qs[CK_QK_K / 2]; } ck_block_q4_K;
/// Q4_K plus a fifth bit per element in qh.
typedef struct {
    ck_half d; ck_half dmin; uint8_t scales[CK_K_SCALE_SIZE]; uint8_t qh[CK_QK_K / 8]; uint8_t qs[CK_QK_K / 2];
} ck_block_q5_K;
/// 16 sub-blocks of 16: y = d*sc[j]*(q - 32), q 6-bit split over ql (4 bits) and qh (2 bits). d is last.
typedef struct { uint8_t ql[CK_QK_K / 2]; uint8_t qh[CK_QK_K / 4]; int8_t scales[CK_QK_K / 16]; ck_half d; } ck_block_q6_K;
/// Activation-side K-quant block: fp32 d, 256 int8 values and the sum of each 16.
typedef struct { float d; int8_t qs[CK_QK_K]; int16_t bsums[CK_QK_K / 16]; } ck_block_q8_K;

_Static_assert(sizeof(ck_block_q4_0) == 18, "q4_0 block size");
_Static_assert(sizeof(ck_block_q4_1) == 20, "q4_1 block size");
_Static_assert(sizeof(ck_block_q5_0) == 22, "q5_0 block size");
_Static_assert(sizeof(ck_block_q5_1) == 24, "q5_1 block size");
_Static_assert(sizeof(ck_block_q8_0) == 34, "q8_0 block size");
_Static_assert(sizeof(ck_block_iq4_nl) == 18, "iq4_nl block size");
_Static_assert(sizeof(ck_block_iq4_xs) == 136, "iq4_xs block size");

/// The 6-bit scale code of sub-block j (0..7) of an IQ4_XS block (its scale is d * (code - 32)).
static inline int ck_iq4_xs_scale(const ck_block_iq4_xs *x, int j) {
    return ((x->scales_l[j / 2] >> (4 * (j % 2))) & 15) | (((x->scales_h >> (2 * j)) & 3) << 4);
}
_Static_assert(sizeof(ck_block_q8_1) == 36, "q8_1 block size");
_Static_assert(sizeof(ck_block_q3_K) == 110, "q3_K block size");
_Static_assert(sizeof(ck_block_q4_K) == 144, "q4_K block size");

/// The 6-bit scale code of sub-block i (0..15) of a Q3_K block (its scale is d * (code - 32)):
/// the low four bits are nibble i / 8 of scales[i % 8], the top two bits i / 4 of scales[8 + i % 4].
static inline int ck_q3_K_scale(const ck_block_q3_K *x, int i) {
    return ((x->scales[i % 8] >> (4 * (i / 8))) & 15) | (((x->scales[8 + i % 4] >> (2 * (i / 4))) & 3) << 4);
}
_Static_assert(sizeof(ck_block_q5_K) == 176, "q5_K block size");
_Static_assert(sizeof(ck_block_q6_K) == 210, "q6_K block size");
_Static_assert(sizeof(ck_block_q8_K) == 292, "q8_K block size");

#endif
