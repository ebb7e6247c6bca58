/* chol_factor.c: Cholesky as a factorization of the dense flow: symmetric scaling and shifts for the low-precision Cholesky, its widened factor, LAPACK's dpotrf/dpotrs in FP64. */
#include <math.h>
#include "kernels/common/prec_traits.h"
#include "solvers/dense/dense_flow.h"

/* Diagonal shifts tried, in units of the GEMM input precision's unit roundoff times the scaled
 * diagonal, when the low-precision Cholesky of the scaled matrix breaks down (Higham and
 * Pranesh 2021, Alg. 3.1, which doubles a small constant; two larger steps here, because each
 * attempt costs a whole factorisation). */
static const double shift_steps[] = {4.0, 32.0};
/* Narrow exponent range (FP16): s = 2^14 puts the scaled diagonal in [2^14, 2^16), so entries
 * of L reach at most 256 (|l_ij| <= sqrt(a_ii)) and small ones stay above FP16's subnormal
 * range; the diagonal itself is never rounded to FP16 (storage is FP32). */
#define NARROW_RANGE_SCALE 0x1p14
/* A shifted factor hides how close A is to losing definiteness; the refined answer is kept only
 * while ||A|| ||x|| / ||b|| (a lower bound on A's condition number) of every column, and of a
 * random probe, stays below this.  Where LAPACK's dpotrf fails, A has an eigenvalue below about
 * n eps ||A||, and a random probe shows a bound above ~0.5 / (n^1.5 eps) (2.6e9 at n = 10^4):
 * far above 2^26 ~ 1/sqrt(eps).  A matrix above it that is SPD in FP64 only costs the FP64
 * Cholesky, which decides as LAPACK does. */
#define SHIFTED_KAPPA_TRUST 0x1p26
/* The probe w of A w = z is refined only until ||z - A w|| <= PROBE_TOL ||A|| ||w||: for a
 * near-null vector q of A (A q ~ delta ||A|| q), ||w|| >= |q'z| / ((PROBE_TOL + delta) ||A||),
 * so the bound still exceeds SHIFTED_KAPPA_TRUST by orders of magnitude wherever dpotrf fails
 * (delta < n eps), at a few refinement steps fewer than FP64's tolerance. */
#define PROBE_TOL 0x1p-40

static int chol_supported(const mixi_dense_ops *d) { return d->potrs_f32_f64 && d->potrf_f64; }

static double chol_flops(int n, int nrhs)
{
    return (double)n * n * n / 3.0 + 2.0 * (double)n * n * nrhs;
}

/* Unit roundoff of the GEMM inputs: 2^-(stored mantissa bits + 1). */
static double unit_roundoff(mix_prec p) { return ldexp(1.0, -(mixk_prec_mant_bits(p) + 1)); }

/* Symmetric power-of-two scaling (exact) into L->r: d_i = 2^-t_i with d_i^2 a_ii in [1, 4), so
 * every entry of D A D of an SPD A lies in (-4, 4) (|a_ij| <= sqrt(a_ii a_jj)).  *nonpos = 1
 * when some a_ii <= 0: A is not SPD, no low-precision attempt. */
static int sym_scaling(mixi_lowprec *L, const mixi_dense_problem *P, int *nonpos)
{
    mix_context *ctx = L->ctx;
    const int n = L->n;
    size_t bytes = (size_t)n * sizeof(double);
    int rc;
    *nonpos = 0;
    /* The diagonal is the 1 x n matrix with leading dimension lda + 1. */
    if ((rc = ctx->ops->dense->lacpy_f64(ctx->state, 0, 1, n, P->A.a, P->A.lda + 1, L->r, 1)) ||
        (rc = ctx->ops->download(ctx->state, L->host, L->r, bytes)))
        return rc;
    for (int i = 0; i < n; i++) {
        double v = L->host[i];
        if (!(v > 0.0)) {
            *nonpos = 1;
            return MIX_SUCCESS;
        }
        int e;
        frexp(v, &e); /* v in [2^(e-1), 2^e) */
        L->host[i] = ldexp(1.0, -(int)floor((e - 1) / 2.0));
    }
    return ctx->ops->upload(ctx->state, L->r, L->host, bytes);
}

