/* amg_setup.c: one coarsening step of smoothed aggregation (Vanek, Mandel, Brezina 1996), in
 * FP64 on host CSR: strength of connection, greedy aggregation, the tentative prolongator T of
 * the constants (one column per aggregate), one damped Jacobi step P = (I - w D^-1 A) T, and
 * the Galerkin product Ac = P^T A P. */
#include <math.h>
#include <string.h>
#include "solvers/amg/amg.h"

/* |a_ij| >= theta sqrt(a_ii a_jj) is strong, theta = 0.08 * 0.5^level (Vanek, Mandel, Brezina;
 * ML's default).  0.08 keeps the 3-D Poisson stencil (1/6 after scaling) and drops the 1e-3
 * couplings of an anisotropic problem, so that aggregates follow the strong direction.  The
 * halving matters: a Galerkin operator spreads a row over 30-60 neighbours, and a flat 0.08
 * left a quarter of the first coarse level of 3-D Poisson 120^3 without strong neighbours
 * (out of every aggregate) and the rest in aggregates of 2-3 rows (23 CG iterations, operator
 * complexity 1.77; halved: 16 and 1.33). */
#define AMG_THETA 0.08
/* Coarsening stops when an aggregation keeps more than this share of the rows. */
#define AMG_MIN_RATIO 0.85
/* The smoothing of P: w = 4/3 / lambda_max(D^-1 A) (the classical choice). */
#define AMG_OMEGA 1.3333333333333333
/* Levels below this one aggregate to distance 2 (seed_aggregates). */
#define AMG_WIDE_LEVELS 1

/* Pass 1: a row whose strong neighbours are all free seeds an aggregate of them and, with
 * wide set, of the free rows strongly connected to two or more of them (distance 2, compact:
 * 3-D 7-point aggregates of 19 rows, a 3^3 cube without its corners, instead of 7), so that the
 * first coarse level has about a third of the rows and the hierarchy fewer nonzeros (GAMG
 * aggregates on the squared graph for the same reason; all of distance 2, 25 rows, cost 3-D
 * Poisson 33 iterations instead of 13).  Pass 2: a free row joins a pass-1 aggregate of a
 * strong neighbour.  Pass 3: what is left seeds aggregates with its free neighbours (or,
 * with none free, joins a neighbour's).  Rows without strong neighbours stay out (-1): the
 * smoother alone handles them (a Dirichlet row, a decoupled unknown).  hits: n zeros,
 * left zero.  Returns the number of aggregates. */
static int seed_aggregates(const mixi_amg_csr *A, const uint8_t *strong, int wide, int *agg, int *hits)
{
    int na = 0;
    for (int i = 0; i < A->nr; i++) {
        int free_all = agg[i] < 0, any = 0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1] && free_all; k++)
            if (strong[k]) any = 1, free_all = agg[A->ci[k]] < 0;
        if (!any || !free_all) continue;
        agg[i] = na;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (strong[k]) agg[A->ci[k]] = na;
        for (int pass = 0; wide && pass < 2; pass++) /* count, then take and reset */
            for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
                const int j = A->ci[k];
                if (j == i || agg[j] != na) continue;
                for (int64_t q = A->rp[j]; q < A->rp[j + 1]; q++) {
                    const int c = A->ci[q];
                    if (agg[c] >= 0 || !strong[q]) continue;
                    if (pass == 0) {
                        hits[c]++;
                    } else if (hits[c]) {
                        if (hits[c] >= 2) agg[c] = na;
                        hits[c] = 0;
                    }
                }
            }
        na++;
    }
    return na;
}

/* strong[k] = entry k is a strong coupling (mixi_amg_strong), in parallel: the passes below are
 * serial and test each entry several times (the wide pass: a seed's neighbours' rows twice). */
static uint8_t *strong_entries(const mixi_amg_csr *A, const double *s, double theta)
{
    uint8_t *strong = mixi_malloc_scratch((size_t)A->rp[A->nr] + 1, sizeof *strong);
    if (!strong) return NULL;
#pragma omp parallel for schedule(static) if (MIXI_AMG_TEAM(A))
    for (int i = 0; i < A->nr; i++)
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) strong[k] = (uint8_t)mixi_amg_strong(A, s, theta, i, k);
    return strong;
}

int mixi_amg_aggregate(const mixi_amg_csr *A, const double *s, double theta, int wide, int *agg)
{
    const int n = A->nr;
    int *hits = mixi_malloc_scratch((size_t)n + 1, sizeof *hits);
    uint8_t *strong = strong_entries(A, s, theta);
    if (!hits || !strong) {
        mixi_free(hits), mixi_free(strong);
        return -1;
    }
    memset(hits, 0, ((size_t)n + 1) * sizeof *hits);
    for (int i = 0; i < n; i++) agg[i] = -1;
    int na = seed_aggregates(A, strong, wide, agg, hits);
    mixi_free(hits);
    const int pass1 = na;
    for (int i = 0; i < n; i++) {
        if (agg[i] >= 0) continue;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (strong[k] && agg[A->ci[k]] >= 0 && agg[A->ci[k]] < pass1) {
                agg[i] = agg[A->ci[k]];
                break;
            }
    }
    for (int i = 0; i < n; i++) {
        int any = 0, near = -1;
        if (agg[i] >= 0) continue;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
            if (!strong[k]) continue;
            if (agg[A->ci[k]] < 0) agg[A->ci[k]] = na, any = 1;
            else near = agg[A->ci[k]];
        }
        /* A row whose strong neighbours all went to pass-3 aggregates joins one of them. */
        agg[i] = any ? na++ : near;
    }
    mixi_free(strong);
    return na;
}

