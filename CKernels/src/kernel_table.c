// The kernel paths: which ones this CPU runs (CPUID once, AMX tile permission once), the active
// one (QUANTA_KERNEL_PATH or ck_kernel_path_set), and one static table per path naming every
// kernel it uses, per weight format and per KV cache format (as ggml's type traits). The drivers
// (dispatch.c, ops.c, ops_rows.c, kv_format.c, attention*.c) look kernels up here instead of
// testing the path themselves.
#pragma STDC FP_CONTRACT OFF
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "ck_matmul.h"
#include "ck_ops.h"
#include "ck_tile.h"
#include "attention_tiles.h"
#include "attention_heads.h"
#include "attention_split_unit.h"
#include "attention_tiled.h"
#if defined(__aarch64__)
#include "kernels_neon.h"
#endif

#if defined(__x86_64__)   // CPUID
static int cpu_has_avx2(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

static int cpu_has_avx512(void) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") && cpu_has_avx2();
}
#endif

/// Whether this CPU (and OS) runs path p, asked of CPUID / the AMX permission / the ARM feature
/// report. Called once per path, by supported_paths.
static int probe_path(int p) {
#if defined(__x86_64__)
    __builtin_cpu_init();
#endif
    switch (p) {
    case CK_PATH_REF: return 1;
#if defined(__x86_64__)
    case CK_PATH_AVX2: return cpu_has_avx2();
    case CK_PATH_AVX512: return cpu_has_avx512();
    case CK_PATH_AMX: return cpu_has_avx512() && ck_amx_available();
    // Emulated AVX-512 still runs the AVX2 kernels for what it does not cover (the GGUF
    // activation schemes, row ops).
    case CK_PATH_AVX512_EMU: case CK_PATH_AMX_EMU: return cpu_has_avx2();
#endif
    case CK_PATH_NEON: case CK_PATH_DOTPROD: case CK_PATH_I8MM: return ck_arm_path_supported(p);
    default: return 0;
    }
}

/// Bit p: path p runs here. Probed on first use (the answer never changes), -1 before.
static _Atomic int supported_mask = -1;

static int supported_paths(void) {
    int mask = atomic_load_explicit(&supported_mask, memory_order_relaxed);
    if (mask < 0) {   // racing first calls compute the same mask
        mask = 0;
        for (int p = 0; p < CK_PATH_COUNT; p++) mask |= (probe_path(p) != 0) << p;
        atomic_store(&supported_mask, mask);
    }
    return mask;
}

int ck_kernel_path_supported(int p) {
    return p >= 0 && p < CK_PATH_COUNT && (supported_paths() >> p & 1);
}

ck_kernel_path ck_best_kernel_path(void) {
    static const ck_kernel_path fastest_first[] = {CK_PATH_AMX, CK_PATH_AVX512, CK_PATH_AVX2,
                                                   CK_PATH_I8MM, CK_PATH_DOTPROD, CK_PATH_NEON};
    for (size_t i = 0; i < sizeof fastest_first / sizeof fastest_first[0]; i++)
        if (ck_kernel_path_supported(fastest_first[i])) return fastest_first[i];
    return CK_PATH_REF;
}

/// QUANTA_KERNEL_PATH's path, -1 when unset or unknown (read by the first resolution only).
static int env_path(void) {
    const char *s = getenv("QUANTA_KERNEL_PATH");
    if (!s) return -1;
    for (int p = 0; p < CK_PATH_COUNT; p++)
        if (!strcmp(s, ck_kernels((ck_kernel_path)p)->name)) return p;
    return -1;
}

/// The path a request (-1: none) resolves to on this CPU.
static ck_kernel_path resolve(int requested) {
    return ck_kernel_path_supported(requested) ? (ck_kernel_path)requested : ck_best_kernel_path();
}

