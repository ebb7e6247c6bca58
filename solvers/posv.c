/* posv.c: the SPD driver: precision choice, symmetric scaling and shift, low-precision Cholesky, refinement, FP64 fallback. */
#include <float.h>
#include <math.h>
#include "kernels/common/prec_traits.h"
#include "solvers/solvers.h"

/* Diagonal shifts tried, in units of the GEMM input precision's unit roundoff times the scaled
 * diagonal, when the low-precision Cholesky of the scaled matrix breaks down (Higham and
 * Pranesh 2021, Alg. 3.1, which doubles a small constant; two larger steps here, because each
 * attempt costs a whole factorisation). */
static const double shift_steps[] = {4.0, 32.0};
/* Narrow exponent range (FP16): s = 2^14 puts the scaled diagonal in [2^14, 2^16), so entries
 * of L reach at most 256 (|l_ij| <= sqrt(a_ii)) and small ones stay above FP16's subnormal
 * range; the diagonal itself is never rounded to FP16 (storage is FP32). */
#define NARROW_RANGE_SCALE 0x1p14

typedef struct {
    mix_context *ctx;
    int n, nrhs;
    mixi_matrix A;   /* symmetric, the caller's triangle (uplo mapped to column-major) */
    const double *b; /* column-major B, ld ldb */
    int ldb;
    double *x;       /* column-major X, ld ldx */
    int ldx;
    double anrm;
    double *l_out;   /* host, column-major, ld ld_l_out: the widened factor on success (or NULL) */
    int ld_l_out;
} problem;

static int balloc(mix_context *ctx, void **ptr, size_t rows, size_t cols, size_t size)
{
    size_t bytes;
    *ptr = NULL;
    if (mixi_mul3_size(rows ? rows : 1, cols ? cols : 1, size, &bytes)) return MIX_ERR_ALLOC;
    return ctx->ops->alloc(ctx->state, ptr, bytes);
}

/* Unit roundoff of the GEMM inputs: 2^-(stored mantissa bits + 1). */
static double unit_roundoff(mix_prec p) { return ldexp(1.0, -(mixk_prec_mant_bits(p) + 1)); }

/* Copies the uplo triangle (diagonal included) of the n x n src into dst, column by column:
 * the other triangle is neither read nor written. */
static int copy_triangle(mix_context *ctx, int uplo, int n, const double *src, int lds,
                         double *dst, int ldd)
{
    const mix_dense_ops *d = ctx->ops->dense;
    for (int j = 0; j < n; j++) {
        int i0 = uplo == MIXK_LOWER ? j : 0, len = uplo == MIXK_LOWER ? n - j : j + 1;
        int rc = d->lacpy_f64(ctx->state, 0, len, 1, src + (size_t)j * lds + i0, lds,
                              dst + (size_t)j * ldd + i0, ldd);
        if (rc) return rc;
    }
    return MIX_SUCCESS;
}

/* Number of NaN/Inf entries in the uplo triangle of A (only called when ||A|| is not finite). */
static int count_bad_triangle(mix_context *ctx, const mixi_matrix *A, int n, size_t *bad)
{
    const mix_dense_ops *d = ctx->ops->dense;
    *bad = 0;
    for (int j = 0; j < n; j++) {
        int i0 = A->uplo == MIXK_LOWER ? j : 0, len = A->uplo == MIXK_LOWER ? n - j : j + 1;
        size_t c = 0;
        int rc = d->count_nonfinite_f64(ctx->state, len, 1, A->a + (size_t)j * A->lda + i0,
                                        A->lda, &c);
        if (rc) return rc;
        *bad += c;
    }
    return MIX_SUCCESS;
}

/* Symmetric power-of-two scaling (exact): d_i = 2^-t_i with d_i^2 a_ii in [1, 4), so every entry
 * of D A D of an SPD A lies in (-4, 4) (|a_ij| <= sqrt(a_ii a_jj)).  *nonpos = 1 when some
 * a_ii <= 0: A is not SPD, no low-precision attempt.  host: n doubles of scratch. */
