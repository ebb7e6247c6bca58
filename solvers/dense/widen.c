/* widen.c: low-precision factors widened to FP64 in LAPACK's form (dgetrf's P L U, dpotrf's L or
 * U), undone from the scalings they were computed with (for the drop-in's dgesv_ and dposv_). */
#include <math.h>
#include "solvers/dense/dense.h"

/* Threads from this order (n^2 entries: below it the team's start costs more than it saves). */
#define WIDEN_PAR_MIN_N 256

/* out(i,j) := row_i h(i,j) col_j over the lower triangle (diagonal included) of the host n x n
 * FP32 h; with transpose, the entry goes to out(j,i) instead (a lower factor written as dpotrf's
 * upper one).  Power-of-two row and column scales make it exact. */
static void widen_lower(int n, const float *h, int ldh, const double *row, const double *col,
                        int transpose, double *out, int ldout)
{
    /* Columns of a triangle differ in length: dynamic chunks.  Each entry is written once, by
     * one thread: the same bits on any thread count. */
#pragma omp parallel for schedule(dynamic, 32) if (n >= WIDEN_PAR_MIN_N)
    for (int j = 0; j < n; j++) {
        const float *hj = h + (size_t)j * ldh;
        if (transpose)
            for (int i = j; i < n; i++) out[j + (size_t)i * ldout] = row[i] * (double)hj[i] * col[j];
        else
            for (int i = j; i < n; i++) out[i + (size_t)j * ldout] = row[i] * (double)hj[i] * col[j];
    }
}

/* LU's two parts in one sweep of whole columns, U's column scales col_u and L's col_l, the row
 * scales row shared: at n = 4096 one threaded pass over the 64 MB factor and the 128 MB output
 * instead of two passes of half columns on one thread. */
static void widen_lu_parts(int n, const float *h, int ldh, const double *row,
                           const double *col_u, const double *col_l, double *out, int ldout)
{
#pragma omp parallel for schedule(static) if (n >= WIDEN_PAR_MIN_N)
    for (int j = 0; j < n; j++) {
        const float *hj = h + (size_t)j * ldh;
        double *oj = out + (size_t)j * ldout;
        const double cu = col_u[j], cl = col_l[j];
        for (int i = 0; i <= j; i++) oj[i] = row[i] * (double)hj[i] * cu;
        for (int i = j + 1; i < n; i++) oj[i] = row[i] * (double)hj[i] * cl;
    }
}

/* Host views of the backend FP32 factor (n x n, ld ldf) and of up to two backend vectors of n
 * doubles (NULL: all ones), made before anything is written, so a failure leaves out untouched:
 * the backend's own arrays when its memory is host memory (no copy of the factor), else host
 * copies.  *w: n doubles each for v1, v2 (writable copies), then `extra` n doubles of scratch.
 * *host: what to mixi_free. */
static int download_factor(mix_context *ctx, int n, const float *f, int ldf, const double *v1,
                           const double *v2, int extra, void **host, const float **h, double **w)
{
    const mixi_backend_ops *o = ctx->ops;
    const int on_host = (o->flags & MIXI_BACKEND_HOST_MEMORY) != 0;
    size_t nn, fbytes = 0;
    int rc;
    *host = NULL;
    if ((rc = mixi_mul_size((size_t)n, (size_t)ldf, &nn)) ||
        (!on_host && (rc = mixi_mul_size(nn, sizeof(float), &fbytes))))
        return rc;
    fbytes = (fbytes + sizeof(double) - 1) / sizeof(double) * sizeof(double);
    size_t vbytes, bytes;
    if ((rc = mixi_mul3_size((size_t)n, (size_t)(2 + extra), sizeof(double), &vbytes)) ||
        (rc = mixi_add_size(fbytes, vbytes, &bytes)))
        return rc;
    char *p = mixi_malloc(bytes);
    if (!p) return MIX_ERR_ALLOC;
    *host = p;
    *w = (double *)(p + fbytes);
    if (on_host) {
        *h = f;
    } else {
        *h = (const float *)p;
        if ((rc = o->download(ctx->state, p, f, nn * sizeof(float)))) return rc;
    }
    const double *v[2] = {v1, v2};
    for (int k = 0; k < 2; k++) {
        double *wk = *w + (size_t)k * n;
        if (v[k]) {
            if ((rc = o->download(ctx->state, wk, v[k], (size_t)n * sizeof(double)))) return rc;
        } else {
            for (int i = 0; i < n; i++) wk[i] = 1.0;
        }
    }
    return MIX_SUCCESS;
}

/* The factors are of s R A C (R, C diagonal: r, c; identity when NULL):  P L U = s R A C.  Then
 * A = P L' U' with D = P^T R^-1 P, L' = D L D^-1 (still unit lower) and U' = D U C^-1 / s, so the
 * caller's dgetrs on (out, ipiv) solves with the nearby matrix the factors represent. */
int mixi_lu_widen(mix_context *ctx, int n, const float *lu, int ldlu, const int *ipiv,
                  const double *r, const double *c, double s, double *out, int ldout)
{
    void *host = NULL;
    const float *h;
    double *rr;
    int *perm = mixi_malloc_n((size_t)n, sizeof *perm);
    int rc = perm ? download_factor(ctx, n, lu, ldlu, r, c, 2, &host, &h, &rr) : MIX_ERR_ALLOC;
    if (rc) goto out;
    double *cc = rr + n, *d = cc + n, *dinv = d + n;
    /* perm[i]: the row of A that became row i of P^T A (ipiv's interchanges in order). */
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int k = 0; k < n; k++) {
        int t = perm[k], p = ipiv[k] - 1;
        perm[k] = perm[p];
        perm[p] = t;
    }
    /* d[i] = D_ii = 1 / r[perm[i]]; cc[j] becomes 1 / (c_j s). */
    for (int i = 0; i < n; i++) {
        d[i] = 1.0 / rr[perm[i]];
        dinv[i] = rr[perm[i]];
        cc[i] = 1.0 / (cc[i] * s);
    }
    widen_lu_parts(n, h, ldlu, d, cc, dinv, out, ldout);
out:
    mixi_free(host);
    mixi_free(perm);
    return rc;
}

/* L L^T = s D A D (+ a diagonal shift; D = diag(d), identity when NULL), so A = L' L'^T with
 * L' = D^-1 L / sqrt(s): written to out's lower triangle, or as U' = L'^T to its upper one. */
int mixi_chol_widen(mix_context *ctx, int n, const float *l, int ldl, const double *d, double s,
                    int uplo, double *out, int ldout)
{
    void *host = NULL;
    const float *h;
    double *dd;
    int rc = download_factor(ctx, n, l, ldl, d, NULL, 0, &host, &h, &dd);
    if (rc) goto out;
    double *col = dd + n; /* all ones from download_factor: 1 / sqrt(s) on every column */
    const double rs = 1.0 / sqrt(s); /* s is an even power of two: exact */
    for (int i = 0; i < n; i++) {
        dd[i] = 1.0 / dd[i];
        col[i] = rs;
    }
    widen_lower(n, h, ldl, dd, col, uplo == MIXK_UPPER, out, ldout);
out:
    mixi_free(host);
    return rc;
}
