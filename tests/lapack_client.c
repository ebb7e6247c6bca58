/* lapack_client.c: an unmodified LAPACK program (dgesv_, dsgesv_, dposv_, dsposv_ declared here,
 * linked with -llapack only) whose checks must hold with and without libmixsolve_lapack.so
 * preloaded:
 *   lapack_client N   solve N x N systems and check what LAPACK's contracts promise.
 * LAPACK_CLIENT_FACTOR_TOL (default 1e-12): the bound on max|P L U - A| / max|A| for the factors
 * dgesv_ leaves (the harness raises it to the factor precision the drop-in routes with).
 * LAPACK_CLIENT_FACTOR_PREC (fp64 | fp32 | tf32 | fp16 | bf16, default fp64): the precision of
 * the Cholesky factor dposv_ may leave, which sets the bound it is checked against.
 * LAPACK_CLIENT_FACTORS=discarded: the program declared that it discards the factors
 * (MIXSOLVE_LAPACK_FACTORS=discard, MIXSOLVE_LAPACK_CALLERS), so a routed dgesv_/dposv_ may leave
 * A as it was; A must then hold either that or LAPACK's own FP64 factors.
 * Prints one line per check; exit status 1 if any failed. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/lu_check.h"

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dsgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, const double *b,
             const int *ldb, double *x, const int *ldx, double *work, float *swork, int *iter,
             int *info);
void dsposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
             const double *b, const int *ldb, double *x, const int *ldx, double *work,
             float *swork, int *iter, int *info, size_t uplo_len);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, int *info, size_t uplo_len);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t len);

/* The program's own error handler, as LAPACK's test suite installs one: it records, not stops. */
static char xerbla_name[8];
static int xerbla_info;
void xerbla_(const char *srname, const int *info, size_t len);
void xerbla_(const char *srname, const int *info, size_t len)
{
    size_t k = len < 7 ? len : 7;
    memcpy(xerbla_name, srname, k);
    xerbla_name[k] = 0;
    xerbla_info = *info;
}

/* Its own helpers, backward error and RNG (not tests/mixt_util.c, libmixmat's): a LAPACK client links -llapack only. */
static int failures;

static void check(int ok, const char *what, double value)
{
    printf("%-4s %s (%g)\n", ok ? "ok" : "FAIL", what, value);
    if (!ok) failures++;
}

