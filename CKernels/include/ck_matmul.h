// Blockwise-scaled matmul: y[M][N] (=|+=) x[M][K] . W^T, W stored [N][K] with K contiguous.
//
// The CPU analogue of TensorOps `matmul2d` with a transposed, block-scaled right operand.
//
// Integer formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, IQ4_XS, MXINT8, MXFP4) all reduce to one
// canonical form per 32-element block b of a weight row: unsigned 8-bit values u[32] (the stored
// integer plus a format offset `off`, so the u8 x s8 VNNI instruction applies directly), an fp32
// scale dw and an fp32 bias term mw (the minimum for Q4_1 / Q5_1, else -off * dw). Activations
// are quantized to int8 blocks of 32 with a scale da (per the format's scheme, see ck_act_format)
// and the block's sum premultiplied by da. Then, per output, strictly in block order:
//     acc = fma((float)dot(u, q) * dw, da, acc);  acc = fma(mw, da * sum(q), acc)
// The K-quants (Q3_K, Q4_K, Q5_K, Q6_K) keep their integer sub-block codes: sc per 32 (Q4_K,
// Q5_K) or per 16 elements (Q3_K, Q6_K, signed), the min codes m per 32 (Q4_K, Q5_K), under the
// super-block's fp16 d and dmin, against Q8_K activations (one da per 256). Per 256 super-block,
// in order, in exact int32 arithmetic:
//     S = sum over its 16-element halves of sc * (dot(u, q) - off * sum(q)),  M = sum of m * sum(q)
// then acc = fma((float)S * d, da, acc) and, for Q4_K and Q5_K, acc = fma((float)M * -dmin, da, acc).
// Every path evaluates exactly these fp32 operations in this order (how it forms the exact
// integers is its own), so the SIMD kernels are bit-identical to the reference. Float formats
// (F32, F16, BF16, MXFP8) use fp32 activations.
#ifndef CK_MATMUL_H
#define CK_MATMUL_H

#include <stddef.h>
#include <stdint.h>
#include "ck_blocks.h"
#include "ck_mx.h"
#include "ck_ops.h"

/// Weight operand formats.
typedef enum {
    CK_WF_F32 = 0, CK_WF_F16, CK_WF_Q4_0, CK_WF_Q4_1, CK_WF_Q5_0, CK_WF_Q8_0, CK_WF_Q4_K, CK_WF_Q6_K,
    CK_WF_MXINT8, CK_WF_MXFP8_E4M3, CK_WF_MXFP8_E5M2, CK_WF_MXFP4, CK_WF_Q5_K, CK_WF_BF16,
    CK_WF_Q5_1, CK_WF_IQ4_NL, CK_WF_IQ4_XS, CK_WF_Q3_K, CK_WF_COUNT
} ck_weight_format;

/// How block scales are stored in the weight format.
typedef enum { CK_SCALE_NONE = 0, CK_SCALE_FP16 = 1, CK_SCALE_UE8M0 = 2 } ck_scale_format;
/// Activation operand as the kernel reads it: fp32, or int8 blocks of 32 in the canonical form
/// (ck_act) produced by one of four quantization schemes. Each GGUF format takes the scheme of
/// the activation type llama.cpp pairs with it (its `vec_dot_type`), so our products see the same
/// int8 values and scales as llama.cpp's; the MX formats keep our own per-32 scheme.
///   Q8_32: per 32, da = amax/127 (fp32), q = rint(x * (1/da))              (MX formats)
///   Q8_0:  per 32, q = rint(x * (127/amax)), da = fp16(amax/127)            (Q4_0, Q5_0, Q8_0)
///   Q8_1:  as Q8_0, and da*sum is fp16(fp32(amax/127) * sum), as Q8_1's s  (Q4_1)
///   Q8_K:  per 256, iscale = 127/amax, q = rint(x * iscale), da = 1/iscale (fp32), shared by
///          the group's 8 blocks                                              (Q4_K, Q6_K)
/// (llama.cpp's Q8_K scales by -127/max with max the signed extreme; that negates q and da
/// together, so every product q * da is the same.)
typedef enum { CK_ACT_F32 = 0, CK_ACT_Q8_32 = 1, CK_ACT_Q8_0 = 2, CK_ACT_Q8_1 = 3, CK_ACT_Q8_K = 4 } ck_act_format;

/// Number of ck_act_format values (table sizes).
#define CK_ACT_COUNT 5

