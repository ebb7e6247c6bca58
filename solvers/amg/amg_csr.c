/* amg_csr.c: the host CSR operations of the multigrid set-up (FP64): transpose, row sorting,
 * the spectral bound (the products: amg_product.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/core/det_sum.h"
#include "solvers/amg/amg.h"

int mixi_amg_csr_alloc(mixi_amg_csr *M, int nr, int nc, int64_t nnz)
{
    M->nr = nr;
    M->nc = nc;
    M->rp = mixi_malloc_scratch((size_t)nr + 1, sizeof *M->rp);
    M->ci = mixi_malloc_scratch((size_t)(nnz > 0 ? nnz : 1), sizeof *M->ci);
    M->v = mixi_malloc_scratch((size_t)(nnz > 0 ? nnz : 1), sizeof *M->v);
    if (M->rp) memset(M->rp, 0, ((size_t)nr + 1) * sizeof *M->rp);
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

#ifdef _OPENMP
#include <omp.h>
static int thread_num(void) { return omp_get_thread_num(); }
static int team_size(void) { return omp_get_num_threads(); }
static int threads_max(void) { return omp_get_max_threads(); }
#else
static int thread_num(void) { return 0; }
static int team_size(void) { return 1; }
static int threads_max(void) { return 1; }
#endif

/* The rows [lo(t), lo(t + 1)) of M of thread t of nt. */
static int share_lo(int nr, int nt, int t) { return (int)((int64_t)nr * t / nt); }

/* Inside a team of nt threads: cnt[t * nc + j] = the entries of column j in thread t's rows,
 * then the offset of the first of them in row j of T (thread 0's entries of column j first,
 * then thread 1's: the rows of T come out sorted); T->rp complete. */
static void transpose_offsets(const mixi_amg_csr *M, int nt, int t, int64_t *cnt, mixi_amg_csr *T)
{
    const int nc = M->nc;
    int64_t *c = cnt + (size_t)t * nc;
    memset(c, 0, (size_t)nc * sizeof *c);
    for (int64_t k = M->rp[share_lo(M->nr, nt, t)]; k < M->rp[share_lo(M->nr, nt, t + 1)]; k++)
        c[M->ci[k]]++;
#pragma omp barrier
#pragma omp for schedule(static)
    for (int j = 0; j < nc; j++) {
        int64_t sum = 0;
        for (int u = 0; u < nt; u++) {
            const int64_t x = cnt[(size_t)u * nc + j];
            cnt[(size_t)u * nc + j] = sum;
            sum += x;
        }
        T->rp[j + 1] = sum;
    }
#pragma omp single
    for (int j = 0; j < nc; j++) T->rp[j + 1] += T->rp[j];
}

int mixi_amg_csr_transpose(const mixi_amg_csr *M, mixi_amg_csr *T)
{
    int st = mixi_amg_csr_alloc(T, M->nc, M->nr, M->rp[M->nr]);
    int64_t *cnt = st ? NULL : mixi_malloc_scratch((size_t)threads_max() * M->nc + 1, sizeof *cnt);
    if (!st && !cnt) st = MIX_ERR_ALLOC;
    if (st) {
        mixi_amg_csr_free(T);
        return st;
    }
#pragma omp parallel if (MIXI_AMG_TEAM(M))
    {
        const int nt = team_size(), t = thread_num();
        transpose_offsets(M, nt, t, cnt, T);
        int64_t *next = cnt + (size_t)t * M->nc;
        for (int i = share_lo(M->nr, nt, t); i < share_lo(M->nr, nt, t + 1); i++)
            for (int64_t k = M->rp[i]; k < M->rp[i + 1]; k++) {
                const int j = M->ci[k];
                const int64_t q = T->rp[j] + next[j]++;
                T->ci[q] = i;
                T->v[q] = M->v[k];
            }
    }
    mixi_free(cnt);
    return MIX_SUCCESS;
}

void mixi_amg_csr_sort_row(int32_t *ci, double *v, int64_t len)
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
#pragma omp parallel for schedule(dynamic, 512) if (MIXI_AMG_TEAM(M))
    for (int i = 0; i < M->nr; i++)
        mixi_amg_csr_sort_row(M->ci + M->rp[i], M->v + M->rp[i], M->rp[i + 1] - M->rp[i]);
}

