/* amg_coarse.c: the coarsest level's exact solve, a dense FP64 Cholesky factor of its scaled
 * operator D^-1/2 A D^-1/2 (a few hundred rows: cheaper than any iteration there). */
#include <math.h>
#include "solvers/amg/amg.h"

int mixi_amg_coarse_factor(mixi_amg *H, const mixi_amg_csr *A)
{
    const int n = A->nr;
    const double *s = H->lev[H->nlev - 1].dinv_sqrt;
    double *L = mixi_calloc((size_t)n * (size_t)n, sizeof *L);
    if (!L) return MIX_ERR_ALLOC;
    for (int i = 0; i < n; i++) /* row-major lower triangle */
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (A->ci[k] <= i) L[(size_t)i * n + A->ci[k]] = A->v[k] * s[i] * s[A->ci[k]];
    for (int j = 0; j < n; j++) {
        double *Lj = L + (size_t)j * n;
        for (int k = 0; k < j; k++) Lj[j] -= Lj[k] * Lj[k];
        if (!(Lj[j] > 0.0) || !isfinite(Lj[j])) {
            const int st = isnan(Lj[j]) ? MIX_ERR_NAN : MIX_ERR_NOT_SPD;
            mixi_free(L);
            return st;
        }
        Lj[j] = sqrt(Lj[j]);
        for (int i = j + 1; i < n; i++) {
            double *Li = L + (size_t)i * n;
            double t = Li[j];
            for (int k = 0; k < j; k++) t -= Li[k] * Lj[k];
            Li[j] = t / Lj[j];
        }
    }
    H->chol = L;
    return MIX_SUCCESS;
}

void mixi_amg_coarse_solve(const mixi_amg *H, double *x)
{
    const int n = H->lev[H->nlev - 1].n;
    const double *L = H->chol;
    for (int i = 0; i < n; i++) { /* L y = x */
        double t = x[i];
        for (int k = 0; k < i; k++) t -= L[(size_t)i * n + k] * x[k];
        x[i] = t / L[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x = y */
        double t = x[i];
        for (int k = i + 1; k < n; k++) t -= L[(size_t)k * n + i] * x[k];
        x[i] = t / L[(size_t)i * n + i];
    }
}
