/* sell_plan.h: planning a SELL-32 copy from CSR (sizes, layout, bytes) and its contiguous-slot metadata, shared by the backends' conversions. */
#ifndef MIXK_SELL_PLAN_H
#define MIXK_SELL_PLAN_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/prec_traits.h"
#include "kernels/common/sell.h"

/* ---- Layout planning (host code) --------------------------------------------------------------------
 * A backend's conversion: mixk_sell_plan_count (per-row counts into the caller's cnt and far, n
 * each; the array sizes; a rectangular matrix's then mixk_sell_plan_shift, its column shifts),
 * allocate, mixk_sell_plan_layout (slice, eslice, erp), fill the rows
 * (spmv_row.h, mixk_sell_fill_row_SFX), then the slot metadata below.  Written once here so
 * that the CPU and CUDA copies of a matrix are the same layout. */
typedef struct {
    int64_t n, nslice, nslots, nesc, nerp;
    int64_t nshifted; /* slices with a nonzero column shift (0: no shift array) */
    int rect;         /* a rectangular matrix held square: no diagonal apart (sell.h) */
} mixk_sell_sizes;

static inline void mixk_sell_plan_count(int64_t n, const int64_t *rowptr, const int32_t *colind,
                                        int rect, int64_t *cnt, unsigned char *far,
                                        mixk_sell_sizes *z)
{
#pragma omp parallel for schedule(static) if (n > 4096)
    for (int64_t i = 0; i < n; i++) {
        int f;
        cnt[i] = mixk_sell_row_count(rowptr, colind, i, rect ? -1 : i, &f);
        far[i] = (unsigned char)f;
    }
    z->n = n;
    z->nslice = mixk_sell_nslice(n);
    z->nshifted = 0;
    z->rect = rect;
    mixk_sell_layout(n, cnt, far, NULL, NULL, NULL, &z->nslots, &z->nesc, &z->nerp);
}

/* The column shift of slice s (rows i0 .. i1 - 1, one of them far) of a rectangular matrix, its
 * far flags cleared where its j - i fit int16 around it; 0 where they do not (it escapes).
 * Centred between the smallest and largest j - i, then moved into [-i0, n - i1] so that a
 * padding slot's column i + shift is one of the matrix's: a nonempty move, since every column
 * lies in [0, n) and the slice spans 32 rows. */
static inline int32_t mixk_sell_plan_slice_shift(int64_t n, const int64_t *rowptr,
                                                 const int32_t *colind, int64_t i0, int64_t i1,
                                                 unsigned char *far)
{
    int64_t dmin = INT64_MAX, dmax = INT64_MIN;
    for (int64_t i = i0; i < i1; i++)
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
            const int64_t d = (int64_t)colind[k] - i;
            dmin = d < dmin ? d : dmin;
            dmax = d > dmax ? d : dmax;
        }
    const int64_t lo0 = dmax - INT16_MAX, hi0 = dmin - INT16_MIN; /* offsets d - c in int16 */
    const int64_t lo = lo0 > -i0 ? lo0 : -i0, hi = hi0 < n - i1 ? hi0 : n - i1;
    if (lo > hi) return 0;
    const int64_t mid = dmin + (dmax - dmin + 1) / 2;
    for (int64_t i = i0; i < i1; i++) far[i] = 0;
    return (int32_t)(mid < lo ? lo : mid > hi ? hi : mid);
}

/* Column shifts (kernels/common/sell.h) for a rectangular matrix held square (z->rect): after
 * mixk_sell_plan_count, each slice with a far row gets mixk_sell_plan_slice_shift's (its
 * rows then count as near), every other slice 0; z re-sized.  shift: nslice values.  Returns
 * z->nshifted, the slices shifted (0: the caller drops the array, the layout is unshifted). */
