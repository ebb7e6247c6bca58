/* reuse.c: refined solves and condition estimates against a kept original (reuse.h), for the
 * drop-in's consumers of the LU and Cholesky factors it left in the caller's arrays. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"
#include "dropin/reuse.h"

/* LU-IR steps at most; a step must halve the worst residual, else the FP64 factors answer. */
enum { ITMAX = 30 };

int mixd_reuse_factor(int n, char uplo, double *f, int *ipiv)
{
    int info = 0;
    if (uplo == 'N') mixd_real()->dgetrf(&n, &n, f, &n, ipiv, &info);
    else mixd_real()->dpotrf(&uplo, &n, f, &n, &info, 1);
    return info;
}

const double *mixd_reuse_exact(const mixd_reuse *r, const int **ipiv, int *transient)
{
    int info;
    return mixd_kept_factors(r->kept, mixd_reuse_factor, ipiv, transient, &info);
}

void mixd_reuse_done(const double *f, const int *ipiv, int transient)
{
    if (transient) free((void *)f), free((void *)ipiv);
}

/* x (ld ldx) := op(F)^-1 x with factors f (ld ldf, pivots ipiv for LU) of r's family. */
static void solve_with(const mixd_reuse *r, const double *f, int ldf, const int *ipiv, char trans,
                       int nrhs, double *x, int ldx)
{
    int info, n = r->n;
    if (r->uplo == 'N') mixd_real()->dgetrs(&trans, &n, &nrhs, f, &ldf, ipiv, x, &ldx, &info, 1);
    else mixd_real()->dpotrs(&r->uplo, &n, &nrhs, f, &ldf, x, &ldx, &info, 1);
}

/* The same with the caller's low-precision factors. */
static void solve_lo(const mixd_reuse *r, char trans, int nrhs, double *x, int ldx)
{
    solve_with(r, r->lo, r->ldlo, r->ipiv, trans, nrhs, x, ldx);
}

/* res (ld n) := b0 (ld n) - op(A) x, A the kept original (symmetric from its triangle). */
static void residual(const mixd_reuse *r, char trans, int nrhs, const double *b0, const double *x,
                     int ldx, double *res)
{
    const int n = r->n;
    const double one = 1.0, minus = -1.0;
    const double *a0 = mixd_kept_matrix(r->kept);
    memcpy(res, b0, (size_t)n * (size_t)nrhs * sizeof *res);
    if (r->uplo == 'N')
        mixd_real()->dgemm(&trans, "N", &n, &nrhs, &n, &minus, a0, &n, x, &ldx, &one, res, &n, 1,
                           1);
    else mixd_real()->dsymm("L", &r->uplo, &n, &nrhs, &minus, a0, &n, x, &ldx, &one, res, &n, 1,
                            1);
}

/* ||op(A)||inf of the kept original. */
static double op_norm(const mixd_reuse *r, char trans)
{
    const int n = r->n;
    const double *a = mixd_kept_matrix(r->kept);
    double *sums = calloc((size_t)n, sizeof *sums), worst = 0;
    if (!sums) return INFINITY; /* only loosens nothing: the test then never passes */
    for (int j = 0; j < n; j++) {
        int lo = r->uplo == 'L' ? j : 0, hi = r->uplo == 'U' ? j + 1 : n;
        for (int i = lo; i < hi; i++) {
            double v = fabs(a[i + (size_t)j * n]);
            if (r->uplo == 'N' && trans == 'N') sums[i] += v;
            else sums[j] += v;
            if (r->uplo != 'N' && i != j) sums[i] += v; /* the mirrored entry */
        }
    }
    for (int i = 0; i < n; i++) worst = fmax(worst, sums[i]);
    free(sums);
    return worst;
}

/* LU-IR on x (ld ldx), which holds b0 on entry.  fine = 0: only until dsgesv's test below
 * holds (a backward error of LAPACK's class).  fine = 1: until the correction is
 * below FP64's rounding of x (so the forward error is the FP64 factors' own, not only the
 * backward error LAPACK dsgesv stops at) or stops shrinking by half; it succeeds (1, *iter steps)
 * when the last residual met dsgesv's test ||r||inf <= ||x||inf ||A||inf eps sqrt(n) in every
 * column; 0 when it did not, or on NaN: the factors are too far from A. */
