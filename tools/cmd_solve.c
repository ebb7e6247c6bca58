/* cmd_solve.c: `mixsolve solve FILE.mtx`: one solve with LU-IR or mixed-precision CG, checked in FP64. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tools/cli.h"
#include "matrices/mmio.h"

#define DENSE_MAX 16384 /* dense LU of larger matrices needs > 2 GiB: refused */

static void solve_usage(FILE *f)
{
    fprintf(f,
            "Usage: mixsolve solve FILE.mtx [--rhs FILE] [--method lu|chol|cg|auto]\n"
            "         [--prec fp64|fp32|tf32|fp16|bf16|fixed16|auto] [--refine classical|gmres|cg|auto]\n"
            "         [--backend cpu|cuda|auto] [--tol T] [--max-iter N] [--precond jacobi|none] [--out x.mtx]\n"
            "Solves A x = b (A square, Matrix Market, plain or .gz); b from --rhs (array or coordinate,\n"
            "n x 1) or b = A * ones.  lu: dense LU in the factor precision (fp32, tf32, fp16, bf16;\n"
            "fp64 = plain LU) refined in FP64 (mix_dgesv_ir).  chol: dense Cholesky likewise, for SPD\n"
            "A, read from its lower triangle (mix_dposv_ir; --refine cg: CG-IR).\n"
            "cg: reliable-update CG with the matrix and vectors stored in the precision (fp64, fp32,\n"
            "fp16, bf16, fixed16) (mix_dcg).\n"
            "auto: cg when A is symmetric with a positive diagonal, lu otherwise (and lu again when\n"
            "cg finds A not SPD).  Prints iterations, backward error (lu) or true relative residual\n"
            "(cg) recomputed here in FP64, fallback and times.  CG uses the Jacobi preconditioner\n"
            "unless --precond none.  Exit: 0 solved, 1 solver failure,\n"
            "2 bad usage or input.\n");
}

typedef struct {
    const char *file, *rhs, *out;
    int method; /* 0 auto, 1 lu, 2 cg, 3 chol */
    mix_prec prec;
    mix_refine refine;
    mix_backend backend;
    double tol;
    long max_iter;
    int jacobi;
} solve_opts;

/* Dense LU-IR, or (chol) Cholesky-IR of an SPD A from its lower triangle. */
static int run_dense(mix_context *ctx, const solve_opts *o, const mixm_csr *A, const double *b, double *x,
                     int chol)
{
    int n = A->nrows;
    const char *what = chol ? "Cholesky-IR" : "LU-IR";
    if (n > DENSE_MAX)
        return cli_error(CLI_USAGE, "%s: n = %d is too large for dense LU (limit %d); use --method cg", o->file,
                         n, DENSE_MAX);
    mix_prec p = o->prec == MIX_PREC_AUTO ? MIX_PREC_AUTO : o->prec;
    if (p == MIX_FIXED16) return cli_error(CLI_USAGE, "--prec fixed16 is for cg only (lu: fp64, fp32, tf32, fp16, bf16)");
    if (!chol && o->refine == MIX_REFINE_CG) return cli_error(CLI_USAGE, "--refine cg is for --method chol only");
    mixm_dense D;
    if (mixm_csr_to_dense(A, &D)) return cli_error(CLI_SOLVER_FAILED, "out of memory for a dense %d x %d copy", n, n);
    int *ipiv = malloc((size_t)(n ? n : 1) * sizeof *ipiv);
    double hist[64];
    mix_gesv_params prm;
    mix_gesv_params_init(&prm);
    prm.factor_prec = p;
    prm.refine = o->refine;
    if (o->tol > 0) prm.tol = o->tol;
    if (o->max_iter > 0) prm.max_iter = (int)o->max_iter;
    prm.residual_history = hist;
    prm.history_capacity = 64;
    mix_gesv_info info;
    memset(&info, 0, sizeof info);
    int rc = CLI_OK;
    if (!ipiv) {
        rc = cli_error(CLI_SOLVER_FAILED, "out of memory");
        goto out;
    }
    double t0 = mixm_wtime();
    int st = chol ? mix_dposv_ir(ctx, &prm, MIX_COL_MAJOR, 'L', n, 1, D.a, n, b, n, x, n, &info)
                  : mix_dgesv_ir(ctx, &prm, MIX_COL_MAJOR, n, 1, D.a, n, ipiv, b, n, x, n, &info);
    double t = mixm_wtime() - t0;
    /* The backward error again, here, in FP64 from the original sparse A, scaled so that no
     * norm overflows or underflows; NaN stays NaN (a failure below). */
    double be = NAN;
    if (!st) mixm_csr_recheck(A, b, x, &be, NULL);
    static const char *const reasons[] = {"none", "FP64 chosen directly", "overflow converting to low precision",
                                          "low-precision factorization failed", "refinement did not converge",
                                          "NaN/Inf during refinement",
                                          "refinement predicted slower than FP64"};
    printf("method          : %s (%s), factor %s%s, refine %s, backend %s\n", chol ? "chol" : "lu", what,
           mix_prec_name(info.factor_prec_used), o->prec == MIX_PREC_AUTO ? " (chosen by auto)" : "",
           o->refine == MIX_REFINE_CLASSICAL ? "classical"
                                                  : o->refine == MIX_REFINE_GMRES ? "gmres"
                                                  : o->refine == MIX_REFINE_CG ? "cg" : "auto",
           mix_backend_name(mix_context_backend(ctx)));
    printf("status          : %s\n", st ? mix_strerror(st) : "solved");
    printf("iterations      : %d outer, %d inner (Krylov)\n", info.iter, info.inner_iter);
    printf("fallback        : %s\n", info.fell_back ? (info.reason >= 0 && info.reason <= 6 ? reasons[info.reason] : "yes") : "no");
    printf("backward error  : %.3e (solver), %.3e (recomputed in FP64)\n", info.backward_error, be);
    if (info.history_length > 0) {
        printf("history         :");
        for (int k = 0; k < info.history_length && k < 64; k++) printf(" %.2e", hist[k]);
        printf("\n");
    }
    printf("times           : factor %.4f s, refine %.4f s, total %.4f s\n", info.t_factor, info.t_refine, t);
    if (st < 0) rc = cli_error(CLI_SOLVER_FAILED, "%s: %s refused argument %d (internal error)", o->file, what, -st);
    else if (st) rc = cli_error(CLI_SOLVER_FAILED, "%s: %s failed: %s", o->file, what, mix_strerror(st));
    else if (!(be <= 1e-8)) rc = cli_error(CLI_SOLVER_FAILED, "%s: backward error %.3e is too large", o->file, be);
out:
    free(ipiv);
    mixm_dense_free(&D);
    return rc;
}