static double *dalloc(size_t count)
{
    double *p = malloc(count * sizeof *p);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* count entries uniform in [-scale, scale] (xorshift, reproducible). */
static void random_fill(size_t count, double *a, unsigned seed, double scale)
{
    unsigned long s = 88172645463325252UL ^ seed;
    for (size_t k = 0; k < count; k++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[k] = ((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0) * scale;
    }
}

/* Diagonal shift that makes a random [-1, 1] matrix well conditioned (kappa ~ 3): every precision
 * then refines in a few rounds, well inside the cost-aware fallback's budget (a shift of 4 leaves
 * kappa ~ 1e4 at n = 1100, where 16-bit factors need ~50 GMRES steps and the library rightly
 * prefers FP64 LU). */
#define WELL_CONDITIONED(n) (2.0 * sqrt((double)(n)))

/* A random n x n (lda n) with entries in [-1, 1] plus `shift` on the diagonal, times `scale`. */
static void random_matrix(int n, double *a, unsigned seed, double shift, double scale)
{
    random_fill((size_t)n * n, a, seed, scale);
    for (int i = 0; i < n; i++) a[i + (size_t)i * n] += shift * scale;
}

/* max over columns of ||b - A x||inf / (||A||inf ||x||inf + ||b||inf). */
static double backward_error(int n, int nrhs, const double *a, const double *b, const double *x)
{
    double anrm = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += fabs(a[i + (size_t)j * n]);
        anrm = fmax(anrm, s);
    }
    for (int c = 0; c < nrhs; c++) {
        const double *xc = x + (size_t)c * n, *bc = b + (size_t)c * n;
        double rn = 0, xn = 0, bn = 0;
        for (int i = 0; i < n; i++) {
            long double r = bc[i];
            for (int j = 0; j < n; j++) r -= (long double)a[i + (size_t)j * n] * xc[j];
            rn = fmax(rn, fabs((double)r));
            xn = fmax(xn, fabs(xc[i]));
            bn = fmax(bn, fabs(bc[i]));
        }
        double be = rn / (anrm * xn + bn);
        if (!(be <= worst)) worst = be;
    }
    return worst;
}

/* The program declared the factors of dgesv_/dposv_ discarded (LAPACK_CLIENT_FACTORS). */
static int factors_discarded(void)
{
    const char *f = getenv("LAPACK_CLIENT_FACTORS");
    return f && strcmp(f, "discarded") == 0;
}

/* A and IPIV after a dgesv_: P L U of A or of a nearby matrix within bound (what: the check's
 * name); with the factors declared discarded, A as it was or LAPACK's FP64 factors. */
static void check_lu_factors(int n, const double *a0, const double *a, const int *ipiv,
                             double bound, const char *label, const char *what)
{
    char line[128];
    if (factors_discarded() && memcmp(a, a0, (size_t)n * n * sizeof *a) == 0) {
        snprintf(line, sizeof line, "%s, A left unchanged (factors discarded)", label);
        check(1, line, 0);
        return;
    }
    double fe = lu_factor_error(n, a0, a, ipiv);
    if (factors_discarded() && bound > 64 * n * DBL_EPSILON) bound = 64 * n * DBL_EPSILON;
    snprintf(line, sizeof line, "%s, %s", label, what);
    check(fe >= 0 && fe <= bound, line, fe);
}

/* LAPACK dsgesv's stopping test bounds the backward error by about sqrt(n) eps; dgesv's is far
 * below.  Both must hold whatever solved the system. */
static double fp64_level(int n)
{
    return 8.0 * sqrt((double)n) * DBL_EPSILON;
}

static void test_dgesv(int n, int nrhs)
{
    double *a = dalloc((size_t)n * n), *a0 = dalloc((size_t)n * n), *b = dalloc((size_t)n * nrhs),
           *b0 = dalloc((size_t)n * nrhs);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), info = -99;
    random_matrix(n, a0, 1, WELL_CONDITIONED(n), 1.0);
    random_fill((size_t)n * nrhs, b0, 2, 1.0);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    memcpy(b, b0, (size_t)n * nrhs * sizeof *b);
    dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
    check(info == 0, "dgesv: INFO = 0", info);
    check(backward_error(n, nrhs, a0, b0, b) <= fp64_level(n), "dgesv: B holds X, FP64 backward error",
          backward_error(n, nrhs, a0, b0, b));
    /* A and IPIV: LU factors (FP64 or low precision widened) of A or of a nearby matrix. */
    const char *tol = getenv("LAPACK_CLIENT_FACTOR_TOL");
    check_lu_factors(n, a0, a, ipiv, tol ? atof(tol) : 1e-12, "dgesv",
                     "A, IPIV hold P L U of a nearby matrix");
    free(a), free(a0), free(b), free(b0), free(ipiv);
}