/* Conversion and the Cholesky, shifted after a breakdown where scaled (at most
 * 1 + |shift_steps| attempts); *failed as mixi_chol_lowprec's. */
static int factor_attempts(mixi_lowprec *L, const mixi_dense_problem *P, int *failed, int *reason)
{
    mix_context *ctx = L->ctx;
    const mixi_dense_ops *d = ctx->ops->dense;
    const int n = L->n, whole = L->prec == MIX_FP32 && mixi_whole_f32(ctx, n);
    const int attempts = L->r ? 1 + (int)(sizeof shift_steps / sizeof shift_steps[0]) : 1;
    int rc;
    for (int k = 0; k < attempts; k++) {
        /* Checked against FP32, the storage: no entry of A is a GEMM input of the Cholesky,
         * only entries of L (about their square roots), whose overflow syrk_f32 reports. */
        size_t overflow = 0;
        if ((rc = d->convert_sym_f64_to_f32(ctx->state, MIX_FP32, P->A.uplo, n, P->A.a,
                                            P->A.lda, L->r, L->s, L->f, n, &overflow)))
            return rc;
        if (overflow) {
            *reason = MIX_REASON_OVERFLOW;
            return MIX_SUCCESS;
        }
        /* The scaled diagonal lies in [s, 4s): the shift is relative to it. */
        if (k > 0 &&
            (rc = d->shift_diag_f32(ctx->state, n, L->f, n,
                                    (float)(shift_steps[k - 1] * unit_roundoff(L->prec) * L->s))))
            return rc;
        L->shifted = k > 0;
        /* The pace is the last factorization's; earlier attempts and the conversions are
         * passes the bound's slack paid for (dense_flow.c's refine). */
        const double t_factor = P->budgeted ? mixi_wtime() : 0.0;
        if (whole) rc = d->potrf_f32(ctx->state, n, L->f, n, L->pwork, failed);
        else rc = mixi_chol_lowprec(ctx, L->prec, n, L->f, n, L->nb, L->gwork, L->pwork, failed);
        if (rc || (rc = ctx->ops->synchronize(ctx->state))) return rc;
        if (P->budgeted) L->t_floor = mixi_wtime() - t_factor;
        /* Breakdown (failed > 0) may yield to a shift; NaN/Inf or an overflow (-1) will not. */
        if (*failed <= 0) break;
    }
    return MIX_SUCCESS;
}

/* FP32 all the way: unscaled, by the backend's own Cholesky (the same algorithm, better tuned)
 * where it pays (mixi_whole_f32). */
static int chol_lowprec_factor(mixi_lowprec *L, const mixi_dense_problem *P, int *reason)
{
    mix_context *ctx = L->ctx;
    const mixi_dense_ops *d = ctx->ops->dense;
    const int n = L->n, nb = L->nb, whole = L->prec == MIX_FP32 && mixi_whole_f32(ctx, n);
    const int scaled = L->p->scale && L->prec != MIX_FP32;
    size_t pbytes = 0;
    int rc, failed = 0, nonpos = 0;
    if ((rc = d->potrf_f32_worksize(ctx->state, whole ? n : nb, &pbytes)) ||
        (!whole &&
         (rc = mixi_balloc(ctx, &L->gwork, mixi_lu_gemm_work_floats(n, nb), 1, sizeof(float)))) ||
        (pbytes && (rc = mixi_balloc(ctx, &L->pwork, pbytes, 1, 1))) ||
        (scaled && (rc = mixi_balloc(ctx, (void **)&L->r, (size_t)n, 1, sizeof(double)))) ||
        (scaled && !(L->host = mixi_malloc_n((size_t)n, sizeof(double))) && (rc = MIX_ERR_ALLOC)))
        return rc;
    if (scaled && (rc = sym_scaling(L, P, &nonpos))) return rc;
    if (nonpos) { /* a_ii <= 0: not SPD in any precision; FP64 reports where */
        *reason = MIX_REASON_FACTOR_FAILED;
        return MIX_SUCCESS;
    }
    if (scaled && mixk_prec_range_scaling(L->prec)) L->s = NARROW_RANGE_SCALE;
    if ((rc = factor_attempts(L, P, &failed, reason)) || *reason) return rc;
    if (failed) *reason = MIX_REASON_FACTOR_FAILED;
    mixi_chol_precond_init(&L->precond, ctx, n, L->f, n, L->r, L->s, L->swork);
    L->M = &L->precond.base;
    return MIX_SUCCESS;
}