/* 0 solved, else the CLI status; *not_spd set when CG saw a non-positive curvature. */
static int run_cg(mix_context *ctx, const solve_opts *o, const mixm_csr *A, const double *b, double *x,
                  int quiet_not_spd, int *not_spd)
{
    int n = A->nrows;
    *not_spd = 0;
    if (o->prec == MIX_TF32) return cli_error(CLI_USAGE, "--prec tf32 is for lu only (cg: fp64, fp32, fp16, bf16, fixed16)");
    mix_cg_params prm;
    mix_cg_params_init(&prm);
    prm.sloppy_prec = o->prec; /* auto: mix_dcg's MIX_PREC_AUTO */
    if (o->tol > 0) prm.tol = o->tol;
    if (o->max_iter > 0) prm.max_iter = (int)o->max_iter;
    prm.precond = o->jacobi ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
    mix_sparse *S = NULL;
    double t0 = mixm_wtime();
    int st = mix_sparse_create_csr(ctx, n, A->rowptr, A->colind, A->val, &S);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: cannot set up the sparse matrix: %s", o->file, mix_strerror(st));
    mix_cg_info info;
    memset(&info, 0, sizeof info);
    st = mix_dcg(ctx, &prm, S, b, x, &info);
    double t = mixm_wtime() - t0;
    mix_sparse_destroy(S);
    if (st == MIX_ERR_NOT_SPD || info.reason == MIX_CG_BREAKDOWN_NOT_SPD) {
        *not_spd = 1;
        if (quiet_not_spd) return CLI_SOLVER_FAILED;
    }
    /* ||b - A x|| / ||b|| again, here, range-safe (||b||^2 may under- or overflow); NaN stays. */
    double res = NAN;
    mixm_csr_recheck(A, b, x, NULL, &res);
    printf("method          : cg (reliable-update CG), storage %s, %s, backend %s\n",
           mix_prec_name(prm.sloppy_prec), prm.precond ? "Jacobi" : "no preconditioner",
           mix_backend_name(mix_context_backend(ctx)));
    printf("status          : %s\n", st ? mix_strerror(st) : "converged");
    printf("iterations      : %d (%d reliable updates)\n", info.iter, info.reliable_updates);
    if (info.stages > 1 || prm.sloppy_prec == MIX_PREC_AUTO) { /* escalation, AUTO's choice */
        printf("storage stages  :");
        for (int k = 0; k < info.stages; k++)
            printf("%s %s %d it", k ? " ->" : "", mix_prec_name(info.stage_prec[k]), info.stage_iter[k]);
        printf("\n");
    }
    printf("fallback        : none (CG)\n");
    printf("true residual   : %.3e (solver), %.3e (recomputed in FP64), tol %.1e\n", info.true_rel_residual, res,
           prm.tol);
    printf("times           : setup %.4f s, solve %.4f s, total %.4f s\n", info.t_setup, info.t_solve, t);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: CG failed: %s", o->file, mix_strerror(st));
    if (!(res <= 10 * prm.tol))
        return cli_error(CLI_SOLVER_FAILED, "%s: recomputed residual %.3e exceeds the tolerance", o->file, res);
    return CLI_OK;
}

