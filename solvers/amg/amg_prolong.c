/* amg_prolong.c: the smoothed prolongator P = (I - w D^-1 A_F) T of smoothed aggregation, row
 * by row straight from the aggregates: T (one column per aggregate, the constants normalised)
 * has one entry per row, so row i of P gathers row i of A_F by its columns' aggregates, and
 * neither T nor the smoothing operator is formed (the 3-D Poisson fine level: a 92 MB copy of
 * A and a product's symbolic pass fewer). */
#include <math.h>
#include <string.h>
#include "solvers/amg/amg.h"

typedef struct {
    const mixi_amg_csr *A;
    const double *s;   /* D^-1/2 */
    const int *agg;
    const double *t;   /* T's value of each aggregate: 1/sqrt(its size) */
    double w, theta;   /* w / lambda_max(D^-1 A); theta: the filter's, 0 for none */
    int filter;
} prolong;

/* Row i of P into (ci, v) (NULL: counted only); mark[a] == i when aggregate a has its slot
 * pos[a] in this row.  A_F keeps A's strong entries and adds the weak ones to the diagonal,
 * so that its rows keep A's sums (J keeps the constants); *weak |= 1 where a nonzero one
 * moved (found while filling: the count needs no sums). */
static int64_t prolong_row(const prolong *d, int i, int *mark, int64_t *pos, int32_t *ci, double *v,
                           int *weak)
{
    const mixi_amg_csr *A = d->A;
    const double f = d->w * d->s[i] * d->s[i];
    double lumped = 0.0;
    int64_t e = 0;
    for (int64_t k = A->rp[i]; d->filter && v && k < A->rp[i + 1]; k++) /* values only */
        if (A->ci[k] != i && !mixi_amg_strong(A, d->s, d->theta, i, k)) {
            lumped += A->v[k];
            *weak |= A->v[k] != 0.0;
        }
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
        const int j = A->ci[k], a = d->agg[j];
        if (a < 0 || (d->filter && j != i && !mixi_amg_strong(A, d->s, d->theta, i, k))) continue;
        const double x = (j == i ? 1.0 - f * (A->v[k] + lumped) : -f * A->v[k]) * d->t[a];
        if (mark[a] != i) {
            mark[a] = i;
            pos[a] = e;
            if (ci) ci[e] = a, v[e] = x;
            e++;
        } else if (v) {
            v[pos[a]] += x;
        }
    }
    return e;
}

/* fill 0: P->rp[i + 1] = the length of row i; fill 1: the rows into P, sorted.  *weak: a nonzero
 * entry of A is not in A_F. */
static int prolong_pass(const prolong *d, int na, int fill, mixi_amg_csr *P, int *weak)
{
    int fail = 0, moved = 0;
#pragma omp parallel reduction(| : fail, moved) if (MIXI_AMG_TEAM(d->A))
    {
        int64_t *pos = mixi_malloc_scratch((size_t)na + 1, sizeof *pos);
        int *mark = mixi_malloc_scratch((size_t)na + 1, sizeof *mark);
        fail = !pos || !mark;
        for (int a = 0; !fail && a < na; a++) mark[a] = -1;
        /* Every thread meets the loop, also one whose arrays failed (it then skips its rows). */
#pragma omp for schedule(dynamic, 1024)
        for (int i = 0; i < d->A->nr; i++) {
            if (fail) continue;
            if (!fill) {
                P->rp[i + 1] = prolong_row(d, i, mark, pos, NULL, NULL, &moved);
                continue;
            }
            /* Sorted while in cache (a pass of its own over P took 0.03 s at 150^3). */
            const int64_t len = prolong_row(d, i, mark, pos, P->ci + P->rp[i], P->v + P->rp[i], &moved);
            mixi_amg_csr_sort_row(P->ci + P->rp[i], P->v + P->rp[i], len);
        }
        mixi_free(pos);
        mixi_free(mark);
    }
    *weak = moved;
    return fail ? MIX_ERR_ALLOC : MIX_SUCCESS;
}

int mixi_amg_prolongator(const mixi_amg_csr *A, const double *s, double w, double theta,
                         const int *agg, int na, mixi_amg_csr *P, int *filtered)
{
    int weak = 0;
    prolong d = {A, s, agg, NULL, w, theta, theta > 0.0};
    mixi_amg_csr C = {0};
    double *t = mixi_calloc((size_t)na + 1, sizeof *t);
    int st = t ? mixi_amg_csr_alloc(&C, A->nr, na, 0) : MIX_ERR_ALLOC;
    if (!st) {
        for (int i = 0; i < A->nr; i++)
            if (agg[i] >= 0) t[agg[i]] += 1.0;
        for (int a = 0; a < na; a++) t[a] = 1.0 / sqrt(t[a]);
        d.t = t;
        st = prolong_pass(&d, na, 0, &C, &weak);
    }
    if (!st) { /* the lengths to row pointers, then room for the entries */
        for (int i = 0; i < A->nr; i++) C.rp[i + 1] += C.rp[i];
        mixi_free(C.ci), mixi_free(C.v);
        C.ci = mixi_malloc_scratch((size_t)(C.rp[A->nr] > 0 ? C.rp[A->nr] : 1), sizeof *C.ci);
        C.v = mixi_malloc_scratch((size_t)(C.rp[A->nr] > 0 ? C.rp[A->nr] : 1), sizeof *C.v);
        st = C.ci && C.v ? prolong_pass(&d, na, 1, &C, &weak) : MIX_ERR_ALLOC;
    }
    mixi_free(t);
    if (st) mixi_amg_csr_free(&C);
    if (filtered) *filtered = weak;
    *P = C;
    return st;
}

void mixi_amg_tent_free(mixi_amg_tent *T)
{
    mixi_free(T->start);
    mixi_free(T->rows);
    mixi_free(T->val);
    memset(T, 0, sizeof *T);
}

int mixi_amg_tent_make(const int *agg, int n, int na, const double *s, const double *sc,
                       mixi_amg_tent *T)
{
    memset(T, 0, sizeof *T);
    T->n = n, T->nc = na;
    T->start = mixi_calloc((size_t)na + 2, sizeof *T->start);
    T->rows = mixi_malloc_n((size_t)n + 1, sizeof *T->rows);
    T->val = mixi_malloc_n((size_t)n + 1, sizeof *T->val);
    if (!T->start || !T->rows || !T->val) {
        mixi_amg_tent_free(T);
        return MIX_ERR_ALLOC;
    }
    /* A counting sort by aggregate (the rows in none as group na), rows ascending in each. */
    for (int i = 0; i < n; i++) T->start[(agg[i] >= 0 ? agg[i] : na) + 1]++;
    for (int a = 0; a <= na; a++) T->start[a + 1] += T->start[a];
    int32_t *next = T->start; /* advanced while placing, then shifted back */
    for (int i = 0; i < n; i++) {
        const int a = agg[i] >= 0 ? agg[i] : na;
        T->rows[next[a]] = i;
        T->val[next[a]] = 0.0;
        next[a]++;
    }
    for (int a = na; a > 0; a--) T->start[a] = T->start[a - 1];
    T->start[0] = 0;
    /* T's 1/sqrt(|a|), scaled: Th_ia = sc_a / sqrt(|a|) / s_i. */
    for (int a = 0; a < na; a++) {
        const int32_t k0 = T->start[a], k1 = T->start[a + 1];
        const double t = sc[a] / sqrt((double)(k1 - k0));
        for (int32_t k = k0; k < k1; k++) T->val[k] = t / s[T->rows[k]];
    }
    return MIX_SUCCESS;
}