/* The set-up's sums over rows add fixed chunks in order (lib/core/det_sum.h): the same bits on
 * any number of threads. */

/* w = D^-1/2 A D^-1/2 v - beta u (one Lanczos step's product) and, from the same pass, the
 * dot products lanczos_next needs: d[0] = <v, v>, d[1] = <v, w>, d[2] = <w, w>. */
static void scaled_apply(const mixi_amg_csr *A, const double *s, const double *v, double beta,
                         const double *u, double *w, double d[3])
{
    double part[3][MIXI_SUM_CHUNKS];
#pragma omp parallel for schedule(static) if (MIXI_AMG_TEAM(A))
    for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {
        double vv = 0.0, vw = 0.0, ww = 0.0;
        MIXI_CHUNK_FOR(i, A->nr, c) {
            double t = 0.0;
            for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) t += A->v[k] * s[A->ci[k]] * v[A->ci[k]];
            w[i] = s[i] * t - beta * u[i];
            vv += v[i] * v[i];
            vw += v[i] * w[i];
            ww += w[i] * w[i];
        }
        part[0][c] = vv, part[1][c] = vw, part[2][c] = ww;
    }
    for (int j = 0; j < 3; j++) d[j] = mixi_chunks_total(part[j]);
}

/* w = (w - alpha v) / ||w - alpha v|| (alpha = <v, w> / <v, v>), the next Lanczos vector, in one
 * pass; returns the norm: <w, w> - alpha <v, w> from the product's dot products (the measured
 * <v, v>, so that a rounded norm does not carry into the next step), or from a pass of its own
 * where that difference cancels to under 1e-6 of <w, w> (too few digits left). */
static double lanczos_next(int n, const double d[3], double *alpha, const double *v, double *w)
{
    const double a = d[1] / d[0];
    double bb = d[2] - a * d[1];
    *alpha = a;
    if (!(bb > 1e-6 * d[2])) {
        double part[MIXI_SUM_CHUNKS];
#pragma omp parallel for schedule(static) if (n >= MIXI_AMG_TEAM_MIN_N)
        for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {
            double sum = 0.0;
            MIXI_CHUNK_FOR(i, n, c) sum += (w[i] - a * v[i]) * (w[i] - a * v[i]);
            part[c] = sum;
        }
        bb = mixi_chunks_total(part);
    }
    const double beta = sqrt(bb), f = beta > 0.0 ? 1.0 / beta : 0.0;
#pragma omp parallel for schedule(static) if (n >= MIXI_AMG_TEAM_MIN_N)
    for (int i = 0; i < n; i++) w[i] = (w[i] - a * v[i]) * f;
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
 * the V-cycle was not SPD).  The steps stop early once MIXI_AMG_LMAX_MARGIN times the Ritz value
 * reaches the caller's upper bound: the margin then provably covers the rest (3-D Poisson's
 * fine level: Gershgorin's 2, reached after a few steps instead of 20 SpMVs, a second of the
 * set-up at 150^3). */
#define AMG_LANCZOS_STEPS 20
/* The start vector, unit norm (uneven entries: no eigenvector of a stencil is constant); its
 * norm summed in fixed chunks, so that it has the same bits on any number of threads. */
static void lanczos_start(int n, double *v)
{
    double part[MIXI_SUM_CHUNKS];
#pragma omp parallel for schedule(static) if (n >= MIXI_AMG_TEAM_MIN_N)
    for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {
        double sum = 0.0;
        MIXI_CHUNK_FOR(i, n, c) {
            v[i] = 1.0 + (double)((i * INT64_C(7919)) % 97) / 97.0;
            sum += v[i] * v[i];
        }
        part[c] = sum;
    }
    const double f = 1.0 / sqrt(mixi_chunks_total(part));
#pragma omp parallel for schedule(static) if (n >= MIXI_AMG_TEAM_MIN_N)
    for (int i = 0; i < n; i++) v[i] *= f;
}