/// The active path, resolved once (first use: QUANTA_KERNEL_PATH's path or the best) and again
/// only by ck_kernel_path_set; -1 before the first use. Every call that names no path
/// reads it with one load.
static _Atomic int active_path = -1;
ck_kernel_path ck_kernel_path_get(void) {
    const int p = atomic_load_explicit(&active_path, memory_order_relaxed);
    if (p >= 0) return (ck_kernel_path)p;
    int expected = -1;   // QUANTA_KERNEL_PATH is read here, once: a set before the first use skips it
    atomic_compare_exchange_strong(&active_path, &expected, (int)resolve(env_path()));
    return (ck_kernel_path)atomic_load(&active_path);
}

ck_kernel_path ck_kernel_path_set(int path) {
    const ck_kernel_path p = resolve(path);   // -1: no override, the best path
    atomic_store(&active_path, (int)p);
    return p;
}

// MARK: - Tables

/// Every format on the reference kernel.
#define REF_ALL ((ck_format_kernels){ck_matmul_ref, ck_prefill_ref})
/// Float formats off the reference path: F32 on sgemm (it has no repacked layout, so ck_matmul
/// never takes its decode slot, which names the reference kernel), MXFP8, F16 and BF16 on the path's
/// own kernel (`KERNEL` for one row, `PREFILL` its threaded driver).
#define SGEMM {ck_matmul_ref, ck_prefill_sgemm}
#define FLOATS(KERNEL, PREFILL) [CK_WF_F32] = SGEMM, [CK_WF_F16] = {KERNEL, PREFILL}, [CK_WF_BF16] = {KERNEL, PREFILL}, \
    [CK_WF_MXFP8_E4M3] = {KERNEL, PREFILL}, [CK_WF_MXFP8_E5M2] = {KERNEL, PREFILL}
#define FLOAT_AVX2 FLOATS(ck_matmul_float_avx2, ck_prefill_float_avx2)
#define FLOAT_AVX512 FLOATS(ck_matmul_float_avx512, ck_prefill_float_avx512)
#define FLOAT_AVX512_EMU FLOATS(ck_matmul_float_avx512_emu, ck_prefill_float_avx512_emu)
/// Every integer format with the same entry.
#define INTS(E) [CK_WF_Q4_0] = E, [CK_WF_Q4_1] = E, [CK_WF_Q8_0] = E, [CK_WF_Q4_K] = E, \
                [CK_WF_Q6_K] = E, [CK_WF_MXINT8] = E, [CK_WF_MXFP4] = E, [CK_WF_Q5_0] = E, [CK_WF_Q5_1] = E, [CK_WF_Q5_K] = E, \
                [CK_WF_IQ4_NL] = E, [CK_WF_IQ4_XS] = E, [CK_WF_Q3_K] = E
/// The AVX-512 paths' integer formats.
#define AVX512_INTS(DECODE, PREFILL) INTS(((ck_format_kernels){DECODE, PREFILL}))
/// Q6_K (and Q3_K) on the AMX paths stays on the VNNI tile: its two half-block scales need two K = 16 tile
/// products per block and twice the epilogue, and AMX measured 0.7x the VNNI tile (a Xeon with
/// AMX-INT8, gemma3 ffn_down 640 x 2048, m = 512).
#define AMX_INTS(VNNI, PREFILL, VNNI_PREFILL)                                                 \
    [CK_WF_Q4_0] = {VNNI, PREFILL}, [CK_WF_Q4_1] = {VNNI, PREFILL},                         \
    [CK_WF_Q8_0] = {VNNI, PREFILL}, [CK_WF_Q4_K] = {VNNI, PREFILL},                         \
    [CK_WF_MXINT8] = {VNNI, PREFILL}, [CK_WF_MXFP4] = {VNNI, PREFILL},                      \
    [CK_WF_Q5_0] = {VNNI, PREFILL}, [CK_WF_Q5_1] = {VNNI, PREFILL}, [CK_WF_Q5_K] = {VNNI, PREFILL},           \
    [CK_WF_IQ4_NL] = {VNNI, PREFILL}, [CK_WF_IQ4_XS] = {VNNI, PREFILL}, [CK_WF_Q6_K] = {VNNI, VNNI_PREFILL}, \
    [CK_WF_Q3_K] = {VNNI, VNNI_PREFILL}
