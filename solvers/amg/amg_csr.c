/* amg_csr.c: the host CSR operations of the multigrid set-up (FP64): transpose, the row-by-row
 * (Gustavson) product with one marker array per thread, row sorting, the spectral bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solvers/amg/amg.h"

int mixi_amg_csr_alloc(mixi_amg_csr *M, int nr, int nc, int64_t nnz)
{
    M->nr = nr;
    M->nc = nc;
    M->rp = mixi_calloc((size_t)nr + 1, sizeof *M->rp);
    M->ci = mixi_malloc_n((size_t)(nnz > 0 ? nnz : 1), sizeof *M->ci);
    M->v = mixi_malloc_n((size_t)(nnz > 0 ? nnz : 1), sizeof *M->v);
    if (M->rp && M->ci && M->v) return MIX_SUCCESS;
    mixi_amg_csr_free(M);
    return MIX_ERR_ALLOC;
}

void mixi_amg_csr_free(mixi_amg_csr *M)
{
    mixi_free(M->rp);
    mixi_free(M->ci);
    mixi_free(M->v);
    M->rp = NULL;
    M->ci = NULL;
    M->v = NULL;
}

int mixi_amg_csr_transpose(const mixi_amg_csr *M, mixi_amg_csr *T)
{
    const int64_t nnz = M->rp[M->nr];
    int st = mixi_amg_csr_alloc(T, M->nc, M->nr, nnz);
    if (st) return st;
    for (int64_t k = 0; k < nnz; k++) T->rp[M->ci[k] + 1]++;
    for (int j = 0; j < M->nc; j++) T->rp[j + 1] += T->rp[j];
    int64_t *next = mixi_malloc_n((size_t)M->nc + 1, sizeof *next);
    if (!next) {
        mixi_amg_csr_free(T);
        return MIX_ERR_ALLOC;
    }
    memcpy(next, T->rp, ((size_t)M->nc + 1) * sizeof *next);
    /* Rows of M in order: each row of T comes out sorted. */
    for (int i = 0; i < M->nr; i++)
        for (int64_t k = M->rp[i]; k < M->rp[i + 1]; k++) {
            const int64_t q = next[M->ci[k]]++;
            T->ci[q] = i;
            T->v[q] = M->v[k];
        }
    mixi_free(next);
    return MIX_SUCCESS;
}

/* Entries of row i of A B (symbolic), with the thread's marker (-1 = unseen, else the row). */
static int64_t product_row_count(const mixi_amg_csr *A, const mixi_amg_csr *B, int i, int *mark)
{
    int64_t c = 0;
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
        for (int64_t q = B->rp[A->ci[k]]; q < B->rp[A->ci[k] + 1]; q++)
            if (mark[B->ci[q]] != i) mark[B->ci[q]] = i, c++;
    return c;
}

/* Row i of C = A B into C's slots from C->rp[i]; mark[j] == i when column j has its slot
 * pos[j] in this row (rows may come to a thread in any order). */
static void product_row_fill(const mixi_amg_csr *A, const mixi_amg_csr *B, mixi_amg_csr *C,
                             int i, int *mark, int64_t *pos)
{
    int64_t e = C->rp[i];
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
        const double a = A->v[k];
        for (int64_t q = B->rp[A->ci[k]]; q < B->rp[A->ci[k] + 1]; q++) {
            const int j = B->ci[q];
            if (mark[j] != i) {
                mark[j] = i;
                pos[j] = e;
                C->ci[e] = j;
                C->v[e++] = a * B->v[q];
            } else {
                C->v[pos[j]] += a * B->v[q];
            }
        }
    }
}

static int product_fill(const mixi_amg_csr *A, const mixi_amg_csr *B, mixi_amg_csr *C)
{
    int fail = 0;
#pragma omp parallel reduction(| : fail)
    {
        int64_t *pos = mixi_malloc_n((size_t)B->nc + 1, sizeof *pos);
        int *mark = mixi_malloc_n((size_t)B->nc + 1, sizeof *mark);
        fail = !pos || !mark;
        for (int j = 0; !fail && j < B->nc; j++) mark[j] = -1;
        /* Every thread meets the loop, also one whose arrays failed (it then skips its rows). */
#pragma omp for schedule(dynamic, 256)
        for (int i = 0; i < A->nr; i++)
            if (!fail) product_row_fill(A, B, C, i, mark, pos);
        mixi_free(pos);
        mixi_free(mark);
    }
    return fail ? MIX_ERR_ALLOC : MIX_SUCCESS;
}

int mixi_amg_csr_product(const mixi_amg_csr *A, const mixi_amg_csr *B, mixi_amg_csr *C)
{
    int64_t *cnt = mixi_calloc((size_t)A->nr + 1, sizeof *cnt);
    int fail = !cnt;
    if (!fail) {
#pragma omp parallel reduction(| : fail)
        {
            int *mark = mixi_malloc_n((size_t)B->nc + 1, sizeof *mark);
            fail = !mark;
            for (int j = 0; !fail && j < B->nc; j++) mark[j] = -1;
#pragma omp for schedule(dynamic, 256)
            for (int i = 0; i < A->nr; i++)
                if (!fail) cnt[i + 1] = product_row_count(A, B, i, mark);
            mixi_free(mark);
        }
    }
    if (fail) {
        mixi_free(cnt);
        return MIX_ERR_ALLOC;
    }
    for (int i = 0; i < A->nr; i++) cnt[i + 1] += cnt[i];
    int st = mixi_amg_csr_alloc(C, A->nr, B->nc, cnt[A->nr]);
    if (!st) memcpy(C->rp, cnt, ((size_t)A->nr + 1) * sizeof *cnt);
    mixi_free(cnt);
    if (!st && (st = product_fill(A, B, C))) mixi_amg_csr_free(C);
    return st;
}