/// One matmul. Weights are [n][k] (K contiguous); x is [m][k]; y is [m][n] fp32. The operand
/// formats are the weights' (ck_weights.format) and the activations' (ck_act.format).
typedef struct {
    int64_t m, n, k;
    int accumulate;                 ///< 0: y = x.W^T; 1: y += x.W^T
} ck_matmul_desc;

/// Static facts about a weight format.
typedef struct {
    int64_t block;       ///< elements per on-disk block (1 for F32/F16)
    int64_t block_bytes; ///< bytes per on-disk block
    int int8_path;       ///< 1: integer canonical form (quantized activations); 0: float path
    int packed4;         ///< repacked values (MXFP4: their codes) fit in 4 bits (two per byte)
    int nsc;             ///< scales per 32 elements (1, or 2 for Q3_K and Q6_K)
    int has_min;         ///< mw is stored (Q4_1, Q4_K); otherwise mw = -off * dw
    int off;             ///< offset added to the signed integer to make it unsigned
    ck_scale_format scale;
    ck_act_format act;
    int half_scales;     ///< repacked dw/mw are stored as fp16 (exact: the format's scales are fp16)
    int kscale_rec;      ///< K-quants (Q3_K, Q4_K, Q5_K, Q6_K): bytes of one scale record in dw (see
                         ///< ck_weights), else 0
    int code4;           ///< packed4 holds 4-bit codes that ck_code4_u maps to u (MXFP4, IQ4_NL, IQ4_XS), not u
    int e8m0_offset;     ///< nonzero: dw holds the stored ue8m0 codes, one byte per row and block, for scales 2^(e - e8m0_offset) (MXFP4 128, MXINT8 133, MXFP8 127)
    int64_t qs_block_bytes;       ///< repacked value bytes (qs) per 16-row group and 32-block: 256
                                  ///< (packed4), 512 (byte layout, MXFP8 codes), else 0 (also
                                  ///< Q5_0, stored only as its compact copy qs_dec)
    int64_t repacked_block_bytes; ///< qs_block_bytes plus the dw/mw planes' bytes per group and
                                  ///< 32-block: what a SIMD kernel streams (Q5_0: the compact copy's
                                  ///< CK_Q5_0_COMPACT_BYTES plus scales)
} ck_format_info;

/// Bytes per 16-row group and 32-block of Q5_0's and Q5_K's compact layout (ck_weights.qs_dec).
#define CK_Q5_0_COMPACT_BYTES 320
/// Bytes of one K-quant scale record (ck_weights.dw), per 16-row group and 256-element
/// super-block: Q4_K and Q5_K fp16 d[16], fp16 dmin[16], u8 sc[8][16], u8 m[8][16]; Q6_K fp16 d[16],
/// i8 sc[8][2][16] ([32-block][half][row]); Q3_K as Q6_K, its codes sc - 32.
#define CK_Q4_K_SCALE_REC 320
#define CK_Q6_K_SCALE_REC 288
/// Bytes per 16-row group and 32-block of Q6_K's values (ck_weights.qs): 6 bits per weight.
#define CK_Q6_K_PACKED_BYTES 384
/// Bytes per 16-row group and 32-block of Q3_K's values (ck_weights.qs): 3 bits per weight.
#define CK_Q3_K_PACKED_BYTES 192

ck_format_info ck_weight_format_info(ck_weight_format f);

/// Rows per repacked group: one 512-bit register holds 16 rows x 4 consecutive k as bytes.
#define CK_R 16

/// MXFP4's canonical u by E2M1 code: the value doubled ({0,1,2,3,4,6,8,12} with sign) plus 12.
/// The kernels keep MXFP4's codes in 4 bits and look this table up in registers (vpshufb, TBL).
#define CK_MXFP4_U 12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0
/// IQ4_NL's values plus 128 (CK_IQ4_NL_VALUES), the u its 4-bit codes stand for (offset 128).
#define CK_IQ4_NL_U 1, 24, 45, 63, 79, 93, 106, 118, 129, 141, 153, 166, 181, 197, 217, 241
/// The 16 u of a code4 format's codes (MXFP4, IQ4_NL, IQ4_XS), for vpshufb / TBL lookups.
const uint8_t *ck_code4_u(ck_weight_format f);