static void test_dsgesv(int n, int nrhs)
{
    double *a = dalloc((size_t)n * n), *a0 = dalloc((size_t)n * n), *b = dalloc((size_t)n * nrhs),
           *x = dalloc((size_t)n * nrhs), *work = dalloc((size_t)n * nrhs);
    float *swork = malloc((size_t)n * (n + nrhs) * sizeof *swork);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), info = -99, iter = -99;
    random_matrix(n, a0, 3, WELL_CONDITIONED(n), 1.0);
    random_fill((size_t)n * nrhs, x, 4, 1.0);
    memcpy(b, x, (size_t)n * nrhs * sizeof *b);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dsgesv_(&n, &nrhs, a, &n, ipiv, b, &n, x, &n, work, swork, &iter, &info);
    check(info == 0 && iter >= 0, "dsgesv: INFO = 0, ITER >= 0 (refined)", iter);
    check(memcmp(a, a0, (size_t)n * n * sizeof *a) == 0, "dsgesv: A unchanged after refinement", 0);
    check(backward_error(n, nrhs, a0, b, x) <= fp64_level(n), "dsgesv: X FP64 backward error",
          backward_error(n, nrhs, a0, b, x));

    /* A 2 x 2 block [1 1; 1 1+1e-10] is exactly singular once rounded to any lower precision:
     * ITER < 0 (-3 in LAPACK), and A then holds the FP64 factors. */
    random_matrix(n, a0, 5, 4.0, 1.0);
    for (int k = 0; k < n; k++) a0[0 + (size_t)k * n] = a0[1 + (size_t)k * n] = 0.0;
    for (int k = 0; k < n; k++) a0[k + 0 * (size_t)n] = a0[k + 1 * (size_t)n] = 0.0;
    a0[0] = a0[1] = a0[n] = 1.0;
    a0[1 + (size_t)n] = 1.0 + 1e-10;
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dsgesv_(&n, &nrhs, a, &n, ipiv, b, &n, x, &n, work, swork, &iter, &info);
    check(info == 0 && iter < 0, "dsgesv: singular in low precision gives ITER < 0", iter);
    double fe = lu_factor_error(n, a0, a, ipiv);
    check(fe >= 0 && fe <= 64 * n * DBL_EPSILON, "dsgesv: ITER < 0 leaves the FP64 factors in A", fe);
    check(backward_error(n, nrhs, a0, b, x) <= fp64_level(n), "dsgesv: FP64 fallback X backward error",
          backward_error(n, nrhs, a0, b, x));

    /* Entries beyond FP32's range: LAPACK falls back (ITER = -2); mixsolve's FP16 path scales and
     * may refine.  Either way the contract: ITER >= 0 with A unchanged, or the FP64 factors. */
    random_matrix(n, a0, 7, 4.0, 1e300);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    for (size_t k = 0; k < (size_t)n * nrhs; k++) b[k] = 1e300 * sin((double)k);
    dsgesv_(&n, &nrhs, a, &n, ipiv, b, &n, x, &n, work, swork, &iter, &info);
    fe = iter >= 0 ? (memcmp(a, a0, (size_t)n * n * sizeof *a) == 0 ? 0.0 : 1.0)
                   : lu_factor_error(n, a0, a, ipiv);
    check(info == 0 && fe >= 0 && fe <= 64 * n * DBL_EPSILON,
          "dsgesv: entries near DBL_MAX, A unchanged (ITER >= 0) or FP64 factors (ITER < 0)", iter);
    check(backward_error(n, nrhs, a0, b, x) <= fp64_level(n), "dsgesv: entries near DBL_MAX, X backward error",
          backward_error(n, nrhs, a0, b, x));
    free(a), free(a0), free(b), free(x), free(work), free(swork), free(ipiv);
}

/* Entries near 2^-120 (beyond the 2^-64 mixsolve solves unscaled): FP64 accuracy, and A, IPIV
 * the factors of A itself (mixsolve's would be those of the rescaled matrix: the drop-in hands
 * such a call to LAPACK), or, the factors declared discarded, A as it was. */
static void test_dgesv_tiny(int n, int nrhs)
{
    double *a = dalloc((size_t)n * n), *a0 = dalloc((size_t)n * n), *b = dalloc((size_t)n * nrhs),
           *b0 = dalloc((size_t)n * nrhs);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), info = -99;
    random_matrix(n, a0, 15, WELL_CONDITIONED(n), ldexp(1.0, -120));
    random_fill((size_t)n * nrhs, b0, 16, 1.0);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    memcpy(b, b0, (size_t)n * nrhs * sizeof *b);
    dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
    double be = backward_error(n, nrhs, a0, b0, b);
    check(info == 0 && be <= fp64_level(n), "dgesv: entries near 2^-120, FP64 backward error", be);
    check_lu_factors(n, a0, a, ipiv, 64 * n * DBL_EPSILON, "dgesv: entries near 2^-120",
                     "factors of A itself");
    free(a), free(a0), free(b), free(b0), free(ipiv);
}

