/* cmd_solve.c: `mixsolve solve FILE.mtx`: one solve with LU-IR or mixed-precision CG, checked in FP64. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tools/cli.h"
#include "matrices/mmio.h"


static void solve_usage(FILE *f)
{
    char be[128], all[256], lu[256], cg[256]; /* the library's lists of backends and precisions */
    fprintf(f,
            "Usage: mixsolve solve FILE.mtx [--rhs FILE] [--method lu|chol|cg|auto]\n"
            "         [--prec %s] [--refine classical|gmres|cg|auto]\n"
            "         [--backend %s] [--tol T] [--max-iter N] [--precond jacobi|none] [--out x.mtx]\n"
            "         [--dense-max N]\n"
            "Solves A x = b (A square, Matrix Market, plain or .gz); b from --rhs (array or coordinate,\n"
            "n x 1) or b = A * ones.  lu: dense LU in the factor precision (%s;\n"
            "fp64 = plain LU) refined in FP64 (mix_dgesv_ir).  chol: dense Cholesky likewise, for SPD\n"
            "A, read from its lower triangle (mix_dposv_ir; --refine cg: CG-IR).  lu with n above\n"
            "--dense-max (default 16384): sparse LU in fp32, fp64 or auto by MUMPS, refined in\n"
            "FP64 (mix_dgesv_sparse).\n"
            "cg: reliable-update CG with the matrix and vectors stored in the precision\n"
            "(%s) (mix_dcg).\n"
            "auto: cg when A is symmetric with a positive diagonal, lu otherwise (and lu again when\n"
            "cg finds A not SPD).  Prints iterations, backward error (lu) or true relative residual\n"
            "(cg) recomputed here in FP64, fallback and times.  CG uses the Jacobi preconditioner\n"
            "unless --precond none.  Exit: 0 solved, 1 solver failure,\n"
            "2 bad usage or input.\n",
            cli_prec_choices(MIX_ROLE_ALL, all, sizeof all), cli_backend_choices(be, sizeof be),
            cli_prec_choices(MIX_ROLE_FACTOR, lu, sizeof lu), cli_prec_choices(MIX_ROLE_STORAGE, cg, sizeof cg));
}


/* Index of `s` in the NULL-terminated `words`, -1 when absent. */
static int word_index(const char *s, const char *const *words)
{
    for (int k = 0; words[k]; k++)
        if (!strcmp(s, words[k])) return k;
    return -1;
}

static const char *const method_words[] = {"auto", "lu", "cg", "chol", NULL};
/* In the order of the refine_values below. */
static const char *const refine_words[] = {"classical", "gmres", "auto", "cg", NULL};
static const mix_refine refine_values[] = {MIX_REFINE_CLASSICAL, MIX_REFINE_GMRES, MIX_REFINE_AUTO, MIX_REFINE_CG};

/* The value of one option (by its getopt code) into o: 0, or the exit status (message printed). */
static int solve_option(int c, const char *v, solve_opts *o)
{
    int k;
    switch (c) {
    case 'r': o->rhs = v; return 0;
    case 'o': o->out = v; return 0;
    case 'm':
        if ((k = word_index(v, method_words)) < 0) return cli_error(CLI_USAGE, "bad --method '%s' (lu, chol, cg or auto)", v);
        o->method = k;
        return 0;
    case 'p':
        if (!cli_parse_prec(v, &o->prec))
            return cli_error(CLI_USAGE, "bad --prec '%s' (fp64, fp32, tf32, fp16, bf16, fixed16, auto)", v);
        return 0;
    case 'f':
        if ((k = word_index(v, refine_words)) < 0)
            return cli_error(CLI_USAGE, "bad --refine '%s' (classical, gmres, cg or auto)", v);
        o->refine = refine_values[k];
        return 0;
    case 'b':
        if (!cli_parse_backend(v, &o->backend)) return cli_error(CLI_USAGE, "bad --backend '%s' (cpu, cuda or auto)", v);
        return 0;
    case 't':
        if (!cli_parse_double(v, &o->tol) || o->tol <= 0 || o->tol >= 1)
            return cli_error(CLI_USAGE, "bad --tol '%s' (a number in (0, 1))", v);
        return 0;
    case 'i':
        if (!cli_parse_long(v, 1, 1000000000L, &o->max_iter)) return cli_error(CLI_USAGE, "bad --max-iter '%s'", v);
        return 0;
    case 'd':
        if (!cli_parse_long(v, 0, 1000000000L, &o->dense_max)) return cli_error(CLI_USAGE, "bad --dense-max '%s'", v);
        return 0;
    default: /* 'j' */
        if (!strcmp(v, "jacobi")) o->jacobi = 1;
        else if (!strcmp(v, "none")) o->jacobi = 0;
        else return cli_error(CLI_USAGE, "bad --precond '%s' (jacobi or none)", v);
        return 0;
    }
}

