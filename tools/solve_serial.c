/* solve_serial.c: `mixsolve solve` on one process: LU-IR or mixed-precision CG, checked in FP64, and
 * the serial paths the MPI command (cmd_solve_mpi.c) takes for what CG across ranks cannot solve. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tools/cli.h"
#include "matrices/mmio.h"


static const char *refine_name(mix_refine r)
{
    return r == MIX_REFINE_CLASSICAL ? "classical" : r == MIX_REFINE_GMRES ? "gmres" : r == MIX_REFINE_CG ? "cg" : "auto";
}

/* The dense run's lines on stdout. */
static void report_dense(mix_context *ctx, const solve_opts *o, int chol, int st, const mix_gesv_info *info,
                         const double *hist, double be, double t)
{
    static const char *const reasons[] = {"none", "FP64 chosen directly", "overflow converting to low precision",
                                          "low-precision factorization failed", "refinement did not converge",
                                          "NaN/Inf during refinement",
                                          "refinement predicted slower than FP64"};
    printf("method          : %s (%s), factor %s%s, refine %s, backend %s\n", chol ? "chol" : "lu",
           chol ? "Cholesky-IR" : "LU-IR", mix_prec_name(info->factor_prec_used),
           o->prec == MIX_PREC_AUTO ? " (chosen by auto)" : "", refine_name(o->refine),
           mix_backend_name(mix_context_backend(ctx)));
    printf("status          : %s\n", st ? mix_strerror(st) : "solved");
    printf("iterations      : %d outer, %d inner (Krylov)\n", info->iter, info->inner_iter);
    printf("fallback        : %s\n",
           info->fell_back ? (info->reason >= 0 && info->reason <= 6 ? reasons[info->reason] : "yes") : "no");
    printf("backward error  : %.3e (solver), %.3e (recomputed in FP64)\n", info->backward_error, be);
    if (info->history_length > 0) {
        printf("history         :");
        for (int k = 0; k < info->history_length && k < 64; k++) printf(" %.2e", hist[k]);
        printf("\n");
    }
    printf("times           : factor %.4f s, refine %.4f s, total %.4f s\n", info->t_factor, info->t_refine, t);
}

/* Dense LU-IR, or (chol) Cholesky-IR of an SPD A from its lower triangle. */
static int run_dense(mix_context *ctx, const solve_opts *o, const mixm_csr *A, const double *b, double *x,
                     int chol)
{
    int n = A->nrows;
    const char *what = chol ? "Cholesky-IR" : "LU-IR";
    if (n > o->dense_max && !chol) return cli_run_sparse_lu(ctx, o, A, b, x);
    /* Cholesky reads one triangle: on a nonsymmetric A it solves another matrix, which the
     * recheck below would then reject after a "solved" from the library. */
    if (chol && !mixm_csr_is_symmetric(A))
        return cli_error(CLI_USAGE, "%s: A is not symmetric; --method chol needs a symmetric A (use --method lu)",
                         o->file);
    if (n > o->dense_max)
        return cli_error(CLI_USAGE, "%s: n = %d is too large for dense Cholesky (--dense-max %ld); use --method cg",
                         o->file, n, o->dense_max);
    char names[256];
    if (!cli_prec_has(MIX_ROLE_FACTOR, o->prec))
        return cli_error(CLI_USAGE, "--prec %s is for cg only (lu: %s)", mix_prec_name(o->prec),
                         cli_prec_choices(MIX_ROLE_FACTOR, names, sizeof names));
    if (!chol && o->refine == MIX_REFINE_CG) return cli_error(CLI_USAGE, "--refine cg is for --method chol only");
    mixm_dense D;
    if (mixm_csr_to_dense(A, &D)) return cli_error(CLI_SOLVER_FAILED, "out of memory for a dense %d x %d copy", n, n);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!ipiv) {
        mixm_dense_free(&D);
        return cli_error(CLI_SOLVER_FAILED, "out of memory");
    }
    double hist[64];
    mix_gesv_params prm;
    mix_gesv_params_init(&prm);
    prm.factor_prec = o->prec;
    prm.refine = o->refine;
    if (o->tol > 0) prm.tol = o->tol;
    if (o->max_iter > 0) prm.max_iter = (int)o->max_iter;
    prm.residual_history = hist;
    prm.history_capacity = 64;
    mix_gesv_info info;
    memset(&info, 0, sizeof info);
    double t0 = mixm_wtime();
    int st = chol ? mix_dposv_ir(ctx, &prm, MIX_COL_MAJOR, 'L', n, 1, D.a, n, b, n, x, n, &info)
                  : mix_dgesv_ir(ctx, &prm, MIX_COL_MAJOR, n, 1, D.a, n, ipiv, b, n, x, n, &info);
    double t = mixm_wtime() - t0;
    free(ipiv);
    mixm_dense_free(&D);
    /* The backward error again, here, in FP64 from the original sparse A, scaled so that no
     * norm overflows or underflows; NaN stays NaN (a failure below). */
    double be = NAN;
    /* x is written on success and where the library returns it beside its status: a
     * solution whose digits underflowed (NOT_CONVERGED) or that overflows (OVERFLOW). */
    if (!st || st == MIX_ERR_NOT_CONVERGED || st == MIX_ERR_OVERFLOW)
        mixm_csr_recheck(A, b, x, &be, NULL);
    report_dense(ctx, o, chol, st, &info, hist, be, t);
    if (st < 0) return cli_error(CLI_SOLVER_FAILED, "%s: %s refused argument %d (internal error)", o->file, what, -st);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: %s failed: %s", o->file, what, mix_strerror(st));
    if (!(be <= 1e-8)) return cli_error(CLI_SOLVER_FAILED, "%s: backward error %.3e is too large", o->file, be);
    return CLI_OK;
}