static int sym_scaling(const problem *P, double *d, double *host, int *nonpos)
{
    mix_context *ctx = P->ctx;
    const int n = P->n;
    size_t bytes = (size_t)n * sizeof(double);
    int rc;
    *nonpos = 0;
    /* The diagonal is the 1 x n matrix with leading dimension lda + 1. */
    if ((rc = ctx->ops->dense->lacpy_f64(ctx->state, 0, 1, n, P->A.a, P->A.lda + 1, d, 1)) ||
        (rc = ctx->ops->download(ctx->state, host, d, bytes)))
        return rc;
    for (int i = 0; i < n; i++) {
        double v = host[i];
        if (!(v > 0.0)) {
            *nonpos = 1;
            return MIX_SUCCESS;
        }
        int e;
        frexp(v, &e); /* v in [2^(e-1), 2^e) */
        host[i] = ldexp(1.0, -(int)floor((e - 1) / 2.0));
    }
    return ctx->ops->upload(ctx->state, d, host, bytes);
}

/* Low-precision Cholesky (with shifts where allowed) + refinement.  *reason = MIX_REASON_NONE on
 * success, else why to fall back. */
static int lowprec_solve(const problem *P, const mix_gesv_params *p, mix_prec prec,
                         mix_gesv_info *info, int *reason)
{
    mix_context *ctx = P->ctx;
    const mix_backend_ops *o = ctx->ops;
    const mix_dense_ops *d = o->dense;
    const int n = P->n, nrhs = P->nrhs, nb = mixi_lu_block_size(n);
    /* FP32 all the way: the backend's own Cholesky is the same algorithm, better tuned. */
    const int whole = prec == MIX_FP32;
    const int scaled = p->scale && prec != MIX_FP32;
    float *l = NULL, *swork = NULL;
    double *dsc = NULL, *res = NULL, *host = NULL;
    void *gwork = NULL, *pwork = NULL;
    mixi_gmres_ws gm = {0};
    mixi_pcg_ws cg = {0};
    const int use_gmres = p->refine == MIX_REFINE_GMRES;
    const int use_cg = p->refine == MIX_REFINE_CG || p->refine == MIX_REFINE_AUTO;
    size_t pbytes = 0;
    int rc;
    double t0 = mixi_wtime();
    *reason = MIX_REASON_NONE;

    /* Every workspace once, before any work. */
    if ((rc = d->potrf_f32_worksize(ctx->state, whole ? n : nb, &pbytes)) ||
        (rc = balloc(ctx, (void **)&l, (size_t)n, (size_t)n, sizeof(float))) ||
        (!whole && (rc = balloc(ctx, &gwork, mixi_chol_gemm_work_floats(n, nb), 1, sizeof(float)))) ||
        (pbytes && (rc = balloc(ctx, &pwork, pbytes, 1, 1))) ||
        (rc = balloc(ctx, (void **)&swork, (size_t)n, (size_t)nrhs, sizeof(float))) ||
        (rc = balloc(ctx, (void **)&res, (size_t)n, (size_t)nrhs, sizeof(double))) ||
        (scaled && (rc = balloc(ctx, (void **)&dsc, (size_t)n, 1, sizeof(double)))) ||
        (scaled && !(host = mixi_malloc_n((size_t)n, sizeof(double))) && (rc = MIX_ERR_ALLOC)) ||
        (use_gmres && (rc = mixi_gmres_ws_alloc(ctx, n, p->gmres_restart, &gm))) ||
        (use_cg && (rc = mixi_pcg_ws_alloc(ctx, n, p->gmres_restart, &cg))))
        goto out;

    double s = 1.0;
    if (scaled) {
        int nonpos = 0;
        if ((rc = sym_scaling(P, dsc, host, &nonpos))) goto out;
        if (nonpos) { /* a_ii <= 0: not SPD in any precision; FP64 reports where */
            *reason = MIX_REASON_FACTOR_FAILED;
            goto out;
        }
        if (mixk_prec_range_scaling(prec)) s = NARROW_RANGE_SCALE;
    }
    const int attempts = scaled ? 1 + (int)(sizeof shift_steps / sizeof shift_steps[0]) : 1;
    int failed = 0;
    for (int k = 0; k < attempts; k++) {
        /* Checked against FP32, the storage: no entry of A is a GEMM input of the Cholesky,
         * only entries of L (about their square roots), whose overflow syrk_f32 reports. */
        size_t overflow = 0;
        if ((rc = d->convert_sym_f64_to_f32(ctx->state, MIX_FP32, P->A.uplo, n, P->A.a, P->A.lda,
                                            dsc, s, l, n, &overflow)))
            goto out;
        if (overflow) {
            *reason = MIX_REASON_OVERFLOW;
            goto out;
        }
        /* The scaled diagonal lies in [s, 4s): the shift is relative to it. */
        if (k > 0 &&
            (rc = d->shift_diag_f32(ctx->state, n, l, n,
                                    (float)(shift_steps[k - 1] * unit_roundoff(prec) * s))))
            goto out;
        if (whole) rc = d->potrf_f32(ctx->state, n, l, n, pwork, &failed);
        else rc = mixi_chol_lowprec(ctx, prec, n, l, n, nb, gwork, pwork, &failed);
        if (rc || (rc = o->synchronize(ctx->state))) goto out;
        /* Breakdown (failed > 0) may yield to a shift; NaN/Inf or an overflow (-1) will not. */
        if (failed <= 0) break;
    }
    info->t_factor = mixi_wtime() - t0;
    if (failed) {
        *reason = MIX_REASON_FACTOR_FAILED;
        goto out;
    }

    t0 = mixi_wtime();
    mixi_chol_precond M;
    mixi_chol_precond_init(&M, ctx, n, l, n, dsc, s, swork);
    /* Cost-aware stop as for LU: what the cost envelope leaves beside an FP64 Cholesky from
     * scratch (n^3/3 flops and the solves) after the attempts made.  Small systems: FP64 is
     * cheap, and a stop on so little time would be noise. */
    double fp64_flops = p->cost_fallback && n >= MIXI_COST_FALLBACK_MIN_N
                            ? (double)n * n * n / 3.0 + 2.0 * (double)n * n * nrhs
                            : 0.0;
    mixi_refine_job job = {ctx, p, n, nrhs, P->A, P->b, P->ldb, P->x, P->ldx, res, &M.base,
                           use_gmres ? &gm : NULL, use_cg ? &cg : NULL, P->anrm, 0.0,
                           fp64_flops, info->t_factor};
    mixi_refine_result rr;
    if ((rc = mixi_refine(&job, &rr))) goto out;
    if ((rc = o->synchronize(ctx->state))) goto out;
    info->t_refine = mixi_wtime() - t0;
    info->iter = rr.iter;
    info->inner_iter = rr.inner_iter;
    info->backward_error = rr.backward_error;
    info->history_length = rr.history_length;
    if (rr.nan) *reason = MIX_REASON_NAN_IN_REFINEMENT;
    else if (rr.too_slow) *reason = MIX_REASON_TOO_SLOW;
    else if (!rr.converged) *reason = MIX_REASON_NOT_CONVERGED;
    else if (P->l_out)
        rc = mixi_chol_widen(ctx, n, l, n, scaled ? dsc : NULL, s, P->A.uplo, P->l_out,
                             P->ld_l_out);
out:
    o->free(ctx->state, l);
    o->free(ctx->state, gwork);
    o->free(ctx->state, pwork);
    o->free(ctx->state, swork);
    o->free(ctx->state, res);
    o->free(ctx->state, dsc);
    mixi_free(host);
    mixi_gmres_ws_free(ctx, &gm);
    mixi_pcg_ws_free(ctx, &cg);
    return rc;
}

