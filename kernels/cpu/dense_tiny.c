/* dense_tiny.c: FP64 LU with partial pivoting and Cholesky, with their triangular solves, for
 * tiny orders (dense_tiny.h): the unblocked algorithms of LAPACK's dgetf2/dgetrs and
 * dpotf2/dpotrs in plain loops, with their pivot choice, failure points and what they leave in
 * A, at a fraction of the library calls' fixed cost.  Finite input is the caller's check. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include "kernels/cpu/dense_tiny.h"

/* Column j of A, from row 0. */
#define COL(a, lda, j) ((a) + (size_t)(j) * (size_t)(lda))

/* Column j's pivot row: the first largest magnitude at or below the diagonal (idamax's). */
static int pivot_row(int n, const double *col, int j)
{
    int p = j;
    double big = fabs(col[j]);
    for (int i = j + 1; i < n; i++)
        if (fabs(col[i]) > big) big = fabs(col[i]), p = i;
    return p;
}

static void swap_rows(int ncol, double *a, int lda, int r, int s)
{
    for (int k = 0; k < ncol; k++) {
        double *x = COL(a, lda, k) + r, *y = COL(a, lda, k) + s;
        const double t = *x;
        *x = *y, *y = t;
    }
}

/* dgetf2: P A = L U in place; 0 or the first exactly zero pivot (1-based), factoring on. */
static int lu_factor(int n, double *a, int lda, int *ipiv)
{
    int info = 0;
    for (int j = 0; j < n; j++) {
        double *cj = COL(a, lda, j);
        const int p = pivot_row(n, cj, j);
        ipiv[j] = p + 1;
        if (cj[p] != 0.0) {
            if (p != j) swap_rows(n, a, lda, j, p);
            const double piv = cj[j];
            if (fabs(piv) >= DBL_MIN) { /* dgetf2's reciprocal, where it does not overflow */
                const double r = 1.0 / piv;
                for (int i = j + 1; i < n; i++) cj[i] *= r;
            } else {
                for (int i = j + 1; i < n; i++) cj[i] /= piv;
            }
        } else if (!info) {
            info = j + 1;
        }
        for (int k = j + 1; k < n; k++) { /* dger: the trailing block less column j x row j */
            double *ck = COL(a, lda, k);
            const double t = ck[j];
            for (int i = j + 1; i < n; i++) ck[i] -= cj[i] * t;
        }
    }
    return info;
}

/* U x = b by columns (U upper in A, non-unit): LU's back substitution and Cholesky's U. */
static void upper_solve_cols(int n, const double *a, int lda, double *b)
{
    for (int j = n - 1; j >= 0; j--) {
        const double *cj = COL(a, lda, j);
        b[j] /= cj[j];
        const double t = b[j];
        for (int i = 0; i < j; i++) b[i] -= cj[i] * t;
    }
}

/* dgetrs on one column b: the row interchanges, then L (unit) and U by columns. */
static void lu_solve(int n, const double *a, int lda, const int *ipiv, double *b)
{
    for (int j = 0; j < n; j++) {
        const int p = ipiv[j] - 1;
        const double t = b[j];
        b[j] = b[p], b[p] = t;
    }
    for (int j = 0; j < n; j++) {
        const double *cj = COL(a, lda, j), t = b[j];
        for (int i = j + 1; i < n; i++) b[i] -= cj[i] * t;
    }
    upper_solve_cols(n, a, lda, b);
}

int mixi_tiny_dgesv(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb)
{
    const int info = lu_factor(n, a, lda, ipiv);
    if (info) return info;
    for (int j = 0; j < nrhs; j++) lu_solve(n, a, lda, ipiv, b + (size_t)j * ldb);
    return 0;
}

/* A(j, j) as the failed pivot (not positive, or NaN), or its square root; 1 on failure. */
static int chol_pivot(double *ajj)
{
    if (!(*ajj > 0.0)) return 1;
    *ajj = sqrt(*ajj);
    return 0;
}

/* dpotf2, lower: the pivot first, then column j below it less L(j+1:n, 0:j) L(j, 0:j)^T by
 * columns and scaled by 1 / L(j, j) (left-looking: a failure at j leaves column j below the
 * diagonal and the columns after it as they were). */
static int chol_lower(int n, double *a, int lda)
{
    for (int j = 0; j < n; j++) {
        double *cj = COL(a, lda, j), ajj = cj[j];
        for (int p = 0; p < j; p++) ajj -= COL(a, lda, p)[j] * COL(a, lda, p)[j];
        const int failed = chol_pivot(&ajj);
        cj[j] = ajj;
        if (failed) return j + 1;
        for (int p = 0; p < j; p++) {
            const double *cp = COL(a, lda, p), t = cp[j];
            for (int i = j + 1; i < n; i++) cj[i] -= cp[i] * t;
        }
        const double r = 1.0 / ajj;
        for (int i = j + 1; i < n; i++) cj[i] *= r;
    }
    return 0;
}

/* dpotf2, upper: row j of U, each entry its column's head less a dot product of heads. */
static int chol_upper(int n, double *a, int lda)
{
    for (int j = 0; j < n; j++) {
        const double *cj = COL(a, lda, j);
        double r = 0.0;
        for (int i = j; i < n; i++) {
            double *ci = COL(a, lda, i), s = ci[j];
            for (int p = 0; p < j; p++) s -= cj[p] * ci[p];
            if (i == j) {
                if (chol_pivot(&s)) return ci[j] = s, j + 1;
                r = 1.0 / s;
                ci[j] = s;
            } else {
                ci[j] = s * r;
            }
        }
    }
    return 0;
}

/* dpotrs on one column b, lower: L y = b by columns, L^T x = y by dot products of columns. */
static void chol_solve_lower(int n, const double *a, int lda, double *b)
{
    for (int j = 0; j < n; j++) {
        const double *cj = COL(a, lda, j);
        b[j] /= cj[j];
        const double t = b[j];
        for (int i = j + 1; i < n; i++) b[i] -= cj[i] * t;
    }
    for (int j = n - 1; j >= 0; j--) {
        const double *cj = COL(a, lda, j);
        double s = b[j];
        for (int i = j + 1; i < n; i++) s -= cj[i] * b[i];
        b[j] = s / cj[j];
    }
}

/* Upper: U^T y = b by dot products of column heads, U x = y by columns. */
static void chol_solve_upper(int n, const double *a, int lda, double *b)
{
    for (int j = 0; j < n; j++) {
        const double *cj = COL(a, lda, j);
        double s = b[j];
        for (int p = 0; p < j; p++) s -= cj[p] * b[p];
        b[j] = s / cj[j];
    }
    upper_solve_cols(n, a, lda, b);
}

int mixi_tiny_dposv(int upper, int n, int nrhs, double *a, int lda, double *b, int ldb)
{
    const int info = upper ? chol_upper(n, a, lda) : chol_lower(n, a, lda);
    if (info) return info;
    for (int j = 0; j < nrhs; j++) {
        double *bj = b + (size_t)j * ldb;
        if (upper) chol_solve_upper(n, a, lda, bj);
        else chol_solve_lower(n, a, lda, bj);
    }
    return 0;
}