/* A zero column: INFO = the index dgetrf reports, B untouched, as LAPACK's dgesv. */
static void test_singular(int n)
{
    double *a = dalloc((size_t)n * n), *a0 = dalloc((size_t)n * n), *f = dalloc((size_t)n * n),
           *b = dalloc((size_t)n);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), info = -99, expect = -99, one = 1;
    random_matrix(n, a0, 6, 4.0, 1.0);
    memset(a0 + (size_t)(n / 2) * n, 0, (size_t)n * sizeof *a);
    memcpy(f, a0, (size_t)n * n * sizeof *a);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dgetrf_(&n, &n, f, &n, ipiv, &expect);
    for (int i = 0; i < n; i++) b[i] = 1.0;
    dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
    check(info > 0 && info == expect, "dgesv: singular matrix, INFO = dgetrf's index", info);
    /* Not bit for bit: OpenBLAS's dgesv and dgetrf may block differently. */
    double fe = lu_factor_error(n, a0, a, ipiv);
    check(fe >= 0 && fe <= 64 * n * DBL_EPSILON, "dgesv: singular, A holds the FP64 factors", fe);
    int unchanged = 1;
    for (int i = 0; i < n; i++) unchanged &= b[i] == 1.0;
    check(unchanged, "dgesv: singular, B unchanged", 0);
    free(a), free(a0), free(f), free(b), free(ipiv);
}

/* dsposv_ on an SPD matrix given by its lower triangle (the upper one holds garbage LAPACK never
 * reads), then on one whose leading minor of order n/2 is not positive definite. */
static void test_dsposv(int n, int nrhs)
{
    double *a = dalloc((size_t)n * n), *a0 = dalloc((size_t)n * n), *full = dalloc((size_t)n * n),
           *b = dalloc((size_t)n * nrhs), *x = dalloc((size_t)n * nrhs),
           *work = dalloc((size_t)n * nrhs);
    float *swork = malloc((size_t)n * (n + nrhs) * sizeof *swork);
    int info = -99, iter = -99, expect = -99;
    random_matrix(n, a0, 8, 0.0, 1.0);
    for (int j = 0; j < n; j++) /* symmetric, diagonally dominant: SPD */
        for (int i = j; i < n; i++) {
            double v = i == j ? n : a0[i + (size_t)j * n];
            full[i + (size_t)j * n] = full[j + (size_t)i * n] = v;
            a0[i + (size_t)j * n] = v;
            if (i > j) a0[j + (size_t)i * n] = 1e300; /* the unread triangle */
        }
    random_fill((size_t)n * nrhs, b, 9, 1.0);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dsposv_("L", &n, &nrhs, a, &n, b, &n, x, &n, work, swork, &iter, &info, 1);
    check(info == 0 && iter >= 0, "dsposv: INFO = 0, ITER >= 0 (refined)", iter);
    check(memcmp(a, a0, (size_t)n * n * sizeof *a) == 0, "dsposv: A unchanged after refinement", 0);
    check(backward_error(n, nrhs, full, b, x) <= fp64_level(n), "dsposv: X FP64 backward error",
          backward_error(n, nrhs, full, b, x));
    a0[n / 2 + (size_t)(n / 2) * n] = -1.0; /* not positive definite from order n/2 + 1 on */
    memcpy(full, a0, (size_t)n * n * sizeof *a);
    dpotrf_("L", &n, full, &n, &expect, 1);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dsposv_("L", &n, &nrhs, a, &n, b, &n, x, &n, work, swork, &iter, &info, 1);
    check(info > 0 && info == expect && iter < 0, "dsposv: not SPD, INFO = dpotrf's order, ITER < 0",
          info);
    free(a), free(a0), free(full), free(b), free(x), free(work), free(swork);
}

/* An SPD n x n: symmetric uniform [-1, 1] (spectrum within about +-1.2 sqrt(n)) plus
 * 2.5 sqrt(n) on the diagonal (kappa ~ 4, far from diagonally dominant, so the factor's rounding
 * errors show), stored in `full` (both triangles) and in a (the uplo triangle; the other one NaN,
 * which LAPACK never reads and neither may the drop-in). */
static void spd_matrix(int n, char uplo, unsigned seed, double *full, double *a)
{
    random_fill((size_t)n * n, full, seed, 1.0);
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double v = i == j ? 2.5 * sqrt((double)n) : full[i + (size_t)j * n];
            full[i + (size_t)j * n] = full[j + (size_t)i * n] = v;
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[i + (size_t)j * n] = (uplo == 'L' ? i >= j : i <= j) ? full[i + (size_t)j * n] : NAN;
}