/* FP64 Cholesky.  Chosen directly: dpotrf in the caller's triangle, as dposv.  After a failed
 * low-precision attempt: on a copy of the triangle, so the backward error can be measured
 * against A, then the factor goes to the caller's triangle.  *not_pd = k > 0 as dpotrf's info. */
static int fp64_solve(const problem *P, int direct, mix_gesv_info *info, int *not_pd)
{
    mix_context *ctx = P->ctx;
    const mix_backend_ops *o = ctx->ops;
    const mix_dense_ops *d = o->dense;
    const int n = P->n, nrhs = P->nrhs, uplo = P->A.uplo;
    double *a = (double *)P->A.a; /* the caller's matrix: its triangle receives the factor */
    double *f = NULL, *res = NULL, *host = NULL;
    void *work = NULL;
    size_t wbytes = 0;
    int rc, finfo = 0, ldf = direct ? P->A.lda : n;
    double t0 = mixi_wtime();
    *not_pd = 0;
    if ((rc = d->potrf_f64_worksize(ctx->state, n, &wbytes)) ||
        (!direct && (rc = balloc(ctx, (void **)&f, (size_t)n, (size_t)n, sizeof(double)))) ||
        (!direct && (rc = balloc(ctx, (void **)&res, (size_t)n, (size_t)nrhs, sizeof(double)))) ||
        (wbytes && (rc = balloc(ctx, &work, wbytes, 1, 1))) ||
        (!direct && !(host = mixi_malloc_n((size_t)nrhs * 3, sizeof(double))) &&
         (rc = MIX_ERR_ALLOC)))
        goto out;
    if (direct) f = a;
    else if ((rc = copy_triangle(ctx, uplo, n, a, P->A.lda, f, n))) goto out;
    if ((rc = d->potrf_f64(ctx->state, uplo, n, f, ldf, work, &finfo)) ||
        (rc = o->synchronize(ctx->state)))
        goto out;
    info->t_factor += mixi_wtime() - t0;
    t0 = mixi_wtime();
    if (finfo > 0) {
        *not_pd = finfo;
    } else {
        if ((rc = d->lacpy_f64(ctx->state, 0, n, nrhs, P->b, P->ldb, P->x, P->ldx)) ||
            (rc = d->potrs_f64(ctx->state, uplo, n, nrhs, f, ldf, P->x, P->ldx)))
            goto out;
        /* Chosen directly, A is gone: no backward error (0), as no FP64 solver measures one. */
        if (!direct && (rc = mixi_backward_error(ctx, n, nrhs, &P->A, P->anrm, P->b, P->ldb, P->x, P->ldx, res, host,
                                                  &info->backward_error))) goto out;
    }
    if (!direct && (rc = copy_triangle(ctx, uplo, n, f, n, a, P->A.lda))) goto out;
    if ((rc = o->synchronize(ctx->state))) goto out;
    info->t_refine += mixi_wtime() - t0;
out:
    if (!direct) o->free(ctx->state, f);
    o->free(ctx->state, res);
    o->free(ctx->state, work);
    mixi_free(host);
    return rc;
}

