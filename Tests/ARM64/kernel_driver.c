// The C kernels' cross-architecture check. Built natively on x86-64 it writes the golden outputs
// of the reference kernels (`golden`: one "case hash" line per case); built for aarch64 and run
// under qemu-user (`check GOLDEN CPU`) it recomputes every case with the reference kernels and
// with each ARM path the CPU reports, and compares each hash with the golden one. So an ARM path
// must equal the x86 reference bit for bit, and the aarch64 reference must equal the x86 one
// (the FP-contraction guard). NaNs hash as one pattern: x86 and ARM generate different default
// NaN bits (sign), and the contract is "NaN where the reference has NaN". It links the whole
// kernel library, so the kernel table's choice of path on each CPU is checked too ("select").
// Runs serially: the libomp entry points the thread pool calls are stubbed below (the arm64
// cross packages have no libomp); every case uses one thread. Time cap: the whole run under the
// three qemu CPUs stays below 3 minutes (scripts/test-arm64).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ck_matmul.h"
#include "ck_convert.h"
#include "ck_mx.h"
#include "ck_ops.h"

// MARK: - Serial stand-ins for libomp (parallel.c calls these only for more than one thread)

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags) {
    (void)num_threads; (void)flags;
    fn(data);
}
int omp_get_thread_num(void) { return 0; }
int omp_get_num_threads(void) { return 1; }

#if defined(__aarch64__)
// The arm64 cross packages have no OpenBLAS: the F32 / F16 sgemm slot is linked but never run here.
typedef int blasint;
void cblas_sgemm(int order, int ta, int tb, blasint m, blasint n, blasint k, float alpha, const float *a, blasint lda,
                 const float *b, blasint ldb, float beta, float *c, blasint ldc);
void openblas_set_num_threads(int n);
void cblas_sgemm(int order, int ta, int tb, blasint m, blasint n, blasint k, float alpha, const float *a, blasint lda,
                 const float *b, blasint ldb, float beta, float *c, blasint ldc) {
    (void)order; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)alpha; (void)a; (void)lda; (void)b; (void)ldb;
    (void)beta; (void)c; (void)ldc;
    fprintf(stderr, "kernel_driver: sgemm is not available in the aarch64 driver\n");
    abort();
}
void openblas_set_num_threads(int n) { (void)n; }
#endif

// MARK: - Hashing and the golden table

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}
static uint64_t hash_bytes(const void *p, size_t n) { return fnv(0xcbf29ce484222325ULL, p, n); }
/// fp32 values with every NaN as 0x7fc00000.
static uint64_t hash_floats(const float *x, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        if (isnan(x[i])) u = 0x7fc00000u;
        h = fnv(h, &u, 4);
    }
    return h;
}

enum { MAX_CASES = 4096, MAX_PATHS = 32 };
static int golden_mode;
static char golden_name[MAX_CASES][96];
static uint64_t golden_hash[MAX_CASES];
static int golden_count;
static const char *path_names[MAX_PATHS];
static int passed[MAX_PATHS], failed[MAX_PATHS], npaths;

static int path_index(const char *path) {
    for (int i = 0; i < npaths; i++)
        if (!strcmp(path_names[i], path)) return i;
    if (npaths == MAX_PATHS) { fprintf(stderr, "kernel_driver: more than %d path labels\n", MAX_PATHS); exit(2); }
    path_names[npaths] = strdup(path);
    return npaths++;
}

/// Golden mode: prints ref's hash. Check mode: compares `path`'s hash with the golden one.
static void record(const char *name, const char *path, uint64_t h) {
    if (golden_mode) {
        if (!strcmp(path, "ref")) printf("%s %016llx\n", name, (unsigned long long)h);
        return;
    }
    const int p = path_index(path);
    for (int i = 0; i < golden_count; i++)
        if (!strcmp(golden_name[i], name)) {
            if (golden_hash[i] == h) { passed[p]++; return; }
            printf("MISMATCH %s on %s: %016llx, golden %016llx\n", name, path, (unsigned long long)h,
                   (unsigned long long)golden_hash[i]);
            failed[p]++;
            return;
        }
    printf("MISSING %s (not in the golden file)\n", name);
    failed[p]++;
}

// MARK: - Inputs

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t next_u32(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(next_u32() >> 8) * (1.0f / 16777216.0f); }

/// fp16 block scales: mostly normal (2^-12 .. 2), one block in four an edge value.
static ck_half half_scale(int edges) {
    static const ck_half edge[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x7bff, 0xfbff, 0x7c00, 0x7e00, 0x0400};
    if (edges && next_u32() % 4 == 0) return edge[next_u32() % (sizeof edge / sizeof edge[0])];
    return (ck_half)(((next_u32() & 1) << 15) | ((3 + next_u32() % 14) << 10) | (next_u32() & 0x3ff));
}
/// ue8m0 scales: 2^-7 .. 2^3, or an edge (smallest, largest, 1, NaN code).
static uint8_t e8m0_scale(int edges) {
    static const uint8_t edge[] = {0, 1, 127, 253, 254, 255};
    if (edges && next_u32() % 4 == 0) return edge[next_u32() % sizeof edge];
    return (uint8_t)(120 + next_u32() % 11);
}

