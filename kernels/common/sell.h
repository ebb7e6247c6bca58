/* sell.h: the sloppy matrices' layout (SELL-32: slices of 32 rows, 16-bit column offsets, a CSR escape part), host and device. */
#ifndef MIXK_SELL_H
#define MIXK_SELL_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"

/* Why: with a 2-byte value, CSR's 4-byte column index and 8-byte row pointer cost twice the value
 * (FIXED16 on 3D Poisson: 8.3 bytes per nonzero), and CSR's rows of ~7 entries are a serial sum
 * each (latency-bound, ~25 cycles per row).  Here the index costs 2 bytes per entry and 0.25 per
 * row, and the rows of a slice run side by side: 8 or 16 per CPU vector, a warp on CUDA.
 *
 * Rows go by slices of MIXK_SELL_C = 32 (sliced ELLPACK, no sorting).  The diagonal is stored
 * apart (diag, n values; a row without a diagonal entry stores 0); a slice's off-diagonal
 * entries fill w slots per row, w the largest off-diagonal count of its rows, column-major:
 * slot q of row 32 s + t is at slice[s] + 32 q + t, in column order, padded with value 0 and
 * offset 0.  col holds j - i as int16.
 * slice[s] (s < nslice): the first slot of slice s, ORed with MIXK_SELL_ESC for an escaped slice;
 * slice[nslice] = the number of slots; w = (slice[s + 1] - slice[s]) / 32 without the flags, 0
 * for an escaped slice.  A slice is escaped when an entry lies beyond int16 of its diagonal, or
 * when padding would more than double its slots (a long row): its rows go to the escape part,
 * plain CSR: row 32 s + t has the entries erp[e + t] .. erp[e + t + 1] - 1 of ecol (int32 j) and
 * eval, with e = eslice[s] (33 values of erp per escaped slice).  Every valid CSR matrix converts
 * exactly; eslice, erp, ecol and eval are NULL when no slice is escaped.
 * A rectangular matrix held square (csr_convert_rect, kernels/backend_sparse.h): multigrid's
 * prolongator P (n x n, its nc coarse columns first) has row i's columns near i nc / n, so j - i
 * leaves int16 beyond row 32768 and every such slice went to the escape (3-D Poisson 150^3,
 * FIXED16: the fine level's P 111 MB, all escaped), and its j = i means nothing (3 of its 10.9
 * million entries).  Two changes make its layout:
 *  - column shift (shift not NULL): slot q of row i of slice s holds column i + col + shift[s],
 *    not i + col (shift NULL: every shift 0).  A slice with an entry beyond int16 of its row
 *    takes the shift centred between its smallest and largest j - i, and is escaped only where
 *    they do not fit int16 around it (kernels/common/sell_plan.h); every other slice keeps
 *    shift 0, and without a shifted slice shift stays NULL.  A padding slot (value 0, offset 0)
 *    reads column i + shift[s], one of the matrix's (0 <= i + shift[s] < n for each row i < n of
 *    the slice); an escaped slice's shift is unused (its entries keep their columns);
 *  - no diagonal apart (diag NULL): every entry, j = i included, sits in the slots or the escape
 *    in column order, and a row's finish is its sum alone (FIXED16: times h_i, the row's step
 *    from its largest entry, j = i included): not n values of zeros (4 bytes a row in FIXED16).
 * csr_convert's copies (the square operators) keep shift NULL and the diagonal apart.
 * unit_diag: a Jacobi-scaled copy's diagonal (s_i a_ii s_i rounds to 1 in every format) is all
 * ones, and the row finishes add x_i without reading diag (1 x_i is x_i: the same bits).  Its 4
 * bytes a row are 14% of what a FIXED16 SpMV of 3-D Poisson reads of the matrix: 150^3, Zen 3,
 * 2 threads, interleaved in one process, spmv 5.75-6.25 ms against 6.37-6.70 reading the ones.
 * diag stays allocated for every other reader (spmv_t, the values' accessor).  Both backends
 * set the flag at conversion (the CUDA one from the diagonal read back once).
 * What the values are (element type; FIXED16 q on a per-row step, rexp) is the format's:
 * kernels/common/spmv_row.h. */