/* The options and the matrix file: -1 to go on, else the exit status (--help, an error). */
int cli_solve_args(int argc, char **argv, solve_opts *o)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},          {"rhs", required_argument, NULL, 'r'},
        {"out", required_argument, NULL, 'o'},     {"method", required_argument, NULL, 'm'},
        {"prec", required_argument, NULL, 'p'},    {"refine", required_argument, NULL, 'f'},
        {"backend", required_argument, NULL, 'b'}, {"tol", required_argument, NULL, 't'},
        {"max-iter", required_argument, NULL, 'i'}, {"precond", required_argument, NULL, 'j'},
        {"dense-max", required_argument, NULL, 'd'}, {NULL, 0, NULL, 0}};
    cli_args args;
    cli_args_init(&args, argc, argv, "h", longopts); /* -h only: the others are long options */
    const char *v;
    for (int c, rc; (c = cli_next(&args, &v)) != CLI_ARGS_END;) {
        if (c == 'h') {
            solve_usage(stdout);
            return CLI_OK;
        }
        if (c == CLI_ARGS_ERROR) return CLI_USAGE;
        if (c == CLI_ARGS_UNKNOWN)
            return cli_error(CLI_USAGE, "solve: unknown option '%s' (see mixsolve solve --help)", v);
        if (c == CLI_ARGS_POSITIONAL) {
            if (o->file) return cli_error(CLI_USAGE, "solve: more than one matrix file given ('%s')", v);
            o->file = v;
        } else if ((rc = solve_option(c, v, o))) {
            return rc;
        }
    }
    if (!o->file) return cli_error(CLI_USAGE, "solve: no matrix file given (see mixsolve solve --help)");
    return -1;
}

/* Reads A and refuses what cannot be solved before any n-sized work: 0 or the exit status. */
int cli_solve_load_matrix(const solve_opts *o, solve_problem *p)
{
    char err[512];
    double t0 = mixm_wtime();
    int st = mixm_mtx_read(o->file, &p->A, &p->h, err, sizeof err);
    if (st) return cli_error(st == MIX_ERR_ALLOC ? CLI_SOLVER_FAILED : CLI_USAGE, "%s", err);
    p->t_read = mixm_wtime() - t0;
    const mixm_csr *A = &p->A;
    if (A->nrows != A->ncols)
        return cli_error(CLI_USAGE, "%s: the matrix is %d x %d, not square", o->file, A->nrows, A->ncols);
    if (A->nrows == 0) return cli_error(CLI_USAGE, "%s: the matrix is 0 x 0: nothing to solve", o->file);
    /* An empty row or column makes A singular: said before any n-sized work (a dense copy for
     * LU would cost n^2 doubles for a file of a few bytes). */
    int empty_row = -1, empty_col = -1;
    if (mixm_csr_empty_line(A, &empty_row, &empty_col)) return cli_error(CLI_SOLVER_FAILED, "out of memory");
    if (empty_row >= 0 || empty_col >= 0)
        return cli_error(CLI_SOLVER_FAILED, "%s: %s %d of the matrix has no entries: A is singular", o->file,
                         empty_row >= 0 ? "row" : "column", (empty_row >= 0 ? empty_row : empty_col) + 1);
    return CLI_OK;
}