/* max over i >= j of |(F F^T - A)_ij| / sqrt(a_ii a_jj), F the lower factor (uplo 'L') or U^T
 * (uplo 'U') in f: the measure a Cholesky factor's backward error is bounded in. */
static double chol_error(int n, char uplo, const double *full, const double *f)
{
    double worst = 0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            long double s = 0;
            for (int k = 0; k <= j; k++) /* F(i,k) F(j,k), both in F's lower triangle */
                s += uplo == 'L' ? (long double)f[i + (size_t)k * n] * f[j + (size_t)k * n]
                                 : (long double)f[k + (size_t)i * n] * f[k + (size_t)j * n];
            double e = fabs((double)(s - full[i + (size_t)j * n])) /
                       sqrt(full[i + (size_t)i * n] * full[j + (size_t)j * n]);
            if (!(e <= worst)) worst = e; /* a NaN shows */
        }
    return worst;
}

/* The bound chol_error honestly allows a factor computed with GEMM inputs rounded to `prec`
 * (u_p) and FP32 accumulation (FP64 throughout for fp64): 2 u_p per product and the
 * accumulation's (n + 2) u (Cauchy-Schwarz turns |L| |L^T| into sqrt(a_ii a_jj)), plus the
 * diagonal shift mixsolve may add, at most 32 u_p a_ii (mixsolve_lapack(7)). */
static double chol_bound(int n)
{
    const char *p = getenv("LAPACK_CLIENT_FACTOR_PREC");
    static const struct {
        const char *name;
        int mant; /* stored mantissa bits */
    } precs[] = {{"fp32", 23}, {"tf32", 10}, {"fp16", 10}, {"bf16", 7}};
    for (size_t k = 0; p && k < sizeof precs / sizeof precs[0]; k++)
        if (strcmp(p, precs[k].name) == 0)
            return 34.0 * ldexp(1.0, -precs[k].mant - 1) + (n + 2) * ldexp(1.0, -24);
    return (n + 2) * ldexp(1.0, -53);
}

/* dposv_ on an SPD matrix given by its uplo triangle: B overwritten with X at FP64 accuracy,
 * A's uplo triangle a Cholesky factor of A or of a nearby matrix, the other triangle untouched. */
static void test_dposv(int n, char uplo, int nrhs)
{
    double *a = dalloc((size_t)n * n), *a0 = dalloc((size_t)n * n), *full = dalloc((size_t)n * n),
           *b = dalloc((size_t)n * nrhs), *b0 = dalloc((size_t)n * nrhs);
    int info = -99;
    char what[96];
    spd_matrix(n, uplo, 11, full, a0);
    random_fill((size_t)n * nrhs, b0, 12, 1.0);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    memcpy(b, b0, (size_t)n * nrhs * sizeof *b);
    dposv_(&uplo, &n, &nrhs, a, &n, b, &n, &info, 1);
    snprintf(what, sizeof what, "dposv %c: INFO = 0", uplo);
    check(info == 0, what, info);
    double be = backward_error(n, nrhs, full, b0, b);
    snprintf(what, sizeof what, "dposv %c: B holds X, FP64 backward error", uplo);
    check(be <= fp64_level(n), what, be);
    if (factors_discarded() && memcmp(a, a0, (size_t)n * n * sizeof *a) == 0) {
        snprintf(what, sizeof what, "dposv %c: A left unchanged (factors discarded)", uplo);
        check(1, what, 0);
    } else {
        double ce = chol_error(n, uplo, full, a);
        double bound = factors_discarded() ? (n + 2) * ldexp(1.0, -53) : chol_bound(n);
        snprintf(what, sizeof what, "dposv %c: A holds a Cholesky factor, error <= %.2g", uplo, bound);
        check(ce <= bound, what, ce);
    }
    int untouched = 1; /* the NaNs of the other triangle, bit for bit */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (uplo == 'L' ? i < j : i > j)
                untouched &= memcmp(a + i + (size_t)j * n, a0 + i + (size_t)j * n, sizeof *a) == 0;
    snprintf(what, sizeof what, "dposv %c: the other triangle untouched", uplo);
    check(untouched, what, 0);
    free(a), free(a0), free(full), free(b), free(b0);
}