#define MIXK_SELL_C 32
#define MIXK_SELL_ESC ((int64_t)1 << 62)
#define MIXK_SELL_SLOT_MASK (MIXK_SELL_ESC - 1)

/* The arrays of one matrix (backend memory; the struct is passed by value to device kernels). */
typedef struct {
    int64_t n;
    const int64_t *slice;  /* nslice + 1 */
    const int16_t *col;    /* slots */
    const void *val;       /* slots, in the storage format */
    const void *diag;      /* n: the format's element (FIXED16: float); NULL: none apart */
    const uint8_t *rexp;   /* FIXED16: per row the exponent byte of its step; else NULL */
    float fmant;           /* FIXED16: the steps' mantissa (kernels/common/fixed16.h) */
    const int64_t *eslice; /* nslice: escaped slices' first index into erp */
    const int64_t *erp;    /* 33 per escaped slice */
    const int32_t *ecol;   /* escape entries */
    const void *eval;
    const uint8_t *smask;  /* per slot row: which row groups share its offset (below); or NULL */
    const int16_t *soff;   /* per slot row: its first row's offset */
    const int32_t *shift;  /* nslice: each slice's column shift (above); NULL: none */
    int unit_diag;         /* every value of diag is exactly 1 (below) */
} mixk_sell;

static inline MIXK_HD int64_t mixk_sell_nslice(int64_t n)
{
    return (n + MIXK_SELL_C - 1) / MIXK_SELL_C;
}

/* Slots per row of a slice that is not escaped (0 for an escaped one). */
static inline MIXK_HD int64_t mixk_sell_width(const mixk_sell *A, int64_t s)
{
    return ((A->slice[s + 1] & MIXK_SELL_SLOT_MASK) - (A->slice[s] & MIXK_SELL_SLOT_MASK)) / MIXK_SELL_C;
}

/* Slice s's column shift: slot k of row i (in slice s) holds column i + col[k] + that. */
static inline MIXK_HD int64_t mixk_sell_shift(const mixk_sell *A, int64_t s)
{
    return A->shift ? A->shift[s] : 0;
}

/* ---- Contiguous slots ---------------------------------------------------------------------------
 * A slot row (slot q of a slice: its 32 offsets col[32 r .. 32 r + 31], r the slot index / 32)
 * whose offsets are equal over a group of rows reads x of that group contiguously: x[i0 + t + d]
 * (+ the slice's shift) for t = 0 .. G - 1 is one vector load at x + i0 + d, no gather (and the
 * same element, so the same bits).  Stencils and banded matrices are mostly such slots; the slices whose rows meet a
 * boundary of the grid keep their gathers.  Per slot row one mask byte: bit g (0..3) rows 8g ..
 * 8g + 7 share the offset (AVX2, 8 rows per vector), bit 4 + h rows 16h .. 16h + 15 (AVX-512),
 * bit 6 all 32 (a CUDA warp, or a vector body that need not read col at all); and soff = the
 * offset of the slot row's first row (that of every row where bit 6 is set).  Rows past n (the
 * last slice) are in no group. */
#define MIXK_SELL_G8(g) (1u << (g))
#define MIXK_SELL_G16(h) (1u << (4 + (h)))
#define MIXK_SELL_G32 (1u << 6)

/* The offset of slot k (of row i's slice): one byte and one int16 per slot row instead of the
 * slot's own offset where the slot row is contiguous (a warp's rows read one address). */
static inline MIXK_HD int16_t mixk_sell_off_c(const mixk_sell *A, int64_t k)
{
    const int64_t r = k / MIXK_SELL_C;
    return A->smask && (A->smask[r] & MIXK_SELL_G32) ? A->soff[r] : A->col[k];
}