/* A coarse operator with more than this many times the entries of the level it is made from
 * is not made: the hierarchy ends at that level.  Smoothed aggregation on a graph with hubs (a
 * power-law graph's Laplacian) spreads each hub's aggregate over its neighbours' aggregates and
 * the Galerkin operators fill in: n = 10^5, 7 entries a row, a first coarse level of 9678 rows
 * of 555 entries (7.7 times the fine level's entries), then a dense one of 1675 rows; set-up
 * 16-26 s and 440 MB for 9 iterations, against 0.1 s for Jacobi CG's 26.  Every coarse operator
 * of the AMG tests' matrices has fewer entries than the level it comes from (0.85 at most). */
#define AMG_MAX_GROWTH 2

/* Ac = P^T (A P), its rows sorted; none (Ac freed) where it would be too dense.  P^T is freed
 * at once: the V-cycle restricts by the fine level's P (spmv_t) or Th (an implicit level), or
 * by an R the store transposes again from the scaled P below the fine level. */
static int galerkin(const mixi_amg_csr *A, const mixi_amg_csr *P, mixi_amg_csr *Ac)
{
    mixi_amg_csr R = {0};
    int st = mixi_amg_csr_transpose(P, &R);
    if (!st) st = mixi_amg_csr_galerkin(&R, A, P, Ac);
    mixi_amg_csr_free(&R);
    if (!st && Ac->rp[Ac->nr] > AMG_MAX_GROWTH * A->rp[A->nr]) mixi_amg_csr_free(Ac);
    if (!st && Ac->rp) mixi_amg_csr_sort_rows(Ac);
    return st;
}

/* s = D^-1/2 of A: MIX_ERR_NOT_SPD for a diagonal entry <= 0 or missing, MIX_ERR_NAN for NaN. */
static int inv_sqrt_diag(const mixi_amg_csr *A, double *s)
{
    int nan = 0, bad = 0;
#pragma omp parallel for reduction(| : nan, bad) schedule(static) if (MIXI_AMG_TEAM(A))
    for (int i = 0; i < A->nr; i++) {
        double d = 0.0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (A->ci[k] == i) d = A->v[k];
        nan |= isnan(d);
        bad |= !(d > 0.0) || !isfinite(d);
        s[i] = d > 0.0 && isfinite(d) ? 1.0 / sqrt(d) : 0.0;
    }
    return nan ? MIX_ERR_NAN : bad ? MIX_ERR_NOT_SPD : MIX_SUCCESS;
}

/* Two facts of the scaled operator's rows: the share (in percent) of off-diagonal entries below
 * 2^-8 of their row's largest, what a FIXED16 row step keeps fewer than 7 bits of
 * (solvers/cg_matrix.c's test); and Gershgorin's bound on its largest eigenvalue. */
static void scaled_rows(const mixi_amg_csr *A, const double *s, int *tiny_pct, double *gershgorin)
{
    int64_t tiny = 0, off = 0;
    double g = 0.0;
#pragma omp parallel for reduction(+ : tiny, off) reduction(max : g) schedule(static) if (MIXI_AMG_TEAM(A))
    for (int i = 0; i < A->nr; i++) {
        double m = 0.0, sum = 0.0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
            const double x = fabs(A->v[k]) * s[A->ci[k]];
            sum += x;
            if (A->ci[k] != i) m = fmax(m, x);
        }
        g = fmax(g, sum * s[i]);
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (A->ci[k] != i && A->v[k] != 0.0)
                off++, tiny += fabs(A->v[k]) * s[A->ci[k]] < 0x1p-8 * m;
    }
    *tiny_pct = off ? (int)(100 * tiny / off) : 0;
    *gershgorin = g;
}

/* Ph = D^1/2 P Dc^-1/2 as a square matrix of order n (columns < nc; sc = Dc^-1/2). */
static void scale_transfer(mixi_amg_level *L, const double *sc, mixi_amg_csr *P)
{
    const double *s = L->dinv_sqrt;
#pragma omp parallel for schedule(static) if (MIXI_AMG_TEAM(P))
    for (int i = 0; i < P->nr; i++)
        for (int64_t k = P->rp[i]; k < P->rp[i + 1]; k++) P->v[k] *= sc[P->ci[k]] / s[i];
    P->nc = L->n;
    L->P = *P;
}