/* The status a failed low-precision attempt gives when the caller asked for no FP64 fallback. */
static int no_fallback_status(int reason)
{
    switch (reason) {
    case MIX_REASON_OVERFLOW: return MIX_ERR_OVERFLOW;
    case MIX_REASON_NAN_IN_REFINEMENT: return MIX_ERR_NAN;
    case MIX_REASON_FACTOR_FAILED: return MIX_ERR_NOT_SPD;
    default: return MIX_ERR_NOT_CONVERGED;
    }
}

static int fallback_iter(int reason, int max_iter)
{
    switch (reason) {
    case MIX_REASON_DIRECT: return -1;
    case MIX_REASON_OVERFLOW: return -2;
    case MIX_REASON_FACTOR_FAILED: return -3;
    default: return -(max_iter + 1);
    }
}

/* ||A||inf, and whether A or B hold NaN/Inf (A's triangle scanned only when the norm is not
 * finite: one pass over A saved in the common case). */
static int check_input(problem *P, int *bad)
{
    mix_context *ctx = P->ctx;
    const mix_dense_ops *d = ctx->ops->dense;
    size_t bad_a = 0, bad_b = 0;
    int rc;
    if ((rc = d->norm_inf_sym_f64(ctx->state, P->A.uplo, P->n, P->A.a, P->A.lda, &P->anrm)) ||
        (!isfinite(P->anrm) && (rc = count_bad_triangle(ctx, &P->A, P->n, &bad_a))) ||
        (rc = d->count_nonfinite_f64(ctx->state, P->n, P->nrhs, P->b, P->ldb, &bad_b)))
        return rc;
    *bad = bad_a || bad_b;
    return MIX_SUCCESS;
}

