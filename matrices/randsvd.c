/* randsvd.c: Higham's randsvd matrices A = U diag(sigma) V^T with prescribed 2-norm condition number. */
#include <math.h>
#include <stdlib.h>
#include <cblas.h>
#include <lapacke.h>
#include "matrices/generators.h"

/* Standard normal numbers by Box-Muller. */
static double gauss(mixm_rng *r)
{
    double u1 = mixm_rng_uniform(r), u2 = mixm_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Haar-distributed orthogonal q (n x n): QR of a Gaussian matrix with R's diagonal made positive
 * (Stewart 1980; Mezzadri 2007).  tau: n doubles. */
static int haar_orthogonal(int n, mixm_rng *rng, double *q, double *tau)
{
    size_t total = (size_t)n * (size_t)n;
    for (size_t k = 0; k < total; k++) q[k] = gauss(rng);
    if (LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, n, n, q, n, tau, tau, -1)) return MIX_ERR_INTERNAL;
    /* Workspace query answered in tau[0]; use a separate buffer of that size. */
    lapack_int lwork = (lapack_int)tau[0];
    if (lwork < n) lwork = n;
    double *work = malloc((size_t)lwork * sizeof *work);
    double *sign = malloc((size_t)n * sizeof *sign);
    int st = MIX_SUCCESS;
    if (!work || !sign) {
        st = MIX_ERR_ALLOC;
        goto out;
    }
    if (LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, n, n, q, n, tau, work, lwork)) {
        st = MIX_ERR_INTERNAL;
        goto out;
    }
    for (int i = 0; i < n; i++) sign[i] = q[(size_t)i * n + i] < 0.0 ? -1.0 : 1.0;
    if (LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, n, n, n, q, n, tau, work, lwork)) {
        st = MIX_ERR_INTERNAL;
        goto out;
    }
    for (int j = 0; j < n; j++) cblas_dscal(n, sign[j], q + (size_t)j * n, 1);
out:
    free(work);
    free(sign);
    return st;
}

/* The singular values of the randsvd modes (largest 1, smallest 1/kappa). */
static void mode_sigmas(int n, double kappa, int mode, mixm_rng *rng, double *sigma)
{
    for (int i = 0; i < n; i++) {
        double t = n > 1 ? (double)i / (double)(n - 1) : 0.0;
        switch (mode) {
        case 1: sigma[i] = i == 0 ? 1.0 : 1.0 / kappa; break;
        case 2: sigma[i] = i == n - 1 ? 1.0 / kappa : 1.0; break;
        case 3: sigma[i] = pow(kappa, -t); break;
        case 4: sigma[i] = 1.0 - (1.0 - 1.0 / kappa) * t; break;
        default: /* log-uniform, with the extremes pinned so the condition number is exact */
            sigma[i] = i == 0 ? 1.0 : i == n - 1 ? 1.0 / kappa
                                                 : pow(kappa, -mixm_rng_uniform(rng));
            break;
        }
    }
}

/* What both generators start with: the arguments checked, two n x n work matrices and the
 * singular values drawn.  Returns 1 when there is nothing left to do (n <= 1: a is written). */
typedef struct {
    double *m1, *m2, *sigma;
    mixm_rng rng;
} randsvd_work;

static int randsvd_start(int n, double kappa, int mode, uint64_t seed, double *a, randsvd_work *w,
                         int *st)
{
    *w = (randsvd_work){0};
    *st = MIX_SUCCESS;
    if (n < 0 || (n > 0 && !a) || !(kappa >= 1.0) || !isfinite(kappa) || mode < 1 || mode > 5) {
        *st = MIX_ERR_INVALID_ARG;
        return 1;
    }
    if (n == 0) return 1;
    size_t total = (size_t)n * (size_t)n;
    w->m1 = malloc(total * sizeof *w->m1);
    w->m2 = malloc(total * sizeof *w->m2);
    w->sigma = malloc((size_t)n * sizeof *w->sigma);
    if (!w->m1 || !w->m2 || !w->sigma) {
        *st = MIX_ERR_ALLOC;
        return 1;
    }
    mixm_rng_seed(&w->rng, seed);
    mode_sigmas(n, kappa, mode, &w->rng, w->sigma);
    if (n > 1) return 0;
    a[0] = w->sigma[0];
    return 1;
}

static int randsvd_finish(randsvd_work *w, int st)
{
    free(w->m1);
    free(w->m2);
    free(w->sigma);
    return st;
}

int mixm_gen_randsvd(int n, double kappa, int mode, uint64_t seed, double *a)
{
    randsvd_work w;
    int st;
    if (randsvd_start(n, kappa, mode, seed, a, &w, &st)) return randsvd_finish(&w, st);
    double *u = w.m1, *v = w.m2;
    if ((st = haar_orthogonal(n, &w.rng, u, a)) || /* a serves as tau scratch */
        (st = haar_orthogonal(n, &w.rng, v, a)))
        return randsvd_finish(&w, st);
    for (int j = 0; j < n; j++) cblas_dscal(n, w.sigma[j], u + (size_t)j * n, 1); /* U diag(sigma) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, u, n, v, n, 0.0, a, n);
    return randsvd_finish(&w, st);
}

int mixm_gen_randsvd_spd(int n, double kappa, int mode, uint64_t seed, double *a)
{
    randsvd_work w;
    int st;
    if (randsvd_start(n, kappa, mode, seed, a, &w, &st)) return randsvd_finish(&w, st);
    double *q = w.m1, *qs = w.m2;
    if ((st = haar_orthogonal(n, &w.rng, q, a))) return randsvd_finish(&w, st); /* a: tau scratch */
    const size_t total = (size_t)n * (size_t)n;
    for (size_t k = 0; k < total; k++) qs[k] = q[k];
    for (int j = 0; j < n; j++) cblas_dscal(n, w.sigma[j], qs + (size_t)j * n, 1); /* Q diag(s) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, qs, n, q, n, 0.0, a, n);
    /* Exactly symmetric: the mean of the two rounded triangles. */
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++) {
            double m = 0.5 * (a[(size_t)j * n + i] + a[(size_t)i * n + j]);
            a[(size_t)j * n + i] = a[(size_t)i * n + j] = m;
        }
    return randsvd_finish(&w, st);
}
