// AVX2 prefill matmul (M > 1): the ck_matmul_avx2 path for every integer format when more than
// one activation row is multiplied. Bit-identical to ck_matmul_ref (exact integer dots and the
// same fp32 epilogue in the same order: per block, or for the K-quants per super-block; see
// ck_matmul.h).
//
// Register tile: MT = 4 activation rows x HT = 2 halves (one 16-row group: 16 weight rows), the
// whole K. Per block and quad each weight vector is loaded (and its nibbles unpacked) once and
// feeds 4 rows, and each 4-byte activation broadcast feeds both halves, so one `vpmaddubsw`
// costs about one `vpaddw`, half a broadcast and a quarter of an unpack. i16 partials (8 of
// them) stay in registers for the block; the fp32 accumulators (and the K-quants' int32
// super-block sums) are left to the compiler (they are touched once per block). Q8_0 / MXINT8
// need two nibble partials per output, so they use HT = 1.
//
// Loop nest per call (output rows [n0, n1), all M rows): chunks of halves whose repacked
// weights fit comfortably in L2 (~128 KiB), then 4-row activation tiles (4 x K int8, L1), then
// the chunk's groups. Each weight byte is read from DRAM once per call and from L2 once per
// activation tile. The threaded driver (ck_matmul_avx2_prefill_multi) hands out (chunk, 32-row
// block) units of one or several matrices dynamically, so a thread that is slowed down (the
// machine is shared, the shapes are small) does not leave the other waiting at the join; a
// step of fewer than 8 rows (batched decode) is split by streamed bytes instead, as decode is.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include <stdatomic.h>
#include <stdlib.h>
#include "matmul_avx2_common.h"
#include "matmul_avx2_prefill.h"

/// Value classes in the repacked layout (see matmul_avx2.c for the saturation bounds).
enum {
    P_U4 = 0,   ///< nibbles <= 15 (Q4_0, Q4_1, Q4_K): all 8 quads in one i16 partial
    P_U5 = 1,   ///< bytes <= 31 (Q5_0, Q5_K and MXFP4 expanded from their 4/5-bit layouts): flush every 4 quads
    P_Q6 = 2,   ///< Q6_K expanded to signed bytes |w| <= 32 (against activations + 128): flush every 2 quads, each 16 elements under its own code
    P_S8 = 3,   ///< bytes <= 255 (Q8_0, MXINT8, IQ4_NL and IQ4_XS expanded from their codes): split into two nibble dots
    P_Q3 = 4,   ///< Q3_K expanded from its 3-bit planes to signed bytes |w| <= 4, as P_Q6: flush every 4 quads (its halves)
};

/// Scheduling pin at the end of each quad: the weight and activation pointers pass through an
/// empty asm that also "reads" this quad's partial sums, so clang cannot hoist the next quads'
/// loads and nibble unpacks above this quad's multiplies (it otherwise unpacks a whole block up
/// front and spills). Emits no instruction; only the compiler sees the dependency.
#define PIN(bq, ab, v) __asm__ volatile("" : "+r"(bq), "+r"(ab) : "x"(v))

/// Largest tile (array bounds; the tiles use constant MT <= 4, HT <= 2).
enum { MTX = 4, HTX = 2 };

/// What every tile of one call reads.
typedef struct {
    const uint8_t *qs;    ///< values of groups gbase.. (the repacked array, or an expanded chunk)
    int64_t gbase;
    /// Q6_K, Q3_K (expanded as signed w = u - off): the running 4-row tile's activations plus 128
    /// as u8 ([row][k], so vpmaddubsw takes them as its unsigned operand), and per group of the
    /// chunk and super-block the 16 rows' sum of code * sum(w) (int32), which the super-block's
    /// sum subtracts 128 times.
    const uint8_t *aqu;
    const int32_t *wterm;
    const void *dw, *mw;
    const float *meta;
    const int8_t *aq;
    const int16_t *sums;
    float *y;
    int64_t k, nb, n;
    int accumulate;
    float negoff;
    /// At most one tile's rows (a batched decode step of 2-4 sequences): every weight streams
    /// from memory once, so the tiles prefetch it ahead as decode does.
    int stream;
} pctx;