/* b from --rhs (n x 1) or b = A * ones, and x = 0: 0 or the exit status. */
int cli_solve_load_rhs(const solve_opts *o, solve_problem *p)
{
    const int n = p->A.nrows;
    p->x = calloc((size_t)n, sizeof *p->x);
    if (o->rhs) {
        char err[512];
        mixm_dense B = {0, 0, NULL};
        if (mixm_mtx_read_dense(o->rhs, &B, err, sizeof err)) return cli_error(CLI_USAGE, "%s", err);
        if (B.nrows != n || B.ncols != 1) {
            cli_error(CLI_USAGE, "%s: right-hand side is %d x %d, expected %d x 1", o->rhs, B.nrows, B.ncols, n);
            mixm_dense_free(&B);
            return CLI_USAGE;
        }
        p->b = B.a;
    } else {
        double *ones = malloc((size_t)n * sizeof *ones);
        p->b = malloc((size_t)n * sizeof *p->b);
        if (ones && p->b) {
            for (int i = 0; i < n; i++) ones[i] = 1.0;
            mixm_csr_matvec(&p->A, ones, p->b);
        }
        free(ones);
    }
    if (!p->x || !p->b) return cli_error(CLI_SOLVER_FAILED, "out of memory");
    if (!o->rhs && !isfinite(mixm_amax(n, p->b)))
        return cli_error(CLI_USAGE, "%s: b = A * ones overflows FP64 (row sums too large); give --rhs", o->file);
    return CLI_OK;
}

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
    if (!st) mixm_csr_recheck(A, b, x, &be, NULL);
    report_dense(ctx, o, chol, st, &info, hist, be, t);
    if (st < 0) return cli_error(CLI_SOLVER_FAILED, "%s: %s refused argument %d (internal error)", o->file, what, -st);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: %s failed: %s", o->file, what, mix_strerror(st));
    if (!(be <= 1e-8)) return cli_error(CLI_SOLVER_FAILED, "%s: backward error %.3e is too large", o->file, be);
    return CLI_OK;
}

/* The CG run's lines on stdout. */
void cli_report_cg(mix_context *ctx, const mix_cg_params *prm, const mix_sparse *S, int st,
                   const mix_cg_info *info, double res, double t)
{
    printf("method          : cg (reliable-update CG), storage %s, %s, backend %s\n",
           mix_prec_name(prm->sloppy_prec), prm->precond ? "Jacobi" : "no preconditioner",
           mix_backend_name(mix_context_backend(ctx)));
    printf("status          : %s\n", st ? mix_strerror(st) : "converged");
    printf("iterations      : %d (%d reliable updates)\n", info->iter, info->reliable_updates);
    if (info->stages > 1 || prm->sloppy_prec == MIX_PREC_AUTO) { /* escalation, AUTO's choice */
        printf("storage stages  :");
        for (int k = 0; k < info->stages; k++)
            printf("%s %s %d it", k ? " ->" : "", mix_prec_name(info->stage_prec[k]), info->stage_iter[k]);
        printf("\n");
    }
    /* The tuner's SpMV body per storage that ran (mix_dcg(3), Tuner). */
    printf("spmv body       :");
    for (int k = 0; k < info->stages; k++) {
        const char *v = mix_sparse_spmv_variant(S, info->stage_prec[k], prm->precond == MIX_PRECOND_JACOBI);
        printf("%s %s %s", k ? "," : "", mix_prec_name(info->stage_prec[k]), v ? v : "-");
    }
    printf("%s\n", getenv("MIXSOLVE_TUNE") && strcmp(getenv("MIXSOLVE_TUNE"), "off") == 0 ? " (MIXSOLVE_TUNE=off)" : "");
    printf("fallback        : none (CG)\n");
    printf("true residual   : %.3e (solver), %.3e (recomputed in FP64), tol %.1e\n", info->true_rel_residual, res,
           prm->tol);
    printf("times           : setup %.4f s, solve %.4f s, total %.4f s\n", info->t_setup, info->t_solve, t);
}