/// How far ahead of its loads a decode (M = 1) kernel prefetches the weight stream, in bytes
/// (scale planes: an eighth of it; MXFP8's scale codes a thirty-second). Both decode kernels
/// (matvec_avx2.c, matmul_avx512.c) and the float decode walk the repacked groups in address
/// order as one forward stream per array. The distance is a time ahead of the loads (bandwidth
/// x latency), the same for every format, but not for every CPU, so it is a variable the library
/// sets for the CPU it runs on when it loads (prefetch_distance.c says what was measured where)
/// and `bench kernels --prefetch` compares in turns.
#define CK_DECODE_PF_BYTES ck_decode_pf_distance()
/// The distance in use (set through ck_decode_prefetch_bytes).
extern int64_t ck_decode_pf_bytes;
static inline int64_t ck_decode_pf_distance(void) { return __atomic_load_n(&ck_decode_pf_bytes, __ATOMIC_RELAXED); }

/// Sets the decode prefetch distance (bytes, rounded down to whole 64-byte lines, 0..65536) when
/// `bytes` >= 0, and returns the distance in use. A matmul in flight may see either distance
/// (each kernel reads it once a call, group or block, before its loop); results do not depend on it.
int64_t ck_decode_prefetch_bytes(int64_t bytes);

/// A weight matrix as the kernels see it. `raw` is the original block data (GGUF or MX), rows
/// [n][k/block], read by the reference kernel. The fast paths read the repacked arrays:
///  - qs: per group of 16 rows, per 32-block, either 512 bytes (8 quads of k; quad j is 64 bytes
///    = row r at 4r..4r+3 holding u[4j..4j+3]) or, when packed4, 256 bytes (quad j's byte 4r+i
///    holds u[4j+i] in the low nibble and u[16+4j+i] in the high nibble), or, for Q6_K
///    (CK_Q6_K_PACKED_BYTES), those 256 bytes of low nibbles followed by two 64-byte planes of
///    the values' top two bits: byte 256 + 4r + i has u[4j+i] >> 4 at bits 2j..2j+1 and byte
///    320 + 4r + i has u[16+4j+i] >> 4 there (j = 0..3), so a shift and a mask put quad j's top
///    bits under its nibbles;
///  - Q3_K (CK_Q3_K_PACKED_BYTES, 3 bits per weight): a 2-bit plane of 128 bytes, byte
///    64v + 4r + i holding u & 3 of elements 4j+i (bits 4(j%2)..) and 16+4j+i (bits 4(j%2)+2..)
///    for quads j = 2v, 2v + 1, then a 64-byte plane of the third bits, byte 128 + 4r + i with
///    bit j of u[4j+i] >> 2 and bit 4 + j of u[16+4j+i] >> 2 (as Q5_0's fifth bits);
///  - dw: [group][block][16]; mw: [group][block][16] (has_min formats only; MXFP8 E5M2's flags below); fp16 bits when
///    half_scales (Q4_0, Q4_1, Q5_0, Q8_0, whose d and m are fp16 already: saves decode bytes),
///    else fp32; the K-quants instead keep their scales as stored, one record per group and
///    super-block (CK_Q4_K_SCALE_REC, CK_Q6_K_SCALE_REC; no mw): the integer codes their
///    canonical form multiplies the integer dots by, and d, dmin for its fp32 steps. With Q6_K's
///    6-bit values, both stream 1.03x and 1.00x the file's bytes (fp32 planes and a byte layout:
///    1.33x, 1.52x);
///  - MXFP4 keeps its E2M1 codes (packed4, code4: CK_MXFP4_U gives u) and its ue8m0 codes as
///    stored (e8m0_offset: dw = [group][block][16] bytes), 4.25 bits per weight as in the file;
///    the kernels form dw = 2^(e - 128) in registers (ck_e8m0_bits), exactly the reference's;
///    MXINT8 keeps its scale codes the same way (8.25 bits per weight, as in the file), its
///    dw = 2^(e - 133) (the block scale times the elements' 2^-6);
///  - MXFP8: qs = [band][block pair][32][2][64] the 8-bit codes as stored, a band being 64 rows
///    (four groups, CK_FLOAT_BAND): k-major, one 64-byte load one k of the band's rows, and the k
///    of two consecutive blocks interleaved (an odd last block alone: [32][64]), so 128
///    contiguous bytes are one k of both; dw = [band][block][64] the ue8m0 scale codes as stored
///    (e8m0_offset 127: 2^(e - 127); ck_float_value_index, ck_float_scale_index), so the stream
///    is the file's 33 bytes a block, not 36 with fp32 scales. A block holding an E4M3 NaN code
///    gets the NaN scale code 255 (its outputs are NaN, as in the reference); E5M2 keeps mw =
///    [band][block][4] bytes, 1 where the 16-row group's block holds an infinity or NaN code (the
///    2^112 decodes, which read those codes as finite numbers, treat such blocks apart: AVX-512's
///    GFNI sums them again, AVX2's sets their exponents in registers). Decode walks a band as one
///    address-ordered stream: with the band's four groups stored apart, the four streams reached
///    ~0.7 of the read rate from DRAM, one stream ~0.87. Each row's sum runs in k order within a
///    block, so a block's four AVX-512 chains wait on the fma latency every k; a pair's blocks are
///    independent chains, eight in flight, read from one stream (two blocks 2 KiB apart, as two
///    streams, read slower from DRAM than one);
///  - F16, BF16: qs = [band][block pair][32][2][64] the 16-bit values as stored (2 bytes each, laid out as
///    MXFP8's codes), no scales: the MXFP8 kernels with a unit scale. F32 keeps no copy (sgemm
///    reads raw).
/// Rows n..(n rounded up to 16, or for the float formats to a band) are zero padding
/// (ck_repacked_groups).
typedef struct {
    ck_weight_format format;
    int64_t n, k;
    const void *raw;
    int64_t raw_row_bytes;
    uint8_t *qs;
    void *dw;
    void *mw;
    uint8_t *qs_dec;  ///< Q5_0 and Q5_K only: compact layout (see ck_repack_sizes), else NULL
} ck_weights;