/// Rows m0..m0+MT-1 x halves h0..h0+HT-1 (h0 even when HT = 2), whole K. nvalid: valid rows
/// of the last half (rows past n are padding and are not stored).
T256 INLINE void ptile(const pctx *c, int64_t m0, int64_t h0, int nvalid, const int KIND, const int NSC,
                       const int HASMIN, const int SC, const int MT, const int HT) {
    const int64_t k = c->k, nb = c->nb, qb = KIND == P_U4 ? 256 : 512;
    const int64_t g = h0 / 2, side = h0 % 2;
    const uint8_t *const qs = c->qs + (g - c->gbase) * nb * qb + 32 * side;
    // Q6_K and Q3_K swap vpmaddubsw's operands: activations + 128 (u8) by signed weights, so
    // their super-block's activation term is a weight constant (see pctx).
    const int SW = KIND == P_Q6 || KIND == P_Q3;
    const int8_t *const aq = SW ? (const int8_t *)c->aqu : c->aq + m0 * k;
    const float *const meta = c->meta + m0 * nb * CK_ACT_META;
    const void *const dws = c->dw, *const mws = c->mw;
    const __m256i ones = _mm256_set1_epi16(1), low4 = _mm256_set1_epi8(0x0F);
    const __m256 vneg = _mm256_set1_ps(c->negoff);
    // K-quants (SC == CK_SC_K): the integer super-block form (ck_matmul.h); ksum = sum of
    // code * dot(u, q) over the super-block so far, each i16 partial multiplied by its rows' codes
    // as it is flushed (vpmaddwd by ck_code_pairs8 where other formats multiply by ones).
    const int KQ = SC == CK_SC_K;
    __m256 acc[MTX][HTX];
    __m256i ksum[MTX][HTX];
    UNROLL for (int r = 0; r < MT; r++)
        UNROLL for (int h = 0; h < HT; h++) { acc[r][h] = _mm256_setzero_ps(); ksum[r][h] = _mm256_setzero_si256(); }

    const int64_t ahead = CK_DECODE_PF_BYTES;   // read once a tile
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *bq = qs + b * qb;
        const int8_t *ab = aq + b * 32;
        if (c->stream) {
            const char *block = (const char *)(bq - 32 * side);
            const int64_t dwb = ck_dw_block_bytes(NSC, SC), mwb = ck_mw_block_bytes(HASMIN, SC);
            UNROLL for (int o = 0; o < qb; o += 64) _mm_prefetch(block + ahead + o, _MM_HINT_T0);
            _mm_prefetch((const char *)dws + (g * nb + b) * dwb + ahead / 8, _MM_HINT_T0);
            if (mwb) _mm_prefetch((const char *)mws + (g * nb + b) * mwb + ahead / 8, _MM_HINT_T0);
        }
        // Per half: the code pairs of the block's first and second 16 elements (the same block
        // code for Q4_K and Q5_K).
        __m256i sc0[HTX], sc1[HTX];
        const uint8_t *rec = KQ ? ck_kscale_record(dws, nb, g, b, NSC) : NULL;
        if (KQ) UNROLL for (int h = 0; h < HT; h++) ck_block_code_pairs8(rec, b, (int)side + h, NSC, &sc0[h], &sc1[h]);
        __m256i dot[MTX][HTX];
        if (KIND == P_U4) {
            __m256i p[MTX][HTX];
            UNROLL for (int r = 0; r < MT; r++)
                UNROLL for (int h = 0; h < HT; h++) p[r][h] = _mm256_setzero_si256();
            UNROLL for (int j = 0; j < 4; j++) {
                __m256i lo[HTX], hi[HTX];
                UNROLL for (int h = 0; h < HT; h++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(bq + 32 * h + 64 * j));
                    lo[h] = _mm256_and_si256(v, low4);
                    hi[h] = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                }
                UNROLL for (int r = 0; r < MT; r++) {
                    const __m256i a0 = ck_bcast4(ab + r * k + 4 * j);
                    UNROLL for (int h = 0; h < HT; h++) p[r][h] = _mm256_add_epi16(p[r][h], _mm256_maddubs_epi16(lo[h], a0));
                    const __m256i a1 = ck_bcast4(ab + r * k + 16 + 4 * j);
                    UNROLL for (int h = 0; h < HT; h++) p[r][h] = _mm256_add_epi16(p[r][h], _mm256_maddubs_epi16(hi[h], a1));
                }
                UNROLL for (int r = 0; r < MT; r++)
                    UNROLL for (int h = 0; h < HT; h++) PIN(bq, ab, p[r][h]);
            }
            UNROLL for (int r = 0; r < MT; r++)
                UNROLL for (int h = 0; h < HT; h++) {
                    if (KQ) ksum[r][h] = _mm256_add_epi32(ksum[r][h], _mm256_madd_epi16(p[r][h], sc0[h]));
                    else dot[r][h] = _mm256_madd_epi16(p[r][h], ones);
                }
        } else if (KIND == P_S8) {
            // u = 16*hi + lo: two nibble dots, each fits one i16 partial over the 8 quads.
            __m256i plo[MTX][HTX], phi[MTX][HTX];
            UNROLL for (int r = 0; r < MT; r++)
                UNROLL for (int h = 0; h < HT; h++) plo[r][h] = phi[r][h] = _mm256_setzero_si256();
            UNROLL for (int j = 0; j < 8; j++) {
                __m256i lo[HTX], hi[HTX];
                UNROLL for (int h = 0; h < HT; h++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(bq + 32 * h + 64 * j));
                    lo[h] = _mm256_and_si256(v, low4);
                    hi[h] = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                }
                UNROLL for (int r = 0; r < MT; r++) {
                    const __m256i av = ck_bcast4(ab + r * k + 4 * j);
                    UNROLL for (int h = 0; h < HT; h++) {
                        plo[r][h] = _mm256_add_epi16(plo[r][h], _mm256_maddubs_epi16(lo[h], av));
                        phi[r][h] = _mm256_add_epi16(phi[r][h], _mm256_maddubs_epi16(hi[h], av));
                    }
                }
                UNROLL for (int r = 0; r < MT; r++)
                    UNROLL for (int h = 0; h < HT; h++) { PIN(bq, ab, plo[r][h]); PIN(bq, ab, phi[r][h]); }
            }
            UNROLL for (int r = 0; r < MT; r++)
                UNROLL for (int h = 0; h < HT; h++)
                    dot[r][h] = _mm256_add_epi32(_mm256_slli_epi32(_mm256_madd_epi16(phi[r][h], ones), 4),
                                                 _mm256_madd_epi16(plo[r][h], ones));
        } else {
            // Bytes: P_U5 and P_Q3 flush the i16 partial every 4 quads, P_Q6 every 2; a K-quant
            // flushes quads 0..3 (elements 0..15) times sc0, quads 4..7 times sc1.
            const int flush = KIND == P_Q6 ? 2 : 4;
            UNROLL for (int r = 0; r < MT; r++)
                UNROLL for (int h = 0; h < HT; h++) dot[r][h] = _mm256_setzero_si256();
            __m256i p[MTX][HTX];
            UNROLL for (int j = 0; j < 8; j++) {
                if (j % flush == 0) {
                    UNROLL for (int r = 0; r < MT; r++)
                        UNROLL for (int h = 0; h < HT; h++) p[r][h] = _mm256_setzero_si256();
                }
                __m256i v[HTX];
                UNROLL for (int h = 0; h < HT; h++) v[h] = _mm256_loadu_si256((const __m256i *)(bq + 32 * h + 64 * j));
                UNROLL for (int r = 0; r < MT; r++) {
                    const __m256i av = ck_bcast4(ab + r * k + 4 * j);
                    UNROLL for (int h = 0; h < HT; h++)
                        p[r][h] = _mm256_add_epi16(p[r][h], SW ? _mm256_maddubs_epi16(av, v[h]) : _mm256_maddubs_epi16(v[h], av));
                }
                if (j % flush == flush - 1) {
                    UNROLL for (int r = 0; r < MT; r++)
                        UNROLL for (int h = 0; h < HT; h++) {
                            if (KQ) ksum[r][h] = _mm256_add_epi32(ksum[r][h], _mm256_madd_epi16(p[r][h], j < 4 ? sc0[h] : sc1[h]));
                            else dot[r][h] = _mm256_add_epi32(dot[r][h], _mm256_madd_epi16(p[r][h], ones));
                        }
                }
                UNROLL for (int r = 0; r < MT; r++)
                    UNROLL for (int h = 0; h < HT; h++) PIN(bq, ab, p[r][h]);
            }
        }
        if (KQ) {
            if (b % 8 == 7) {   // the super-block's activation terms and fp32 steps
                UNROLL for (int h = 0; h < HT; h++) {
                    __m256i pairs[8], wt = _mm256_setzero_si256();
                    // Signed weights (NSC = 2): the chunk's weight term; else (Q4_K, Q5_K: NSC = 1)
                    // the min codes times the activation rows' block sums.
                    if (SW) wt = _mm256_loadu_si256((const __m256i *)(c->wterm + ((g - c->gbase) * (nb / 8) + b / 8) * CK_R + 8 * (side + h)));
                    else ck_kterm_pairs8(rec, (int)side + h, 1, pairs);
                    UNROLL for (int r = 0; r < MT; r++) {
                        const __m256i t = SW ? wt : ck_kterm8(pairs, c->sums + (m0 + r) * nb + b - 7, 1);
                        acc[r][h] = ck_kfold8(acc[r][h], ksum[r][h], t, rec, (int)side + h, _mm256_broadcast_ss(meta + (r * nb + b) * CK_ACT_META), 128, NSC);
                        ksum[r][h] = _mm256_setzero_si256();
                    }
                }
            }
            continue;
        }
        UNROLL for (int h = 0; h < HT; h++) {
            const __m256 d0 = ck_scales8(dws, mws, nb, g, b, (int)side + h, 0, SC);
            const __m256 mw = HASMIN ? ck_scales8(dws, mws, nb, g, b, (int)side + h, 2, SC) : _mm256_mul_ps(d0, vneg);
            UNROLL for (int r = 0; r < MT; r++) {
                const float *mr = meta + (r * nb + b) * CK_ACT_META;
                acc[r][h] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot[r][h]), d0), _mm256_broadcast_ss(mr), acc[r][h]);
                acc[r][h] = _mm256_fmadd_ps(mw, _mm256_broadcast_ss(mr + 1), acc[r][h]);
            }
        }
    }
    UNROLL for (int h = 0; h < HT; h++) {
        const int valid = h == HT - 1 ? nvalid : 8;
        UNROLL for (int r = 0; r < MT; r++) {
            float *out = c->y + (m0 + r) * c->n + (h0 + h) * 8;
            if (valid == 8) {
                __m256 v = acc[r][h];
                if (c->accumulate) v = _mm256_add_ps(_mm256_loadu_ps(out), v);
                _mm256_storeu_ps(out, v);
            } else {
                float tmp[8];
                _mm256_storeu_ps(tmp, acc[r][h]);
                for (int i = 0; i < valid; i++) out[i] = c->accumulate ? out[i] + tmp[i] : tmp[i];
            }
        }
    }
}

