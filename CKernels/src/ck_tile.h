// A thin layer over the AMX tile instructions the AMX-INT8 kernel uses, in two implementations:
// the intrinsics (tileloadd, tdpbsud, tilestored, ...) and, under CK_AMX_EMULATED, portable C
// that computes exactly what the instructions are defined to compute (Intel SDM), on a
// per-thread array of eight tiles. The kernel (matmul_amx.c) is written once over this layer and
// compiled for both, so its correctness is tested on any CPU.
//
// A tile is up to 16 rows x 64 bytes; its shape comes from the configuration (rows, bytes per
// row). Tile numbers must be constants (the instructions encode them).
#ifndef CK_TILE_H
#define CK_TILE_H

#include <stdint.h>
#include <string.h>

/// ldtilecfg's 64-byte operand (palette 1): per tile its bytes per row and rows.
typedef struct __attribute__((packed, aligned(64))) {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} ck_tile_config;
_Static_assert(sizeof(ck_tile_config) == 64, "ldtilecfg operand is 64 bytes");

/// 1 when the CPU has AMX-TILE and AMX-INT8 and the kernel granted this process the tile data
/// state (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), requested once per process).
int ck_amx_available(void);

#ifdef CK_AMX_EMULATED

typedef struct {
    int rows, colsb;
    uint8_t b[16][64];
} ck_emu_tile;
/// The eight tile registers of the calling thread (only the emulated kernel's unit uses them).
static _Thread_local ck_emu_tile ck_emu_tiles[8];

static inline void tile_config(const ck_tile_config *c) {
    for (int t = 0; t < 8; t++) {
        ck_emu_tiles[t].rows = c->rows[t];
        ck_emu_tiles[t].colsb = c->colsb[t];
        memset(ck_emu_tiles[t].b, 0, sizeof ck_emu_tiles[t].b);
    }
}
static inline void tile_release(void) {
    for (int t = 0; t < 8; t++) ck_emu_tiles[t].rows = ck_emu_tiles[t].colsb = 0;
}
/// tileloadd: row r of tile t <- colsb bytes at p + r * stride.
static inline void tile_load(int t, const void *p, int64_t stride) {
    ck_emu_tile *x = &ck_emu_tiles[t];
    for (int r = 0; r < x->rows; r++) memcpy(x->b[r], (const uint8_t *)p + r * stride, (size_t)x->colsb);
}
/// tilestored: colsb bytes of row r of tile t -> p + r * stride.
static inline void tile_store(int t, void *p, int64_t stride) {
    const ck_emu_tile *x = &ck_emu_tiles[t];
    for (int r = 0; r < x->rows; r++) memcpy((uint8_t *)p + r * stride, x->b[r], (size_t)x->colsb);
}
static inline void tile_zero(int t) { memset(ck_emu_tiles[t].b, 0, sizeof ck_emu_tiles[t].b); }
/// tdpbsud: C[m][n] += sum over k < colsb(A)/4 and i < 4 of (int8) A[m][4k+i] * (uint8) B[k][4n+i],
/// C's int32 lanes n < colsb(C)/4, wrapping.
static inline void tile_dp(int c, int a, int b) {
    ck_emu_tile *C = &ck_emu_tiles[c];
    const ck_emu_tile *A = &ck_emu_tiles[a], *B = &ck_emu_tiles[b];
    for (int m = 0; m < C->rows; m++)
        for (int n = 0; n < C->colsb / 4; n++) {
            int32_t v;
            memcpy(&v, &C->b[m][4 * n], 4);
            uint32_t acc = (uint32_t)v;
            for (int k = 0; k < A->colsb / 4; k++)
                for (int i = 0; i < 4; i++)
                    acc += (uint32_t)((int32_t)(int8_t)A->b[m][4 * k + i] * (int32_t)B->b[k][4 * n + i]);
            v = (int32_t)acc;
            memcpy(&C->b[m][4 * n], &v, 4);
        }
}

#elif defined(__x86_64__)

#include <immintrin.h>
#define tile_config(c) _tile_loadconfig(c)
#define tile_release() _tile_release()
#define tile_load(t, p, stride) _tile_loadd(t, p, stride)
#define tile_store(t, p, stride) _tile_stored(t, p, stride)
#define tile_zero(t) _tile_zero(t)
#define tile_dp(c, a, b) _tile_dpbsud(c, a, b)

#endif
#endif