/// Rows of a float format's band (MXFP8, F16, BF16): their repacked values interleave four
/// 16-row groups per k (ck_weights).
#define CK_FLOAT_BAND 64

/// Index (values, not bytes) in a float format's qs of row r's value at 32-block b, element i of
/// a matrix with nb blocks per row: [band][block pair][32][2][CK_FLOAT_BAND], the last block
/// alone ([32][CK_FLOAT_BAND]) when nb is odd.
static inline int64_t ck_float_value_index(int64_t nb, int64_t r, int64_t b, int64_t i) {
    const int64_t first = b & ~(int64_t)1, ways = first + 1 < nb ? 2 : 1;
    return ((r / CK_FLOAT_BAND * nb + first) * 32 + i * ways + (b & 1)) * CK_FLOAT_BAND + r % CK_FLOAT_BAND;
}

/// Index (bytes: a code per row) in MXFP8's dw of row r's scale at 32-block b:
/// [band][block][CK_FLOAT_BAND].
static inline int64_t ck_float_scale_index(int64_t nb, int64_t r, int64_t b) {
    return (r / CK_FLOAT_BAND * nb + b) * CK_FLOAT_BAND + r % CK_FLOAT_BAND;
}

/// 16-row groups the repacked arrays of an n-row matrix hold: n rounded up to 16 rows, or for
/// the float formats (their band layout) to 64.
int64_t ck_repacked_groups(ck_weight_format f, int64_t n);

/// Sizes (in bytes) of the repacked arrays for a format and shape; zero for unused arrays.
/// dec_bytes: Q5_0's compact layout, its only repacked copy (every SIMD kernel reads it; qs is
/// not kept). Per group and block 256 bytes of the values' low four bits (the packed4 layout)
/// then 64 bytes of
/// bit-sliced fifth bits, 32 per 8-row half s at 256 + 32s: byte 4r + i (row 8s + r) has bit j =
/// u[4j+i] >> 4 and bit 4 + j = u[16+4j+i] >> 4 (j = 0..3), so one shift and mask moves a quad's
/// fifth bits into place for the 32 bytes of its nibbles. With the fp16 scales that is 5.5 bits
/// per weight, as on disk, instead of 8.5 for the byte layout.
void ck_repack_sizes(ck_weight_format f, int64_t n, int64_t k, size_t *qs_bytes, size_t *dw_bytes,
                     size_t *mw_bytes, size_t *dec_bytes);
/// Fills w->qs/dw/mw/qs_dec (caller-allocated with ck_repack_sizes, 64-byte aligned) from w->raw.
/// Rows [n0, n1) only (n0 a multiple of 16), so callers can split the work across threads.
void ck_repack_rows(const ck_weights *w, int64_t n0, int64_t n1);

/// The byte layout (512 bytes: quad j = 16 rows x u[4j..4j+3]) of group g, 32-block b of an
/// integer format's repacked weights, from whichever layout `w` holds (bytes, packed4 or Q5_0's
/// compact copy). For kernels that need bytes (AMX tiles) and formats stored narrower.
void ck_byte_layout_block(const ck_weights *w, int64_t g, int64_t b, uint8_t out[512]);

