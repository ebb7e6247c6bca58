/* amg_coarse.c: the coarsest level's exact solve, an FP64 Cholesky factor of its scaled
 * operator D^-1/2 A D^-1/2 (a few hundred rows: cheaper than any iteration there), held by its
 * envelope: row i of L from its first entry in A on, since Cholesky fills nothing before it.
 * A dense factor cost n^3 / 3 and 8 n^2 bytes whatever A was, and a coarsest level of up to
 * MIXI_AMG_DIRECT_N rows need not be dense: a diagonal matrix (no strong couplings, so no
 * coarsening) of order 3000 took 11 s and 72 MB to set up, a matrix of 2500 disconnected 4 x 4
 * blocks (each one aggregate that coarsens no further) 3.9 s, against a millisecond for
 * Jacobi CG.  Every sum runs in the dense order, leaving out only the exact zeros before a
 * row's first entry: the dense factor's values (the sign of a zero aside). */
#include <math.h>
#include "solvers/amg/amg.h"

void mixi_amg_coarse_free(mixi_amg *H)
{
    mixi_free(H->chol), mixi_free(H->chol_first), mixi_free(H->chol_last), mixi_free(H->chol_off);
    H->chol = NULL, H->chol_first = H->chol_last = NULL, H->chol_off = NULL;
}

/* The envelope of A's lower triangle: first[i] (row i's first column, at most i), off (row i's
 * values from off[i]), last[j] (the largest row i with first[i] <= j, at least j); the values
 * zeroed. */
static int envelope(mixi_amg *H, const mixi_amg_csr *A)
{
    const int n = A->nr;
    H->chol_first = mixi_malloc_n((size_t)n + 1, sizeof *H->chol_first);
    H->chol_last = mixi_malloc_n((size_t)n + 1, sizeof *H->chol_last);
    H->chol_off = mixi_malloc_n((size_t)n + 1, sizeof *H->chol_off);
    if (!H->chol_first || !H->chol_last || !H->chol_off) return MIX_ERR_ALLOC;
    int32_t *first = H->chol_first, *last = H->chol_last;
    for (int i = 0; i < n; i++) first[i] = last[i] = i;
    for (int i = 0; i < n; i++)
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (A->ci[k] < first[i]) first[i] = A->ci[k];
    for (int i = 0; i < n; i++)
        if (last[first[i]] < i) last[first[i]] = i;
    for (int j = 1; j < n; j++)
        if (last[j] < last[j - 1]) last[j] = last[j - 1];
    H->chol_off[0] = 0;
    for (int i = 0; i < n; i++) H->chol_off[i + 1] = H->chol_off[i] + (i - first[i] + 1);
    H->chol = mixi_calloc((size_t)H->chol_off[n], sizeof *H->chol);
    return H->chol ? MIX_SUCCESS : MIX_ERR_ALLOC;
}

/* Row i of L: its entries L_ij (first[i] <= j <= i) at row(H, i)[j - first[i]]. */
static inline double *row(const mixi_amg *H, int i)
{
    return H->chol + H->chol_off[i];
}

/* Column j of L (columns before it done): L_jj, then L_ij for the rows below that reach j. */
static int factor_column(mixi_amg *H, int j)
{
    const int32_t *first = H->chol_first;
    const int fj = first[j];
    double *Lj = row(H, j);
    for (int k = fj; k < j; k++) Lj[j - fj] -= Lj[k - fj] * Lj[k - fj];
    const double d = Lj[j - fj];
    if (!(d > 0.0) || !isfinite(d)) return isnan(d) ? MIX_ERR_NAN : MIX_ERR_NOT_SPD;
    Lj[j - fj] = sqrt(d);
    for (int i = j + 1; i <= H->chol_last[j]; i++) {
        const int fi = first[i];
        if (fi > j) continue;
        double *Li = row(H, i);
        double t = Li[j - fi];
        for (int k = fi > fj ? fi : fj; k < j; k++) t -= Li[k - fi] * Lj[k - fj];
        Li[j - fi] = t / Lj[j - fj];
    }
    return MIX_SUCCESS;
}

int mixi_amg_coarse_factor(mixi_amg *H, const mixi_amg_csr *A)
{
    const int n = A->nr;
    const double *s = H->lev[H->nlev - 1].dinv_sqrt;
    int st = envelope(H, A);
    for (int i = 0; i < n && !st; i++)
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (A->ci[k] <= i) row(H, i)[A->ci[k] - H->chol_first[i]] = A->v[k] * s[i] * s[A->ci[k]];
    for (int j = 0; j < n && !st; j++) st = factor_column(H, j);
    if (st) mixi_amg_coarse_free(H);
    return st;
}

void mixi_amg_coarse_solve(const mixi_amg *H, double *x)
{
    const int n = H->lev[H->nlev - 1].n;
    const int32_t *first = H->chol_first;
    for (int i = 0; i < n; i++) { /* L y = x */
        const double *Li = row(H, i);
        double t = x[i];
        for (int k = first[i]; k < i; k++) t -= Li[k - first[i]] * x[k];
        x[i] = t / Li[i - first[i]];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x = y, down column i of L */
        double t = x[i];
        for (int k = i + 1; k <= H->chol_last[i]; k++)
            if (first[k] <= i) t -= row(H, k)[i - first[k]] * x[k];
        x[i] = t / row(H, i)[i - first[i]];
    }
}