/* dposv_ on symmetric matrices that are not positive definite: INFO, A and B exactly as
 * LAPACK's dpotrf leaves them (dposv is dpotrf, then dpotrs only when INFO = 0). */
static void test_dposv_not_spd(int n)
{
    double *a = dalloc((size_t)n * n), *f = dalloc((size_t)n * n), *full = dalloc((size_t)n * n),
           *b = dalloc((size_t)n), *b0 = dalloc((size_t)n);
    int info = -99, expect = -99, one = 1;
    for (int c = 0; c < 2; c++) {
        spd_matrix(n, 'L', 13, full, f);
        const int k = n / 2;
        if (c == 0) f[k + (size_t)k * n] = -1.0; /* a_kk < 0: seen before any factorisation */
        else f[k + 1 + (size_t)k * n] = 3.0 * n; /* positive diagonal, indefinite 2 x 2 minor */
        memcpy(a, f, (size_t)n * n * sizeof *a);
        dpotrf_("L", &n, f, &n, &expect, 1);
        random_fill((size_t)n, b0, 14, 1.0);
        memcpy(b, b0, (size_t)n * sizeof *b);
        dposv_("L", &n, &one, a, &n, b, &n, &info, 1);
        check(info > 0 && info == expect,
              c == 0 ? "dposv: a_kk < 0, INFO = dpotrf's order" : "dposv: indefinite, INFO = dpotrf's order",
              info);
        check(memcmp(a, f, (size_t)n * n * sizeof *a) == 0 && memcmp(b, b0, (size_t)n * sizeof *b) == 0,
              c == 0 ? "dposv: a_kk < 0, A as dpotrf leaves it, B unchanged"
                     : "dposv: indefinite, A as dpotrf leaves it, B unchanged", 0);
    }
    free(a), free(f), free(full), free(b), free(b0);
}

/* Largest relative error of column c of X (ld n) against scale * x. */
static double column_error(int n, const double *X, int c, double scale, const double *x)
{
    double e = 0, m = 0;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(X[i + (size_t)c * n] / scale - x[i]));
        m = fmax(m, fabs(x[i]));
    }
    return e / m;
}

/* Right-hand sides of very different size in one call, B = [A x big, A x 1e-300] (issue 33):
 * each column is solved to its own accuracy, as LAPACK solves it, by all four drivers. */
static void test_rhs_of_different_size(void)
{
    enum { N = 40 };
    static const double bigs[] = {1e300, 1e20};
    int n = N, two = 2, ipiv[N], iter = 0, info = -99;
    double a0[N * N], a[N * N], x[N], ax[N], b[2 * N], bw[2 * N], X[2 * N], work[2 * N];
    float swork[N * (N + 2)];
    for (int spd = 0; spd < 2; spd++) {
        if (spd) spd_matrix(n, 'L', 21, a0, a); /* a0: both triangles */
        else random_matrix(n, a0, 21, WELL_CONDITIONED(n), 1.0);
        random_fill(N, x, 22, 1.0);
        for (int i = 0; i < n; i++) {
            ax[i] = 0;
            for (int j = 0; j < n; j++) ax[i] += a0[i + (size_t)j * n] * x[j];
        }
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < n; i++) b[i] = ax[i] * bigs[k], b[i + N] = ax[i] * 1e-300;
            for (int d = 0; d < 2; d++) { /* d = 0: dsgesv_ / dsposv_; 1: dgesv_ / dposv_ */
                memcpy(a, a0, sizeof a);
                memcpy(bw, b, sizeof b);
                if (spd && d) dposv_("L", &n, &two, a, &n, bw, &n, &info, 1);
                else if (spd) dsposv_("L", &n, &two, a, &n, b, &n, X, &n, work, swork, &iter, &info, 1);
                else if (d) dgesv_(&n, &two, a, &n, ipiv, bw, &n, &info);
                else dsgesv_(&n, &two, a, &n, ipiv, b, &n, X, &n, work, swork, &iter, &info);
                const double *sol = d ? bw : X;
                double e = fmax(column_error(n, sol, 0, bigs[k], x), column_error(n, sol, 1, 1e-300, x));
                char what[96];
                snprintf(what, sizeof what, "%s: B = [A x %g, A x 1e-300], INFO = 0, each column accurate",
                         spd ? (d ? "dposv" : "dsposv") : (d ? "dgesv" : "dsgesv"), bigs[k]);
                check(info == 0 && e <= 1e-10, what, e);
            }
        }
    }
}