/* ---- conversion from CSR (sorted rows) -------------------------------------------------------
 * 1. per row (parallel): mixk_sell_row_count;  2. once (host): mixk_sell_layout, first to size
 * the arrays, then to fill slice, eslice and erp;  3. per row (parallel): the format's
 * mixk_sell_fill_row_SFX (kernels/common/spmv_row.h) through mixk_sell_place;  4. the
 * contiguous-slot metadata.  kernels/common/sell_plan.h drives 1, 2 and 4 for the backends. */

/* Entries of row i in slots, but column `apart` (i: the diagonal stored apart; -1: none); *far
 * = 1 if one lies beyond int16 of the row. */
static inline MIXK_HD int64_t mixk_sell_row_count(const int64_t *rowptr, const int32_t *colind,
                                                 int64_t i, int64_t apart, int *far)
{
    int64_t m = 0;
    int f = 0;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
        const int64_t d = (int64_t)colind[k] - i;
        if (colind[k] == apart) continue;
        m++;
        f |= d < INT16_MIN || d > INT16_MAX;
    }
    *far = f;
    return m;
}

/* From per-row counts (cnt[i], far[i] of mixk_sell_row_count): *nslots, *nesc (escape
 * entries) and *nerp; with slice not NULL also fills slice and, if *nerp > 0, eslice and erp (the
 * arrays sized by a first call with NULLs).  Host code: one serial pass over the rows. */
static inline void mixk_sell_layout(int64_t n, const int64_t *cnt, const unsigned char *far,
                                    int64_t *slice, int64_t *eslice, int64_t *erp,
                                    int64_t *nslots, int64_t *nesc, int64_t *nerp)
{
    const int64_t ns = mixk_sell_nslice(n);
    int64_t base = 0, ne = 0, e = 0;
    for (int64_t s = 0; s < ns; s++) {
        const int64_t i0 = s * MIXK_SELL_C;
        int64_t w = 0, m = 0;
        int esc = 0;
        for (int t = 0; t < MIXK_SELL_C && i0 + t < n; t++) {
            w = cnt[i0 + t] > w ? cnt[i0 + t] : w;
            m += cnt[i0 + t];
            esc |= far[i0 + t];
        }
        /* Padding beyond the entries plus two slots a row would more than double the slice. */
        esc |= MIXK_SELL_C * w > 2 * m + 2 * MIXK_SELL_C;
        if (slice) slice[s] = base | (esc ? MIXK_SELL_ESC : 0);
        if (esc) {
            if (slice && eslice) eslice[s] = e;
            for (int t = 0; t <= MIXK_SELL_C; t++) {
                if (slice && erp) erp[e + t] = ne;
                if (t < MIXK_SELL_C && i0 + t < n) ne += cnt[i0 + t];
            }
            e += MIXK_SELL_C + 1;
        } else {
            if (slice && eslice) eslice[s] = -1;
            base += MIXK_SELL_C * w;
        }
    }
    if (slice) slice[ns] = base;
    *nslots = base;
    *nesc = ne;
    *nerp = e;
}

/* Where row i's q-th off-diagonal entry goes: slot index into col/val (*escaped = 0) or entry
 * index into ecol/eval (*escaped = 1). */
static inline MIXK_HD int64_t mixk_sell_place(const mixk_sell *A, int64_t i, int64_t q, int *escaped)
{
    const int64_t s = i / MIXK_SELL_C;
    const int t = (int)(i % MIXK_SELL_C);
    const int64_t h = A->slice[s];
    *escaped = (h & MIXK_SELL_ESC) != 0;
    return *escaped ? A->erp[A->eslice[s] + t] + q : h + q * MIXK_SELL_C + t;
}

/* Bytes of the index arrays (what an SpMV reads besides the values and the diagonal). */
static inline MIXK_HD int64_t mixk_sell_index_bytes(int64_t n, int64_t nslots, int64_t nesc,
                                                   int64_t nerp)
{
    const int64_t ns = mixk_sell_nslice(n);
    return (ns + 1) * 8 + nslots * 2 + (nerp ? ns * 8 + nerp * 8 + nesc * 4 : 0);
}

#endif