/// Canonical form of 32-block `b` of a raw weight row (see the header comment): u[32], dw, mw
/// (already -off*dw when the format has no minimum). Integer formats only; for the K-quants only
/// u (their integer scales: ck_kscales_of), dw = mw = 0.
void ck_decode_block32(ck_weight_format f, const void *row, int64_t b, uint8_t u[32], float *dw, float *mw);

/// A K-quant super-block's stored scales (Q3_K, Q4_K, Q5_K, Q6_K): the fp16 factors d and dmin
/// (dmin 0 for Q3_K and Q6_K) and, per 32-block j, the integer codes sc[j][half] of its two
/// 16-element halves (Q4_K, Q5_K: the block's one 6-bit code in both; Q3_K: its code - 32) and
/// the 6-bit min code m[j] (Q4_K, Q5_K; else 0).
typedef struct {
    ck_half d, dmin;
    int8_t sc[8][2];
    uint8_t m[8];
} ck_kscales;

/// The scales of super-block `sb` of a raw K-quant row (zeros for any other format).
void ck_kscales_of(ck_weight_format f, const void *row, int64_t sb, ck_kscales *out);

/// Quantized activations: q [m][k] int8; meta [m][k/32][CK_ACT_META] fp32 = {da, da*sum}
/// (da*sum is fp16-rounded under Q8_1); sums [m][k/32] the integer block sums and
/// half_sums [m][k/16] those of each 16 (|sum| <= 32 * 127 fits int16; the K-quants' integer
/// super-block terms and the offset-128 formats' signed dots read them); x the fp32 source (used
/// by the float formats); format the scheme (ck_act_format, not F32; Q8_K needs k a multiple of
/// 256). Caller-owned memory.
typedef struct {
    const float *x;
    int8_t *q;
    float *meta;
    int16_t *sums;
    int16_t *half_sums;
    int64_t m, k;
    ck_act_format format;
} ck_act;

/// fp32 values of ck_act.meta per 32-block: the scale da and da * sum(q).
#define CK_ACT_META 2

/// Rows [m0, m1) of `a` as an activation operand of their own (the same memory, offset).
static inline ck_act ck_act_rows(const ck_act *a, int64_t m0, int64_t m1) {
    ck_act r = *a;
    const int64_t nb = a->k / 32;
    r.m = m1 - m0;
    r.x = a->x ? a->x + m0 * a->k : NULL;
    if (a->q) {   // quantized activations (fp32-activation formats have none)
        r.q += m0 * a->k;
        r.meta += m0 * nb * CK_ACT_META;
        r.sums += m0 * nb;
        r.half_sums += m0 * nb * 2;
    }
    return r;
}

/// Quantizes rows [m0, m1) of a->x into a->q / a->meta with the scheme a->format (see
/// ck_act_format). The AVX-512 twin implements Q8_32 only; ck_quantize_act runs the AVX2 twin
/// for the other schemes on that path.
void ck_quantize_act_ref(const ck_act *a, int64_t m0, int64_t m1);
void ck_quantize_act_avx512(const ck_act *a, int64_t m0, int64_t m1);
void ck_quantize_act_avx2(const ck_act *a, int64_t m0, int64_t m1);

/// Kernel signature shared by every path: output columns [n0, n1) (n0 a multiple of 16) for all
/// rows of the descriptor. The reference reads w->raw; the SIMD twins read the repacked arrays.
typedef void (*ck_matmul_kernel)(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y,
                                 int64_t n0, int64_t n1);
