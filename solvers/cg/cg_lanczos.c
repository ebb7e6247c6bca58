/* cg_lanczos.c: the extreme eigenvalues of the (preconditioned, sloppy) matrix CG iterates on,
 * from the Lanczos tridiagonal matrix that CG's alpha and beta define (Saad, Iterative Methods,
 * 6.7.3), by Sturm-sequence bisection. */
#include <math.h>
#include <float.h>
#include "solvers/cg/cg_impl.h"

void mixi_lanczos_reset(mixi_lanczos *T) { T->k = 0; }

/* Step j of CG took alpha_j and then built p_{j+1} with beta_j (0 ends the sequence: a restart
 * with p = r starts a new Krylov space).  Row j of T:
 *   T_jj = 1/alpha_j + beta_{j-1}/alpha_{j-1},  T_{j,j+1} = sqrt(beta_j)/alpha_j. */
void mixi_lanczos_push(mixi_lanczos *T, double alpha, double beta)
{
    if (!(alpha > 0.0) || !isfinite(alpha) || T->k >= MIXI_LANCZOS_MAX) return;
    const int j = T->k;
    T->d[j] = 1.0 / alpha + (j > 0 ? T->beta_prev / T->alpha_prev : 0.0);
    T->e[j] = beta > 0.0 && isfinite(beta) ? sqrt(beta) / alpha : 0.0;
    T->alpha_prev = alpha;
    T->beta_prev = beta > 0.0 && isfinite(beta) ? beta : 0.0;
    T->k = j + 1;
}

/* Eigenvalues of the leading k x k block below x (Sturm count of T - x I, LDL' pivots). */
static int sturm_count(const double *d, const double *e, int k, double x)
{
    int cnt = 0;
    double q = 1.0;
    for (int j = 0; j < k; j++) {
        const double e2 = j > 0 ? e[j - 1] * e[j - 1] : 0.0;
        q = d[j] - x - (j > 0 ? e2 / q : 0.0);
        if (q == 0.0) q = -DBL_MIN * (1.0 + fabs(x)); /* step past an exact zero pivot */
        if (q < 0.0) cnt++;
    }
    return cnt;
}

/* The eigenvalue of index idx (0 = smallest) of the leading k x k block, in [lo, hi]. */
static double bisect(const double *d, const double *e, int k, int idx, double lo, double hi)
{
    for (int it = 0; it < 200 && hi - lo > 1e-15 * fmax(fabs(lo), fabs(hi)); it++) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (sturm_count(d, e, k, mid) > idx) hi = mid;
        else lo = mid;
    }
    return 0.5 * (lo + hi);
}

int mixi_lanczos_extremes(const mixi_lanczos *T, double *lmin, double *lmax)
{
    const int k = T->k;
    if (k < 2) return 0;
    /* Gershgorin bounds of the block (e[k-1] couples to the next row, not in it). */
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < k; j++) {
        const double r = (j > 0 ? fabs(T->e[j - 1]) : 0.0) + (j < k - 1 ? fabs(T->e[j]) : 0.0);
        lo = fmin(lo, T->d[j] - r);
        hi = fmax(hi, T->d[j] + r);
    }
    if (!isfinite(lo) || !isfinite(hi)) return 0;
    *lmin = bisect(T->d, T->e, k, 0, lo, hi);
    *lmax = bisect(T->d, T->e, k, k - 1, lo, hi);
    return *lmin > 0.0 && *lmax >= *lmin;
}

/* The classical bound on FP64 CG's iterations to reduce the A-norm error by tol at condition
 * number kappa: sqrt(kappa) / 2 ln(2 / tol) (Saad, Iterative Methods, 6.11.3).  Pessimistic
 * for the bundled matrices (3.8e5 gives 7300 for 1138_bus, FP64 CG needs 1002), which is
 * what a comparison against n asks: CG that would need about n steps or more in exact
 * arithmetic leans on its finite termination, which a sloppy storage loses (solvers/cg/cg.c). */
double mixi_cg_iter_bound(double kappa, double tol)
{
    if (!(kappa >= 1.0) || !(tol > 0.0 && tol < 1.0)) return 0.0;
    return 0.5 * sqrt(kappa) * log(2.0 / tol);
}
