/* dropin_keep.c: an unmodified LAPACK program (linked with -llapack only) that reuses the factors
 * dgesv_/dposv_ leave in A; run plain and with libmixsolve_lapack.so preloaded
 * (tests/dropin_keep.sh), its checks must hold either way:
 *   dropin_keep reuse N   ill-conditioned (kappa ~ 1e6) N x N systems: dgesv_ then dgetrs_ (N, T),
 *                         dgecon_, dgerfs_, dgesvx_ (FACT = 'F'), dgetri_; dposv_ then dpotrs_,
 *                         dpocon_, dporfs_, dposvx_, dpotri_: forward errors within 10x of plain
 *                         LAPACK's (dgetrf_/dpotrf_ on a copy, which the drop-in never takes);
 *                         factors rewritten after dgesv_ (the fingerprint): LAPACK's answer, bit
 *                         for bit; the factors reused from a copy at another address (LAPACKE's
 *                         row-major wrappers), order N + 1.
 *   dropin_keep lru N     three well-conditioned systems of orders N, N+1, N+2, reused in an order
 *                         that, under a cap holding two, evicts the one of order N+1.
 * Prints one line per check; exit status 1 if any failed. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void dposv_(const char *, const int *, const int *, double *, const int *, double *, const int *,
            int *, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *,
             double *, const int *, int *, size_t);
void dpotrs_(const char *, const int *, const int *, const double *, const int *, double *,
             const int *, int *, size_t);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);
void dpotri_(const char *, const int *, double *, const int *, int *, size_t);
void dgecon_(const char *, const int *, const double *, const int *, const double *, double *,
             double *, int *, int *, size_t);
void dpocon_(const char *, const int *, const double *, const int *, const double *, double *,
             double *, int *, int *, size_t);
void dgerfs_(const char *, const int *, const int *, const double *, const int *, const double *,
             const int *, const int *, const double *, const int *, double *, const int *,
             double *, double *, double *, int *, int *, size_t);
void dporfs_(const char *, const int *, const int *, const double *, const int *, const double *,
             const int *, const double *, const int *, double *, const int *, double *, double *,
             double *, int *, int *, size_t);
void dgesvx_(const char *, const char *, const int *, const int *, double *, const int *, double *,
             const int *, int *, char *, double *, double *, double *, const int *, double *,
             const int *, double *, double *, double *, double *, int *, int *, size_t, size_t,
             size_t);
void dposvx_(const char *, const char *, const int *, const int *, double *, const int *, double *,
             const int *, char *, double *, double *, const int *, double *, const int *,
             double *, double *, double *, double *, int *, int *, size_t, size_t, size_t);

static int failures;

static void check(int ok, const char *what, double value)
{
    printf("%-4s %s (%g)\n", ok ? "ok" : "FAIL", what, value);
    if (!ok) failures++;
}

static void *xalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}
#define DALLOC(count) ((double *)xalloc((size_t)(count) * sizeof(double)))

static double *dup(const double *a, size_t count)
{
    double *p = DALLOC(count);
    memcpy(p, a, count * sizeof *p);
    return p;
}

/* count entries uniform in [-1, 1] (xorshift, reproducible). */
static void random_fill(size_t count, double *a, unsigned seed)
{
    unsigned long s = 88172645463325252UL ^ ((unsigned long)seed * 2654435761UL);
    for (size_t k = 0; k < count; k++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[k] = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    }
}

/* G (I - (1 - eps) v v^T), G uniform [-1, 1], v a unit vector: G's conditioning (~n) times
 * 1/eps along v, with no structure LU could exploit. */
static double *ill_lu_matrix(int n, double eps, unsigned seed)
{
    double *a = DALLOC((size_t)n * n), *v = DALLOC(n), *gv = DALLOC(n), nv = 0;
    random_fill((size_t)n * n, a, seed);
    random_fill((size_t)n, v, seed + 1);
    for (int i = 0; i < n; i++) nv += v[i] * v[i];
    for (int i = 0; i < n; i++) v[i] /= sqrt(nv), gv[i] = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) gv[i] += a[i + (size_t)j * n] * v[j];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) a[i + (size_t)j * n] -= (1 - eps) * gv[i] * v[j];
    free(v), free(gv);
    return a;
}