/* Insertion sort of one row by column (rows here are short). */
static void sort_row(int32_t *ci, double *v, int64_t len)
{
    for (int64_t a = 1; a < len; a++) {
        const int32_t c = ci[a];
        const double x = v[a];
        int64_t b = a;
        for (; b > 0 && ci[b - 1] > c; b--) ci[b] = ci[b - 1], v[b] = v[b - 1];
        ci[b] = c;
        v[b] = x;
    }
}

void mixi_amg_csr_sort_rows(mixi_amg_csr *M)
{
#pragma omp parallel for schedule(dynamic, 512)
    for (int i = 0; i < M->nr; i++)
        sort_row(M->ci + M->rp[i], M->v + M->rp[i], M->rp[i + 1] - M->rp[i]);
}

/* w = D^-1/2 A D^-1/2 v - beta u (one Lanczos step's product); returns <v, w>. */
static double scaled_apply(const mixi_amg_csr *A, const double *s, const double *v, double beta,
                           const double *u, double *w)
{
    double vw = 0.0;
#pragma omp parallel for reduction(+ : vw) schedule(static)
    for (int i = 0; i < A->nr; i++) {
        double t = 0.0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) t += A->v[k] * s[A->ci[k]] * v[A->ci[k]];
        w[i] = s[i] * t - beta * u[i];
        vw += v[i] * w[i];
    }
    return vw;
}

/* w -= alpha v, u = v (the previous vector), v = w / ||w||; returns ||w||. */
static double lanczos_next(int n, double alpha, double *u, double *v, double *w)
{
    double ww = 0.0;
#pragma omp parallel for reduction(+ : ww) schedule(static)
    for (int i = 0; i < n; i++) {
        w[i] -= alpha * v[i];
        ww += w[i] * w[i];
    }
    const double beta = sqrt(ww), f = beta > 0.0 ? 1.0 / beta : 0.0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) u[i] = v[i], v[i] = w[i] * f;
    return beta;
}

/* The largest eigenvalue of the symmetric tridiagonal (a, b) of order m by bisection on the
 * Sturm count (how many eigenvalues lie below x). */
static double tridiag_max(const double *a, const double *b, int m)
{
    double lo = a[0], hi = a[0];
    for (int i = 0; i < m; i++) {
        const double r = (i > 0 ? fabs(b[i]) : 0.0) + (i + 1 < m ? fabs(b[i + 1]) : 0.0);
        lo = fmin(lo, a[i] - r), hi = fmax(hi, a[i] + r);
    }
    for (int it = 0; it < 100 && hi - lo > 1e-12 * fabs(hi); it++) {
        const double x = 0.5 * (lo + hi);
        int below = 0;
        double q = 1.0;
        for (int i = 0; i < m; i++) {
            q = a[i] - x - (i > 0 ? b[i] * b[i] / q : 0.0);
            if (q == 0.0) q = -1e-300;
            below += q < 0.0;
        }
        if (below == m) hi = x;
        else lo = x;
    }
    return hi;
}

/* Lanczos steps from a fixed vector of uneven entries: the largest Ritz value, a lower bound
 * that converges fast at the spectrum's edge (15 power steps gave 1.61 for 3-D Poisson 80^3,
 * whose largest eigenvalue is 1.99: the Chebyshev smoother then amplified the top modes and
 * the V-cycle was not SPD); the caller's margin (10%) covers the rest. */
#define AMG_LANCZOS_STEPS 20
double mixi_amg_lmax(const mixi_amg_csr *A, const double *dinv_sqrt)
{
    const int n = A->nr;
    double *u = mixi_calloc((size_t)n + 1, sizeof *u), *v = mixi_malloc_n((size_t)n + 1, sizeof *v);
    double *w = mixi_malloc_n((size_t)n + 1, sizeof *w), a[AMG_LANCZOS_STEPS], b[AMG_LANCZOS_STEPS + 1];
    double lam = 2.0; /* Gershgorin's bound for a diagonally dominant scaled matrix */
    int m = 0;
    if (u && v && w) {
        double vv = 0.0;
        for (int i = 0; i < n; i++) v[i] = 1.0 + (double)((i * INT64_C(7919)) % 97) / 97.0, vv += v[i] * v[i];
        for (int i = 0; i < n; i++) v[i] /= sqrt(vv);
        b[0] = 0.0;
        for (; m < AMG_LANCZOS_STEPS && m < n; m++) {
            a[m] = scaled_apply(A, dinv_sqrt, v, b[m], u, w);
            if (!isfinite(a[m])) break;
            b[m + 1] = lanczos_next(n, a[m], u, v, w);
            if (!(b[m + 1] > 1e-12 * fabs(a[m]))) { /* an invariant subspace: exact */
                m++;
                break;
            }
        }
        if (m > 0) lam = tridiag_max(a, b, m);
    }
    mixi_free(u);
    mixi_free(v);
    mixi_free(w);
    return isfinite(lam) ? lam : NAN;
}