typedef void (*ptile_fn)(const pctx *c, int64_t m0, int64_t h0, int nvalid);

/// Q5_0 is stored only in its compact layout (nibbles + bit-sliced fifth bits, see
/// ck_repack_sizes) on AVX2 machines. Unpacking it inside the tile cost ~30 % on Gemma's
/// gate/up, so each L2 chunk is expanded once into the byte layout of the 5-bit tiles, in a
/// per-thread buffer, and that is amortised over the 4-row activation tiles of the units a thread
/// takes from that chunk. The buffer grows on the first call that needs more (libomp's threads
/// persist), so later calls do not allocate.
static _Thread_local uint8_t *expanded;
static _Thread_local size_t expanded_bytes;

static uint8_t *expansion_buffer(size_t bytes) {
    if (bytes <= expanded_bytes) return expanded;
    free(expanded);
    expanded = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    expanded_bytes = expanded ? bytes : 0;
    return expanded;
}

/// Bits 2j..2j+1 of every byte of a Q6_K 2-bit plane moved to bits 4-5, masked (16-bit shifts
/// of at most 4 keep the bits that land there within their byte).
T256 INLINE __m256i top2_bits(__m256i x, const int j) {
    const __m256i b45 = _mm256_set1_epi8(0x30);
    if (j < 2) return _mm256_and_si256(_mm256_slli_epi16(x, 4 - 2 * j), b45);
    if (j > 2) return _mm256_and_si256(_mm256_srli_epi16(x, 2), b45);
    return _mm256_and_si256(x, b45);
}