/* G^T G + delta I with delta = 1e-6 of G^T G's largest eigenvalue (about 4n/3): SPD, kappa
 * about 1e6, stored whole. */
static double *ill_spd_matrix(int n, unsigned seed)
{
    double *g = DALLOC((size_t)n * n), *a = DALLOC((size_t)n * n);
    random_fill((size_t)n * n, g, seed);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
            const double *gi = g + (size_t)i * n, *gj = g + (size_t)j * n;
            double s = 0;
            for (int k = 0; k < n; k++) s += gi[k] * gj[k];
            a[i + (size_t)j * n] = a[j + (size_t)i * n] = s;
        }
    for (int i = 0; i < n; i++) a[i + (size_t)i * n] += 4.0 * n / 3.0 * 1e-6;
    free(g);
    return a;
}

/* b = op(A) x, accumulated in long double so that b is as exact as FP64 holds it. */
static void product(int n, const double *a, char trans, const double *x, double *b)
{
    for (int i = 0; i < n; i++) {
        long double s = 0;
        for (int j = 0; j < n; j++)
            s += (long double)(trans == 'N' ? a[i + (size_t)j * n] : a[j + (size_t)i * n]) * x[j];
        b[i] = (double)s;
    }
}

static double forward_error(int n, const double *x, const double *xtrue)
{
    double e = 0, m = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs(x[i] - xtrue[i]);
        if (!(d <= e)) e = d; /* a NaN shows */
        m = fmax(m, fabs(xtrue[i]));
    }
    return e / m;
}

static double max_rel_diff(size_t count, const double *x, const double *ref)
{
    double e = 0, m = 0;
    for (size_t k = 0; k < count; k++) {
        double d = fabs(x[k] - ref[k]);
        if (!(d <= e)) e = d;
        m = fmax(m, fabs(ref[k]));
    }
    return e / m;
}

static double norm1(int n, const double *a)
{
    double worst = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < n; i++) s += fabs(a[i + (size_t)j * n]);
        worst = fmax(worst, s);
    }
    return worst;
}

/* ours within 10x of plain LAPACK's forward error (and never worse than 1e-6 absolute slack). */
static void within_10x(const char *what, double ours, double plain)
{
    char line[160];
    snprintf(line, sizeof line, "%s: forward error within 10x of LAPACK's %.2g", what, plain);
    check(ours <= 10 * plain, line, ours);
}

/* The solution side of the LU reuse: dgetrs_ (N and T), dgerfs_, dgesvx_ with FACT = 'F'. */
static void lu_solves(int n, const double *a0, const double *lu, const int *ipiv, const double *f,
                      const int *ipf)
{
    double *xt = DALLOC(n), *c = DALLOC(n), *x = DALLOC(n), *xr = DALLOC(n), *work = DALLOC(4 * n);
    int *iwork = xalloc((size_t)n * sizeof(int)), info, one = 1;
    random_fill((size_t)n, xt, 21);
    for (int t = 0; t < 2; t++) {
        const char *tr = t ? "T" : "N";
        product(n, a0, *tr, xt, c);
        memcpy(x, c, (size_t)n * sizeof *x);
        memcpy(xr, c, (size_t)n * sizeof *x);
        dgetrs_(tr, &n, &one, lu, &n, ipiv, x, &n, &info, 1);
        dgetrs_(tr, &n, &one, f, &n, ipf, xr, &n, &info, 1);
        within_10x(t ? "dgetrs T after dgesv" : "dgetrs N after dgesv", forward_error(n, x, xt),
                   forward_error(n, xr, xt));
    }
    /* dgerfs_ from a rough start (the solution perturbed by 1e-4): refined, bounded. */
    product(n, a0, 'N', xt, c);
    double ferr, berr, ferr_r, berr_r;
    for (int i = 0; i < n; i++) x[i] = xr[i] = xt[i] * (1 + 1e-4 * sin(i));
    dgerfs_("N", &n, &one, a0, &n, lu, &n, ipiv, c, &n, x, &n, &ferr, &berr, work, iwork, &info, 1);
    dgerfs_("N", &n, &one, a0, &n, f, &n, ipf, c, &n, xr, &n, &ferr_r, &berr_r, work, iwork, &info, 1);
    within_10x("dgerfs after dgesv", forward_error(n, x, xt), forward_error(n, xr, xt));
    check(ferr >= forward_error(n, x, xt) && ferr <= 10 * ferr_r,
          "dgerfs after dgesv: FERR bounds the error, within 10x of LAPACK's", ferr);
    /* dgesvx_ with FACT = 'F' on the factors dgesv_ left. */
    double *a1 = dup(a0, (size_t)n * n), rcond, rr, cc;
    int *ip = xalloc((size_t)n * sizeof(int)); /* IPIV is recognised by its contents */
    memcpy(ip, ipiv, (size_t)n * sizeof *ip);
    char equed = 'N';
    dgesvx_("F", "N", &n, &one, a1, &n, (double *)lu, &n, ip, &equed, &rr, &cc, c, &n, x, &n, &rcond, &ferr,
            &berr, work, iwork, &info, 1, 1, 1);
    dgesvx_("F", "N", &n, &one, a1, &n, (double *)f, &n, (int *)ipf, &equed, &rr, &cc, c, &n, xr,
            &n, &rcond, &ferr_r, &berr_r, work, iwork, &info, 1, 1, 1);
    within_10x("dgesvx FACT=F after dgesv", forward_error(n, x, xt), forward_error(n, xr, xt));
    free(a1), free(ip), free(xt), free(c), free(x), free(xr), free(work), free(iwork);
}