/// The AVX2 quantizers for llama.cpp's schemes, `Q8_32` for ours (MX formats).
#define QUANT(Q8_32) {[CK_ACT_Q8_32] = Q8_32, [CK_ACT_Q8_0] = ck_quantize_act_avx2, \
                      [CK_ACT_Q8_1] = ck_quantize_act_avx2, [CK_ACT_Q8_K] = ck_quantize_act_avx2}

/// The row ops, KV stores and attention kernels every path outside ref shares: AVX2 row kernels,
/// the per-head kernel, the blocked prefill, the block formats' 8-lane split-K units, and
/// `SPLIT_F16` / `SPLIT_Q8_0` for the fp16 and q8_0 split-K units.
#define SIMD_ROWS(SPLIT_F16, SPLIT_Q8_0) \
    .rms_norm_vectors = ck_rms_norm_vectors_avx2, \
    .kv_store = {[CK_KV_F16] = ck_kv_store_f16_avx2, [CK_KV_Q8_0] = ck_kv_store_q8_0_avx2, \
                 [CK_KV_MXFP8_E4M3] = ck_kv_store_mxfp8_e4m3}, \
    .attention_head_f16 = ck_attention_head_f16_avx2, \
    .attention_prefill = ck_attention_tiled, .attention_rows = ck_attention_rows_avx2, \
    .attention_split = {[CK_KV_F16] = SPLIT_F16, [CK_KV_Q8_0] = SPLIT_Q8_0, \
                        [CK_KV_MXFP8_E4M3] = ck_attention_split_mxfp8_avx2}
#define ROWS_AVX2 SIMD_ROWS(ck_attention_split_f16_avx2, ck_attention_split_q8_0_avx2)
#define ROWS_AVX512 SIMD_ROWS(ck_attention_split_f16_avx512, ck_attention_split_q8_0_avx512)
#define ROWS_AVX512_EMU SIMD_ROWS(ck_attention_split_f16_avx512_emu, ck_attention_split_q8_0_avx512_emu)

/// The 8-lane prefill attention phases and the q8_0 integer ones.
#define ATTENTION_AVX2 .attention_scores = ck_attention_scores_avx2, .attention_values = ck_attention_values_avx2, \
                       .attention_scores_q8_0 = ck_attention_scores_q8_0_avx2, \
                       .attention_values_q8_0 = ck_attention_values_q8_0_avx2, \
                       .attention_softmax = ck_attention_softmax_avx2
/// The 16-lane prefill attention: its phases, q8_0 integer phases and softmax.
#define ATTENTION_AVX512 .attention_scores = ck_attention_scores_avx512, .attention_values = ck_attention_values_avx512, \
                         .attention_scores_q8_0 = ck_attention_scores_q8_0_avx512, \
                         .attention_values_q8_0 = ck_attention_values_q8_0_avx512, .attention_softmax = ck_attention_softmax_avx512
#define ATTENTION_AVX512_EMU .attention_scores = ck_attention_scores_avx512_emu, .attention_values = ck_attention_values_avx512_emu, \
                             .attention_scores_q8_0 = ck_attention_scores_q8_0_avx512_emu, \
                             .attention_values_q8_0 = ck_attention_values_q8_0_avx512_emu, \
                             .attention_softmax = ck_attention_softmax_avx512_emu