/// `blocks` consecutive 16-row blocks of Q6_K: nibbles + 2-bit planes (384 bytes each) -> byte
/// layout (512 bytes), per L2 chunk like Q5_0 (above) and for the same reason.
T256 static void expand_q6_K(const uint8_t *packed, uint8_t *bytes, int64_t blocks) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    for (int64_t i = 0; i < blocks; i++, packed += CK_Q6_K_PACKED_BYTES, bytes += 512)
        UNROLL for (int s = 0; s < 2; s++) {
            const __m256i xl = _mm256_loadu_si256((const __m256i *)(packed + 256 + 32 * s));
            const __m256i xh = _mm256_loadu_si256((const __m256i *)(packed + 320 + 32 * s));
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i v = _mm256_loadu_si256((const __m256i *)(packed + 64 * j + 32 * s));
                _mm256_storeu_si256((__m256i *)(bytes + 64 * j + 32 * s), _mm256_or_si256(_mm256_and_si256(v, low4), top2_bits(xl, j)));
                _mm256_storeu_si256((__m256i *)(bytes + 64 * (4 + j) + 32 * s),
                                    _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), low4), top2_bits(xh, j)));
            }
        }
}

/// `blocks` consecutive 16-row blocks of Q3_K: 2-bit and 1-bit planes (192 bytes each) -> byte
/// layout (512 bytes), as Q6_K's.
T256 static void expand_q3_K(const uint8_t *packed, uint8_t *bytes, int64_t blocks) {
    for (int64_t i = 0; i < blocks; i++, packed += CK_Q3_K_PACKED_BYTES, bytes += 512)
        UNROLL for (int s = 0; s < 2; s++) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(packed + 128 + 32 * s));
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i v2 = _mm256_loadu_si256((const __m256i *)(packed + 64 * (j / 2) + 32 * s));
                _mm256_storeu_si256((__m256i *)(bytes + 64 * j + 32 * s), ck_q3_values(v2, x, j, 0));
                _mm256_storeu_si256((__m256i *)(bytes + 64 * (4 + j) + 32 * s), ck_q3_values(v2, x, j, 1));
            }
        }
}