/* The level's own quantities: D^-1/2 (below the fine level already made by the level above,
 * transfers()), lambda_max, the FIXED16 fit. */
static int level_info(mixi_amg_level *L, const mixi_amg_csr *A)
{
    L->n = A->nr;
    L->nnz = A->rp[A->nr];
    if (!L->dinv_sqrt) {
        if (!(L->dinv_sqrt = mixi_malloc_n((size_t)L->n, sizeof(double)))) return MIX_ERR_ALLOC;
        const int st = inv_sqrt_diag(A, L->dinv_sqrt);
        if (st) return st;
    }
    double gershgorin;
    scaled_rows(A, L->dinv_sqrt, &L->tiny_share_pct, &gershgorin);
    L->lmax = mixi_amg_lmax(A, L->dinv_sqrt, gershgorin);
    return isfinite(L->lmax) ? MIX_SUCCESS : MIX_ERR_NAN;
}

/* A level's prolongator is applied implicitly, (I - w A^) Th through the operator the level
 * stores anyway, where its smoothing filtered nothing (A_F = A) and A has at most this many
 * times P's entries: the V-cycle then reads A twice more and Th twice instead of P and P^T,
 * and the store converts no P.  3-D Poisson 150^3, FIXED16, 2 threads, best of 40: the fine
 * level (A 2.2x P's entries) 4.3 + 4.3 + 2.2 + 3.0 ms against P^T's scatter 13.0 and P 5.6
 * (first solve 0.4-0.5 s less, the store converting no P); level 1 (3.7x) about even, so kept. */
#define AMG_IMPLICIT_MAX_RATIO 3

/* The transfers of level l and the next operator Ac from the aggregation agg (na aggregates),
 * with Ac's D^-1/2 into *sc_out (the next level's); implicit_ok: the backend applies implicit
 * prolongators.  Ac left empty (rp NULL), and no transfers, where it would be too dense. */
static int transfers(mixi_amg_level *L, const mixi_amg_csr *A, const int *agg, int na, int fine,
                     int implicit_ok, mixi_amg_csr *Ac, double **sc_out)
{
    mixi_amg_csr P = {0};
    double *sc = NULL;
    int filtered = 0;
    /* The smoothing filtered on the fine level only: with the weak couplings too, it spread
     * every aggregate across them (3-D anisotropic 100^3, coupling 1e-3: operator complexity
     * 2.95, set-up 86 s); on the coarse levels of 3-D Poisson, whose Galerkin operators hold
     * many entries below the threshold, filtering cost 19 iterations instead of 13 at 100^3. */
    L->w = AMG_OMEGA / L->lmax;
    int st = mixi_amg_prolongator(A, L->dinv_sqrt, L->w, fine ? AMG_THETA : 0.0, agg, na, &P,
                                  &filtered);
    if (!st) st = galerkin(A, &P, Ac);
    if (!st && !Ac->rp) { /* too dense: no coarser level */
        mixi_amg_csr_free(&P);
        *sc_out = NULL;
        return MIX_SUCCESS;
    }
    if (!st && !(sc = mixi_malloc_n((size_t)na, sizeof *sc))) st = MIX_ERR_ALLOC;
    if (!st) st = inv_sqrt_diag(Ac, sc);
    L->implicit = !st && implicit_ok && !filtered && A->rp[A->nr] <= AMG_IMPLICIT_MAX_RATIO * P.rp[P.nr];
    if (!st && L->implicit) {
        mixi_amg_csr_free(&P);
        st = mixi_amg_tent_make(agg, A->nr, na, L->dinv_sqrt, sc, &L->T);
    } else if (!st) {
        scale_transfer(L, sc, &P);
    }
    if (st) {
        mixi_amg_csr_free(&P);
        mixi_amg_csr_free(Ac);
        mixi_free(sc);
        sc = NULL;
    }
    *sc_out = sc;
    return st;
}

int mixi_amg_coarsen(mixi_amg *H, int l, const mixi_amg_csr *A, mixi_amg_csr *Ac, int *stop)
{
    mixi_amg_level *L = &H->lev[l];
    int st = level_info(L, A);
    *stop = 1;
    if (st || A->nr <= MIXI_AMG_COARSE_N || l + 1 >= MIXI_AMG_MAX_LEVELS) return st;
    int *agg = mixi_malloc_scratch((size_t)A->nr, sizeof *agg);
    if (!agg) return MIX_ERR_ALLOC;
    const int na = mixi_amg_aggregate(A, L->dinv_sqrt, ldexp(AMG_THETA, -l), l < AMG_WIDE_LEVELS, agg);
    if (na < 0) st = MIX_ERR_ALLOC;
    if (na > 0 && na <= AMG_MIN_RATIO * A->nr) {
        st = transfers(L, A, agg, na, l == 0, H->tent_ok, Ac, &H->lev[l + 1].dinv_sqrt);
        *stop = st != MIX_SUCCESS || !Ac->rp;
    }
    mixi_free(agg);
    return st;
}