static void lu_reuse(int n)
{
    double *a0 = ill_lu_matrix(n, 1e-3, 11), *a = dup(a0, (size_t)n * n), *f = dup(a0, (size_t)n * n);
    double *b = DALLOC(n), *work = DALLOC(4 * (size_t)n);
    int *ipiv = xalloc((size_t)n * sizeof(int)), *ipf = xalloc((size_t)n * sizeof(int)),
        *iwork = xalloc((size_t)n * sizeof(int)), info, one = 1;
    random_fill((size_t)n, b, 12);
    dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
    check(info == 0, "dgesv: INFO = 0", info);
    dgetrf_(&n, &n, f, &n, ipf, &info); /* plain LAPACK's factors, at another address */
    lu_solves(n, a0, a, ipiv, f, ipf);
    double anorm[2] = {norm1(n, a0), 0}; /* ||A||1, ||A||inf */
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += fabs(a0[i + (size_t)j * n]);
        anorm[1] = fmax(anorm[1], s);
    }
    for (int t = 0; t < 2; t++) {
        const char *norm = t ? "I" : "1";
        double rc, rc_ref, an = anorm[t];
        dgecon_(norm, &n, a, &n, &an, &rc, work, iwork, &info, 1);
        dgecon_(norm, &n, f, &n, &an, &rc_ref, work, iwork, &info, 1);
        check(rc >= rc_ref / 2 && rc <= rc_ref * 2,
              t ? "dgecon I after dgesv: RCOND within 2x of LAPACK's" : "dgecon 1 after dgesv: RCOND within 2x of LAPACK's",
              rc / rc_ref);
    }
    /* dgetri_ last: it overwrites A with the inverse. */
    int lwork = 64 * n;
    double *w = DALLOC(lwork);
    dgetri_(&n, a, &n, ipiv, w, &lwork, &info);
    dgetri_(&n, f, &n, ipf, w, &lwork, &info);
    double d = max_rel_diff((size_t)n * n, a, f);
    check(d <= 1e-7, "dgetri after dgesv: the inverse LAPACK's within 1e-7 (kappa 1e6)", d);
    free(a0), free(a), free(f), free(b), free(work), free(w), free(ipiv), free(ipf), free(iwork);
}