/* max_j ||A||inf ||x_j||inf / ||b_j||inf over the n x k columns of x and b (backend). */
static int kappa_bound(mixi_lowprec *L, const mixi_dense_problem *P, int k, const double *b,
                       int ldb, const double *x, int ldx, double *kappa)
{
    const mixi_dense_ops *d = L->ctx->ops->dense;
    double *norms = mixi_malloc_n((size_t)k * 2, sizeof *norms);
    int rc = norms ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!rc && !(rc = d->col_absmax_f64(L->ctx->state, L->n, k, x, ldx, norms)) &&
        !(rc = d->col_absmax_f64(L->ctx->state, L->n, k, b, ldb, norms + k)))
        for (int j = 0; j < k; j++) {
            double bound = norms[k + j] > 0.0 ? P->anrm * norms[j] / norms[k + j] : 0.0;
            if (!(bound <= *kappa)) *kappa = bound; /* a NaN shows */
        }
    mixi_free(norms);
    return rc;
}

/* A probe z with entries in [-1, 1] (xorshift: the same every call), in backend memory. */
static int probe_vector(mixi_lowprec *L, double *z)
{
    double *h = mixi_malloc_n((size_t)L->n, sizeof *h);
    if (!h) return MIX_ERR_ALLOC;
    unsigned long long s = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < L->n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h[i] = (double)(s >> 11) * 0x1p-52 - 1.0;
    }
    int rc = L->ctx->ops->upload(L->ctx->state, z, h, (size_t)L->n * sizeof *h);
    mixi_free(h);
    return rc;
}

/* *definite = 0 when some of the n x k columns has x' b < 0 (or NaN): b' A^-1 b > 0 for an SPD
 * A and b != 0, so that proves A indefinite (0 is left alone: b = 0, or an underflow). */
static int definite_signs(mixi_lowprec *L, int k, const double *b, int ldb, const double *x,
                          int ldx, int *definite)
{
    const mixi_dense_ops *d = L->ctx->ops->dense;
    for (int j = 0; j < k; j++) {
        double xb = 0.0;
        int rc = d->dot_f64(L->ctx->state, L->n, x + (size_t)j * (size_t)ldx,
                            b + (size_t)j * (size_t)ldb, &xb);
        if (rc) return rc;
        if (xb < 0.0 || isnan(xb)) *definite = 0;
    }
    return MIX_SUCCESS;
}

/* GMRES-IR converges on an indefinite A as well (G G^T of rank n/2 minus 1e-3 I, n = 100, whose
 * FP16 Cholesky a shift lets through, and FP32's unshifted one at rank n - 1 minus 1e-6 I, n =
 * 200, were reported solved where dpotrf fails); a PD preconditioner M keeps A's inertia in M^-1
 * A, so classical IR diverges there and CG meets p'Ap <= 0.  So after GMRES-IR: *definite = 0
 * where a column has x' b < 0 (definite_signs), or where preconditioned CG on the probe meets
 * negative curvature within CURVATURE_ITS steps (a negative eigenvalue a low-precision
 * Cholesky misses is an outlier of M^-1 A, which the first Lanczos steps find); CG that stops
 * short of CURVATURE_RTOL without a breakdown shows nothing. */