/// The ARM64 paths: their integer kernels and quantizer, the MXFP8 kernel they share, row ops,
/// KV stores and attention the reference's (ROWS_REF). Elsewhere than aarch64 the kernels are
/// not built and the tables name the reference ones (the paths are never supported there).
#if defined(__aarch64__)
#define ARM_INTS(DECODE, PREFILL) INTS(((ck_format_kernels){DECODE, PREFILL}))
#define ARM_FLOAT ((ck_format_kernels){ck_matmul_float_neon, ck_prefill_float_neon})
#define ARM_QUANT {[CK_ACT_Q8_32] = ck_quantize_act_neon, [CK_ACT_Q8_0] = ck_quantize_act_neon, \
                   [CK_ACT_Q8_1] = ck_quantize_act_neon, [CK_ACT_Q8_K] = ck_quantize_act_neon}
/// NEON row ops, KV stores, split-K units over fp16 and MXFP8 and the per-head kernel
/// (rows_neon.c, kv_store_neon.c, attention_split_neon.c, attention_head_neon.c); prefill and
/// q8_0 split-K the reference's.
#define ARM_GLU ck_swiglu_neon, ck_geglu_neon
#define ARM_ROWS .rms_norm_vectors = ck_rms_norm_vectors_neon, \
                 .kv_store = {[CK_KV_F16] = ck_kv_store_f16_neon, [CK_KV_Q8_0] = ck_kv_store_q8_0_neon, \
                              [CK_KV_MXFP8_E4M3] = ck_kv_store_mxfp8_e4m3_neon}, \
                 .attention_head_f16 = ck_attention_head_f16_neon, \
                 .attention_split = {[CK_KV_F16] = ck_attention_split_f16_neon, [CK_KV_Q8_0] = ck_attention_split_ref, \
                                     [CK_KV_MXFP8_E4M3] = ck_attention_split_mxfp8_neon}, \
                 PREFILL_REF
#else
#define ARM_INTS(DECODE, PREFILL) INTS(REF_ALL)
#define ARM_FLOAT REF_ALL
#define ARM_QUANT REF_QUANT
#define ARM_GLU ck_swiglu_ref, ck_geglu_ref
#define ARM_ROWS ROWS_REF
#endif
#define REF_QUANT {[CK_ACT_Q8_32] = ck_quantize_act_ref, [CK_ACT_Q8_0] = ck_quantize_act_ref, \
                   [CK_ACT_Q8_1] = ck_quantize_act_ref, [CK_ACT_Q8_K] = ck_quantize_act_ref}
#define ROWS_REF .rms_norm_vectors = ck_rms_norm_vectors_ref, \
                 .kv_store = {[CK_KV_F16] = ck_kv_store_f16_ref, [CK_KV_Q8_0] = ck_kv_store_q8_0_ref, \
                              [CK_KV_MXFP8_E4M3] = ck_kv_store_mxfp8_e4m3}, \
                 .attention_head_f16 = ck_attention_head_f16_ref, \
                 .attention_split = {ck_attention_split_ref, ck_attention_split_ref, ck_attention_split_ref}, \
                 PREFILL_REF
/// The portable blocked prefill and every phase it calls, as the reference and the ARM paths run
/// them: one list, so a phase added to the prefill reaches every table that runs it.
#define PREFILL_REF .attention_prefill = ck_attention_tiled_portable, \
                    .attention_scores = ck_attention_scores_ref, .attention_values = ck_attention_values_ref, \
                    .attention_scores_q8_0 = ck_attention_scores_q8_0_ref, \
                    .attention_values_q8_0 = ck_attention_values_q8_0_ref, \
                    .attention_softmax = ck_attention_softmax_ref, .attention_rows = ck_attention_rows_ref
/// The reference path's table: every kernel the scalar specification.
#define REF_TABLE(PATH, NAME)                                                                            \
    [PATH] = {PATH, NAME, {INTS(REF_ALL), [CK_WF_F32] = REF_ALL, [CK_WF_F16] = REF_ALL, [CK_WF_BF16] = REF_ALL, \
                           [CK_WF_MXFP8_E4M3] = REF_ALL, [CK_WF_MXFP8_E5M2] = REF_ALL},                  \
              REF_QUANT, ck_swiglu_ref, ck_geglu_ref, ROWS_REF}