/// A chunk of Q6_K's or Q3_K's expanded groups [g0, g0 + groups) turned into signed values
/// w = u - off in place, and per group and super-block the 16 rows' sum of code * sum(w) over its
/// 16-element halves into wterm ([group][super-block][16] int32): vpmaddubsw of u8 activations
/// (q + 128) by w gives dot(w, q) + 128 * sum(w), so the super-block's integer sum is off by 128
/// times this weight constant, not by a term of every activation row.
T256 static void signed_weights(uint8_t *bytes, const void *dw, int64_t g0, int64_t groups, int64_t nb, int off, int32_t *wterm) {
    const __m256i voff = _mm256_set1_epi8((char)off), ones = _mm256_set1_epi8(1);
    for (int64_t g = 0; g < groups; g++)
        for (int64_t sb = 0; sb < nb / 8; sb++) {
            const uint8_t *rec = ck_kscale_record(dw, nb, g0 + g, sb * 8, 2);
            __m256i t[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            for (int j = 0; j < 8; j++) {
                uint8_t *blk = bytes + ((g * nb) + sb * 8 + j) * 512;
                UNROLL for (int h = 0; h < 2; h++) {
                    __m256i half[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};   // sum(w) pairs of elements 0..15, 16..31
                    UNROLL for (int quad = 0; quad < 8; quad++) {
                        __m256i *at = (__m256i *)(blk + 64 * quad + 32 * h);
                        const __m256i w = _mm256_sub_epi8(_mm256_loadu_si256(at), voff);
                        _mm256_storeu_si256(at, w);
                        half[quad / 4] = _mm256_add_epi16(half[quad / 4], _mm256_maddubs_epi16(ones, w));
                    }
                    UNROLL for (int x = 0; x < 2; x++)
                        t[h] = _mm256_add_epi32(t[h], _mm256_madd_epi16(half[x], ck_code_pairs8(rec + ck_kscale_codes(j, x, 2) + 8 * h, 1)));
                }
            }
            UNROLL for (int h = 0; h < 2; h++) _mm256_storeu_si256((__m256i *)(wterm + (g * (nb / 8) + sb) * CK_R + 8 * h), t[h]);
        }
}

/// `blocks` consecutive 16-row blocks of a code4 format (MXFP4, IQ4_NL, IQ4_XS): 4-bit codes (256 bytes
/// each) -> their u through `table` (ck_code4_u; vpshufb, within 128-bit lanes) in the byte
/// layout (512 bytes).
T256 static void expand_codes4(const uint8_t *codes, const uint8_t *table, uint8_t *bytes, int64_t blocks) {
    const __m256i low4 = _mm256_set1_epi8(0x0F), code_u = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
    for (int64_t i = 0; i < blocks; i++, codes += 256, bytes += 512)
        UNROLL for (int x = 0; x < 8; x++) {   // quad x / 2, rows 8 (x % 2)..
            const __m256i v = _mm256_loadu_si256((const __m256i *)(codes + 32 * x));
            _mm256_storeu_si256((__m256i *)(bytes + 32 * x), _mm256_shuffle_epi8(code_u, _mm256_and_si256(v, low4)));
            _mm256_storeu_si256((__m256i *)(bytes + 256 + 32 * x),
                                _mm256_shuffle_epi8(code_u, _mm256_and_si256(_mm256_srli_epi16(v, 4), low4)));
        }
}

/// `blocks` consecutive 16-row blocks: compact (320 bytes each) -> byte layout (512 bytes).
T256 static void expand_q5_0(const uint8_t *compact, uint8_t *bytes, int64_t blocks) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    for (int64_t i = 0; i < blocks; i++, compact += CK_Q5_0_COMPACT_BYTES, bytes += 512)
        UNROLL for (int s = 0; s < 2; s++) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(compact + 256 + 32 * s));
            UNROLL for (int j = 0; j < 4; j++) {
                const __m256i v = _mm256_loadu_si256((const __m256i *)(compact + 64 * j + 32 * s));
                _mm256_storeu_si256((__m256i *)(bytes + 64 * j + 32 * s),
                                    _mm256_or_si256(_mm256_and_si256(v, low4), ck_fifth_bits(x, j)));
                _mm256_storeu_si256((__m256i *)(bytes + 64 * (4 + j) + 32 * s),
                                    _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), low4), ck_fifth_bits(x, 4 + j)));
            }
        }
}

#define PTILE(NAME, KIND, NSC, HASMIN, SC, MT, HT)                                                   \
    T256 static void NAME(const pctx *c, int64_t m0, int64_t h0, int nvalid) {                       \
        ptile(c, m0, h0, nvalid, KIND, NSC, HASMIN, SC, MT, HT);                                     \
    }