#define CURVATURE_ITS 30
#define CURVATURE_RTOL 1e-8
static int gmres_definite(mixi_lowprec *L, const mixi_dense_problem *P, int *definite)
{
    mix_context *ctx = L->ctx;
    mixi_pcg_ws ws;
    double *z = NULL, *w = NULL;
    int its = 0, rc = definite_signs(L, P->nrhs, P->b, P->ldb, P->x, P->ldx, definite);
    if (rc || !*definite || (rc = mixi_pcg_ws_alloc(ctx, L->n, CURVATURE_ITS, &ws))) return rc;
    if (!(rc = mixi_balloc(ctx, (void **)&z, (size_t)L->n, 1, sizeof(double))) &&
        !(rc = mixi_balloc(ctx, (void **)&w, (size_t)L->n, 1, sizeof(double))) &&
        !(rc = probe_vector(L, z)) &&
        !(rc = mixi_pcg_solve(L->M, &P->A, &ws, z, w, CURVATURE_RTOL, &its)) && ws.breakdown)
        *definite = 0;
    mixi_pcg_ws_free(ctx, &ws);
    ctx->ops->free(ctx->state, z);
    ctx->ops->free(ctx->state, w);
    return rc;
}

/* The answer on low-precision factors stands only where FP64's Cholesky would not fail, as in
 * LAPACK's dsposv; else it decides.  After GMRES-IR: gmres_definite.  After a shifted
 * factorization: where the condition bound of the columns and of a refined probe column
 * certifies that A is safely positive definite in FP64 (SHIFTED_KAPPA_TRUST; issue 33: A = G
 * G^T of rank n/2 refined to |x| ~ 1e15 and success, where dpotrf fails). */
static int chol_certify(mixi_lowprec *L, const mixi_dense_problem *P, int *reason)
{
    int definite = 1, rc;
    if (L->use_gmres && (rc = gmres_definite(L, P, &definite))) return rc;
    if (!definite) *reason = MIX_REASON_FACTOR_FAILED;
    if (!L->shifted || !definite) return MIX_SUCCESS;
    mix_context *ctx = L->ctx;
    double *z = NULL, *w = NULL, kappa = 0.0;
    mix_gesv_params p = *L->p; /* the probe leaves the caller's history alone */
    p.residual_history = NULL;
    p.history_capacity = 0;
    p.tol = PROBE_TOL;
    mixi_refine_result rr;
    const mixi_refine_job job = {
        .ctx = ctx, .p = &p, .n = L->n, .nrhs = 1, .A = P->A, .ldb = L->n, .ldx = L->n,
        .r = L->res, .M = L->M, .gmres = L->use_gmres ? &L->gm : NULL,
        .cg = L->use_cg ? &L->cg : NULL, .anrm = P->anrm};
    rc = kappa_bound(L, P, P->nrhs, P->b, P->ldb, P->x, P->ldx, &kappa);
    if (rc || !(kappa < SHIFTED_KAPPA_TRUST)) goto out;
    if ((rc = mixi_balloc(ctx, (void **)&z, (size_t)L->n, 1, sizeof(double))) ||
        (rc = mixi_balloc(ctx, (void **)&w, (size_t)L->n, 1, sizeof(double))) ||
        (rc = probe_vector(L, z)))
        goto out;
    mixi_refine_job probe = job;
    probe.b = z;
    probe.x = w;
    if ((rc = mixi_refine(&probe, &rr))) goto out;
    if (!rr.converged) kappa = INFINITY;
    else rc = kappa_bound(L, P, 1, z, L->n, w, L->n, &kappa);
out:
    if (!rc && !(kappa < SHIFTED_KAPPA_TRUST)) *reason = MIX_REASON_FACTOR_FAILED;
    ctx->ops->free(ctx->state, z);
    ctx->ops->free(ctx->state, w);
    return rc;
}

static int chol_lowprec_finish(mixi_lowprec *L, const mixi_dense_problem *P, int *ipiv)
{
    (void)ipiv;
    if (!P->f_out) return MIX_SUCCESS;
    return mixi_chol_widen(L->ctx, L->n, L->f, L->n, L->r, L->s, P->A.uplo, P->f_out,
                           P->ld_f_out);
}

const mixi_factorization mixi_chol_factorization = {
    .sym = 1, .err_factor = MIX_ERR_NOT_SPD, .fp64_nan_fails = 0, .range_second_copy = 1,
    .supported = chol_supported, .auto_choice = mixi_posv_auto_choice, .fp64_flops = chol_flops,
    .lowprec_factor = chol_lowprec_factor, .certify = chol_certify,
    .lowprec_finish = chol_lowprec_finish};