void ck_matmul_ref(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_matmul_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_matmul_avx512(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
/// The AVX-512 kernels' source compiled a second time against SIMDe (matmul_avx512_emu.c):
/// portable code, runs on any x86-64 CPU; same contract and results.
void ck_matmul_avx512_emu(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_quantize_act_avx512_emu(const ck_act *a, int64_t m0, int64_t m1);
/// AMX-INT8 (matmul_amx.c): 16 or more activation rows on int8 tiles with the per-32-block fp32
/// epilogue, fewer rows and Q6_K on the AVX-512 kernel; same contract and results. `_emu` runs the same
/// kernel over the portable tile layer (ck_tile.h) and the SIMDe AVX-512 kernel.
void ck_matmul_amx(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_matmul_amx_emu(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
/// The float kernels: MXFP8 (E4M3 / E5M2), F16 and BF16 weights with fp32 activations, any m,
/// the stored codes or 16-bit values turned into exact fp32 values in registers
/// (matmul_float_avx512.c, matmul_float_avx2.c); same contract and results.
/// `_emu`: the AVX-512 source against SIMDe.
void ck_matmul_float_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_matmul_float_avx512(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_matmul_float_avx512_emu(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
/// Whether the AVX-512 float kernel (`_emu`: its SIMDe twin) decodes MXFP8 with GFNI, which
/// it does when the CPU has GFNI (SIMDe's: always) unless turned off. on: 1 allows it, 0 turns
/// it off (tests check both decodes on one CPU), -1 only asks. Same results either way.
int ck_float_avx512_use_gfni(int on);
int ck_float_avx512_use_gfni_emu(int on);
/// Whether the AVX2 float kernel decodes MXFP8 with scaled activations four codes a dword (its
/// own band decode), else through the template's per-8-codes forms; on as
/// ck_float_avx512_use_gfni's (default 1). Same results either way.
int ck_float_avx2_use_dwords(int on);
/// The AVX2 path for one activation row (decode), integer formats: streams each 16-row group's
/// repacked bytes in address order with software prefetch (matvec_avx2.c). Same contract.
void ck_matvec_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
/// The AVX2 path for many activation rows (prefill), integer formats, threaded: the `count`
/// matmuls on one quantized input (all with the same m) run in one parallel region on `nthreads`
/// threads, which take (matrix, L2 chunk of columns, 32-row block) units from a shared counter.
/// Each output element is computed exactly as by ck_matmul_avx2 (so as by ck_matmul_ref).
/// Below `min_parallel_macs` multiply-accumulates (all matrices) it runs on the calling thread.
void ck_matmul_avx2_prefill_multi(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y,
                                  int count, int nthreads, int64_t min_parallel_macs);

// MARK: - Dispatch and threading (dispatch.c, parallel.c)

/// Kernel paths. The first four are ordered by speed and chosen by CPUID, the ARM64 ones (last)
/// by the CPU's reported features; the emulated ones are the AVX-512 kernel source compiled
/// against SIMDe (portable intrinsics) and the AMX kernel over the portable tile layer, so both
/// are testable on any x86-64 CPU with AVX2. They are never chosen automatically, only by request.
typedef enum {
    CK_PATH_REF = 0, CK_PATH_AVX2 = 1, CK_PATH_AVX512 = 2, CK_PATH_AMX = 3,
    CK_PATH_AVX512_EMU = 4, CK_PATH_AMX_EMU = 5,
    CK_PATH_NEON = 6, CK_PATH_DOTPROD = 7, CK_PATH_I8MM = 8,
    CK_PATH_COUNT
} ck_kernel_path;

/// The ARM64 paths (ARMv8.0 NEON; + SDOT; + USMMLA), ordered by speed, chosen from the CPU's
/// reported features (cpu_features_neon.c); never supported on x86-64.
int ck_arm_path_supported(int p);
/// ARM64 kernels (matmul_neon.c, matmul_dotprod.c, matmul_i8mm.c, quantize_act_neon.c), defined
/// on aarch64 only: the integer formats over the repacked layout (other formats go to
/// ck_matmul_ref), same contract and bits as ck_matmul_ref; the quantizer as ck_quantize_act_ref.
void ck_matmul_neon(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_matmul_dotprod(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_matmul_i8mm(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);
void ck_quantize_act_neon(const ck_act *a, int64_t m0, int64_t m1);
/// MXFP8, F16 and BF16 weights on every ARM64 path (matmul_float_neon.c): values to fp32 by FP16
/// conversion (BF16: a shift), fp32 accumulation in the reference's order; same contract and bits
/// as ck_matmul_ref.
void ck_matmul_float_neon(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1);

/// Best path this CPU supports (CPUID, and for AMX the kernel's tile-data permission), ignoring
/// overrides.
ck_kernel_path ck_best_kernel_path(void);
/// Whether this CPU (and kernel) can run path p.
int ck_kernel_path_supported(int p);
/// The active path: the override if set, else QUANTA_KERNEL_PATH=ref|avx2|avx512|amx|avx512-emu|
/// amx-emu|neon|dotprod|i8mm (read once), else the best supported. A request the CPU cannot run
/// is lowered to the best supported path. Resolved at first use and by ck_kernel_path_set only,
/// so a call reads it with one load (the CPU's paths are probed once too).
ck_kernel_path ck_kernel_path_get(void);
/// Forces a path (-1 clears the override). Returns the path actually in effect.
ck_kernel_path ck_kernel_path_set(int path);

/// Threaded prefill over several matrices on one input (ck_matmul_avx2_prefill_multi's contract).
typedef void (*ck_prefill_kernel)(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y,
                                  int count, int nthreads, int64_t min_parallel_macs);
/// Activation quantizer: rows [m0, m1) (ck_quantize_act_ref's contract).
typedef void (*ck_quantize_kernel)(const ck_act *a, int64_t m0, int64_t m1);

/// The prefill driver over the AVX-512 / AMX kernels (prefill_units.c): ck_prefill_kernel's
/// contract with (matrix, column chunk, 32-row block) units from a shared counter.
void ck_prefill_avx512(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                       int nthreads, int64_t min_parallel_macs);
void ck_prefill_avx512_emu(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                           int nthreads, int64_t min_parallel_macs);
void ck_prefill_amx(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                    int nthreads, int64_t min_parallel_macs);
void ck_prefill_amx_emu(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                        int nthreads, int64_t min_parallel_macs);
/// The same driver over the float kernels (MXFP8, F16, BF16).
void ck_prefill_float_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                           int nthreads, int64_t min_parallel_macs);
void ck_prefill_float_avx512(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                             int nthreads, int64_t min_parallel_macs);
void ck_prefill_float_avx512_emu(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                                 int nthreads, int64_t min_parallel_macs);

/// The ARM64 kernels under the same driver (aarch64 only).
void ck_prefill_neon(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                     int nthreads, int64_t min_parallel_macs);
void ck_prefill_dotprod(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                        int nthreads, int64_t min_parallel_macs);
void ck_prefill_i8mm(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                     int nthreads, int64_t min_parallel_macs);
void ck_prefill_float_neon(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                           int nthreads, int64_t min_parallel_macs);

/// The reference kernel split over N in whole 16-row groups (matmul_threaded.c): ref's prefill.
void ck_prefill_ref(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                    int nthreads, int64_t min_parallel_macs);
/// OpenBLAS sgemm on F32 weights as stored (raw), `nthreads` OpenBLAS threads: F32 off the
/// reference path.
void ck_prefill_sgemm(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                      int nthreads, int64_t min_parallel_macs);

/// One weight format's kernels on one path (as ggml's per-type traits). ck_matmul runs `decode`
/// for one activation row when the weights have an int8 or repacked layout (every integer format;
/// MXFP8 with its qs), `prefill` otherwise. Both are named on every path.
typedef struct {
    ck_matmul_kernel decode;   ///< m = 1, columns [n0, n1); the threads split by streamed bytes
    ck_prefill_kernel prefill; ///< any m, one threaded region for several matrices
} ck_format_kernels;

struct ck_row_prefetch;
struct ck_range_job;
struct ck_head_job;
struct ck_path_kernels;

/// Attention of a batch of query rows (ck_attention_desc) with the kernels of table k.
typedef void (*ck_attention_rows_kernel)(const ck_attention_desc *d, int nthreads, const struct ck_path_kernels *k);

/// Every kernel of one path, filled once at start (static tables). Every slot is filled on every
/// path; a kernel that covers only some shapes hands the others to a twin itself.
typedef struct ck_path_kernels {
    ck_kernel_path path;
    const char *name;                          ///< as QUANTA_KERNEL_PATH spells it
    ck_format_kernels format[CK_WF_COUNT];
    ck_quantize_kernel quantize[CK_ACT_COUNT]; ///< by ck_act_format (F32 unused)
    void (*swiglu)(float *gate, const float *up, int64_t n);
    void (*geglu)(float *gate, const float *up, int64_t n);
    /// RMSNorm of `count` consecutive `width`-long vectors (ck_rms_norm's bits for each).
    void (*rms_norm_vectors)(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps);
    /// One fp32 row of n values into a KV cache row, by ck_kv_format.
    void (*kv_store[CK_KV_FORMAT_COUNT])(const float *x, void *row, int64_t n);
    /// Attention of a decoded row's query heads on one KV head over a short fp16 context
    /// (attention_heads.h): the rows that do not go split-K.
    void (*attention_head_f16)(const struct ck_head_job *);
    /// Prefill attention (prompt rows, any count): the blocked kernel (attention_tiled.h).
    ck_attention_rows_kernel attention_prefill;
    /// The split-K decode unit (attention_split_unit.h), by cache format.
    void (*attention_split[CK_KV_FORMAT_COUNT])(const struct ck_range_job *);
    /// The prefill attention's two FMA phases at this path's width (attention_tiles.h); the
    /// 16-lane ones hand head dims that are not multiples of 16 to the 8-lane ones; ref's are
    /// scalar in the same order.
    void (*attention_scores)(const float *, const float *, float *, int64_t, int64_t, int64_t, struct ck_row_prefetch *);
    void (*attention_values)(const float *, const float *, float *, int64_t, int64_t, int64_t, struct ck_row_prefetch *);
    /// The prefill attention's scores over a q8_0 cache in integer arithmetic at this path's
    /// width (attention_tiles.h; ref and the ARM paths run their portable C).
    void (*attention_scores_q8_0)(const int16_t *, const float *, const int16_t *, const float *, float *, int64_t, int64_t,
                                  int64_t, struct ck_row_prefetch *);
    /// Its weighted values over a q8_0 cache in integer arithmetic, with the integer scores.
    void (*attention_values_q8_0)(const int32_t *, const float *, const float *, int32_t *, float *, float *, int64_t, int64_t,
                                  int64_t, const float *, struct ck_row_prefetch *);
    /// The prefill attention's online softmax per chunk at this path's width (attention_tiles.h).
    void (*attention_softmax)(float *, float *, int64_t, int64_t, int64_t, int64_t, int, const int32_t *, const int32_t *, float *,
                              float *);
    /// The prefill attention's K/V rows of one KV head decoded to fp32 (ck_kv_load_row's values).
    void (*attention_rows)(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, float *dst);
} ck_path_kernels;

/// The kernel table of path p (p must be a valid ck_kernel_path).
const ck_path_kernels *ck_kernels(ck_kernel_path p);
/// The table a caller's `path` argument names: the active path's for path < 0, else that path's
/// lowered to the best supported one when this CPU cannot run it.
const ck_path_kernels *ck_kernels_for_path(int path);

/// Runs fn(ctx, t, nthreads) on `nthreads` threads of libomp's pool (t = 0..nthreads-1). No
/// allocation or thread creation after libomp's first parallel region (per calling thread).
void ck_parallel(void (*fn)(void *ctx, int t, int nthreads), void *ctx, int nthreads);
/// Runs unit(ctx, u, t) for every u in [0, units) on up to `nthreads` threads (t = the running
/// thread, e.g. for its scratch), handing units out in order from a shared counter, so a thread
/// the OS delays (the machine may be shared) does not keep the other waiting with a fixed half.
void ck_parallel_units(void (*unit)(void *ctx, int64_t u, int t), void *ctx, int64_t units, int nthreads);

/// Quantizes all a->m rows of a->x on `threads` threads with the active path (or `path` >= 0).
void ck_quantize_act(const ck_act *a, int threads, int path);
/// Several matmuls on the same quantized input (Q/K/V, gate/up): d[i], w[i], y[i] for i < count.
/// For one activation row on a SIMD path they run as ONE parallel region whose threads each take
/// a contiguous run of the matrices' 16-row groups (the float formats' 64-row bands) holding an
/// equal share of the streamed bytes;
/// otherwise they run one after another through ck_matmul. Results equal separate ck_matmul calls.
void ck_matmul_multi(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                     int threads, int path);
/// The matrices' pieces (16-row groups; the float formats' 64-row bands) split over `threads`
/// threads as ck_matmul_multi splits one activation row, each thread one contiguous run with an
/// equal share of the streamed bytes, every piece through `kernel` (any a->m). For steps of a
/// few rows (batched decode), which stream the weights as decode does; every matrix has a
/// repacked layout (not F32).
void ck_matmul_split_by_bytes(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                              int threads, ck_matmul_kernel kernel);
/// Repacks rows [n0, n1) of `w` (ck_repack_rows; n0 a multiple of 16, n1 clamped to n) on
/// `threads` threads (load time only).
void ck_repack(const ck_weights *w, int64_t n0, int64_t n1, int threads);
/// Converts n rows of k values of GGUF type `type` (src_row_bytes apart) into `format` (F32, F16,
/// BF16 or an MX format; dst_row_bytes apart) on `threads` threads, row by row through fp32
/// (convert_rows.c). Returns 0, or -1 when the type has no dequantizer or the format no quantizer.
int ck_convert_rows(ck_type type, const void *src, int64_t src_row_bytes, ck_weight_format format, void *dst,
                    int64_t dst_row_bytes, int64_t n, int64_t k, int threads);
/// Full matmul with the active path (or `path` >= 0), split over N across `threads` threads.
/// Integer formats need `a` quantized (ck_quantize_act); float formats read a->x.
void ck_matmul(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int threads, int path);

#endif
