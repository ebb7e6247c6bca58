/* solve_setup.c: what `mixsolve solve` does the same on one process (cmd_solve.c) and across MPI
 * ranks (cmd_solve_mpi.c): its options, reading A and b, the CG parameters and the CG report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/cli.h"
#include "matrices/mmio.h"

static void solve_usage(FILE *f)
{
    char be[128], all[256], lu[256], cg[256]; /* the library's lists of backends and precisions */
    fprintf(f,
            "Usage: mixsolve solve FILE.mtx [--rhs FILE] [--method lu|chol|cg|auto]\n"
            "         [--prec %s] [--refine classical|gmres|cg|auto]\n"
            "         [--backend %s] [--tol T] [--max-iter N] [--precond jacobi|amg|none] [--out x.mtx]\n"
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
            "unless --precond none; --precond amg: CG with one smoothed-aggregation V-cycle\n"
            "per iteration, the hierarchy stored in the precision above, FP64 true residuals.\n"
            "Options a method never reads are refused: --refine and --dense-max with cg,\n"
            "--precond with lu and chol (auto takes all).\n"
            "Exit: 0 solved,\n"
            "1 solver failure, 2 bad usage or input.\n",
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
        o->given |= CLI_GIVEN_REFINE;
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
        o->given |= CLI_GIVEN_DENSE_MAX;
        return 0;
    default: /* 'j' */
        if (!strcmp(v, "jacobi")) o->precond = MIX_PRECOND_JACOBI;
        else if (!strcmp(v, "amg")) o->precond = MIX_PRECOND_AMG;
        else if (!strcmp(v, "none")) o->precond = MIX_PRECOND_NONE;
        else return cli_error(CLI_USAGE, "bad --precond '%s' (jacobi, amg or none)", v);
        o->given |= CLI_GIVEN_PRECOND;
        return 0;
    }
}

/* An option the chosen method never reads is refused, not ignored: --refine and --dense-max are
 * LU's (--dense-max also bounds chol's dense copy), --precond CG's; auto may run either, so it
 * takes all.  0, or the exit status (its one line printed). */
static int method_options(const solve_opts *o)
{
    const char *opt = NULL, *methods = NULL;
    if (o->method == 2 && (o->given & CLI_GIVEN_REFINE)) opt = "--refine", methods = "lu, chol or auto";
    else if (o->method == 2 && (o->given & CLI_GIVEN_DENSE_MAX)) opt = "--dense-max", methods = "lu, chol or auto";
    else if ((o->method == 1 || o->method == 3) && (o->given & CLI_GIVEN_PRECOND)) opt = "--precond", methods = "cg or auto";
    if (!opt) return 0;
    return cli_error(CLI_USAGE, "solve: %s does not apply to --method %s (only to %s)", opt, method_words[o->method], methods);
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
    const int rc = method_options(o);
    return rc ? rc : -1;
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

/* The CG run's lines on stdout. */
void cli_report_cg(mix_context *ctx, const mix_cg_params *prm, const mix_sparse *S, int st,
                   const mix_cg_info *info, double res, double t)
{
    printf("method          : cg (reliable-update CG), storage %s, %s, backend %s\n",
           mix_prec_name(prm->sloppy_prec), prm->precond == MIX_PRECOND_AMG ? "AMG V-cycle" : prm->precond ? "Jacobi" : "no preconditioner",
           mix_backend_name(mix_context_backend(ctx)));
    printf("status          : %s\n", st ? mix_strerror(st) : "converged");
    printf("iterations      : %d (%d reliable updates)\n", info->iter, info->reliable_updates);
    if (info->stages > 1 || prm->sloppy_prec == MIX_PREC_AUTO) { /* escalation, AUTO's choice */
        printf("storage stages  :");
        for (int k = 0; k < info->stages; k++)
            printf("%s %s %d it", k ? " ->" : "", mix_prec_name(info->stage_prec[k]), info->stage_iter[k]);
        printf("\n");
    }
    /* The tuner's SpMV body per storage that ran (mix_dcg(3), Tuner); AMG multiplies by A's
     * Jacobi-scaled copy, its fine level. */
    printf("spmv body       :");
    for (int k = 0; k < info->stages; k++) {
        const char *v = mix_sparse_spmv_variant(S, info->stage_prec[k], prm->precond != MIX_PRECOND_NONE);
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
    prm->precond = o->precond;
}