void cli_cg_params(const solve_opts *o, mix_cg_params *prm)
{
    mix_cg_params_init(prm);
    prm->sloppy_prec = o->prec; /* auto: mix_dcg's MIX_PREC_AUTO */
    if (o->tol > 0) prm->tol = o->tol;
    if (o->max_iter > 0) prm->max_iter = (int)o->max_iter;
    prm->precond = o->jacobi ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
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

/* The method asked for, or auto's: CG for an SPD candidate, LU-IR otherwise and when CG finds A
 * not positive definite. */
static int run_method(mix_context *ctx, const solve_opts *o, solve_problem *p, int spd)
{
    const int n = p->A.nrows, method = o->method ? o->method : (spd ? 2 : 1);
    if (method != 2) return run_dense(ctx, o, &p->A, p->b, p->x, method == 3);
    const int may_fall_back = o->method == 0;
    int not_spd;
    int rc = run_cg(ctx, o, &p->A, p->b, p->x, may_fall_back, &not_spd);
    if (rc && not_spd && may_fall_back) {
        printf("note            : CG found A not positive definite; solving with LU-IR instead\n");
        memset(p->x, 0, (size_t)n * sizeof *p->x);
        solve_opts o2 = *o;
        if (!cli_prec_has(MIX_ROLE_FACTOR, o2.prec)) o2.prec = MIX_PREC_AUTO; /* a CG-only storage */
        rc = run_dense(ctx, &o2, &p->A, p->b, p->x, 0);
    }
    return rc;
}

int cmd_solve(int argc, char **argv)
{
#ifdef MIX_CLI_MPI
    if (cli_mpi_launched()) return cmd_solve_mpi(argc, argv); /* under mpirun: across the ranks */
#endif
    solve_opts o = CLI_SOLVE_DEFAULTS;
    int rc = cli_solve_args(argc, argv, &o);
    if (rc >= 0) return rc;
    solve_problem p;
    memset(&p, 0, sizeof p);
    mix_context *ctx = NULL;
    int st;
    if ((rc = cli_solve_load_matrix(&o, &p)) || (rc = cli_solve_load_rhs(&o, &p))) goto out;
    if ((st = mix_context_create(&ctx, o.backend))) {
        rc = cli_error(CLI_SOLVER_FAILED, "cannot use backend %s: %s", mix_backend_name(o.backend), mix_strerror(st));
        goto out;
    }
    const int n = p.A.nrows, spd = cli_spd_candidate(&p.A);
    printf("matrix          : %s (%d x %d, %lld entries, %s%s), read in %.3f s\n", o.file, n, n,
           (long long)p.A.nnz,
           p.h.symmetry == MIXM_MTX_SYMMETRIC ? "symmetric" : p.h.symmetry == MIXM_MTX_SKEW ? "skew-symmetric" : "general",
           spd ? ", SPD candidate" : "", p.t_read);
    printf("right-hand side : %s\n", o.rhs ? o.rhs : "b = A * ones");
    rc = run_method(ctx, &o, &p, spd);
    if (rc == CLI_OK && o.out) {
        char err[512];
        mixm_dense X = {n, 1, p.x};
        if (mixm_mtx_write_dense(o.out, &X, err, sizeof err)) rc = cli_error(CLI_USAGE, "%s", err);
        else printf("solution        : written to %s\n", o.out);
    }
out:
    mix_context_destroy(ctx);
    mixm_csr_free(&p.A);
    free(p.b);
    free(p.x);
    return rc;
}