/* 0 solved, else the CLI status; *not_spd set when CG saw a non-positive curvature. */
static int run_cg(mix_context *ctx, const solve_opts *o, const mixm_csr *A, const double *b, double *x,
                  int quiet_not_spd, int *not_spd)
{
    *not_spd = 0;
    char names[256];
    if (!cli_prec_has(MIX_ROLE_STORAGE, o->prec))
        return cli_error(CLI_USAGE, "--prec %s is for lu only (cg: %s)", mix_prec_name(o->prec),
                         cli_prec_choices(MIX_ROLE_STORAGE, names, sizeof names));
    mix_cg_params prm;
    cli_cg_params(o, &prm);
    mix_sparse *S = NULL;
    double t0 = mixm_wtime();
    int st = mix_sparse_create_csr(ctx, A->nrows, A->rowptr, A->colind, A->val, &S);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: cannot set up the sparse matrix: %s", o->file, mix_strerror(st));
    mix_cg_info info;
    memset(&info, 0, sizeof info);
    st = mix_dcg(ctx, &prm, S, b, x, &info);
    double t = mixm_wtime() - t0;
    if (st == MIX_ERR_NOT_SPD || info.reason == MIX_CG_BREAKDOWN_NOT_SPD) {
        *not_spd = 1;
        if (quiet_not_spd) return CLI_SOLVER_FAILED;
    }
    /* ||b - A x|| / ||b|| again, here, range-safe (||b||^2 may under- or overflow); NaN stays. */
    double res = NAN;
    mixm_csr_recheck(A, b, x, NULL, &res);
    cli_report_cg(ctx, &prm, S, st, &info, res, t);
    mix_sparse_destroy(S);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: CG failed: %s", o->file, mix_strerror(st));
    if (!(res <= 10 * prm.tol))
        return cli_error(CLI_SOLVER_FAILED, "%s: recomputed residual %.3e exceeds the tolerance", o->file, res);
    return CLI_OK;
}

/* Beyond --dense-max the LU is sparse (mix_dgesv_sparse), so every order may fall back. */
int cli_solve_auto_falls_back(const solve_opts *o, int n)
{
    (void)n;
    return o->method == 0;
}

int cli_solve_lu_instead(mix_context *ctx, const solve_opts *o, solve_problem *p)
{
    printf("note            : CG found A not positive definite; solving with LU-IR instead\n");
    memset(p->x, 0, (size_t)p->A.nrows * sizeof *p->x);
    solve_opts o2 = *o;
    if (!cli_prec_has(MIX_ROLE_FACTOR, o2.prec)) o2.prec = MIX_PREC_AUTO; /* a CG-only storage */
    return run_dense(ctx, &o2, &p->A, p->b, p->x, 0);
}

/* The method asked for, or auto's: CG for an SPD candidate, LU-IR otherwise and when CG finds A
 * not positive definite. */
static int run_method(mix_context *ctx, const solve_opts *o, solve_problem *p, int spd)
{
    const int method = o->method ? o->method : (spd ? 2 : 1);
    if (method != 2) return run_dense(ctx, o, &p->A, p->b, p->x, method == 3);
    const int may_fall_back = cli_solve_auto_falls_back(o, p->A.nrows);
    int not_spd;
    int rc = run_cg(ctx, o, &p->A, p->b, p->x, may_fall_back, &not_spd);
    if (rc && not_spd && may_fall_back) rc = cli_solve_lu_instead(ctx, o, p);
    return rc;
}

int cli_solve_write_x(const solve_opts *o, const solve_problem *p)
{
    if (!o->out) return CLI_OK;
    char err[512];
    mixm_dense X = {p->A.nrows, 1, p->x};
    if (mixm_mtx_write_dense(o->out, &X, err, sizeof err)) return cli_error(CLI_USAGE, "%s", err);
    printf("solution        : written to %s\n", o->out);
    return CLI_OK;
}

int cli_solve_serial(const solve_opts *o, solve_problem *p, const char *note)
{
    mix_context *ctx = NULL;
    const int st = mix_context_create(&ctx, o->backend);
    if (st)
        return cli_error(CLI_SOLVER_FAILED, "cannot use backend %s: %s", mix_backend_name(o->backend),
                         mix_strerror(st));
    const int n = p->A.nrows, spd = cli_spd_candidate(&p->A);
    printf("matrix          : %s (%d x %d, %lld entries, %s%s), read in %.3f s\n", o->file, n, n,
           (long long)p->A.nnz,
           p->h.symmetry == MIXM_MTX_SYMMETRIC ? "symmetric" : p->h.symmetry == MIXM_MTX_SKEW ? "skew-symmetric" : "general",
           spd ? ", SPD candidate" : "", p->t_read);
    printf("right-hand side : %s\n", o->rhs ? o->rhs : "b = A * ones");
    if (note) printf("note            : %s\n", note);
    int rc = run_method(ctx, o, p, spd);
    if (rc == CLI_OK) rc = cli_solve_write_x(o, p);
    mix_context_destroy(ctx);
    return rc;
}