/* Two passes a step (the product with both dot products, then the next vector); the three
 * vectors rotate: the previous one's storage takes the next product. */
static double lanczos(const mixi_amg_csr *A, const double *dinv_sqrt, double upper, double *u,
                      double *v, double *w)
{
    const int n = A->nr;
    double a[AMG_LANCZOS_STEPS], b[AMG_LANCZOS_STEPS + 1], lam = 2.0, d[3];
    lanczos_start(n, v);
    memset(u, 0, (size_t)n * sizeof *u);
    b[0] = 0.0;
    for (int m = 0; m < AMG_LANCZOS_STEPS && m < n; m++) {
        scaled_apply(A, dinv_sqrt, v, b[m], u, w, d);
        if (!isfinite(d[1]) || !isfinite(d[2]) || !(d[0] > 0.0)) break;
        b[m + 1] = lanczos_next(n, d, &a[m], v, w);
        lam = tridiag_max(a, b, m + 1);
        if (!(b[m + 1] > 1e-12 * fabs(a[m]))) break; /* an invariant subspace: exact */
        if (MIXI_AMG_LMAX_MARGIN * lam >= upper) break;
        double *old = u;
        u = v, v = w, w = old;
    }
    return lam;
}

/* The Rayleigh quotient <v, A^ v> / <v, v> (A^ = D^-1/2 A D^-1/2, s = D^-1/2) of a vector of
 * signs that alternate along A's couplings: row i takes the sign of sum a^_ij v_j over the rows
 * j < i of its chunk, so that its own term adds (the checkerboard on a stencil of negative
 * couplings, the top of its spectrum), a lower bound on lambda_max from two passes.  Chunks
 * fixed, summed in order: the same bits on any number of threads. */
static double sign_quotient(const mixi_amg_csr *A, const double *s, double *v)
{
    const int n = A->nr;
    double part[MIXI_SUM_CHUNKS];
#pragma omp parallel for schedule(static) if (MIXI_AMG_TEAM(A))
    for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {
        const int64_t lo = mixi_chunk_lo(n, c);
        MIXI_CHUNK_FOR(i, n, c) {
            double t = 0.0;
            for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
                if (A->ci[k] >= lo && A->ci[k] < i) t += A->v[k] * s[A->ci[k]] * v[A->ci[k]];
            v[i] = t < 0.0 ? -1.0 : 1.0;
        }
    }
#pragma omp parallel for schedule(static) if (MIXI_AMG_TEAM(A))
    for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {
        double sum = 0.0;
        MIXI_CHUNK_FOR(i, n, c) {
            double t = 0.0;
            for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) t += A->v[k] * s[A->ci[k]] * v[A->ci[k]];
            sum += v[i] * s[i] * t;
        }
        part[c] = sum;
    }
    return n > 0 ? mixi_chunks_total(part) / n : 0.0;
}

double mixi_amg_lmax(const mixi_amg_csr *A, const double *dinv_sqrt, double upper)
{
    const size_t n = (size_t)A->nr + 1;
    double *u = mixi_malloc_scratch(n, sizeof *u), *v = mixi_malloc_scratch(n, sizeof *v);
    double *w = mixi_malloc_scratch(n, sizeof *w);
    /* Where the quotient of signs already reaches upper / margin (past its rounding), that is a
     * lower bound on lambda_max within the margin of it, the early stop's own answer, found
     * without Lanczos's steps: 3-D Poisson's fine level (1.95 against Gershgorin's 2), two
     * passes instead of 10 steps of two (0.26 s of the set-up at 150^3). */
    const double floor = upper / MIXI_AMG_LMAX_MARGIN;
    if (u && v && w && sign_quotient(A, dinv_sqrt, v) >= floor * (1.0 + 1e-12)) {
        mixi_free(u), mixi_free(v), mixi_free(w);
        return floor;
    }
    /* Gershgorin's bound for a diagonally dominant scaled matrix where memory runs out. */
    const double lam = u && v && w ? lanczos(A, dinv_sqrt, upper, u, v, w) : 2.0;
    mixi_free(u);
    mixi_free(v);
    mixi_free(w);
    return isfinite(lam) ? lam : NAN;
}