/* A positive semidefinite A = G G^T of rank n/2: LAPACK's dpotrf fails, and dposv_ and dsposv_
 * must say so with its INFO whatever precision they factor in (issue 33). */
static void test_semidefinite(int n)
{
    const int k = n / 2;
    double *g = dalloc((size_t)n * k), *a0 = dalloc((size_t)n * n), *a = dalloc((size_t)n * n),
           *b = dalloc((size_t)n), *x = dalloc((size_t)n), *work = dalloc((size_t)n);
    float *swork = malloc((size_t)n * (n + 1) * sizeof *swork);
    int one = 1, iter = 0, info = -99, expect = -99;
    random_fill((size_t)n * k, g, 31, 1.0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double v = 0;
            for (int c = 0; c < k; c++) v += g[i + (size_t)c * n] * g[j + (size_t)c * n];
            a0[i + (size_t)j * n] = v;
        }
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dpotrf_("L", &n, a, &n, &expect, 1);
    random_fill((size_t)n, b, 32, 1.0);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dsposv_("L", &n, &one, a, &n, b, &n, x, &n, work, swork, &iter, &info, 1);
    check(expect > 0 && info == expect, "dsposv: semidefinite, INFO = dpotrf's order", info);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    dposv_("L", &n, &one, a, &n, b, &n, &info, 1);
    check(expect > 0 && info == expect, "dposv: semidefinite, INFO = dpotrf's order", info);
    free(g), free(a0), free(a), free(b), free(x), free(work), free(swork);
}

/* diag(1e300, 1, 1, 1, 1, tiny): entries spanning more than 1e308, solved by all four drivers
 * as LAPACK solves them (INFO = 0, x = 1; issue 33). */
static void test_wide_entries(void)
{
    static const double tiny[] = {1e-300, 1e-20};
    int n = 6, one = 1, ipiv[6], iter = 0, info = -99;
    double a[36], b[6], bw[6], x[6], work[6];
    float swork[48];
    for (int t = 0; t < 2; t++)
        for (int d = 0; d < 4; d++) {
            memset(a, 0, sizeof a);
            for (int i = 0; i < n; i++) b[i] = a[i * 7] = i == 0 ? 1e300 : i == 5 ? tiny[t] : 1.0;
            memcpy(bw, b, sizeof b);
            if (d == 0) dsgesv_(&n, &one, a, &n, ipiv, b, &n, x, &n, work, swork, &iter, &info);
            else if (d == 1) dsposv_("L", &n, &one, a, &n, b, &n, x, &n, work, swork, &iter, &info, 1);
            else if (d == 2) dgesv_(&n, &one, a, &n, ipiv, bw, &n, &info);
            else dposv_("L", &n, &one, a, &n, bw, &n, &info, 1);
            const double *sol = d < 2 ? x : bw;
            double e = 0;
            for (int i = 0; i < n; i++) e = fmax(e, fabs(sol[i] - 1.0));
            char what[96];
            snprintf(what, sizeof what, "%s: diag(1e300, 1, ..., %g), INFO = 0, x = 1",
                     d == 0 ? "dsgesv" : d == 1 ? "dsposv" : d == 2 ? "dgesv" : "dposv", tiny[t]);
            check(info == 0 && e <= 1e-15, what, e);
        }
}