#define ARM_TABLE(PATH, NAME, DECODE, PREFILL)                                                           \
    [PATH] = {PATH, NAME, {ARM_INTS(DECODE, PREFILL), [CK_WF_F32] = SGEMM, [CK_WF_F16] = ARM_FLOAT, [CK_WF_BF16] = ARM_FLOAT, \
                           [CK_WF_MXFP8_E4M3] = ARM_FLOAT, [CK_WF_MXFP8_E5M2] = ARM_FLOAT},                  \
              ARM_QUANT, ARM_GLU, ARM_ROWS}

static const ck_path_kernels tables[CK_PATH_COUNT] = {
    REF_TABLE(CK_PATH_REF, "ref"),
#if defined(__x86_64__)
    [CK_PATH_AVX2] = {CK_PATH_AVX2, "avx2",
                      {INTS(((ck_format_kernels){ck_matvec_avx2, ck_matmul_avx2_prefill_multi})), FLOAT_AVX2},
                      QUANT(ck_quantize_act_avx2), ck_swiglu_avx2, ck_geglu_avx2, ROWS_AVX2, ATTENTION_AVX2},
    [CK_PATH_AVX512] = {CK_PATH_AVX512, "avx512",
                        {AVX512_INTS(ck_matmul_avx512, ck_prefill_avx512), FLOAT_AVX512},
                        QUANT(ck_quantize_act_avx512), ck_swiglu_avx2, ck_geglu_avx2, ROWS_AVX512, ATTENTION_AVX512},
    [CK_PATH_AMX] = {CK_PATH_AMX, "amx",
                     {AMX_INTS(ck_matmul_avx512, ck_prefill_amx, ck_prefill_avx512), FLOAT_AVX512},
                     QUANT(ck_quantize_act_avx512), ck_swiglu_avx2, ck_geglu_avx2, ROWS_AVX512, ATTENTION_AVX512},
    [CK_PATH_AVX512_EMU] = {CK_PATH_AVX512_EMU, "avx512-emu",
                            {AVX512_INTS(ck_matmul_avx512_emu, ck_prefill_avx512_emu), FLOAT_AVX512_EMU},
                            QUANT(ck_quantize_act_avx512_emu), ck_swiglu_avx2, ck_geglu_avx2, ROWS_AVX512_EMU,
                            ATTENTION_AVX512_EMU},
    [CK_PATH_AMX_EMU] = {CK_PATH_AMX_EMU, "amx-emu",
                         {AMX_INTS(ck_matmul_avx512_emu, ck_prefill_amx_emu, ck_prefill_avx512_emu),
                          FLOAT_AVX512_EMU},
                         QUANT(ck_quantize_act_avx512_emu), ck_swiglu_avx2, ck_geglu_avx2, ROWS_AVX512_EMU,
                         ATTENTION_AVX512_EMU},
#else
    REF_TABLE(CK_PATH_AVX2, "avx2"), REF_TABLE(CK_PATH_AVX512, "avx512"), REF_TABLE(CK_PATH_AMX, "amx"),
    REF_TABLE(CK_PATH_AVX512_EMU, "avx512-emu"), REF_TABLE(CK_PATH_AMX_EMU, "amx-emu"),
#endif
    ARM_TABLE(CK_PATH_NEON, "neon", ck_matmul_neon, ck_prefill_neon),
    ARM_TABLE(CK_PATH_DOTPROD, "dotprod", ck_matmul_dotprod, ck_prefill_dotprod),
    ARM_TABLE(CK_PATH_I8MM, "i8mm", ck_matmul_dotprod, ck_prefill_i8mm),   // one row: SDOT, no wasted half
};

const ck_path_kernels *ck_kernels(ck_kernel_path p) {
    return &tables[p >= 0 && p < CK_PATH_COUNT ? p : CK_PATH_REF];
}

const ck_path_kernels *ck_kernels_for_path(int path) {
    return &tables[path < 0 ? ck_kernel_path_get() : resolve(path)];
}