/// Random raw rows of format f with valid scales (edge values when `edges`).
static void *make_weights(ck_weight_format f, int64_t n, int64_t k, int edges, int64_t *row_bytes) {
    const ck_format_info info = ck_weight_format_info(f);
    *row_bytes = k / info.block * info.block_bytes;
    uint8_t *raw = malloc((size_t)(n * *row_bytes));
    for (int64_t i = 0; i < n * *row_bytes; i++) raw[i] = (uint8_t)next_u32();
    for (int64_t r = 0; r < n; r++) {
        uint8_t *row = raw + r * *row_bytes;
        if (f == CK_WF_F32) {
            for (int64_t i = 0; i < k; i++) ((float *)row)[i] = uniform(-1, 1);
            continue;
        }
        if (f == CK_WF_F16 || f == CK_WF_BF16) {
            for (int64_t i = 0; i < k; i++)
                ((uint16_t *)row)[i] = f == CK_WF_F16 ? ck_fp32_to_fp16(uniform(-1, 1)) : ck_fp32_to_bf16(uniform(-1, 1));
            continue;
        }
        for (int64_t b = 0; b < k / info.block; b++) {
            uint8_t *blk = row + b * info.block_bytes;
            ck_half h = half_scale(edges), h2 = half_scale(edges);
            switch (f) {
            case CK_WF_Q4_1: case CK_WF_Q5_1: case CK_WF_Q4_K: case CK_WF_Q5_K: memcpy(blk, &h, 2); memcpy(blk + 2, &h2, 2); break;
            case CK_WF_Q4_0: case CK_WF_Q5_0: case CK_WF_Q8_0: case CK_WF_IQ4_NL: case CK_WF_IQ4_XS: memcpy(blk, &h, 2); break;
            case CK_WF_Q6_K: memcpy(blk + 208, &h, 2); break;
            case CK_WF_Q3_K: memcpy(blk + 108, &h, 2); break;
            default: blk[0] = e8m0_scale(edges); break;   // MX formats: e first
            }
        }
    }
    return raw;
}

/// Activations [m][k] in [-2, 2], with edge blocks when `edges`: zeros, tiny (~1e-38), huge
/// (~1e30), one infinity, one NaN.
static float *make_activations(int64_t m, int64_t k, int edges) {
    float *x = malloc((size_t)(m * k) * sizeof(float));
    for (int64_t i = 0; i < m * k; i++) x[i] = uniform(-2, 2);
    if (edges)
        for (int64_t b = 0; b < m * k / 32; b++) {
            float *blk = x + 32 * b;
            switch (next_u32() % 12) {
            case 0: memset(blk, 0, 32 * sizeof(float)); break;
            case 1: for (int i = 0; i < 32; i++) blk[i] *= 1e-38f; break;
            case 2: for (int i = 0; i < 32; i++) blk[i] *= 1e30f; break;
            case 3: blk[next_u32() % 32] = INFINITY; break;
            case 4: blk[next_u32() % 32] = NAN; break;
            default: break;
            }
        }
    return x;
}

typedef struct { ck_act a; float *x; } act_buf;

static act_buf quantized(ck_act_format fmt, int64_t m, int64_t k, int edges, ck_quantize_kernel quantize) {
    act_buf b;
    b.x = make_activations(m, k, edges);
    b.a = (ck_act){b.x, malloc((size_t)(m * k)), malloc((size_t)(m * k / 32 * CK_ACT_META) * sizeof(float)),
                   malloc((size_t)(m * k / 32) * sizeof(int16_t)), malloc((size_t)(m * k / 16) * sizeof(int16_t)), m, k, fmt};
    if (fmt != CK_ACT_F32) quantize(&b.a, 0, m);
    return b;
}
static void free_act(act_buf *b) { free(b->x); free(b->a.q); free(b->a.meta); free(b->a.sums); free(b->a.half_sums); }

// MARK: - The ARM paths this build checks

typedef struct {
    const char *name;
    int path;                       ///< ck_kernel_path
    ck_matmul_kernel decode;
    ck_prefill_kernel prefill;
    ck_quantize_kernel quantize;
} arm_path;

#if defined(__aarch64__)
static const arm_path arm_paths[] = {
    {"neon", CK_PATH_NEON, ck_matmul_neon, ck_prefill_neon, ck_quantize_act_neon},
    {"dotprod", CK_PATH_DOTPROD, ck_matmul_dotprod, ck_prefill_dotprod, ck_quantize_act_neon},
    {"i8mm", CK_PATH_I8MM, ck_matmul_i8mm, ck_prefill_i8mm, ck_quantize_act_neon},
};
enum { ARM_PATHS = 3 };
#else
static const arm_path arm_paths[1];
enum { ARM_PATHS = 0 };
#endif

static int arm_enabled[3];

// MARK: - Cases

static void *aligned(size_t n) {
    if (!n) return NULL;
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    memset(p, 0, n);
    return p;
}