static void chol_reuse(int n, char uplo)
{
    double *a0 = ill_spd_matrix(n, 31), *a = dup(a0, (size_t)n * n), *f = dup(a0, (size_t)n * n);
    double *xt = DALLOC(n), *c = DALLOC(n), *x = DALLOC(n), *xr = DALLOC(n), *work = DALLOC(3 * n);
    int *iwork = xalloc((size_t)n * sizeof(int)), info, one = 1;
    char line[120];
    random_fill((size_t)n, xt, 32);
    product(n, a0, 'N', xt, c);
    memcpy(x, c, (size_t)n * sizeof *x);
    dposv_(&uplo, &n, &one, a, &n, x, &n, &info, 1);
    snprintf(line, sizeof line, "dposv %c: INFO = 0", uplo);
    check(info == 0, line, info);
    dpotrf_(&uplo, &n, f, &n, &info, 1);
    random_fill((size_t)n, xt, 33);
    product(n, a0, 'N', xt, c);
    memcpy(x, c, (size_t)n * sizeof *x);
    memcpy(xr, c, (size_t)n * sizeof *x);
    dpotrs_(&uplo, &n, &one, a, &n, x, &n, &info, 1);
    dpotrs_(&uplo, &n, &one, f, &n, xr, &n, &info, 1);
    snprintf(line, sizeof line, "dpotrs %c after dposv", uplo);
    within_10x(line, forward_error(n, x, xt), forward_error(n, xr, xt));
    double an = norm1(n, a0), rc, rc_ref, ferr, berr, ferr_r, berr_r, s, rcond;
    dpocon_(&uplo, &n, a, &n, &an, &rc, work, iwork, &info, 1);
    dpocon_(&uplo, &n, f, &n, &an, &rc_ref, work, iwork, &info, 1);
    snprintf(line, sizeof line, "dpocon %c after dposv: RCOND within 2x of LAPACK's", uplo);
    check(rc >= rc_ref / 2 && rc <= rc_ref * 2, line, rc / rc_ref);
    for (int i = 0; i < n; i++) x[i] = xr[i] = xt[i] * (1 + 1e-4 * sin(i));
    dporfs_(&uplo, &n, &one, a0, &n, a, &n, c, &n, x, &n, &ferr, &berr, work, iwork, &info, 1);
    dporfs_(&uplo, &n, &one, a0, &n, f, &n, c, &n, xr, &n, &ferr_r, &berr_r, work, iwork, &info, 1);
    snprintf(line, sizeof line, "dporfs %c after dposv", uplo);
    within_10x(line, forward_error(n, x, xt), forward_error(n, xr, xt));
    char equed = 'N';
    double *a1 = dup(a0, (size_t)n * n);
    dposvx_("F", &uplo, &n, &one, a1, &n, a, &n, &equed, &s, c, &n, x, &n, &rcond, &ferr, &berr,
            work, iwork, &info, 1, 1, 1);
    dposvx_("F", &uplo, &n, &one, a1, &n, f, &n, &equed, &s, c, &n, xr, &n, &rcond, &ferr_r,
            &berr_r, work, iwork, &info, 1, 1, 1);
    snprintf(line, sizeof line, "dposvx %c FACT=F after dposv", uplo);
    within_10x(line, forward_error(n, x, xt), forward_error(n, xr, xt));
    dpotri_(&uplo, &n, a, &n, &info, 1);
    dpotri_(&uplo, &n, f, &n, &info, 1);
    for (int j = 0; j < n; j++) /* compare the uplo triangles only */
        for (int i = 0; i < n; i++)
            if (uplo == 'L' ? i < j : i > j) a[i + (size_t)j * n] = f[i + (size_t)j * n] = 0;
    double d = max_rel_diff((size_t)n * n, a, f);
    snprintf(line, sizeof line, "dpotri %c after dposv: the inverse LAPACK's within 1e-7", uplo);
    check(d <= 1e-7, line, d);
    free(a0), free(a), free(f), free(xt), free(c), free(x), free(xr), free(work), free(iwork), free(a1);
}

/* Factors rewritten between dgesv_ and dgetrs_ (one entry of U, then one pivot): never taken for
 * ours, LAPACK's dgetrs_ on the rewritten array, bit for bit as on a copy elsewhere. */
static void fingerprint(int n)
{
    double *a0 = ill_lu_matrix(n, 1e-3, 41), *a = dup(a0, (size_t)n * n), *b = DALLOC(n);
    int *ipiv = xalloc((size_t)n * sizeof(int)), info, one = 1;
    random_fill((size_t)n, b, 42);
    dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
    for (int round = 0; round < 2; round++) {
        if (round == 0) a[(size_t)n * n - 1] *= 2; /* U(n,n) */
        else if (ipiv[0] != n) ipiv[0] = n;        /* another row interchange */
        else ipiv[0] = 1;
        double *copy = dup(a, (size_t)n * n), *x = DALLOC(n), *xr = DALLOC(n);
        random_fill((size_t)n, x, 43);
        memcpy(xr, x, (size_t)n * sizeof *x);
        dgetrs_("N", &n, &one, a, &n, ipiv, x, &n, &info, 1);
        dgetrs_("N", &n, &one, copy, &n, ipiv, xr, &n, &info, 1);
        check(memcmp(x, xr, (size_t)n * sizeof *x) == 0,
              round ? "dgetrs, IPIV rewritten after dgesv: LAPACK's answer bit for bit"
                    : "dgetrs, A rewritten after dgesv: LAPACK's answer bit for bit", 0);
        free(copy), free(x), free(xr);
    }
    free(a0), free(a), free(b), free(ipiv);
}

