// Row-parallel drivers of the row-wise ops (ck_ops.h) for a batch of rows (prefill): the rows
// are handed out in blocks of 16 to the threads by ck_parallel_units and every row goes through
// the single-row op unchanged, so the results equal a loop over the rows on one thread.
// Without this the 512 rows of a prefill batch were normalised / rotated / gated on one thread
// while the other waited for the next matmul (~15 % of a Gemma 3 pp512 at 2 threads).
#pragma STDC FP_CONTRACT OFF
#include "ck_ops.h"
#include "ck_matmul.h"

/// Below this many elements a batch runs on the calling thread: a fork/join costs a few
/// microseconds, about what one thread needs for ~16 K elements of the cheapest op here.
/// Decode's single row never opens a parallel region.
#define CK_ROWS_MIN_PARALLEL (16 * 1024)

typedef enum { OP_RMS_NORM, OP_ROPE_ANGLES, OP_ROPE_APPLY, OP_SWIGLU, OP_GEGLU, OP_ADD, OP_SCALE, OP_KV_STORE } op_kind;

/// One batched op: rows [0, rows) of [rows][cols] matrices (rows `cols` floats apart).
typedef struct {
    op_kind kind;
    const ck_path_kernels *k;   ///< the active path's kernels, resolved once per batch
    float *y;            ///< output / in-place operand (rms norm: output; add: y; glu: gate)
    const float *x;      ///< rms norm: input; add: addend; glu: up
    const float *w;      ///< rms norm weight [width]; rope apply: angles [rows][2 * (n_rot / 2)]
    const int64_t *pos;  ///< rope angles, KV store: position of each row
    const float *v;      ///< KV store: values (x holds the keys)
    uint8_t *kdst, *vdst; int64_t row_bytes; ck_kv_format format;   ///< KV store: cache rows
    int64_t rows, cols, width, heads, head_dim, n_rot;
    float eps, s, base;
    int neox;
} rows_job;

static void run_rows(const rows_job *j, int64_t r0, int64_t r1) {
    if (j->kind == OP_RMS_NORM) {   // rows [r0, r1) as one run of width-long vectors (contiguous)
        const int64_t per_row = j->cols / j->width, v0 = r0 * per_row;
        j->k->rms_norm_vectors(j->x + v0 * j->width, j->w, j->y + v0 * j->width, (r1 - r0) * per_row, j->width, j->eps);
        return;
    }
    const int64_t c = j->cols;
    for (int64_t r = r0; r < r1; r++) {
        float *y = j->y ? j->y + r * c : NULL;
        const float *x = j->x ? j->x + r * c : NULL;
        switch (j->kind) {
        case OP_RMS_NORM:   // whole range at once below
            break;
        case OP_ROPE_ANGLES: ck_rope_angles(j->pos[r], j->n_rot, j->base, y, y + j->n_rot / 2); break;
        case OP_ROPE_APPLY: {
            const float *a = j->w + r * (j->n_rot / 2 * 2);
            ck_rope_apply(y, j->heads, j->head_dim, j->n_rot, a, a + j->n_rot / 2, j->neox);
            break;
        }
        case OP_SWIGLU: j->k->swiglu(y, x, c); break;
        case OP_GEGLU: j->k->geglu(y, x, c); break;
        case OP_ADD: ck_add(y, x, c); break;
        case OP_SCALE: ck_scale(y, j->s, c); break;
        case OP_KV_STORE:
            j->k->kv_store[j->format](x, j->kdst + j->pos[r] * j->row_bytes, c);
            j->k->kv_store[j->format](j->v + r * c, j->vdst + j->pos[r] * j->row_bytes, c);
            break;
        }
    }
}

/// Rows per unit of work: threads take blocks of 16 rows from a shared counter, so a thread that
/// the OS delays (the machine is shared) does not hold the other at the join with half the rows.
#define CK_ROWS_BLOCK 16

/// Rows [16u, 16u + 16) of the job.
static void rows_unit(void *ctx, int64_t u, int t) {
    (void)t;
    const rows_job *j = ctx;
    const int64_t r0 = u * CK_ROWS_BLOCK;
    run_rows(j, r0, r0 + CK_ROWS_BLOCK < j->rows ? r0 + CK_ROWS_BLOCK : j->rows);
}

/// Runs the job with the kernels of `path` (a ck_kernel_path; < 0: the active one).
static void run(rows_job *j, int nthreads, int path) {
    j->k = ck_kernels_for_path(path);
    if (nthreads <= 1 || j->rows * j->cols < CK_ROWS_MIN_PARALLEL) { run_rows(j, 0, j->rows); return; }
    ck_parallel_units(rows_unit, (void *)j, (j->rows + CK_ROWS_BLOCK - 1) / CK_ROWS_BLOCK, nthreads);
}

void ck_rms_norm_rows(const float *x, float *y, int64_t rows, int64_t cols, const float *w, int64_t width, float eps,
                      int nthreads, int path) {
    rows_job j = {.kind = OP_RMS_NORM, .y = y, .x = x, .w = w, .rows = rows, .cols = cols, .width = width, .eps = eps};
    run(&j, nthreads, path);
}

void ck_rope_angles_rows(float *angles, int64_t rows, const int64_t *positions, int64_t n_rot, float base, int nthreads) {
    rows_job j = {.kind = OP_ROPE_ANGLES, .y = angles, .pos = positions, .rows = rows, .cols = n_rot / 2 * 2,
                        .n_rot = n_rot, .base = base};
    run(&j, nthreads, -1);
}

void ck_rope_rows_angles(float *x, int64_t rows, const float *angles, int64_t heads, int64_t head_dim, int64_t n_rot,
                         int neox, int nthreads) {
    rows_job j = {.kind = OP_ROPE_APPLY, .y = x, .w = angles, .rows = rows, .cols = heads * head_dim,
                        .heads = heads, .head_dim = head_dim, .n_rot = n_rot, .neox = neox};
    run(&j, nthreads, -1);
}

void ck_swiglu_rows(float *gate, const float *up, int64_t rows, int64_t cols, int nthreads, int path) {
    rows_job j = {.kind = OP_SWIGLU, .y = gate, .x = up, .rows = rows, .cols = cols};
    run(&j, nthreads, path);
}

void ck_geglu_rows(float *gate, const float *up, int64_t rows, int64_t cols, int nthreads, int path) {
    rows_job j = {.kind = OP_GEGLU, .y = gate, .x = up, .rows = rows, .cols = cols};
    run(&j, nthreads, path);
}

void ck_add_rows(float *y, const float *x, int64_t rows, int64_t cols, int nthreads) {
    rows_job j = {.kind = OP_ADD, .y = y, .x = x, .rows = rows, .cols = cols};
    run(&j, nthreads, -1);
}

void ck_scale_rows(float *x, float s, int64_t rows, int64_t cols, int nthreads) {
    rows_job j = {.kind = OP_SCALE, .y = x, .rows = rows, .cols = cols, .s = s};
    run(&j, nthreads, -1);
}

void ck_kv_store_rows(ck_kv_format format, const float *k, const float *v, int64_t rows, int64_t n,
                      const int64_t *positions, uint8_t *k_cache, uint8_t *v_cache, int64_t row_bytes, int nthreads,
                      int path) {
    rows_job j = {.kind = OP_KV_STORE, .x = k, .v = v, .pos = positions, .rows = rows, .cols = n,
                        .kdst = k_cache, .vdst = v_cache, .row_bytes = row_bytes, .format = format};
    run(&j, nthreads, path);
}