int cmd_solve(int argc, char **argv)
{
    solve_opts o = {NULL, NULL, NULL, 0, MIX_PREC_AUTO, MIX_REFINE_AUTO, MIX_BACKEND_AUTO, 0, 0, 1};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (cli_is_help(argv[i])) {
            solve_usage(stdout);
            return CLI_OK;
        }
        if ((r = cli_opt(argc, argv, &i, "--rhs", &v))) {
            if (r < 0) return CLI_USAGE;
            o.rhs = v;
        } else if ((r = cli_opt(argc, argv, &i, "--out", &v))) {
            if (r < 0) return CLI_USAGE;
            o.out = v;
        } else if ((r = cli_opt(argc, argv, &i, "--method", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!strcmp(v, "auto")) o.method = 0;
            else if (!strcmp(v, "lu")) o.method = 1;
            else if (!strcmp(v, "cg")) o.method = 2;
            else if (!strcmp(v, "chol")) o.method = 3;
            else return cli_error(CLI_USAGE, "bad --method '%s' (lu, chol, cg or auto)", v);
        } else if ((r = cli_opt(argc, argv, &i, "--prec", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!cli_parse_prec(v, &o.prec))
                return cli_error(CLI_USAGE, "bad --prec '%s' (fp64, fp32, tf32, fp16, bf16, fixed16, auto)", v);
        } else if ((r = cli_opt(argc, argv, &i, "--refine", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!strcmp(v, "classical")) o.refine = MIX_REFINE_CLASSICAL;
            else if (!strcmp(v, "gmres")) o.refine = MIX_REFINE_GMRES;
            else if (!strcmp(v, "auto")) o.refine = MIX_REFINE_AUTO;
            else if (!strcmp(v, "cg")) o.refine = MIX_REFINE_CG;
            else return cli_error(CLI_USAGE, "bad --refine '%s' (classical, gmres, cg or auto)", v);
        } else if ((r = cli_opt(argc, argv, &i, "--backend", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!cli_parse_backend(v, &o.backend)) return cli_error(CLI_USAGE, "bad --backend '%s' (cpu, cuda or auto)", v);
        } else if ((r = cli_opt(argc, argv, &i, "--tol", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!cli_parse_double(v, &o.tol) || o.tol <= 0 || o.tol >= 1)
                return cli_error(CLI_USAGE, "bad --tol '%s' (a number in (0, 1))", v);
        } else if ((r = cli_opt(argc, argv, &i, "--max-iter", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!cli_parse_long(v, 1, 1000000000L, &o.max_iter)) return cli_error(CLI_USAGE, "bad --max-iter '%s'", v);
        } else if ((r = cli_opt(argc, argv, &i, "--precond", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!strcmp(v, "jacobi")) o.jacobi = 1;
            else if (!strcmp(v, "none")) o.jacobi = 0;
            else return cli_error(CLI_USAGE, "bad --precond '%s' (jacobi or none)", v);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_error(CLI_USAGE, "solve: unknown option '%s' (see mixsolve solve --help)", argv[i]);
        } else if (!o.file) {
            o.file = argv[i];
        } else {
            return cli_error(CLI_USAGE, "solve: more than one matrix file given ('%s')", argv[i]);
        }
    }
    if (!o.file) return cli_error(CLI_USAGE, "solve: no matrix file given (see mixsolve solve --help)");

    char err[512];
    mixm_csr A;
    mixm_mtx_header h;
    mixm_dense B = {0, 0, NULL};
    double *b = NULL, *x = NULL;
    mix_context *ctx = NULL;
    int rc = CLI_OK, st;
    double t0 = mixm_wtime();
    if ((st = mixm_mtx_read(o.file, &A, &h, err, sizeof err)))
        return cli_error(st == MIX_ERR_ALLOC ? CLI_SOLVER_FAILED : CLI_USAGE, "%s", err);
    double t_read = mixm_wtime() - t0;
    int n = A.nrows;
    if (A.nrows != A.ncols) {
        rc = cli_error(CLI_USAGE, "%s: the matrix is %d x %d, not square", o.file, A.nrows, A.ncols);
        goto out;
    }
    if (n == 0) {
        rc = cli_error(CLI_USAGE, "%s: the matrix is 0 x 0: nothing to solve", o.file);
        goto out;
    }
    /* An empty row or column makes A singular: said before any n-sized work (a dense copy for
     * LU would cost n^2 doubles for a file of a few bytes). */
    int empty_row = -1, empty_col = -1;
    if (mixm_csr_empty_line(&A, &empty_row, &empty_col)) {
        rc = cli_error(CLI_SOLVER_FAILED, "out of memory");
        goto out;
    }
    if (empty_row >= 0 || empty_col >= 0) {
        rc = cli_error(CLI_SOLVER_FAILED, "%s: %s %d of the matrix has no entries: A is singular", o.file,
                       empty_row >= 0 ? "row" : "column", (empty_row >= 0 ? empty_row : empty_col) + 1);
        goto out;
    }
    x = calloc((size_t)(n ? n : 1), sizeof *x);
    if (o.rhs) {
        if ((st = mixm_mtx_read_dense(o.rhs, &B, err, sizeof err))) {
            rc = cli_error(CLI_USAGE, "%s", err);
            goto out;
        }
        if (B.nrows != n || B.ncols != 1) {
            rc = cli_error(CLI_USAGE, "%s: right-hand side is %d x %d, expected %d x 1", o.rhs, B.nrows, B.ncols, n);
            goto out;
        }
        b = B.a;
        B.a = NULL;
    } else {
        double *ones = malloc((size_t)(n ? n : 1) * sizeof *ones);
        b = malloc((size_t)(n ? n : 1) * sizeof *b);
        if (ones && b) {
            for (int i = 0; i < n; i++) ones[i] = 1.0;
            mixm_csr_matvec(&A, ones, b);
        }
        free(ones);
    }
    if (!x || !b) {
        rc = cli_error(CLI_SOLVER_FAILED, "out of memory");
        goto out;
    }
    if (!o.rhs && !isfinite(mixm_amax(n, b))) {
        rc = cli_error(CLI_USAGE, "%s: b = A * ones overflows FP64 (row sums too large); give --rhs", o.file);
        goto out;
    }
    if ((st = mix_context_create(&ctx, o.backend))) {
        rc = cli_error(CLI_SOLVER_FAILED, "cannot use backend %s: %s", mix_backend_name(o.backend), mix_strerror(st));
        goto out;
    }
    int spd = cli_spd_candidate(&A);
    printf("matrix          : %s (%d x %d, %lld entries, %s%s), read in %.3f s\n", o.file, n, n, (long long)A.nnz,
           h.symmetry == MIXM_MTX_SYMMETRIC ? "symmetric" : h.symmetry == MIXM_MTX_SKEW ? "skew-symmetric" : "general",
           spd ? ", SPD candidate" : "", t_read);
    printf("right-hand side : %s\n", o.rhs ? o.rhs : "b = A * ones");
    int method = o.method ? o.method : (spd ? 2 : 1);
    
    if (method == 2) {
        int not_spd;
        rc = run_cg(ctx, &o, &A, b, x, o.method == 0 && n <= DENSE_MAX, &not_spd);
        if (rc && not_spd && o.method == 0 && n <= DENSE_MAX) {
            printf("note            : CG found A not positive definite; solving with LU-IR instead\n");
            memset(x, 0, (size_t)n * sizeof *x);
            solve_opts o2 = o;
            if (o2.prec == MIX_FIXED16) o2.prec = MIX_PREC_AUTO;
            rc = run_dense(ctx, &o2, &A, b, x, 0);
        }
    } else {
        rc = run_dense(ctx, &o, &A, b, x, method == 3);
    }
    if (rc == CLI_OK && o.out) {
        mixm_dense X = {n, 1, x};
        if ((st = mixm_mtx_write_dense(o.out, &X, err, sizeof err))) rc = cli_error(CLI_USAGE, "%s", err);
        else printf("solution        : written to %s\n", o.out);
    }
out:
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
    mixm_dense_free(&B);
    free(b);
    free(x);
    return rc;
}
