/* sell_simd.h: what the AVX2 and AVX-512 SELL slice bodies share (x86, GCC and clang): how a
 * slice's row groups load x, the slot prefetches, and the AVX-512 slices' entries. */
#ifndef MIX_SELL_SIMD_H
#define MIX_SELL_SIMD_H

#include <immintrin.h>
#include "kernels/cpu/sparse_cpu_impl.h"

/* How a group of rows of a slice loads x (`contig` variants): per slot row a gather or, where its
 * mask says the group shares one offset, one vector load (SLOT_MIXED, a test per slot); or the
 * same for every slot row (SLOT_COL: the offset from col, no test); or every slot row contiguous
 * over all 32 rows (SLOT_SOFF: the offsets from soff, col never read). */
enum { SLOT_GATHER, SLOT_MIXED, SLOT_COL, SLOT_SOFF };
/* The AND and the OR of the mask bytes of the slot rows [base, end): a slice's modes for all its
 * row groups from one scan (the AVX2 body scanned once per group, ~8% of its instructions). */
static inline unsigned slot_masks(const mixk_sell *A, int64_t base, int64_t end)
{
    unsigned all = 0xffu, any = 0u;
    for (int64_t r = base / MIXK_SELL_C; r < end / MIXK_SELL_C; r++) {
        all &= A->smask[r];
        any |= A->smask[r];
    }
    return all | any << 8;
}
static inline int slot_mode_of(unsigned masks, unsigned bit)
{
    const unsigned all = masks & 0xffu, any = masks >> 8;
    return all & MIXK_SELL_G32 ? SLOT_SOFF : all & bit ? SLOT_COL : any & bit ? SLOT_MIXED : SLOT_GATHER;
}

/* The slot row pf rows ahead of slot k: its values and (col) offsets into L1.  Addresses past
 * the arrays' ends do not fault (computed as integers: no out-of-bounds pointer arithmetic). */
static MIXI_INLINE void sell_prefetch(mix_prec P, const mixk_sell *A, int64_t k, int pf, int col)
{
    const uintptr_t kp = (uintptr_t)(k + (int64_t)pf * MIXK_SELL_C);
    _mm_prefetch((const char *)((uintptr_t)A->val + kp * (uintptr_t)mixk_prec_bytes(P)), _MM_HINT_T0);
    if (col) _mm_prefetch((const char *)((uintptr_t)A->col + kp * sizeof *A->col), _MM_HINT_T0);
}
/* Contiguous bodies: the column offsets of slice s + SELL_COL_AHEAD into L1 where that slice
 * will read them (not every slot row contiguous over its 32 rows).  The slices that skip col
 * leave its stream too sparse for the hardware prefetcher, so each slice that needs col stalled
 * on it before its gathers could start: 3D Poisson 150^3, FIXED16, 2 threads, the matrix from
 * DRAM, avx512-contig took 5.8 ms against the gathering body's 5.1 (which reads col everywhere);
 * with this 4.7 ms (lookahead 2 to 8 slices alike, 1 too short). */
#define SELL_COL_AHEAD 4
static MIXI_INLINE void sell_col_lookahead(const mixk_sell *A, int64_t s)
{
    const int64_t t = s + SELL_COL_AHEAD;
    if (t >= mixk_sell_nslice(A->n) || (A->slice[t] & MIXK_SELL_ESC)) return;
    const int64_t base = A->slice[t], end = A->slice[t + 1] & MIXK_SELL_SLOT_MASK;
    if (base == end || (slot_masks(A, base, end) & MIXK_SELL_G32)) return; /* all contiguous */
    for (int64_t k = base; k < end; k += MIXK_SELL_C) _mm_prefetch((const char *)(A->col + k), _MM_HINT_T0);
}

/* The AVX-512 slice bodies per format (sparse_avx512.c): c contiguous, g gathering (the SpMV
 * variants of kernels/cpu/spmv_tune.h), slice s of A into y from the float x; pf > 0 the
 * prefetch distance in slot rows. */
#define MIXI_AVX512_SLICE_DECL(SFX)                                                                \
    void mixi_avx512_slice_c_##SFX(const mixk_sell *A, const float *x, int64_t s, float *y, int pf); \
    void mixi_avx512_slice_g_##SFX(const mixk_sell *A, const float *x, int64_t s, float *y, int pf);
MIXI_AVX512_SLICE_DECL(fp32)
MIXI_AVX512_SLICE_DECL(fp16)
MIXI_AVX512_SLICE_DECL(bf16)
MIXI_AVX512_SLICE_DECL(fixed16)
#undef MIXI_AVX512_SLICE_DECL

#endif