/* Two systems whose low-precision factors coincide bit for bit (entries FP32 numbers; A2 = A1
 * but off-diagonal entries scaled by 1 + 1e-9, below FP32's rounding): a copy of A1's factors,
 * taken before dgesv_ on A2, is A1's, and dgetrs_ on it must answer A1 x = b to LAPACK's
 * accuracy.  The copy was found by content and refined against A2: forward error 5e-8 against
 * LAPACK's 1e-11 (n = 400, FP32). */
static void twins(int n)
{
    const size_t nn = (size_t)n * n;
    double *a1 = DALLOC(nn), *a2, *f1, *lu = DALLOC(nn), *b = DALLOC(n), *x = DALLOC(n), *xt = DALLOC(n);
    int *p1 = xalloc((size_t)n * sizeof(int)), *p2 = xalloc((size_t)n * sizeof(int)),
        *pl = xalloc((size_t)n * sizeof(int)), info, one = 1;
    random_fill(nn, a1, 51);
    for (size_t k = 0; k < nn; k++) a1[k] = (float)(a1[k] / 2);
    for (int i = 0; i < n; i++) a1[i + (size_t)i * n] += 2;
    a2 = dup(a1, nn);
    for (int q = 0; q < 40; q++) a2[(size_t)(q * 7 + 3) % n + (size_t)((q * 11 + 1) % n) * n] *= 1 + 1e-9;
    memcpy(lu, a1, nn * sizeof *lu);
    random_fill((size_t)n, xt, 52);
    product(n, a1, 'N', xt, b);
    double *b1 = dup(b, (size_t)n), *bl = dup(b, (size_t)n);
    dgetrf_(&n, &n, lu, &n, pl, &info);
    dgetrs_("N", &n, &one, lu, &n, pl, bl, &n, &info, 1); /* plain LAPACK's */
    dgesv_(&n, &one, a1, &n, p1, b1, &n, &info);
    f1 = dup(a1, nn); /* the program keeps A1's factors elsewhere */
    int *pc = xalloc((size_t)n * sizeof(int));
    memcpy(pc, p1, (size_t)n * sizeof(int));
    memcpy(x, b, (size_t)n * sizeof *x);
    dgesv_(&n, &one, a2, &n, p2, x, &n, &info);
    memcpy(x, b, (size_t)n * sizeof *x);
    dgetrs_("N", &n, &one, f1, &n, pc, x, &n, &info, 1);
    within_10x("dgetrs on a copy of A1's factors after dgesv on a twin A2: A1's answer",
               forward_error(n, x, xt), forward_error(n, bl, xt));
    free(a1), free(a2), free(f1), free(lu), free(b), free(b1), free(bl), free(x), free(xt);
    free(p1), free(p2), free(pl), free(pc);
}

/* A copy of the factors taken before dgetri_ inverts A in place: still ours for dgetrs_ (the
 * entry left A's address but stays reachable by content).  It was forgotten: LAPACK's dgetrs_
 * on the FP32 factors, forward error 1e-4 against 1e-13 (n = 400). */