/* Illegal arguments reach the program's xerbla_ with LAPACK's name and numbering. */
static void test_xerbla(void)
{
    int n = 4, nrhs = 1, bad = 2, info = 0, iter = 0, ipiv[4];
    double a[16] = {0}, b[4] = {0}, x[4] = {0}, work[4];
    float swork[20];
    xerbla_info = 0;
    dgesv_(&n, &nrhs, a, &bad, ipiv, b, &n, &info);
    check(info == -4 && xerbla_info == 4 && strncmp(xerbla_name, "DGESV", 5) == 0,
          "dgesv: LDA < N reaches xerbla_(\"DGESV\", 4)", xerbla_info);
    xerbla_info = 0;
    iter = -99;
    dsgesv_(&n, &nrhs, a, &n, ipiv, b, &n, x, &bad, work, swork, &iter, &info);
    check(info == -9 && xerbla_info == 9 && strncmp(xerbla_name, "DSGESV", 6) == 0,
          "dsgesv: LDX < N reaches xerbla_(\"DSGESV\", 9)", xerbla_info);
    check(iter == 0, "dsgesv: ITER = 0 on an illegal argument, as LAPACK's", iter);
    xerbla_info = 0;
    iter = -99;
    dsposv_("X", &n, &nrhs, a, &n, b, &n, x, &n, work, swork, &iter, &info, 1);
    check(info == -1 && xerbla_info == 1 && strncmp(xerbla_name, "DSPOSV", 6) == 0,
          "dsposv: UPLO = 'X' reaches xerbla_(\"DSPOSV\", 1)", xerbla_info);
    check(iter == 0, "dsposv: ITER = 0 on an illegal argument, as LAPACK's", iter);
    xerbla_info = 0;
    dposv_("L", &n, &nrhs, a, &n, b, &bad, &info, 1);
    check(info == -7 && xerbla_info == 7 && strncmp(xerbla_name, "DPOSV ", 6) == 0,
          "dposv: LDB < N reaches xerbla_(\"DPOSV \", 7)", xerbla_info);
}

/* Concurrent calls from several threads, each on its own system. */
typedef struct {
    int n, seed;
    double berr, berr_chol;
    int info, info_chol;
} job;

static void *solve_job(void *arg)
{
    job *j = arg;
    int n = j->n, one = 1;
    double *a = dalloc((size_t)n * n), *a0 = dalloc((size_t)n * n), *b = dalloc((size_t)n),
           *b0 = dalloc((size_t)n);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    random_matrix(n, a0, (unsigned)j->seed, WELL_CONDITIONED(n), 1.0);
    for (int i = 0; i < n; i++) b0[i] = cos(i + j->seed);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    memcpy(b, b0, (size_t)n * sizeof *b);
    dgesv_(&n, &one, a, &n, ipiv, b, &n, &j->info);
    j->berr = backward_error(n, 1, a0, b0, b);
    spd_matrix(n, 'U', (unsigned)j->seed, a0, a);
    memcpy(b, b0, (size_t)n * sizeof *b);
    dposv_("U", &n, &one, a, &n, b, &n, &j->info_chol, 1);
    j->berr_chol = backward_error(n, 1, a0, b0, b);
    free(a), free(a0), free(b), free(b0), free(ipiv);
    return NULL;
}

static void test_threads(int n)
{
    enum { T = 4 };
    pthread_t th[T];
    job jobs[T];
    for (int t = 0; t < T; t++) {
        jobs[t] = (job){n, 10 + t, 1.0, 1.0, -99, -99};
        pthread_create(&th[t], NULL, solve_job, &jobs[t]);
    }
    double worst = 0, worst_chol = 0;
    int ok = 1, ok_chol = 1;
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        ok &= jobs[t].info == 0;
        ok_chol &= jobs[t].info_chol == 0;
        worst = fmax(worst, jobs[t].berr);
        worst_chol = fmax(worst_chol, jobs[t].berr_chol);
    }
    check(ok && worst <= fp64_level(n), "dgesv: 4 concurrent threads, FP64 backward error", worst);
    check(ok_chol && worst_chol <= fp64_level(n), "dposv: 4 concurrent threads, FP64 backward error",
          worst_chol);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n < 8) {
        fprintf(stderr, "usage: lapack_client N (N >= 8)\n");
        return 2;
    }
    test_dgesv(n, 3);
    test_dsgesv(n, 2);
    test_singular(n);
    test_dgesv_tiny(n, 2);
    test_dsposv(n, 2);
    test_dposv(n, 'L', 2);
    test_dposv(n, 'U', 1);
    test_dposv_not_spd(n);
    test_rhs_of_different_size();
    test_semidefinite(60);
    test_wide_entries();
    test_xerbla();
    test_threads(n / 2 > 8 ? n / 2 : 8);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
