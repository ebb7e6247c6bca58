/* cmd_solve_sparse.c: `mixsolve solve --method lu` beyond --dense-max: sparse LU-IR (mix_dgesv_sparse), checked in FP64. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tools/cli.h"

static const char *const reasons[] = {"none", "FP64 chosen directly", "overflow converting to FP32",
                                      "FP32 factorization failed (zero or tiny pivot)",
                                      "refinement did not converge", "NaN/Inf during refinement",
                                      "refinement predicted slower than FP64"};

static void report(mix_context *ctx, const solve_opts *o, int st, const mix_gesv_info *info,
                   double be, double t)
{
    /* FP64 factors are KLU's where the library predicts little fill (mix_dgesv_sparse(3)). */
    printf("method          : lu (sparse LU-IR, %s), factor %s%s, refine %s, backend %s\n",
           info->factor_prec_used == MIX_FP32 ? "MUMPS" : "MUMPS/KLU",
           mix_prec_name(info->factor_prec_used), o->prec == MIX_PREC_AUTO ? " (chosen by auto)" : "",
           o->refine == MIX_REFINE_CLASSICAL ? "classical" : o->refine == MIX_REFINE_GMRES ? "gmres" : "auto",
           mix_backend_name(mix_context_backend(ctx)));
    printf("status          : %s\n", st ? mix_strerror(st) : "solved");
    printf("iterations      : %d outer, %d inner (Krylov)\n", info->iter, info->inner_iter);
    printf("fallback        : %s\n", info->fell_back ? (info->reason >= 0 && info->reason <= 6
                                                            ? reasons[info->reason] : "yes")
                                                      : "no");
    printf("backward error  : %.3e (solver), %.3e (recomputed in FP64)\n", info->backward_error, be);
    printf("times           : analysis + factor %.4f s, refine %.4f s, total %.4f s\n", info->t_factor,
           info->t_refine, t);
}

int cli_run_sparse_lu(mix_context *ctx, const solve_opts *o, const mixm_csr *A, const double *b,
                      double *x)
{
    if (o->prec != MIX_FP32 && o->prec != MIX_FP64 && o->prec != MIX_PREC_AUTO)
        return cli_error(CLI_USAGE, "--prec %s: sparse LU (n > --dense-max %ld) takes fp32, fp64 or auto",
                         mix_prec_name(o->prec), o->dense_max);
    if (o->refine == MIX_REFINE_CG) return cli_error(CLI_USAGE, "--refine cg is for --method chol only");
    mix_gesv_params prm;
    mix_gesv_params_init(&prm);
    prm.factor_prec = o->prec;
    prm.refine = o->refine;
    if (o->tol > 0) prm.tol = o->tol;
    if (o->max_iter > 0) prm.max_iter = (int)o->max_iter;
    mix_sparse *S = NULL;
    mix_gesv_info info;
    memset(&info, 0, sizeof info);
    double t0 = mixm_wtime();
    int st = mix_sparse_create_csr(ctx, A->nrows, A->rowptr, A->colind, A->val, &S);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: cannot set up the sparse matrix: %s", o->file, mix_strerror(st));
    st = mix_dgesv_sparse(ctx, &prm, S, 1, b, A->nrows, x, A->nrows, &info);
    double t = mixm_wtime() - t0;
    mix_sparse_destroy(S);
    double be = NAN;
    /* x is written on success and where the library returns it beside its status: a
     * solution whose digits underflowed (NOT_CONVERGED) or that overflows (OVERFLOW). */
    if (!st || st == MIX_ERR_NOT_CONVERGED || st == MIX_ERR_OVERFLOW)
        mixm_csr_recheck(A, b, x, &be, NULL);
    report(ctx, o, st, &info, be, t);
    if (st < 0) return cli_error(CLI_SOLVER_FAILED, "%s: sparse LU-IR refused argument %d (internal error)", o->file, -st);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: sparse LU-IR failed: %s", o->file, mix_strerror(st));
    if (!(be <= 1e-8)) return cli_error(CLI_SOLVER_FAILED, "%s: backward error %.3e is too large", o->file, be);
    return CLI_OK;
}