int mixi_posv_run(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                  int nrhs, double *a, int lda, const double *b, int ldb, double *x, int ldx,
                  mix_gesv_info *info, int *not_pd_index)
{
    return mixi_posv_run_factor(ctx, p, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, info,
                                not_pd_index, NULL, 0);
}

int mixi_posv_run_factor(mix_context *ctx, const mix_gesv_params *p_in, int layout, char uplo,
                         int n, int nrhs, double *a, int lda, const double *b, int ldb, double *x,
                         int ldx, mix_gesv_info *info, int *not_pd_index, double *l_out,
                         int ld_l_out)
{
    const mix_backend_ops *o = ctx->ops;
    const mix_dense_ops *d = o->dense;
    mix_gesv_params p = *p_in;
    const mix_gesv_info zero = {0};
    *info = zero;
    *not_pd_index = 0;
    info->factor_prec_used = p.factor_prec;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS; /* nothing to solve, nothing written */
    if (!d || !d->potrs_f32_f64 || !d->potrf_f64) return info->status = MIX_ERR_UNSUPPORTED;

    /* A symmetric matrix is its own transpose: row-major storage of one triangle is column-major
     * storage of the other, so A is used in place in both layouts. */
    const int rowmajor = layout == MIX_ROW_MAJOR;
    const int lower = (uplo == 'L' || uplo == 'l') != rowmajor;
    double *b64 = NULL, *x64 = NULL, *a_s = NULL, *a_f = NULL, *b_s = NULL;
    int rc, not_pd = 0, bad = 0;
    problem P = {ctx, n, nrhs, {a, lda, 1, lower ? MIXK_LOWER : MIXK_UPPER}, b, ldb, x, ldx, 0.0,
                 rowmajor ? NULL : l_out, ld_l_out};
    if (rowmajor) { /* column-major copies of B and X; X is transposed back */
        if ((rc = balloc(ctx, (void **)&b64, (size_t)n, (size_t)nrhs, sizeof(double))) ||
            (rc = balloc(ctx, (void **)&x64, (size_t)n, (size_t)nrhs, sizeof(double))) ||
            (rc = d->lacpy_f64(ctx->state, 1, nrhs, n, b, ldb, b64, n)))
            goto out;
        P.b = b64; P.ldb = n;
        P.x = x64; P.ldx = n;
    }
    if ((rc = check_input(&P, &bad))) goto out;
    if (bad) {
        rc = MIX_ERR_NAN;
        goto out;
    }
    /* Near the edges of the FP64 range (subnormal or huge entries): solve the exactly scaled
     * system (4^m A) y = 2^kb B on copies (solvers/range.c); the factor goes back scaled by 2^-m. */
    int ka = 0, kb = 0;
    double *const a_user = a;
    const int lda_user = lda;
    if ((rc = mixi_range_exponents(ctx, n, nrhs, &P.A, P.anrm, P.b, P.ldb, &ka, &kb))) goto out;
    if ((ka || kb) && P.l_out) {
        /* The factor would be written before the x of the scaled system is re-checked, which may
         * still fail: the caller (the drop-in) hands such a system to LAPACK instead. */
        rc = MIX_ERR_UNSUPPORTED;
        goto out;
    }
    if (ka || kb) {
        if ((rc = balloc(ctx, (void **)&a_s, (size_t)n, (size_t)n, sizeof(double))) ||
            (rc = balloc(ctx, (void **)&b_s, (size_t)n, (size_t)nrhs, sizeof(double))) ||
            (rc = copy_triangle(ctx, P.A.uplo, n, P.A.a, P.A.lda, a_s, n)) ||
            (rc = d->lacpy_f64(ctx->state, 0, n, nrhs, P.b, P.ldb, b_s, n)))
            goto out;
        P.A.a = a_s; P.A.lda = n;
        P.b = b_s; P.ldb = n;
        if ((P.A.uplo == MIXK_LOWER ? (rc = mixi_scale_lower_pow2_f64(ctx, n, a_s, n, ka))
                                    : (rc = mixi_scale_upper_pow2_f64(ctx, 0, n, a_s, n, ka))) ||
            (rc = mixi_scale_pow2_f64(ctx, n, nrhs, b_s, n, kb)) ||
            (rc = check_input(&P, &bad)))
            goto out;
        /* The solve works on a second copy (the FP64 path factors it in place); a_s stays the
         * scaled A that the x returned is re-checked against. */
        if ((rc = balloc(ctx, (void **)&a_f, (size_t)n, (size_t)n, sizeof(double))) ||
            (rc = copy_triangle(ctx, P.A.uplo, n, a_s, n, a_f, n)))
            goto out;
        P.A.a = a_f;
    }

    mix_prec prec = p.factor_prec;
    int reason = MIX_REASON_NONE;
    if (prec == MIX_PREC_AUTO) prec = mixi_posv_auto_choice(ctx, n, nrhs);
    int skipped = 0; /* not started: predicted beyond the cost envelope (solvers/policy.c) */
    if (prec == MIX_FP64) reason = MIX_REASON_DIRECT;
    else if (!isfinite(P.anrm)) reason = MIX_REASON_OVERFLOW; /* row sums overflow */
    else if (!mixi_lowprec_may_start(ctx, &p, 1, prec, n, nrhs))
        reason = MIX_REASON_TOO_SLOW, skipped = 1;
    else if ((rc = lowprec_solve(&P, &p, prec, info, &reason))) goto out;
    info->factor_prec_used = prec;
    if (reason != MIX_REASON_NONE) {
        info->reason = reason;
        info->fell_back = 1;
        info->iter = fallback_iter(reason, p.max_iter);
        if (reason != MIX_REASON_DIRECT && !p.fallback) { /* a untouched */
            rc = no_fallback_status(reason);
            goto out;
        }
        info->factor_prec_used = MIX_FP64;
        if ((rc = fp64_solve(&P, reason == MIX_REASON_DIRECT || skipped, info, &not_pd))) goto out;
        if (ka) { /* the factor of 4^m A, in the copy: back to A's units, into the caller's a */
            if ((P.A.uplo == MIXK_LOWER ? (rc = mixi_scale_lower_pow2_f64(ctx, n, a_f, n, -ka / 2))
                                        : (rc = mixi_scale_upper_pow2_f64(ctx, 0, n, a_f, n, -ka / 2))) ||
                (rc = copy_triangle(ctx, P.A.uplo, n, a_f, n, a_user, lda_user)))
                goto out;
        } else if (kb && (rc = copy_triangle(ctx, P.A.uplo, n, a_f, n, a_user, lda_user))) {
            goto out;
        }
        if (not_pd) {
            *not_pd_index = not_pd;
            rc = MIX_ERR_NOT_SPD;
            goto out;
        }
    }
    const mixi_matrix As = {a_s, n, 1, P.A.uplo};
    if ((ka || kb) &&
        (rc = mixi_range_finish(ctx, n, nrhs, &As, P.anrm, P.b, P.ldb, P.x, P.ldx, ka, kb,
                                p.tol > 0.0 ? p.tol : 0.5 * DBL_EPSILON * sqrt((double)n),
                                &info->backward_error)) &&
        rc != MIX_ERR_NOT_CONVERGED)
        goto out;
    if (rowmajor) {
        int rc2 = d->lacpy_f64(ctx->state, 1, n, nrhs, x64, n, x, ldx);
        if (rc2) rc = rc2;
    }
out:
    o->free(ctx->state, b64);
    o->free(ctx->state, x64);
    o->free(ctx->state, a_s);
    o->free(ctx->state, a_f);
    o->free(ctx->state, b_s);
    return info->status = rc;
}