static inline int64_t mixk_sell_plan_shift(const int64_t *rowptr, const int32_t *colind,
                                           const int64_t *cnt, unsigned char *far, int32_t *shift,
                                           mixk_sell_sizes *z)
{
    const int64_t n = z->n, ns = z->nslice;
    int64_t moved = 0;
#pragma omp parallel for reduction(+ : moved) schedule(static) if (n > 4096)
    for (int64_t s = 0; s < ns; s++) {
        const int64_t i0 = s * MIXK_SELL_C, i1 = i0 + MIXK_SELL_C < n ? i0 + MIXK_SELL_C : n;
        int any = 0;
        for (int64_t i = i0; i < i1; i++) any |= far[i];
        shift[s] = any ? mixk_sell_plan_slice_shift(n, rowptr, colind, i0, i1, far) : 0;
        moved += shift[s] != 0;
    }
    z->nshifted = moved;
    if (moved) mixk_sell_layout(n, cnt, far, NULL, NULL, NULL, &z->nslots, &z->nesc, &z->nerp);
    return moved;
}

/* slice (nslice + 1), and where z->nerp > 0 eslice (nslice) and erp (nerp). */
static inline void mixk_sell_plan_layout(const int64_t *cnt, const unsigned char *far,
                                         mixk_sell_sizes *z, int64_t *slice, int64_t *eslice,
                                         int64_t *erp)
{
    mixk_sell_layout(z->n, cnt, far, slice, eslice, erp, &z->nslots, &z->nesc, &z->nerp);
}

/* Bytes of one diagonal value apart in `prec` (FIXED16's are floats). */
static inline int64_t mixk_sell_diag_bytes(mix_prec prec)
{
    return mixk_prec_block_scaled(prec) ? (int64_t)sizeof(float) : mixk_prec_bytes(prec);
}

/* Bytes one SpMV reads of the copy in `prec` (the byte model of bench/bench_cg): index arrays
 * (the shifts too), slot and escape values, the diagonal (FIXED16: floats; none for a
 * rectangular matrix) and FIXED16's exponent byte per row. */
static inline int64_t mixk_sell_plan_bytes(const mixk_sell_sizes *z, mix_prec prec)
{
    const int fixed = mixk_prec_block_scaled(prec);
    const int64_t el = mixk_prec_bytes(prec), del = mixk_sell_diag_bytes(prec);
    return mixk_sell_index_bytes(z->n, z->nslots, z->nesc, z->nerp) + (z->nslots + z->nesc) * el +
           (z->rect ? 0 : z->n * del) + (fixed ? z->n : 0) + (z->nshifted ? z->nslice * 4 : 0);
}

/* Contiguous slots: see kernels/common/sell.h. */
static inline int mixk_sell_same(const int16_t *c, int from, int len)
{
    int same = 1;
    for (int t = from + 1; t < from + len; t++) same &= c[t] == c[from];
    return same;
}

/* The mask byte of the 32 offsets c, of which the first `rows` belong to rows of the matrix. */
static inline uint8_t mixk_sell_slot_mask(const int16_t *c, int rows)
{
    unsigned m = 0;
    for (int g = 0; g < 4; g++)
        if (8 * g + 8 <= rows && mixk_sell_same(c, 8 * g, 8)) m |= MIXK_SELL_G8(g);
    for (int h = 0; h < 2; h++)
        if (16 * h + 16 <= rows && mixk_sell_same(c, 16 * h, 16)) m |= MIXK_SELL_G16(h);
    if (rows >= 32 && mixk_sell_same(c, 0, 32)) m |= MIXK_SELL_G32;
    return (uint8_t)m;
}

/* Slot rows of the layout (the length of smask and soff). */
static inline int64_t mixk_sell_slot_rows(int64_t nslots) { return nslots / MIXK_SELL_C; }

/* smask and soff of slice s's slot rows (col filled; none for an escaped slice); returns how
 * many of them are contiguous over all 32 rows. */
static inline int64_t mixk_sell_slot_meta(const mixk_sell *A, int64_t s, uint8_t *smask,
                                                 int16_t *soff)
{
    const int64_t h = A->slice[s];
    if (h & MIXK_SELL_ESC) return 0;
    const int64_t end = A->slice[s + 1] & MIXK_SELL_SLOT_MASK;
    const int64_t left = A->n - s * MIXK_SELL_C;
    const int rows = left < MIXK_SELL_C ? (int)left : MIXK_SELL_C;
    int64_t full = 0;
    for (int64_t k = h; k < end; k += MIXK_SELL_C) {
        const int64_t r = k / MIXK_SELL_C;
        smask[r] = mixk_sell_slot_mask(A->col + k, rows);
        soff[r] = A->col[k];
        full += (smask[r] & MIXK_SELL_G32) != 0;
    }
    return full;
}

#endif