static const char *format_name(ck_weight_format f) {
    static const char *names[CK_WF_COUNT] = {"f32", "f16", "q4_0", "q4_1", "q5_0", "q8_0", "q4_K", "q6_K",
                                             "mxint8", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp4", "q5_K", "bf16", "q5_1", "iq4_nl", "iq4_xs", "q3_K"};
    return names[f];
}

/// One matmul shape of format f: ref (golden), every enabled ARM path's kernel over two column
/// ranges, and its threaded prefill driver (MXFP8, F16 and BF16: the float kernel every ARM path shares; F32:
/// the integer kernels hand it to the reference).
static void matmul_case(ck_weight_format f, int64_t m, int64_t n, int64_t k, int edges, int accumulate) {
    const ck_format_info info = ck_weight_format_info(f);
    char name[96];
    snprintf(name, sizeof name, "matmul/%s/m%lld/n%lld/k%lld/%s%s", format_name(f), (long long)m, (long long)n,
             (long long)k, edges ? "edges" : "plain", accumulate ? "/acc" : "");
    int64_t row_bytes;
    void *raw = make_weights(f, n, k, edges, &row_bytes);
    act_buf act = quantized(info.int8_path ? info.act : CK_ACT_F32, m, k, edges, ck_quantize_act_ref);
    const ck_matmul_desc d = {m, n, k, accumulate};
    ck_weights w = {f, n, k, raw, row_bytes, NULL, NULL, NULL, NULL};
    float *init = malloc((size_t)(m * n) * sizeof(float)), *y = malloc((size_t)(m * n) * sizeof(float));
    for (int64_t i = 0; i < m * n; i++) init[i] = uniform(-4, 4);
    memcpy(y, init, (size_t)(m * n) * sizeof(float));
    ck_matmul_ref(&d, &w, &act.a, y, 0, n);
    record(name, "ref", hash_floats(y, (size_t)(m * n)));

    if (ARM_PATHS) {
        size_t qs, dw, mw, dec;
        ck_repack_sizes(f, n, k, &qs, &dw, &mw, &dec);
        w.qs = aligned(qs); w.dw = aligned(dw); w.mw = aligned(mw); w.qs_dec = aligned(dec);
        ck_repack_rows(&w, 0, n);
        for (int p = 0; p < ARM_PATHS; p++) {
            if (!arm_enabled[p]) continue;
            char label[32];
            memcpy(y, init, (size_t)(m * n) * sizeof(float));
            const int64_t split = n > CK_R ? CK_R : n;   // two calls: n0 = 0 and n0 = 16
            const int float_kernel = f == CK_WF_MXFP8_E4M3 || f == CK_WF_MXFP8_E5M2 || f == CK_WF_F16 || f == CK_WF_BF16;
            const ck_matmul_kernel decode = float_kernel ? ck_matmul_float_neon : arm_paths[p].decode;
            decode(&d, &w, &act.a, y, 0, split);
            if (split < n) decode(&d, &w, &act.a, y, split, n);
            record(name, arm_paths[p].name, hash_floats(y, (size_t)(m * n)));
            memcpy(y, init, (size_t)(m * n) * sizeof(float));
            (float_kernel ? ck_prefill_float_neon : arm_paths[p].prefill)(&d, &w, &act.a, &y, 1, 1, 0);
            snprintf(label, sizeof label, "%s-prefill", arm_paths[p].name);
            record(name, label, hash_floats(y, (size_t)(m * n)));
            if (f != CK_WF_F32) {   // through the path's table (sgemm is not linked here)
                memcpy(y, init, (size_t)(m * n) * sizeof(float));
                ck_matmul(&d, &w, &act.a, y, 1, arm_paths[p].path);
                snprintf(label, sizeof label, "%s-table", arm_paths[p].name);
                record(name, label, hash_floats(y, (size_t)(m * n)));
            }
        }
        free(w.qs); free(w.dw); free(w.mw); free(w.qs_dec);
    }
    free(raw); free(init); free(y); free_act(&act);
}

static void matmul_cases(void) {
    static const int64_t ms[] = {1, 2, 7, 16, 33, 512};
    for (int f = 0; f < CK_WF_COUNT; f++) {
        const ck_format_info info = ck_weight_format_info((ck_weight_format)f);
        const int kq = info.block == 256;
        // ragged N (not a multiple of 16) and K (not a multiple of 64, or of 512 for K-quants); the
        // float formats also over two 64-row bands, the second partial
        const int64_t shapes[][2] = {{17, kq ? 256 : 96}, {40, kq ? 768 : 160}, {1, kq ? 256 : 32}, {100, 96}};
        const int float_format = f == CK_WF_MXFP8_E4M3 || f == CK_WF_MXFP8_E5M2 || f == CK_WF_F16 || f == CK_WF_BF16;
        for (int mi = 0; mi < 6; mi++)
            for (int s = 0; s < (float_format ? 4 : 3); s++) {
                if (ms[mi] == 512 && s != 0) continue;   // the long prefill once, on the first shape
                for (int edges = 0; edges < 2; edges++)
                    matmul_case((ck_weight_format)f, ms[mi], shapes[s][0], shapes[s][1], edges, (mi + s) % 2);
            }
    }
}

static void quantize_cases(void) {
    static const char *names[] = {"f32", "q8_32", "q8_0", "q8_1", "q8_K"};
    for (int fmt = CK_ACT_Q8_32; fmt < CK_ACT_COUNT; fmt++)
        for (int64_t m = 1; m <= 7; m += 6)
            for (int64_t k = 256; k <= 768; k += 512)
                for (int edges = 0; edges < 2; edges++) {
                    char name[96];
                    snprintf(name, sizeof name, "quantize/%s/m%lld/k%lld/%s", names[fmt], (long long)m, (long long)k,
                             edges ? "edges" : "plain");
                    const uint64_t seed = rng;
                    // every ARM path shares the NEON quantizer: checked once, as "neon"
                    for (int p = -1; p < (ARM_PATHS ? 1 : 0); p++) {
                        rng = seed;     // the same input for every path
                        act_buf b = quantized((ck_act_format)fmt, m, k, edges, p < 0 ? ck_quantize_act_ref : arm_paths[p].quantize);
                        uint64_t h = hash_bytes(b.a.q, (size_t)(m * k));
                        h = fnv(h, b.a.sums, (size_t)(m * k / 32) * sizeof(int16_t));
                        h = fnv(h, b.a.half_sums, (size_t)(m * k / 16) * sizeof(int16_t));
                        h ^= hash_floats(b.a.meta, (size_t)(m * k / 32 * CK_ACT_META)) * 31;
                        record(name, p < 0 ? "ref" : arm_paths[p].name, h);
                        free_act(&b);
                    }
                }
}

/// Row ops and KV stores: the reference functions (the ARM table's), x86 bits vs aarch64 bits.
static void row_cases(void) {
    static const int64_t widths[] = {64, 100, 2048};
    for (int wi = 0; wi < 3; wi++) {
        const int64_t n = widths[wi];
        char name[96];
        float *x = make_activations(1, n, 0), *w = make_activations(1, n, 0), *y = malloc((size_t)n * sizeof(float));
        float *g = malloc((size_t)n * sizeof(float));
        ck_rms_norm(x, w, y, n, 1e-6f);
        snprintf(name, sizeof name, "rows/rms_norm/%lld", (long long)n);
        record(name, "ref", hash_floats(y, (size_t)n));
        memcpy(g, x, (size_t)n * sizeof(float));
        ck_swiglu_ref(g, w, n);
        snprintf(name, sizeof name, "rows/swiglu/%lld", (long long)n);
        record(name, "ref", hash_floats(g, (size_t)n));
        memcpy(g, x, (size_t)n * sizeof(float));
        ck_geglu_ref(g, w, n);
        snprintf(name, sizeof name, "rows/geglu/%lld", (long long)n);
        record(name, "ref", hash_floats(g, (size_t)n));
        memcpy(g, x, (size_t)n * sizeof(float));
        ck_add(g, w, n);
        ck_scale(g, 0.3f, n);
        snprintf(name, sizeof name, "rows/add_scale/%lld", (long long)n);
        record(name, "ref", hash_floats(g, (size_t)n));
        free(x); free(w); free(y); free(g);
    }
    static const int64_t positions[] = {0, 1, 17, 4095, 100000};
    for (int neox = 0; neox < 2; neox++)
        for (int pi = 0; pi < 5; pi++) {
            char name[96];
            float *x = make_activations(1, 4 * 64, 0);
            ck_rope(x, 4, 64, 64, positions[pi], 10000.0f, neox);
            snprintf(name, sizeof name, "rows/rope/%s/pos%lld", neox ? "neox" : "norm", (long long)positions[pi]);
            record(name, "ref", hash_floats(x, 4 * 64));
            free(x);
        }
    for (int edges = 0; edges < 2; edges++) {
        const int64_t n = 256;
        float *x = make_activations(1, n, edges);
        uint8_t row[1024];
        char name[96];
        static const char *kv[] = {"f16", "q8_0", "mxfp8_e4m3"};
        void (*store[])(const float *, void *, int64_t) = {ck_kv_store_f16_ref, ck_kv_store_q8_0_ref, ck_kv_store_mxfp8_e4m3};
        for (int f = 0; f < 3; f++) {
            memset(row, 0, sizeof row);
            store[f](x, row, n);
            snprintf(name, sizeof name, "kv_store/%s/%s", kv[f], edges ? "edges" : "plain");
            record(name, "ref", hash_bytes(row, (size_t)ck_kv_row_bytes((ck_kv_format)f, n)));
        }
        free(x);
    }
}

// MARK: - Row ops, KV stores and split-K attention through each path's table

/// Runs BODY for ref (label "ref") and each ARM path this CPU runs (label "<path>-SUFFIX"), with
/// `path_` the ck_kernel_path and `label_` the label; `seed_` restores the inputs' generator so
/// every path sees the same input.
#define FOR_PATHS(SUFFIX, BODY)                                                                        \
    do {                                                                                               \
        const uint64_t seed_ = rng;                                                                    \
        for (int p_ = -1; p_ < ARM_PATHS; p_++) {                                                      \
            if (p_ >= 0 && !arm_enabled[p_]) continue;                                                 \
            rng = seed_;                                                                               \
            const int path_ = p_ < 0 ? CK_PATH_REF : arm_paths[p_].path;                               \
            char label_[32];                                                                           \
            snprintf(label_, sizeof label_, "%s%s%s", p_ < 0 ? "ref" : arm_paths[p_].name, p_ < 0 ? "" : "-", \
                     p_ < 0 ? "" : SUFFIX);                                                            \
            BODY;                                                                                      \
        }                                                                                              \
    } while (0)

static float float_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/// n values for the row ops and KV stores, each 32-value block one scenario (block b, shifted by
/// `salt`): ordinary values; zeros of both signs; fp32 subnormals; huge (up to FLT_MAX); an
/// infinity; NaNs with payloads and signs; fp16 edges (65504, 65520 and just below, the normal
/// and subnormal limits, exact ties of fp16 rounding); one large value over tiny ones (E4M3
/// subnormals, underflow after the MX scaling); exact ties of E4M3 and q8_0 rounding; and the
/// GLU ops' thresholds (exp's clamps at -87 and 88, gelu's at +-10).
static void edge_values(float *x, int64_t n, int salt) {
    for (int64_t i = 0; i < n; i++) x[i] = uniform(-2, 2);
    for (int64_t b = 0; b * 32 < n; b++) {
        float *blk = x + 32 * b;
        const int64_t len = n - 32 * b < 32 ? n - 32 * b : 32;
        const int k = (int)((b + salt) % 11);
        for (int64_t i = 0; i < len; i++) {
            const float u = uniform(-1, 1);
            switch (k) {
            case 0: break;
            case 1: blk[i] = i % 2 ? -0.0f : 0.0f; break;
            case 2: blk[i] = u * 1e-39f; break;
            case 3: blk[i] = i == 3 ? -3.4028235e38f : u * 1e37f; break;
            case 4: if (i == len / 2) blk[i] = i % 2 ? -INFINITY : INFINITY; break;
            case 5: if (i % 7 == 1) blk[i] = float_bits(i % 2 ? 0xffd12345u : 0x7fc0abcdu); break;
            case 6: {
                static const float f16_edges[] = {65504.0f, 65519.99f, 65520.0f, -65520.0f, 6.1035156e-5f, 5.9604645e-8f,
                                                  2.9802322e-8f, 8.940697e-8f, 1.00048828125f, 1.00146484375f, -2.0009765625f,
                                                  1e-10f, 3.0517578e-5f, 4.5e-8f};
                blk[i] = f16_edges[i % (sizeof f16_edges / sizeof f16_edges[0])] * (i >= 14 ? -1.0f : 1.0f);
                break;
            }
            case 7: blk[i] = i == 5 ? 448.0f * 1024.0f : u * 1e-3f * (float)(1 << (i % 16)) * 1e-3f; break;
            case 8: {   // amax 127: q8_0's d = 1, so x * (1 / d) ties at the halves
                static const float ties[] = {127.0f, 0.5f, -1.5f, 2.5f, -9.5f, 100.5f, 63.5f, -0.5f};
                blk[i] = ties[i % (sizeof ties / sizeof ties[0])];
                break;
            }
            case 9: {   // amax 448: the E4M3 block scale is 1, so these tie between two codes
                static const float ties[] = {448.0f, 1.0625f, 17.0f, -19.0f, 0.01953125f, 0.0029296875f, 0.0068359375f, 240.0f};
                blk[i] = ties[i % (sizeof ties / sizeof ties[0])];
                break;
            }
            default: {
                static const float glu[] = {-87.5f, -86.9f, 88.0f, 88.5f, 100.0f, -100.0f, 10.0f, -10.0f, 9.99f, -9.99f,
                                            20.0f, -20.0f, 1e4f, -1e4f};
                blk[i] = glu[i % (sizeof glu / sizeof glu[0])] * (1.0f + u * 1e-3f * (float)(i % 3 == 0));
                break;
            }
            }
        }
    }
}

/// RMSNorm (vectors of `width` per row, 1 or 4 per row), SwiGLU and GeGLU of 1..33 rows of ragged
/// widths through ck_*_rows with each path's table, plain and edge inputs.
static void neon_row_cases(void) {
    static const int64_t row_counts[] = {1, 2, 3, 4, 5, 7, 16, 33}, widths[] = {1, 3, 4, 12, 36, 64, 100, 130};
    for (int ri = 0; ri < 8; ri++)
        for (int wi = 0; wi < 8; wi++)
            for (int edges = 0; edges < 2; edges++) {
                const int64_t rows = row_counts[ri], width = widths[wi], per_row = (ri + wi) % 2 ? 4 : 1;
                const int64_t cols = width * per_row, total = rows * cols;
                float *x = malloc((size_t)total * sizeof(float)), *y = malloc((size_t)total * sizeof(float));
                float *u = malloc((size_t)total * sizeof(float)), *w = malloc((size_t)width * sizeof(float));
                char name[96];
                snprintf(name, sizeof name, "rows_path/rms_norm/r%lld/w%lldx%lld/%s", (long long)rows, (long long)width,
                         (long long)per_row, edges ? "edges" : "plain");
                FOR_PATHS("rows", {
                    if (edges) edge_values(x, total, ri + wi); else for (int64_t i = 0; i < total; i++) x[i] = uniform(-3, 3);
                    for (int64_t i = 0; i < width; i++) w[i] = uniform(-2, 2);
                    ck_rms_norm_rows(x, y, rows, cols, w, width, 1e-6f, 1, path_);
                    record(name, label_, hash_floats(y, (size_t)total));
                });
                static const char *glu[] = {"swiglu", "geglu"};
                for (int op = 0; op < 2; op++) {
                    snprintf(name, sizeof name, "rows_path/%s/r%lld/c%lld/%s", glu[op], (long long)rows, (long long)cols,
                             edges ? "edges" : "plain");
                    FOR_PATHS("rows", {
                        if (edges) edge_values(x, total, ri + wi + op); else for (int64_t i = 0; i < total; i++) x[i] = uniform(-12, 12);
                        for (int64_t i = 0; i < total; i++) u[i] = uniform(-2, 2);
                        if (edges) u[total / 2] = 3e38f;
                        (op ? ck_geglu_rows : ck_swiglu_rows)(x, u, rows, cols, 1, path_);
                        record(name, label_, hash_floats(x, (size_t)total));
                    });
                }
                free(x); free(y); free(u); free(w);
            }
}

/// The three KV stores of 1..33 rows through ck_kv_store_rows with each path's table: rows n
/// long (fp16 also lengths that are not multiples of 32 or 8), plain and edge values, stored at
/// shuffled positions; the hash covers the whole cache.
static void kv_store_cases(void) {
    static const char *kv[] = {"f16", "q8_0", "mxfp8_e4m3"};
    static const int64_t lengths[] = {1, 7, 36, 100, 32, 64, 96, 256, 2048}, row_counts[] = {1, 3, 33};
    for (int f = 0; f < 3; f++)
        for (int li = f == 0 ? 0 : 4; li < 9; li++)
            for (int ri = 0; ri < 3; ri++)
                for (int edges = 0; edges < 2; edges++) {
                    const int64_t n = lengths[li], rows = row_counts[ri], rb = ck_kv_row_bytes((ck_kv_format)f, n);
                    float *k = malloc((size_t)(rows * n) * sizeof(float)), *v = malloc((size_t)(rows * n) * sizeof(float));
                    uint8_t *kc = malloc((size_t)(rows * rb)), *vc = malloc((size_t)(rows * rb));
                    int64_t positions[33];
                    for (int64_t r = 0; r < rows; r++) positions[r] = (r * 7 + 2) % rows;   // 7 is prime to 33
                    char name[96];
                    snprintf(name, sizeof name, "kv_path/%s/n%lld/r%lld/%s", kv[f], (long long)n, (long long)rows,
                             edges ? "edges" : "plain");
                    FOR_PATHS("kv", {
                        if (edges) { edge_values(k, rows * n, li + ri); edge_values(v, rows * n, li + ri + 5); }
                        else for (int64_t i = 0; i < rows * n; i++) { k[i] = uniform(-4, 4); v[i] = uniform(-4, 4); }
                        memset(kc, 0xA5, (size_t)(rows * rb));
                        memset(vc, 0x5A, (size_t)(rows * rb));
                        ck_kv_store_rows((ck_kv_format)f, k, v, rows, n, positions, kc, vc, rb, 1, path_);
                        record(name, label_, fnv(hash_bytes(kc, (size_t)(rows * rb)), vc, (size_t)(rows * rb)));
                    });
                    free(k); free(v); free(kc); free(vc);
                }
}

/// Split-K decode (ck_attention_split_k_on, the path's units) over fp16 and MXFP8 caches: head
/// dims 64, 128, 256 (and 40, 72: fp16's 8-dim tails), 1..~1000 visible positions, GQA ratios
/// 1, 2, 3, 4 and 5 (a group of four heads and one), a window, ordinary and peaked (large) scores.
static void split_cases(void) {
    static const char *kv[] = {"f16", "q8_0", "mxfp8_e4m3"};
    static const int64_t positions[] = {1, 2, 5, 17, 33, 64, 65, 130, 255, 256, 511, 777, 1000};
    static const int64_t gqa[][2] = {{4, 4}, {4, 2}, {6, 2}, {8, 2}, {10, 2}, {3, 1}};   // heads, kv heads
    static const int64_t dims[] = {64, 128, 256, 40, 72};
    int c = 0;
    for (int f = 0; f <= 2; f += 2)
        for (int di = 0; di < (f == 0 ? 5 : 3); di++)
            for (int pi = 0; pi < 13; pi++, c++) {
                const int64_t hd = dims[di], npos = positions[pi], heads = gqa[c % 6][0], kv_heads = gqa[c % 6][1];
                const int64_t window = c % 5 == 4 ? npos / 3 + 1 : 0;
                const float q_scale = c % 3 == 2 ? 6.0f : 1.0f;
                const int64_t row_bytes = ck_kv_row_bytes((ck_kv_format)f, kv_heads * hd);
                uint8_t *k = malloc((size_t)(npos * row_bytes)), *v = malloc((size_t)(npos * row_bytes));
                float *kx = make_activations(npos, kv_heads * hd, 0), *vx = make_activations(npos, kv_heads * hd, 0);
                for (int64_t p = 0; p < npos; p++) {
                    ck_kernels(CK_PATH_REF)->kv_store[f](kx + p * kv_heads * hd, k + p * row_bytes, kv_heads * hd);
                    ck_kernels(CK_PATH_REF)->kv_store[f](vx + p * kv_heads * hd, v + p * row_bytes, kv_heads * hd);
                }
                float *q = make_activations(1, heads * hd, 0), *out = malloc((size_t)(heads * hd) * sizeof(float));
                for (int64_t i = 0; i < heads * hd; i++) q[i] *= q_scale;
                const int64_t last = npos - 1, stride = ck_attention_scratch_floats(npos, heads, hd);
                float *scratch = malloc((size_t)stride * sizeof(float));
                const ck_attention_desc d = {q, heads * hd, k, v, row_bytes, (ck_kv_format)f, &last, 1, heads, kv_heads, hd,
                                             window, out, heads * hd, scratch, stride};
                char name[96];
                snprintf(name, sizeof name, "split/%s/hd%lld/pos%lld/h%lldkv%lld/w%lld/q%g", kv[f], (long long)hd,
                         (long long)npos, (long long)heads, (long long)kv_heads, (long long)window, (double)q_scale);
                FOR_PATHS("split", {
                    memset(out, 0, (size_t)(heads * hd) * sizeof(float));
                    if (!ck_attention_split_k_on(&d, 1, path_)) { printf("split-K did not run for %s\n", name); abort(); }
                    record(name, label_, hash_floats(out, (size_t)(heads * hd)));
                });
                free(k); free(v); free(kx); free(vx); free(q); free(out); free(scratch);
            }
}

/// The per-head kernel over an fp16 cache through ck_attention_on (decoded rows under
/// CK_SPLIT_MIN_POSITIONS positions, 1-3 in one call, each run alone): head dims 64, 128, 256, 40,
/// 72 and 36 (not a multiple of 8: split-K instead), 1..255 visible positions (groups of eight and
/// the rest), GQA 1:1 to 5:1, windows, peaked scores.
static void head_cases(void) {
    static const int64_t positions[] = {1, 2, 7, 8, 9, 16, 23, 64, 100, 255};
    static const int64_t gqa[][2] = {{4, 4}, {4, 2}, {6, 2}, {8, 2}, {10, 2}, {3, 1}};
    static const int64_t dims[] = {64, 128, 256, 40, 72, 36};
    int c = 0;
    for (int di = 0; di < 6; di++)
        for (int pi = 0; pi < 10; pi++, c++) {
            const int64_t hd = dims[di], npos = positions[pi], heads = gqa[c % 6][0], kv_heads = gqa[c % 6][1];
            const int64_t rows = 1 + c % 3 < npos ? 1 + c % 3 : npos, window = c % 5 == 4 ? npos / 3 + 1 : 0;
            const float q_scale = c % 3 == 2 ? 6.0f : 1.0f;
            const int64_t row_bytes = ck_kv_row_bytes(CK_KV_F16, kv_heads * hd);
            uint8_t *k = malloc((size_t)(npos * row_bytes)), *v = malloc((size_t)(npos * row_bytes));
            float *kx = make_activations(npos, kv_heads * hd, 0), *vx = make_activations(npos, kv_heads * hd, 0);
            for (int64_t p = 0; p < npos; p++) {
                ck_kv_store_f16_ref(kx + p * kv_heads * hd, k + p * row_bytes, kv_heads * hd);
                ck_kv_store_f16_ref(vx + p * kv_heads * hd, v + p * row_bytes, kv_heads * hd);
            }
            float *q = make_activations(rows, heads * hd, 0), *out = malloc((size_t)(rows * heads * hd) * sizeof(float));
            for (int64_t i = 0; i < rows * heads * hd; i++) q[i] *= q_scale;
            int64_t pos[3];
            for (int64_t r = 0; r < rows; r++) pos[r] = npos - rows + r;
            const int64_t stride = ck_attention_scratch_floats(npos, heads, hd);
            float *scratch = malloc((size_t)stride * sizeof(float));
            const ck_attention_desc d = {q, heads * hd, k, v, row_bytes, CK_KV_F16, pos, rows, heads, kv_heads, hd,
                                         window, out, heads * hd, scratch, stride};
            char name[96];
            snprintf(name, sizeof name, "head/f16/hd%lld/pos%lld/rows%lld/h%lldkv%lld/w%lld/q%g", (long long)hd,
                     (long long)npos, (long long)rows, (long long)heads, (long long)kv_heads, (long long)window, (double)q_scale);
            FOR_PATHS("head", {
                memset(out, 0, (size_t)(rows * heads * hd) * sizeof(float));
                ck_attention_on(&d, 1, path_);
                record(name, label_, hash_floats(out, (size_t)(rows * heads * hd)));
            });
            free(k); free(v); free(kx); free(vx); free(q); free(out); free(scratch);
        }
}

// MARK: - The whole library (kernel table, dispatch, attention)

/// The kernel table on this CPU: x86 paths never supported on aarch64, the best path the fastest
/// supported ARM one, QUANTA_KERNEL_PATH and ck_kernel_path_set lowered to it when the CPU lacks
/// the path, every table named as QUANTA_KERNEL_PATH spells it. One "select" case per check.
static void selection_cases(void) {
    if (golden_mode || !ARM_PATHS) return;
    const int p = path_index("select");
    int best = CK_PATH_REF;
    for (int i = 0; i < ARM_PATHS; i++) if (arm_enabled[i]) best = arm_paths[i].path;
    static const char *names[CK_PATH_COUNT] = {"ref", "avx2", "avx512", "amx", "avx512-emu", "amx-emu", "neon", "dotprod", "i8mm"};
    int ok[6], n = 0;
    for (int x = CK_PATH_AVX2; x <= CK_PATH_AMX_EMU; x++) ok[n++] = !ck_kernel_path_supported(x);
    ok[n++] = ck_best_kernel_path() == (ck_kernel_path)best;
    setenv("QUANTA_KERNEL_PATH", "neon", 1);
    ok[n - 1] &= ck_kernel_path_get() == CK_PATH_NEON;   // the first read takes the environment
    for (int i = 0; i < ARM_PATHS; i++)
        ok[n - 1] &= ck_kernel_path_set(arm_paths[i].path) == (arm_enabled[i] ? (ck_kernel_path)arm_paths[i].path : (ck_kernel_path)best);
    ok[n - 1] &= ck_kernel_path_set(-1) == (ck_kernel_path)best;
    for (int x = 0; x < CK_PATH_COUNT; x++) ok[n - 1] &= !strcmp(ck_kernels((ck_kernel_path)x)->name, names[x]);
    for (int i = 0; i < n; i++) {
        if (ok[i]) { passed[p]++; continue; }
        printf("MISMATCH path selection check %d\n", i);
        failed[p]++;
    }
}

/// Attention through ck_attention on each path this CPU runs (the ARM tables name the reference
/// kernels for now) against the x86 reference's bits: every cache format, decoded rows (split-K
/// and per-head, 1 and 3 at once), prompt rows (the blocked kernel, 1, 3 and 8 at once); GQA, a
/// window, two head dims.
static void attention_cases(void) {
    static const char *kv[] = {"f16", "q8_0", "mxfp8_e4m3"};
    // rows, positions, head dim, prompt rows (the blocked kernel) or decoded ones (split-K or per-head)
    static const int64_t shapes[][4] = {{1, 300, 64, 0}, {1, 40, 128, 0}, {3, 57, 64, 0}, {8, 96, 64, 1}, {8, 33, 128, 1},
                                        {1, 40, 128, 1}, {3, 57, 64, 1}};
    for (int f = 0; f < 3; f++)
        for (int s = 0; s < 7; s++)
            for (int window = 0; window <= 16; window += 16) {
                const int64_t rows = shapes[s][0], npos = shapes[s][1], hd = shapes[s][2], heads = 4, kv_heads = 2;
                const int64_t row_bytes = ck_kv_row_bytes((ck_kv_format)f, kv_heads * hd);
                uint8_t *k = calloc((size_t)(npos * row_bytes), 1), *v = calloc((size_t)(npos * row_bytes), 1);
                float *kx = make_activations(npos, kv_heads * hd, 0), *vx = make_activations(npos, kv_heads * hd, 0);
                for (int64_t p = 0; p < npos; p++) {
                    ck_kernels(CK_PATH_REF)->kv_store[f](kx + p * kv_heads * hd, k + p * row_bytes, kv_heads * hd);
                    ck_kernels(CK_PATH_REF)->kv_store[f](vx + p * kv_heads * hd, v + p * row_bytes, kv_heads * hd);
                }
                float *q = make_activations(rows, heads * hd, 0), *out = malloc((size_t)(rows * heads * hd) * sizeof(float));
                int64_t positions[8];
                for (int64_t r = 0; r < rows; r++) positions[r] = npos - rows + r;
                const int64_t stride = ck_attention_scratch_floats(npos, heads, hd);
                float *scratch = malloc((size_t)stride * sizeof(float));
                const ck_attention_rows kind = shapes[s][3] ? CK_ROWS_PROMPT : CK_ROWS_DECODED;
                const ck_attention_desc d = {q, heads * hd, k, v, row_bytes, (ck_kv_format)f, positions, rows, heads, kv_heads, hd,
                                             window, out, heads * hd, scratch, stride, kind};
                char name[96];
                snprintf(name, sizeof name, "attention/%s/rows%lld%s/pos%lld/hd%lld/w%d", kv[f], (long long)rows,
                         kind == CK_ROWS_PROMPT ? "p" : "", (long long)npos, (long long)hd, window);
                for (int p = -1; p < ARM_PATHS; p++) {
                    if (p >= 0 && !arm_enabled[p]) continue;
                    ck_kernel_path_set(p < 0 ? CK_PATH_REF : arm_paths[p].path);
                    memset(out, 0, (size_t)(rows * heads * hd) * sizeof(float));
                    ck_attention(&d, 1, -1);
                    record(name, p < 0 ? "ref" : arm_paths[p].name, hash_floats(out, (size_t)(rows * heads * hd)));
                }
                ck_kernel_path_set(-1);
                free(k); free(v); free(kx); free(vx); free(q); free(out); free(scratch);
            }
}

static int load_golden(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "kernel_driver: cannot read golden file %s\n", path); return 0; }
    unsigned long long h;
    while (golden_count < MAX_CASES && fscanf(f, "%95s %llx", golden_name[golden_count], &h) == 2)
        golden_hash[golden_count++] = (uint64_t)h;
    fclose(f);
    return golden_count > 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "golden")) {
        golden_mode = 1;
    } else if (argc == 5 && !strcmp(argv[1], "check")) {
        if (!load_golden(argv[2])) return 2;
    } else {
        fprintf(stderr, "usage: kernel_driver golden | check GOLDEN_FILE CPU_LABEL EXPECTED_PATHS (e.g. neon,dotprod)\n");
        return 2;
    }
    for (int p = 0; p < ARM_PATHS; p++) arm_enabled[p] = ck_arm_path_supported(arm_paths[p].path);
    path_index("ref");
    selection_cases();   // first: it checks QUANTA_KERNEL_PATH, which is read at the first path lookup
    matmul_cases();
    quantize_cases();
    row_cases();
    neon_row_cases();
    kv_store_cases();
    split_cases();
    head_cases();
    attention_cases();
    if (golden_mode) return 0;
    // The paths the CPU reports must be exactly the expected ones (a path it lacks is never chosen).
    char found[64] = "";
    for (int p = 0; p < ARM_PATHS; p++)
        if (arm_enabled[p]) snprintf(found + strlen(found), sizeof found - strlen(found), "%s%s", *found ? "," : "", arm_paths[p].name);
    int bad = strcmp(found, argv[4]) != 0;
    printf("cpu %s: paths %s%s%s\n", argv[3], found, bad ? ", expected " : "", bad ? argv[4] : "");
    for (int p = 0; p < npaths; p++) {
        printf("  %-16s %5d cases equal the x86 reference, %d differ\n", path_names[p], passed[p], failed[p]);
        bad |= failed[p] != 0;
    }
    return bad;
}