static void inverse_then_copy(int n)
{
    const size_t nn = (size_t)n * n;
    double *a0 = ill_lu_matrix(n, 1e-3, 61), *a = dup(a0, nn), *lu = dup(a0, nn), *b = DALLOC(n);
    double *xt = DALLOC(n), *x = DALLOC(n), *bl = DALLOC(n), *c;
    int *ipiv = xalloc((size_t)n * sizeof(int)), *pc = xalloc((size_t)n * sizeof(int)),
        *pl = xalloc((size_t)n * sizeof(int)), info, one = 1, lwork = 64 * n;
    double *w = DALLOC(lwork);
    random_fill((size_t)n, xt, 62);
    product(n, a0, 'N', xt, b);
    memcpy(bl, b, (size_t)n * sizeof *b);
    dgetrf_(&n, &n, lu, &n, pl, &info);
    dgetrs_("N", &n, &one, lu, &n, pl, bl, &n, &info, 1); /* plain LAPACK's */
    memcpy(x, b, (size_t)n * sizeof *b);
    dgesv_(&n, &one, a, &n, ipiv, x, &n, &info);
    c = dup(a, nn);
    memcpy(pc, ipiv, (size_t)n * sizeof(int));
    dgetri_(&n, a, &n, ipiv, w, &lwork, &info);
    memcpy(x, b, (size_t)n * sizeof *b);
    dgetrs_("N", &n, &one, c, &n, pc, x, &n, &info, 1);
    within_10x("dgetrs on a copy of the factors after dgetri on A", forward_error(n, x, xt),
               forward_error(n, bl, xt));
    free(a0), free(a), free(lu), free(b), free(xt), free(x), free(bl), free(c), free(w);
    free(ipiv), free(pc), free(pl);
}

/* A^T into a private col-major buffer (ld n), as LAPACKE's row-major wrappers do per call. */
static double *transposed(int n, const double *a)
{
    double *t = DALLOC((size_t)n * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) t[j + (size_t)i * n] = a[i + (size_t)j * n];
    return t;
}

/* LAPACKE_dgesv then LAPACKE_dgetrs in row-major layout, as LAPACKE runs them: dgesv_ on a
 * private transposed copy, the factors transposed back and the copy freed; dgetrs_ on a new
 * transposed copy of those factors (bit for bit the ones dgesv_ left, at another address).
 * The reused solve keeps LAPACK's forward error (it lost 8 digits before the registry looked
 * the factors up by content).  Order m = n + 1: the script's counts of order n stay as they are. */
static void copied(int n)
{
    const int m = n + 1, one = 1;
    double *a0 = ill_lu_matrix(m, 1e-3, 81), *f = dup(a0, (size_t)m * m), *xt = DALLOC(m),
           *x = DALLOC(m), *xr = DALLOC(m), *b = DALLOC(m);
    int *ipiv = xalloc((size_t)m * sizeof(int)), *ipf = xalloc((size_t)m * sizeof(int)), info;
    random_fill((size_t)m, b, 82);
    double *row = transposed(m, a0); /* the caller's row-major storage of a0 */
    double *t = transposed(m, row);  /* LAPACKE's col-major copy: a0 */
    dgesv_(&m, &one, t, &m, ipiv, b, &m, &info);
    check(info == 0, "dgesv on LAPACKE's private copy: INFO = 0", info);
    free(row);
    row = transposed(m, t); /* back in the caller's row-major array */
    dgetrf_(&m, &m, f, &m, ipf, &info);
    random_fill((size_t)m, xt, 83);
    product(m, a0, 'N', xt, x);
    memcpy(xr, x, (size_t)m * sizeof *x);
    /* The second copy taken before the first is freed: malloc would often hand back the same
     * address, which the registry knew already; a program's other allocations need not. */
    double *t2 = transposed(m, row);
    free(t);
    t = t2;
    dgetrs_("N", &m, &one, t, &m, ipiv, x, &m, &info, 1);
    dgetrs_("N", &m, &one, f, &m, ipf, xr, &m, &info, 1);
    within_10x("dgetrs on a copy of the factors (LAPACKE row-major)", forward_error(m, x, xt),
               forward_error(m, xr, xt));
    free(t), free(row), free(a0), free(f), free(xt), free(x), free(xr), free(b), free(ipiv), free(ipf);
}

/* Leading dimensions above the order and several right-hand sides: A (lda = n + 7) from dgesv_
 * with 2 of them, then dgetrs_ with 3 (ldb = n + 3), against LAPACK's dgetrf_/dgetrs_. */
