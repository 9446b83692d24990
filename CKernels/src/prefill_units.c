// The threaded prefill driver for paths whose kernel computes a column range for any rows
// (AVX-512 VNNI, AMX, and the float kernels of every SIMD path): the matrices on one quantized
// input run in one parallel region whose threads take (matrix, L2 chunk of 16-row groups, 32-row
// block) units from a shared counter, the scheduling the AVX2 prefill uses (a thread the OS
// delays does not hold a fixed share); fewer than 8 rows (a batched decode step) split by
// streamed bytes as decode does. Each unit runs the kernel on its rows and columns over the
// whole K, so every output is exactly the kernel's (and so the reference's).
#pragma STDC FP_CONTRACT OFF
#include "ck_matmul.h"

/// Activation rows per unit: a multiple of every kernel's row tile (AVX-512 8, AMX 16).
enum { UNIT_ROWS = 32 };
/// Weight bytes per column chunk: about an L2's worth, so a chunk leaves DRAM/L3 once per unit.
enum { CHUNK_BYTES = 256 * 1024 };

typedef struct {
    const ck_matmul_desc *d;
    const ck_weights *w;
    const ck_act *a;
    float *const *y;
    ck_matmul_kernel kernel;
    int64_t first[9];   ///< first unit of each matrix (at most 8 per region); first[count] = total
    int64_t chunk[8];   ///< groups per chunk, per matrix
    int64_t row_blocks, unit_rows;
    int count;
} units_job;

/// Groups per chunk: ~CHUNK_BYTES of repacked weights, even, >= 2.
static int64_t chunk_groups(const ck_weights *w) {
    const int64_t bytes = (w->k / 32) * ck_weight_format_info(w->format).repacked_block_bytes;
    const int64_t c = (CHUNK_BYTES / (bytes > 0 ? bytes : 1)) & ~(int64_t)1;
    return c < 2 ? 2 : c;
}

static void run_unit(void *ctx, int64_t u, int t) {
    (void)t;
    const units_job *j = ctx;
    int i = 0;
    while (u >= j->first[i + 1]) i++;
    const ck_matmul_desc *d = &j->d[i];
    const int64_t local = u - j->first[i], c = local / j->row_blocks, rb = local % j->row_blocks;
    const int64_t n0 = c * j->chunk[i] * CK_R, n1 = n0 + j->chunk[i] * CK_R < d->n ? n0 + j->chunk[i] * CK_R : d->n;
    const int64_t m0 = rb * j->unit_rows, m1 = m0 + j->unit_rows < d->m ? m0 + j->unit_rows : d->m;
    // Rows [m0, m1) as a matmul of their own: the same per-output work, offset operands.
    const ck_matmul_desc sd = {m1 - m0, d->n, d->k, d->accumulate};
    const ck_act sa = ck_act_rows(j->a, m0, m1);
    j->kernel(&sd, &j->w[i], &sa, j->y[i] + m0 * d->n, n0, n1);
}

static void prefill_units(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,
                          int nthreads, int64_t min_parallel_macs, ck_matmul_kernel kernel) {
    // Fewer rows than one 8-row tile (a batched decode step): the weights stream from memory as
    // in decode, so each thread takes one contiguous, byte-balanced share of the matrices. L2
    // chunks as units left a matrix of one or two chunks to one thread while the other waited
    // (SmolLM2, 4 rows: the 576-row matrices are one chunk each).
    // F32 keeps its raw rows, no streamed pieces to split (the paths' tables send it to sgemm; a
    // direct caller of this driver, as the ARM64 kernel tests, may still pass it).
    int repacked = 1;
    for (int i = 0; i < count; i++) repacked &= ck_weight_format_info(w[i].format).repacked_block_bytes > 0;
    if (d[0].m < 8 && repacked) {
        ck_matmul_split_by_bytes(d, w, a, y, count, nthreads, kernel);
        return;
    }
    for (int i0 = 0; i0 < count; i0 += 8) {
        // A call of up to two blocks' rows (a short prompt) is one block: each chunk's weights then
        // leave DRAM or L3 once instead of twice (Llama 3.2 1B shape, pp64: +12-17 %).
        const int64_t unit_rows = d[i0].m <= 2 * UNIT_ROWS ? d[i0].m : UNIT_ROWS;
        units_job j = {d + i0, w + i0, a, y + i0, kernel, {0}, {0}, (d[i0].m + unit_rows - 1) / unit_rows, unit_rows, 0};
        j.count = count - i0 < 8 ? count - i0 : 8;
        int64_t macs = 0;
        for (int i = 0; i < j.count; i++) {
            j.chunk[i] = chunk_groups(&j.w[i]);
            const int64_t groups = (j.d[i].n + CK_R - 1) / CK_R;
            j.first[i + 1] = j.first[i] + (groups + j.chunk[i] - 1) / j.chunk[i] * j.row_blocks;
            macs += j.d[i].m * j.d[i].n * j.d[i].k;
        }
        ck_parallel_units(run_unit, &j, j.first[j.count], macs < min_parallel_macs ? 1 : nthreads);
    }
}

#define PREFILL(NAME, KERNEL)                                                                                   \
    void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y, int count,       \
              int nthreads, int64_t min_parallel_macs) {                                                        \
        prefill_units(d, w, a, y, count, nthreads, min_parallel_macs, KERNEL);                                  \
    }
#if defined(__x86_64__)   // the x86 kernels
PREFILL(ck_prefill_avx512, ck_matmul_avx512)
PREFILL(ck_prefill_avx512_emu, ck_matmul_avx512_emu)
PREFILL(ck_prefill_amx, ck_matmul_amx)
PREFILL(ck_prefill_amx_emu, ck_matmul_amx_emu)
PREFILL(ck_prefill_float_avx2, ck_matmul_float_avx2)
PREFILL(ck_prefill_float_avx512, ck_matmul_float_avx512)
PREFILL(ck_prefill_float_avx512_emu, ck_matmul_float_avx512_emu)
#endif
#if defined(__aarch64__)
PREFILL(ck_prefill_neon, ck_matmul_neon)
PREFILL(ck_prefill_dotprod, ck_matmul_dotprod)
PREFILL(ck_prefill_i8mm, ck_matmul_i8mm)
PREFILL(ck_prefill_float_neon, ck_matmul_float_neon)
#endif