static int refine(const mixd_reuse *r, char trans, int nrhs, const double *b0, double *x, int ldx,
                  double *res, double anrm, int fine, int *iter)
{
    const int n = r->n;
    const double cte = anrm * DBL_EPSILON * sqrt((double)n);
    double prev = INFINITY;
    solve_lo(r, trans, nrhs, x, ldx);
    for (int it = 1; it <= ITMAX; it++) {
        residual(r, trans, nrhs, b0, x, ldx, res);
        int backward_ok = 1;
        for (int j = 0; j < nrhs; j++) {
            double rn = 0, xj = 0;
            for (int i = 0; i < n; i++) {
                rn = fmax(rn, fabs(res[i + (size_t)j * n]));
                xj = fmax(xj, fabs(x[i + (size_t)j * ldx]));
            }
            if (isnan(rn) || isnan(xj)) return 0;
            if (!(rn <= xj * cte)) backward_ok = 0;
        }
        if (!fine && backward_ok) { /* enough for a condition estimate (mixd_reuse_rcond) */
            *iter = it - 1;
            return 1;
        }
        solve_lo(r, trans, nrhs, res, n);
        double dn = 0; /* the largest correction relative to its column of x */
        for (int j = 0; j < nrhs; j++) {
            double dj = 0, xj = 0;
            for (int i = 0; i < n; i++) {
                double *xi = x + i + (size_t)j * ldx, d = res[i + (size_t)j * n];
                xj = fmax(xj, fabs(*xi));
                dj = fmax(dj, fabs(d));
                *xi += d;
            }
            if (dj > 0) dn = fmax(dn, xj > 0 ? dj / xj : INFINITY);
        }
        if (isnan(dn)) return 0;
        *iter = it;
        if (dn <= DBL_EPSILON) return 1;
        if (!(dn <= 0.5 * prev)) return backward_ok;
        prev = dn;
    }
    return 0;
}

/* b := op(A)^-1 b with the original's FP64 factors; -1 when no memory (b unchanged). */
static int solve_exact(const mixd_reuse *r, char trans, int nrhs, double *b, int ldb)
{
    const int *ipiv;
    int transient;
    const double *f = mixd_reuse_exact(r, &ipiv, &transient);
    if (!f) return -1;
    solve_with(r, f, r->n, ipiv, trans, nrhs, b, ldb);
    mixd_reuse_done(f, ipiv, transient);
    return 0;
}

int mixd_reuse_solve(const mixd_reuse *r, char trans, int nrhs, double *b, int ldb, int *iter)
{
    const int n = r->n;
    const size_t sz = (size_t)n * (size_t)nrhs;
    double *b0 = malloc(sz * sizeof *b0), *res = malloc(sz * sizeof *res);
    if (!b0 || !res) {
        free(b0), free(res);
        return -1;
    }
    for (int j = 0; j < nrhs; j++)
        memcpy(b0 + (size_t)j * n, b + (size_t)j * ldb, (size_t)n * sizeof *b);
    int st = 0;
    if (!refine(r, trans, nrhs, b0, b, ldb, res, op_norm(r, trans), 1, iter)) {
        *iter = -1;
        for (int j = 0; j < nrhs; j++)
            memcpy(b + (size_t)j * ldb, b0 + (size_t)j * n, (size_t)n * sizeof *b);
        st = solve_exact(r, trans, nrhs, b, ldb);
    }
    free(b0), free(res);
    return st;
}

int mixd_reuse_rcond(const mixd_reuse *r, char norm, double anorm, double *rcond, int *iter)
{
    int n = r->n, kase = 0, kase1 = norm == 'I' ? 2 : 1, isave[3] = {0, 0, 0}, st = 0;
    double *v = malloc((size_t)n * sizeof *v), *x = malloc((size_t)n * sizeof *x),
           *b0 = malloc((size_t)n * sizeof *b0), *res = malloc((size_t)n * sizeof *res);
    int *isgn = malloc((size_t)n * sizeof *isgn);
    double est = 0, anrm[2] = {op_norm(r, 'N'), op_norm(r, 'T')};
    if (!v || !x || !b0 || !res || !isgn) st = -1;
    *iter = 0;
    /* dgecon's loop: dlacn2 asks for A^-1 x (kase = kase1) or A^-T x; here through solves
     * refined against the kept A until their backward error is of the class of LAPACK's
     * (||E||inf <= sqrt(n) eps ||A||inf), so that it estimates ||(A + E)^-1|| as dgecon does. */
    while (st == 0) {
        mixd_real()->dlacn2(&n, v, x, isgn, &est, &kase, isave);
        if (kase == 0) break;
        char trans = kase == kase1 || r->uplo != 'N' ? 'N' : 'T';
        int it = 0;
        memcpy(b0, x, (size_t)n * sizeof *x);
        if (!refine(r, trans, 1, b0, x, n, res, anrm[trans == 'T'], 0, &it)) st = 1;
        *iter += it;
    }
    if (st == 0) *rcond = est != 0 ? (1.0 / est) / anorm : 0.0;
    free(v), free(x), free(b0), free(res), free(isgn);
    return st;
}