static void strided(int n)
{
    const int lda = n + 7, ldb = n + 3, two = 2, three = 3;
    double *a0 = ill_lu_matrix(n, 1e-3, 71), *a = DALLOC((size_t)lda * n),
           *f = dup(a0, (size_t)n * n), *b = DALLOC((size_t)ldb * 3), *br = DALLOC((size_t)ldb * 3),
           *xt = DALLOC((size_t)n * 3);
    int *ipiv = xalloc((size_t)n * sizeof(int)), *ipf = xalloc((size_t)n * sizeof(int)), info;
    for (int j = 0; j < n; j++) {
        memcpy(a + (size_t)j * lda, a0 + (size_t)j * n, (size_t)n * sizeof *a);
        for (int i = n; i < lda; i++) a[i + (size_t)j * lda] = NAN; /* never read */
    }
    random_fill((size_t)ldb * 3, b, 72);
    dgesv_(&n, &two, a, &lda, ipiv, b, &ldb, &info);
    check(info == 0, "dgesv, LDA = N + 7, 2 right-hand sides: INFO = 0", info);
    dgetrf_(&n, &n, f, &n, ipf, &info);
    random_fill((size_t)n * 3, xt, 73);
    for (int c = 0; c < 3; c++) {
        product(n, a0, 'N', xt + (size_t)c * n, b + (size_t)c * ldb);
        memcpy(br + (size_t)c * ldb, b + (size_t)c * ldb, (size_t)n * sizeof *b);
    }
    dgetrs_("N", &n, &three, a, &lda, ipiv, b, &ldb, &info, 1);
    dgetrs_("N", &n, &three, f, &n, ipf, br, &ldb, &info, 1);
    double e = 0, er = 0;
    for (int c = 0; c < 3; c++) {
        e = fmax(e, forward_error(n, b + (size_t)c * ldb, xt + (size_t)c * n));
        er = fmax(er, forward_error(n, br + (size_t)c * ldb, xt + (size_t)c * n));
    }
    within_10x("dgetrs LDA = N + 7, LDB = N + 3, 3 right-hand sides", e, er);
    free(a0), free(a), free(f), free(b), free(br), free(xt), free(ipiv), free(ipf);
}

/* Three systems, orders n, n+1, n+2; n+1 is the least recently used when n+2 is solved. */
static void lru(int n)
{
    double *a[3], *a0[3];
    int *ipiv[3], info, one = 1;
    for (int s = 0; s < 3; s++) {
        int m = n + s;
        a0[s] = DALLOC((size_t)m * m);
        random_fill((size_t)m * m, a0[s], 50 + s);
        for (int i = 0; i < m; i++) a0[s][i + (size_t)i * m] += 2 * sqrt((double)m);
        a[s] = dup(a0[s], (size_t)m * m);
        ipiv[s] = xalloc((size_t)m * sizeof(int));
    }
    const int order[][2] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {0, 1}, {1, 1}, {2, 1}}; /* s, reuse */
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int s = order[k][0], m = n + s;
        double *xt = DALLOC(m), *x = DALLOC(m);
        random_fill((size_t)m, xt, 60 + (unsigned)k);
        product(m, a0[s], 'N', xt, x);
        if (order[k][1]) dgetrs_("N", &m, &one, a[s], &m, ipiv[s], x, &m, &info, 1);
        else dgesv_(&m, &one, a[s], &m, ipiv[s], x, &m, &info);
        /* Well conditioned: FP64 accuracy, unless the drop-in evicted this one (order n+1) and
         * LAPACK solved with its low-precision factors: then the factor precision's. */
        double fe = forward_error(m, x, xt),
               tol = getenv("DROPIN_KEEP_EVICTED") && s == 1 && order[k][1] ? 0.5 : 1e-11;
        char line[80];
        snprintf(line, sizeof line, "lru: %s on order %d, forward error <= %g",
                 order[k][1] ? "dgetrs" : "dgesv", m, tol);
        check(info == 0 && fe <= tol, line, fe);
        free(xt), free(x);
    }
    for (int s = 0; s < 3; s++) free(a[s]), free(a0[s]), free(ipiv[s]);
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (n < 8 || (strcmp(argv[1], "reuse") != 0 && strcmp(argv[1], "lru") != 0)) {
        fprintf(stderr, "usage: dropin_keep reuse|lru N (N >= 8)\n");
        return 2;
    }
    if (strcmp(argv[1], "reuse") == 0) {
        lu_reuse(n);
        chol_reuse(n, 'L');
        chol_reuse(n, 'U');
        fingerprint(n);
        strided(n);
        copied(n);
        twins(n + 1); /* its own order: the log counts of order n stay lu_reuse's */
        inverse_then_copy(n + 2);
    } else {
        lru(n);
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
