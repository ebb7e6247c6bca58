/* spmv_t_cpu.c: the CPU's transposed product y = A^T x (kernels/common/spmv_t.h): rows split
 * into CHUNKS fixed chunks, each scattered by one thread into its own FP64 accumulator of y's
 * length, then the accumulators added in chunk order and rounded once into y: the same bits on
 * any number of threads (split among the threads, a solve inside a caller's OpenMP region, on
 * one thread, differed from the same solve alone).  Multigrid's y is a coarse
 * vector (3-D Poisson 150^3: 217 thousand values at level 1, 1.7 MB a chunk, cache-resident;
 * the fine level's P is implicit there, kernels/cpu/tent_cpu.c), so the private copies cost
 * little beside the prolongator's entries they replace R's reading of. */
#include <stdlib.h>
#include "kernels/common/spmv_t.h"
#include "kernels/cpu/sparse_cpu_impl.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Chunks of the rows above PAR_MIN (below, one): at most this many threads scatter.  Their
 * accumulators, CHUNKS x y's length in FP64, stay small beside the prolongator's entries (each
 * coarse value has 8-27 fine rows of several entries). */
#define CHUNKS 8

/* x_i widened to FP64 (the vectors over a 16-bit matrix are FP32: the common case first). */
static MIXI_INLINE double ld_x(const mixi_svec *x, int64_t i)
{
    if (x->prec == MIX_FP32) return ((const float *)x->val)[i];
    if (x->prec == MIX_FP64) return ((const double *)x->val)[i];
    return mixk_svec_ld(x->prec, x->val, x->norm, i);
}

#define ADD_ACC(j, v) acc[j] += (v)
/* An escaped SELL slice (the prolongator's rows: their columns lie far from the rows) as one
 * run over its entries, the row bounds read once: the same products and order as the shared
 * row body (kernels/common/spmv_t.h), without its per-row look-ups. */
static MIXI_INLINE void scatter_escaped(mix_prec P, const mixk_sell *A, const mixi_svec *x,
                                        int64_t i0, int cnt, double *restrict acc, int64_t m)
{
    const int64_t *erp = A->erp + A->eslice[i0 / MIXK_SELL_C];
    const int32_t *restrict ecol = A->ecol;
    const void *eval = A->eval;
    for (int t = 0; t < cnt; t++) {
        const int64_t i = i0 + t;
        const double xi = ld_x(x, i), xs = xi * mixk_sell_row_factor(P, A, i);
        for (int64_t k = erp[t]; k < erp[t + 1]; k++) {
            const int64_t j = ecol[k];
            if (j < m) acc[j] += mixk_sell_raw(P, eval, k) * xs;
        }
        if (A->diag && i < m) acc[i] += mixk_sell_value(P, A, i, -1, 0) * xi;
    }
}

/* A slice in SELL's body (the rectangular prolongator's: its columns from the slice's shift) the
 * same way, its bounds and shift read once: the row body's products in its order, padding slots
 * (value 0) included, so its bits. */
static MIXI_INLINE void scatter_body(mix_prec P, const mixk_sell *A, const mixi_svec *x, int64_t i0,
                                     int cnt, double *restrict acc, int64_t m)
{
    const int64_t s = i0 / MIXK_SELL_C, base = A->slice[s], end = A->slice[s + 1] & MIXK_SELL_SLOT_MASK;
    const int64_t ib = i0 + mixk_sell_shift(A, s);
    const int16_t *restrict col = A->col;
    const void *val = A->val;
    for (int t = 0; t < cnt; t++) {
        const int64_t i = i0 + t;
        const double xi = ld_x(x, i), xs = xi * mixk_sell_row_factor(P, A, i);
        for (int64_t k = base + t; k < end; k += MIXK_SELL_C) {
            const int64_t j = ib + t + col[k];
            if (j < m) acc[j] += mixk_sell_raw(P, val, k) * xs;
        }
        if (A->diag && i < m) acc[i] += mixk_sell_value(P, A, i, -1, 0) * xi;
    }
}