/// Per format: [rows - 1][halves - 1]; HT2 = 2 for the formats whose tile takes a whole group.
#define PTILES(P, KIND, NSC, HASMIN, SC, HT2)                                                        \
    PTILE(P##_4a, KIND, NSC, HASMIN, SC, 4, HT2) PTILE(P##_4b, KIND, NSC, HASMIN, SC, 4, 1)          \
    PTILE(P##_3a, KIND, NSC, HASMIN, SC, 3, HT2) PTILE(P##_3b, KIND, NSC, HASMIN, SC, 3, 1)          \
    PTILE(P##_2a, KIND, NSC, HASMIN, SC, 2, HT2) PTILE(P##_2b, KIND, NSC, HASMIN, SC, 2, 1)          \
    PTILE(P##_1a, KIND, NSC, HASMIN, SC, 1, HT2) PTILE(P##_1b, KIND, NSC, HASMIN, SC, 1, 1)          \
    static const ptile_fn P[4][2] = {{P##_1b, P##_1a}, {P##_2b, P##_2a}, {P##_3b, P##_3a}, {P##_4b, P##_4a}}; \
    enum { P##_ht = HT2 };

PTILES(p_q4_0, P_U4, 1, 0, CK_SC_F16, 2)
PTILES(p_q4_1, P_U4, 1, 1, CK_SC_F16, 2)
PTILES(p_q4_K, P_U4, 1, 1, CK_SC_K, 2)
PTILES(p_q5_0, P_U5, 1, 0, CK_SC_F16, 2)
PTILES(p_q5_1, P_U5, 1, 1, CK_SC_F16, 2)
PTILES(p_q5_K, P_U5, 1, 1, CK_SC_K, 2)
PTILES(p_mxfp4, P_U5, 1, 0, CK_SC_E8, 2)
PTILES(p_q6_K, P_Q6, 2, 0, CK_SC_K, 2)
PTILES(p_q3_K, P_Q3, 2, 0, CK_SC_K, 2)   // expanded from its 3-bit planes
PTILES(p_q8_0, P_S8, 1, 0, CK_SC_F16, 1)
PTILES(p_iq4_nl, P_S8, 1, 0, CK_SC_F16, 1)   // expanded to its u bytes (<= 241), as Q8_0's
PTILES(p_iq4_xs, P_S8, 1, 0, CK_SC_F32, 1)
PTILES(p_mxint8, P_S8, 1, 0, CK_SC_E8I, 1)

/// Bytes one 16-row block of a format the tiles read expanded occupies as stored (Q5_0, Q5_1 and
/// Q5_K compact, Q6_K and Q3_K packed, the 4-bit code formats' nibbles), which each L2 chunk
/// is expanded from into 512 value bytes a block; 0 for formats the tiles read as repacked.
static int64_t stored_block_bytes(ck_weight_format f, const ck_format_info *info) {
    if (f == CK_WF_Q5_0 || f == CK_WF_Q5_1 || f == CK_WF_Q5_K) return CK_Q5_0_COMPACT_BYTES;
    if (f == CK_WF_Q6_K) return CK_Q6_K_PACKED_BYTES;
    if (f == CK_WF_Q3_K) return CK_Q3_K_PACKED_BYTES;
    return info->code4 ? 256 : 0;
}

/// Halves per L2 chunk: about 128 KiB of repacked weights and scales (of their expansion for
/// the expanded formats).
static int64_t chunk_halves(ck_weight_format f, const ck_format_info *info, int64_t k) {
    const int64_t stored = stored_block_bytes(f, info), expansion = stored > 0 ? 512 - stored : 0;
    const int64_t bytes = (k / 32) * (info->repacked_block_bytes + expansion) / 2;
    const int64_t c = ((128 * 1024) / (bytes > 0 ? bytes : 1)) & ~(int64_t)1;
    return c < 2 ? 2 : c;
}

/// One call's tile table, context and column geometry.
typedef struct {
    const ptile_fn (*t)[2];
    int ht;
    pctx c;
    const ck_matmul_desc *d;
    const ck_weights *w;
    const ck_act *a;
    int64_t call;    ///< unique per call: a thread's expanded Q5_0 chunk is reused within one call only
    int64_t h1;      ///< halves of the whole matrix (last one partly valid)
    int lastvalid;
    int64_t ch;      ///< halves per L2 chunk
    int64_t m;
    const uint8_t *code_u;   ///< a code4 format's u table (ck_code4_u), else NULL
    int expanded;            ///< whether the tiles read an expanded copy (stored_block_bytes > 0)
    int signed_weights;      ///< Q6_K, Q3_K: expanded as w = u - off against activations + 128 (pctx)
} pcall;

/// The calling thread's buffer for one 4-row tile's u8 activations (MTX x k bytes), NULL when
/// it cannot be allocated. A tile at a time stays in L1 while the tile runs over its chunk: a
/// copy of the whole batch was 4 MiB more peak memory at 512 x 8192, and a work unit's 32 rows
/// at a time pushed the chunk out of L2 (Q6_K's tile ran 5 % slower).
static uint8_t *tile_u8_buffer(int64_t k) {
    static _Thread_local uint8_t *buf;
    static _Thread_local size_t cap;
    const size_t bytes = (size_t)(MTX * k);
    if (bytes > cap) {
        free(buf);
        buf = aligned_alloc(64, bytes);   // k is a multiple of 256
        cap = buf ? bytes : 0;
    }
    return buf;
}

/// Rows [m0, m0 + rows) of a->q plus 128 as u8 into out, for the signed-weight tiles.
T256 static void activations_plus_128(const ck_act *a, int64_t m0, int rows, uint8_t *out) {
    const __m256i top = _mm256_set1_epi8((char)0x80);
    for (size_t i = 0; i < (size_t)(rows * a->k); i += 32)
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(a->q + m0 * a->k + i)), top));
}

/// Q6_K and Q3_K run the signed-weight tiles (pctx.aqu).
static int signed_weight_format(ck_weight_format f) { return f == CK_WF_Q6_K || f == CK_WF_Q3_K; }

static pcall prepare(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y) {
    const ck_format_info info = ck_weight_format_info(w->format);
    pcall p;
    switch (w->format) {
    case CK_WF_Q4_0: p.t = p_q4_0; p.ht = p_q4_0_ht; break;
    case CK_WF_Q4_1: p.t = p_q4_1; p.ht = p_q4_1_ht; break;
    case CK_WF_Q4_K: p.t = p_q4_K; p.ht = p_q4_K_ht; break;
    case CK_WF_Q5_0: p.t = p_q5_0; p.ht = p_q5_0_ht; break;
    case CK_WF_Q5_1: p.t = p_q5_1; p.ht = p_q5_1_ht; break;
    case CK_WF_Q5_K: p.t = p_q5_K; p.ht = p_q5_K_ht; break;
    case CK_WF_MXFP4: p.t = p_mxfp4; p.ht = p_mxfp4_ht; break;
    case CK_WF_Q6_K: p.t = p_q6_K; p.ht = p_q6_K_ht; break;
    case CK_WF_Q3_K: p.t = p_q3_K; p.ht = p_q3_K_ht; break;
    case CK_WF_Q8_0: p.t = p_q8_0; p.ht = p_q8_0_ht; break;
    case CK_WF_IQ4_NL: p.t = p_iq4_nl; p.ht = p_iq4_nl_ht; break;
    case CK_WF_IQ4_XS: p.t = p_iq4_xs; p.ht = p_iq4_xs_ht; break;
    default: p.t = p_mxint8; p.ht = p_mxint8_ht; break;
    }
    p.c = (pctx){.qs = w->qs, .dw = w->dw, .mw = w->mw, .meta = a->meta, .aq = a->q, .sums = a->sums, .y = y, .k = d->k,
                 .nb = d->k / 32, .n = d->n, .accumulate = d->accumulate, .negoff = (float)(-info.off), .stream = d->m <= MTX};
    p.signed_weights = signed_weight_format(w->format);
    p.d = d;
    p.w = w;
    p.a = a;
    p.code_u = info.code4 ? ck_code4_u(w->format) : NULL;
    static _Atomic int64_t calls;
    p.call = atomic_fetch_add(&calls, 1);
    p.h1 = (d->n + 7) / 8;
    p.lastvalid = (int)(d->n - (p.h1 - 1) * 8);
    p.ch = chunk_halves(w->format, &info, d->k);
    p.expanded = stored_block_bytes(w->format, &info) > 0;
    p.m = d->m;
    return p;
}

/// Bytes of the byte-layout copy of halves [c0, c1) (whole groups: c0 / 2 to (c1 + 1) / 2); Q6_K's
/// and Q3_K's weight terms follow them.
static size_t expanded_values_bytes(int64_t c0, int64_t c1, int64_t nb) { return (size_t)((c1 + 1) / 2 - c0 / 2) * (size_t)nb * 512; }

/// The calling thread's byte-layout copy of an expanded format's chunk of halves [c0, c1) (c0 even; Q6_K and
/// Q3_K signed, followed by their weight terms: signed_weights), made
/// unless this thread expanded that chunk last, in this call (threads take consecutive units,
/// which mostly share a chunk; another call may have other weights at the same address); NULL
/// when the buffer cannot be allocated.
static const uint8_t *expanded_chunk(const pcall *p, int64_t c0, int64_t c1) {
    static _Thread_local int64_t last_call = -1, last_c0 = -1, last_c1 = -1;
    const int64_t g0 = c0 / 2, g1 = (c1 + 1) / 2, nb = p->c.nb;
    const size_t bytes = expanded_values_bytes(c0, c1, nb), terms = p->signed_weights ? (size_t)(g1 - g0) * (size_t)nb / 8 * CK_R * 4 : 0;
    uint8_t *buf = expansion_buffer(bytes + terms);
    if (!buf) return NULL;
    if (last_call != p->call || last_c0 != c0 || last_c1 != c1) {
        if (p->w->format == CK_WF_Q6_K) expand_q6_K(p->w->qs + g0 * nb * CK_Q6_K_PACKED_BYTES, buf, (g1 - g0) * nb);
        else if (p->w->format == CK_WF_Q3_K) expand_q3_K(p->w->qs + g0 * nb * CK_Q3_K_PACKED_BYTES, buf, (g1 - g0) * nb);
        else if (p->code_u) expand_codes4(p->w->qs + g0 * nb * 256, p->code_u, buf, (g1 - g0) * nb);
        else expand_q5_0(p->w->qs_dec + g0 * nb * CK_Q5_0_COMPACT_BYTES, buf, (g1 - g0) * nb);
        if (p->signed_weights) signed_weights(buf, p->w->dw, g0, g1 - g0, nb, -(int)p->c.negoff, (int32_t *)(buf + bytes));
        last_call = p->call;
        last_c0 = c0;
        last_c1 = c1;
    }
    return buf;
}

/// Halves [c0, c1) (one L2 chunk at most) x activation rows [m0, m1): 4-row tiles, then the halves.
static void run_block(const pcall *p, int64_t c0, int64_t c1, int64_t m0, int64_t m1) {
    pctx c = p->c;
    uint8_t *u8 = p->signed_weights ? tile_u8_buffer(c.k) : NULL;
    if (p->expanded) {
        const uint8_t *bytes = expanded_chunk(p, c0, c1);
        if (!bytes || (p->signed_weights && !u8)) {   // out of memory for the copies: the reference kernel, slow but right
            const ck_matmul_desc d = {m1 - m0, p->d->n, p->d->k, p->d->accumulate};
            const ck_act a = ck_act_rows(p->a, m0, m1);
            ck_matmul_ref(&d, p->w, &a, c.y + m0 * c.n, c0 * 8, c1 * 8);
            return;
        }
        c.qs = bytes;
        c.gbase = c0 / 2;
        c.wterm = (const int32_t *)(bytes + expanded_values_bytes(c0, c1, c.nb));
    }
    for (int64_t m = m0; m < m1; m += MTX) {
        const int mt = m1 - m < MTX ? (int)(m1 - m) : MTX;
        if (u8) {
            activations_plus_128(p->a, m, mt, u8);
            c.aqu = u8;
        }
        int64_t h = c0;
        if (p->ht == 2)
            for (; h + 2 <= c1; h += 2) p->t[mt - 1][1](&c, m, h, h + 2 == p->h1 ? p->lastvalid : 8);
        for (; h < c1; h++) p->t[mt - 1][0](&c, m, h, h + 1 == p->h1 ? p->lastvalid : 8);
    }
}

void ck_matmul_avx2_prefill(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const pcall p = prepare(d, w, a, y);
    if (n1 > d->n) n1 = d->n;
    const int64_t h0 = n0 / 8, h1 = (n1 + 7) / 8;
    for (int64_t c0 = h0; c0 < h1; c0 += p.ch) run_block(&p, c0, c0 + p.ch < h1 ? c0 + p.ch : h1, 0, d->m);
}

// MARK: - Threaded driver

/// Activation rows per work unit: 8 tiles of 4 rows, so a 512-row batch gives 16 units per L2
/// chunk of weights (fine enough that the last unit leaves little imbalance).
enum { UNIT_ROWS = 32 };
/// Matrices one call can take (Q/K/V is the most we pass).
enum { MAX_MULTI = 4 };

typedef struct {
    pcall p[MAX_MULTI];
    int64_t first[MAX_MULTI + 1];   ///< first unit of each matrix; first[count] = total
    int64_t row_blocks;
    int count;
} multi_job;

/// Units in order matrix, chunk, row block: threads that take consecutive units share a chunk's
/// weights in L3 (each pulls it into its own L2 once per unit it takes from that chunk).
static void multi_unit(void *ctx, int64_t u, int t) {
    (void)t;
    const multi_job *j = ctx;
    int i = 0;
    while (u >= j->first[i + 1]) i++;
    const pcall *p = &j->p[i];
    const int64_t local = u - j->first[i], chunk = local / j->row_blocks, rb = local % j->row_blocks;
    const int64_t c0 = chunk * p->ch, c1 = c0 + p->ch < p->h1 ? c0 + p->ch : p->h1;
    const int64_t m0 = rb * UNIT_ROWS, m1 = m0 + UNIT_ROWS < p->m ? m0 + UNIT_ROWS : p->m;
    run_block(p, c0, c1, m0, m1);
}

void ck_matmul_avx2_prefill_multi(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *const *y,
                                  int count, int nthreads, int64_t min_parallel_macs) {
    // Fewer rows than two 4-row tiles (a batched decode step): one contiguous byte-balanced share
    // of the matrices per thread, as decode splits them (prefill_units.c says why).
    if (d[0].m < 8) {
        ck_matmul_split_by_bytes(d, w, a, y, count, nthreads, ck_matmul_avx2_prefill);
        return;
    }
    for (int i0 = 0; i0 < count; i0 += MAX_MULTI) {
        multi_job j;
        j.count = count - i0 < MAX_MULTI ? count - i0 : MAX_MULTI;
        j.row_blocks = (d[i0].m + UNIT_ROWS - 1) / UNIT_ROWS;
        j.first[0] = 0;
        int64_t macs = 0;
        for (int i = 0; i < j.count; i++) {
            j.p[i] = prepare(&d[i0 + i], &w[i0 + i], a, y[i0 + i]);
            j.first[i + 1] = j.first[i] + (j.p[i].h1 + j.p[i].ch - 1) / j.p[i].ch * j.row_blocks;
            macs += d[i0 + i].m * d[i0 + i].n * d[i0 + i].k;
        }
        ck_parallel_units(multi_unit, &j, j.first[j.count], macs < min_parallel_macs ? 1 : nthreads);
    }
}
#endif
