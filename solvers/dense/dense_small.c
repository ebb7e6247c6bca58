/* dense_small.c: small systems that FP64 solves in place (AUTO's choice below its low-precision
 * orders, or FP64 asked for): the flow's input checks fused into one pass over A and B. */
#include <float.h>
#include <math.h>
#include "solvers/dense/dense_flow.h"

/* At n = 2 LAPACKE_dgesv takes 0.12 us and the general flow's fixed cost (norm, range and NaN
 * passes through the operations table, dgetrf and dgetrs called apart) 0.18 us more, this path's
 * 0.06 us (2-core Ice Lake Xeon); from n ~ 32 the factorization hides either. */
#define SMALL_MAX_N 32
/* Right-hand sides solved in a stack copy (X is written only once it is computed). */
#define SMALL_MAX_ENTRIES 256

/* The flow's range exponents stay 0 where ||A||inf lies within 2^+-64 (mixi_beyond_range).  With
 * T the largest column sum of |A|'s stored part (the whole array, or one triangle of a
 * symmetric A, whose every entry mirrors a stored one), T / n <= max |a_ij| <= T and
 * max |a_ij| <= ||A||inf <= n max |a_ij|: a T inside this band (n <= 32) puts ||A||inf inside
 * 2^+-60 whatever the summation order, so the answer is the flow's. */
#define COLSUM_LO 0x1p-54
#define COLSUM_HI 0x1p54

/* 1 when A is finite and needs no range scaling (the band above).  Column sums run down
 * contiguous memory in four independent sums (row sums of a triangle added into an array of
 * rows per entry: 1.6x LAPACKE's own NaN check of a triangle at n = 24, in instructions). */
static int matrix_in_band(int n, const mixi_matrix *A)
{
    double t = 0.0;
    for (int j = 0; j < n; j++) {
        const double *col = A->a + (size_t)j * (size_t)A->lda;
        const int i0 = A->sym && A->uplo == MIXK_LOWER ? j : 0;
        const int i1 = A->sym && A->uplo == MIXK_UPPER ? j + 1 : n;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        int i = i0;
        for (; i + 4 <= i1; i += 4)
            s0 += fabs(col[i]), s1 += fabs(col[i + 1]), s2 += fabs(col[i + 2]), s3 += fabs(col[i + 3]);
        for (; i < i1; i++) s0 += fabs(col[i]);
        const double s = (s0 + s1) + (s2 + s3);
        if (!(s <= COLSUM_HI)) return 0; /* NaN, Inf or too large */
        if (s > t) t = s;
    }
    return t >= COLSUM_LO;
}

/* 1 when every column of B is finite and no column's largest entry asks for range scaling. */
static int rhs_in_range(int n, int nrhs, const double *b, int ldb)
{
    for (int j = 0; j < nrhs; j++) {
        const double *col = b + (size_t)j * (size_t)ldb;
        double big = 0.0;
        for (int i = 0; i < n; i++) {
            const double v = fabs(col[i]);
            if (!(v <= 0x1p64)) return 0; /* NaN, Inf or beyond the range */
            if (v > big) big = v;
        }
        if (mixi_beyond_range(big)) return 0;
    }
    return 1;
}

/* dgesv or dposv (the backend's: LAPACK's, or its own loops at tiny orders) on A's stored part,
 * into w (ld n); *info as theirs. */
static int one_call(mix_context *ctx, const mixi_matrix *A, int n, int nrhs, int *ipiv,
                    double *w, int *info)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    double *a = (double *)A->a; /* A is the call's own a, factored in place */
    if (A->sym) return d->posv_f64(ctx->state, A->uplo, n, nrhs, a, A->lda, w, n, info);
    return d->gesv_f64(ctx->state, n, nrhs, a, A->lda, ipiv, w, n, info);
}

int mixi_dense_small(mix_context *ctx, const mix_gesv_params *p, const mixi_dense_call *c,
                     const mixi_factorization *F, mix_gesv_info *info, int *idx)
{
    const mixi_backend_ops *o = ctx->ops;
    const int n = c->n, nrhs = c->nrhs;
    if (n > SMALL_MAX_N || nrhs > SMALL_MAX_ENTRIES / n || c->layout != MIX_COL_MAJOR ||
        !(o->flags & MIXI_BACKEND_HOST_MEMORY) ||
        !(F->sym ? o->dense->posv_f64 != NULL : o->dense->gesv_f64 != NULL))
        return MIXI_DENSE_NOT_SMALL;
    const mix_prec prec = p->factor_prec == MIX_PREC_AUTO ? F->auto_choice(ctx, n, nrhs, 1)
                                                          : p->factor_prec;
    const int lower = c->uplo == 'L' || c->uplo == 'l';
    const mixi_matrix A = {c->a, c->lda, F->sym, F->sym ? (lower ? MIXK_LOWER : MIXK_UPPER) : 0,
                           NULL};
    if (prec != MIX_FP64 || !matrix_in_band(n, &A) || !rhs_in_range(n, nrhs, c->b, c->ldb))
        return MIXI_DENSE_NOT_SMALL;
    /* What the flow's FP64 path chosen directly does, in place and untimed; X is written only
     * when it is computed, as there. */
    info->reason = MIX_REASON_DIRECT;
    info->fell_back = 1;
    info->iter = -1;
    info->factor_prec_used = MIX_FP64;
    info->backward_error = NAN; /* until X is computed */
    double w[SMALL_MAX_ENTRIES];
    int rc, finfo = 0, bad = 0;
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) w[i + j * n] = c->b[i + (size_t)j * (size_t)c->ldb];
    if ((rc = one_call(ctx, &A, n, nrhs, c->ipiv, w, &finfo))) return rc;
    if (finfo > 0) {
        *idx = finfo;
        return F->err_factor;
    }
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            const double v = w[i + j * n];
            bad |= !(fabs(v) <= DBL_MAX);
            c->x[i + (size_t)j * (size_t)c->ldx] = v;
        }
    bad &= F->fp64_nan_fails;
    info->backward_error = bad ? NAN : 0.0; /* not measured, as LAPACK's dgesv */
    return bad ? MIX_ERR_NAN : MIX_SUCCESS;
}