/* Rows r0 .. r1 - 1 of A (format P, a constant where inlined) scattered into acc[0..m). */
static MIXI_INLINE void scatter_rows(mix_prec P, const mixi_spmat *A, const mixi_svec *x,
                                     int64_t r0, int64_t r1, double *restrict acc, int64_t m)
{
    for (int64_t i = r0; i < r1;) {
        const int64_t s = i / MIXK_SELL_C, next = (s + 1) * MIXK_SELL_C;
        const int64_t end = next < r1 ? next : r1;
        if (P != MIX_FP64 && i == s * MIXK_SELL_C) { /* whole slices (the threads' share) */
            if (A->sell.slice[s] & MIXK_SELL_ESC) scatter_escaped(P, &A->sell, x, i, (int)(end - i), acc, m);
            else scatter_body(P, &A->sell, x, i, (int)(end - i), acc, m);
            i = end;
            continue;
        }
        for (; i < end; i++) {
            const double xi = ld_x(x, i);
            if (P == MIX_FP64) MIXK_CSR_SCATTER_ROW(A->rowptr, A->colind, A->val, i, xi, m, ADD_ACC);
            else MIXK_SELL_SCATTER_ROW(P, &A->sell, i, xi, m, ADD_ACC);
        }
    }
}

static void scatter(const mixi_spmat *A, const mixi_svec *x, int64_t r0, int64_t r1,
                    double *restrict acc, int64_t m)
{
#define MIXI_X(PP, ...) case PP: scatter_rows(PP, A, x, r0, r1, acc, m); break;
    switch (A->prec) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: break;
    }
#undef MIXI_X
}

/* Block b of y (cnt values) from the FP64 sums w, rounded once into y's storage. */
static void store_block(mixi_svec *y, int64_t b, const double *w, int cnt)
{
#define MIXI_X(PP, SFX, ...) case PP: mixk_svec_st_block64_##SFX(y->val, y->norm, b, w, cnt); break;
    switch (y->prec) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: break;
    }
#undef MIXI_X
}

/* The chunks' accumulators added in chunk order (nch of them, m apart), block b into y. */
static void reduce_block(const double *tacc, int nch, int64_t m, mixi_svec *y, int64_t b)
{
    double w[BLK];
    const int cnt = m - b * BLK < BLK ? (int)(m - b * BLK) : BLK;
    for (int t = 0; t < cnt; t++) {
        double s = 0.0;
        for (int p = 0; p < nch; p++) s += tacc[(int64_t)p * m + b * BLK + t];
        w[t] = s;
    }
    store_block(y, b, w, cnt);
}

/* The matrix's accumulators for nch chunks of m values (grown on demand; a matrix serves one
 * product at a time, as its decoded-x scratch does). */
static double *accumulators(const mixi_spmat *A, int nch, int64_t m)
{
    mixi_spmat *W = (mixi_spmat *)A; /* scratch only: the matrix's values are not touched */
    const int64_t need = (int64_t)nch * m;
    if (W->tacc_len < need) {
        mixi_free(W->tacc);
        W->tacc = mixi_malloc((size_t)need * sizeof(double));
        W->tacc_len = W->tacc ? need : 0;
    }
    return W->tacc;
}

int mixi_cpu_spmv_t(void *state, const mixi_spmat *A, const mixi_svec *x, mixi_svec *y)
{
    (void)state;
    const int64_t n = A->n, m = y->n;
    const mix_prec vp = x->prec == A->prec ? A->prec : mixk_prec_acc(A->prec);
    if (!mixk_prec_storage(A->prec) || x->n != n || m < 0 || m > n) return MIX_ERR_INVALID_ARG;
    if (x->prec != vp || y->prec != vp) return MIX_ERR_UNSUPPORTED;
    if (m == 0) return MIX_SUCCESS;
    const int nch = n > PAR_MIN ? CHUNKS : 1; /* never the thread count: the same bits */
#ifdef _OPENMP
    const int nth = omp_get_max_threads() < nch ? omp_get_max_threads() : nch;
#endif
    double *tacc = accumulators(A, nch, m);
    if (!tacc) return MIX_ERR_ALLOC;
    const int64_t ns = (n + BLK - 1) / BLK; /* whole slices to each chunk */
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
#pragma omp for schedule(static)
        for (int c = 0; c < nch; c++) {
            double *acc = tacc + (int64_t)c * m;
            memset(acc, 0, (size_t)m * sizeof(double));
            const int64_t r0 = ns * c / nch * BLK, r1 = ns * (c + 1) / nch * BLK;
            scatter(A, x, r0 < n ? r0 : n, r1 < n ? r1 : n, acc, m);
        }
#pragma omp for schedule(static)
        for (int64_t b = 0; b < (m + BLK - 1) / BLK; b++) reduce_block(tacc, nch, m, y, b);
    }
    return MIX_SUCCESS;
}
