/* cmd_bench.c: `mixsolve bench`: every matrix x method x precision against FP64, each solve in its own
 * process (time limit, crash isolation) and checked here in FP64.  This file: the options and the
 * run; the inputs are bench_inputs.c, one solve bench_solve.c in bench_child.c's child process,
 * the reports bench_report.c. */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "tools/bench_run.h"

static void bench_usage(FILE *f)
{
    char be[128], lu[256], cg[256]; /* the library's lists of backends and precisions */
    fprintf(f,
            "Usage: mixsolve bench [DIR|FILE...] [-o OUTDIR] [--quick] [--backend %s]\n"
            "         [--dense-max N] [--time-limit SECONDS] [--max-time SECONDS] [--max-nnz N] [--no-gen]\n"
            "Runs every matrix (*.mtx, *.mtx.gz in each DIR, or the FILEs) with every applicable\n"
            "method and precision: dense LU-IR (mix_dgesv_ir, factor %s; refine auto)\n"
            "for square matrices with n <= --dense-max (default 4096), dense Cholesky-IR (mix_dposv_ir,\n"
            "the same precisions, against LAPACKE_dposv) for those that are symmetric with a positive\n"
            "diagonal, and reliable-update CG\n"
            "(mix_dcg, Jacobi, storage %s) for symmetric matrices with a\n"
            "positive diagonal, against the FP64 baseline (LAPACKE_dgesv, FP64 CG) in the same run.\n"
            "Square matrices beyond --dense-max that are not SPD candidates: sparse LU-IR (splu:\n"
            "mix_dgesv_sparse fp32|auto) against UMFPACK, factor memory FP32 vs FP64 in the note.\n"
            "b = A * ones; the backward error (LU) or true relative residual (CG) is recomputed here\n"
            "in FP64, so a reported success that is not one counts as a silent failure.  Each solve\n"
            "runs in a child process killed after --time-limit seconds (default 60).  Without\n"
            "arguments: the bundled SuiteSparse set plus generated problems (--no-gen: without them).\n"
            "--max-time bounds the whole run (solves left are reported as skipped); files with more\n"
            "than --max-nnz stored entries (default 50000000) are skipped with a note.\n"
            "Writes a table on stdout, progress on stderr, and OUTDIR (default bench-out) with\n"
            "results.csv, report.md and PNG plots (gnuplot).  --quick: smaller limits and problems.\n",
            cli_backend_choices(be, sizeof be), cli_prec_choices(MIX_ROLE_FACTOR, lu, sizeof lu),
            cli_prec_choices(MIX_ROLE_STORAGE, cg, sizeof cg));
}

/* ---- the run ----------------------------------------------------------------------------------- */

static bench_result *new_result(bench_set *s, const char *name, const mixm_csr *A, int spd, bench_method m,
                                mix_prec p)
{
    if (s->count == s->cap) {
        int c = s->cap ? 2 * s->cap : 256;
        bench_result *q = realloc(s->r, (size_t)c * sizeof *q);
        if (!q) return NULL;
        s->r = q;
        s->cap = c;
    }
    bench_result *r = &s->r[s->count++];
    memset(r, 0, sizeof *r);
    snprintf(r->matrix, sizeof r->matrix, "%s", name);
    r->n = A ? A->nrows : 0;
    r->nnz = A ? (long long)A->nnz : 0;
    r->spd_candidate = spd;
    r->method = m;
    r->prec = p;
    r->outcome = BENCH_SKIPPED;
    return r;
}


/* The options of `mixsolve bench` (getopt_long). */
enum { OPT_QUICK = 256, OPT_NO_GEN, OPT_BACKEND, OPT_DENSE_MAX, OPT_TIME_LIMIT, OPT_MAX_TIME, OPT_MAX_NNZ };
static const struct option bench_longopts[] = {{"help", no_argument, NULL, 'h'},
                                               {"output", required_argument, NULL, 'o'},
                                               {"quick", no_argument, NULL, OPT_QUICK},
                                               {"no-gen", no_argument, NULL, OPT_NO_GEN},
                                               {"backend", required_argument, NULL, OPT_BACKEND},
                                               {"dense-max", required_argument, NULL, OPT_DENSE_MAX},
                                               {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
                                               {"max-time", required_argument, NULL, OPT_MAX_TIME},
                                               {"max-nnz", required_argument, NULL, OPT_MAX_NNZ},
                                               {NULL, 0, NULL, 0}};

/* --quick: smaller limits, where the options did not set them. */
static void quick_limits(bench_opts *o, int dense_set, int limit_set)
{
    if (!dense_set) o->dense_max = 2048;
    if (!limit_set) o->time_limit = 20;
    o->min_time = 0.05;
    o->max_reps = 50;
}

/* Options and inputs of `mixsolve bench`: -1 to go on, else the exit status (--help, an error). */
static int bench_args(int argc, char **argv, bench_opts *opts, const char **outdir, bench_input **probs,
                      int *np, int *pcap, int *explicit_inputs)
{
    bench_opts o = *opts;
    int dense_set = 0, limit_set = 0;
    cli_args args;
    cli_args_init(&args, argc, argv, "ho:", bench_longopts);
    const char *v;
    for (int c; (c = cli_next(&args, &v)) != CLI_ARGS_END;) {
        long lv;
        double dv;
        switch (c) {
        case 'h':
            bench_usage(stdout);
            return CLI_OK;
        case 'o':
            *outdir = v;
            break;
        case OPT_QUICK:
            o.quick = 1;
            break;
        case OPT_NO_GEN:
            o.gen = 0;
            break;
        case OPT_BACKEND:
            if (!cli_parse_backend(v, &o.backend)) return cli_error(CLI_USAGE, "bad --backend '%s' (cpu, cuda or auto)", v);
            break;
        case OPT_DENSE_MAX:
            if (!cli_parse_long(v, 0, 32768, &lv)) return cli_error(CLI_USAGE, "bad --dense-max '%s' (0..32768)", v);
            o.dense_max = (int)lv;
            dense_set = 1;
            break;
        case OPT_TIME_LIMIT:
            if (!cli_parse_double(v, &dv) || dv <= 0) return cli_error(CLI_USAGE, "bad --time-limit '%s'", v);
            o.time_limit = dv;
            limit_set = 1;
            break;
        case OPT_MAX_TIME:
            if (!cli_parse_double(v, &dv) || dv <= 0) return cli_error(CLI_USAGE, "bad --max-time '%s'", v);
            o.max_time = dv;
            break;
        case OPT_MAX_NNZ:
            if (!cli_parse_long(v, 1, 2147483647L, &lv)) return cli_error(CLI_USAGE, "bad --max-nnz '%s'", v);
            o.max_nnz = lv;
            break;
        case CLI_ARGS_POSITIONAL:
            *explicit_inputs = 1;
            if (bench_add_input(v, probs, np, pcap)) return CLI_USAGE;
            break;
        case CLI_ARGS_UNKNOWN:
            return cli_error(CLI_USAGE, "bench: unknown option '%s' (see mixsolve bench --help)", v);
        default: /* CLI_ARGS_ERROR: said */
            return CLI_USAGE;
        }
    }
    if (o.quick) quick_limits(&o, dense_set, limit_set);
    *opts = o;
    return -1;
}

/* The rows of method m on A, one per precision of precs (the FP64 baseline first, which always
 * runs), each solve in its own child, until this matrix's budget (until) or the run's is spent. */
static void method_rows(int i, int np, const bench_input *prob, const mixm_csr *A, int spd, bench_method m,
                        const mix_prec *precs, int n, double until, const bench_opts *o, bench_set *s)
{
    static const char *const label[BENCH_SPLU + 1] = {[BENCH_LU] = "lu", [BENCH_CG] = "cg", [BENCH_CHOL] = "chol",
                                                      [BENCH_CG_AMG] = "cg-amg", [BENCH_SPLU] = "sparse lu"};
    static const char *const baseline[BENCH_SPLU + 1] = {[BENCH_LU] = "fp64 (LAPACKE_dgesv)",
                                                         [BENCH_CHOL] = "fp64 (LAPACKE_dposv)",
                                                         [BENCH_SPLU] = "fp64 (UMFPACK)"};
    for (int k = 0; k < n; k++) {
        bench_result *r = new_result(s, prob->name, A, spd, m, precs[k]);
        if (!r) break;
        fprintf(stderr, "[%d/%d] %s: %s %s\n", i + 1, np, prob->name, label[m],
                k || !baseline[m] ? mix_prec_name(precs[k]) : baseline[m]);
        if ((k > 0 && mixm_wtime() > until) || mixm_wtime() > o->t_end - 1) { /* baselines always run */
            snprintf(r->note, sizeof r->note, "skipped: %s time budget spent",
                     mixm_wtime() > o->t_end - 1 ? "--max-time" : "this matrix's");
            continue;
        }
        bench_run_isolated(A, o, s, r);
    }
}

/* Every method and precision on problem i of np, each solve in its own child; rows into s. */
static void bench_problem(int i, int np, const bench_input *prob, const bench_opts *o, bench_set *s)
{
    char err[512] = "";
    mixm_csr A;
    if (mixm_wtime() > o->t_end - 1) {
        bench_result *r = new_result(s, prob->name, NULL, 0, BENCH_LU, MIX_FP64);
        if (r) snprintf(r->note, sizeof r->note, "skipped: --max-time budget spent");
        fprintf(stderr, "[%d/%d] %s: skipped (--max-time spent)\n", i + 1, np, prob->name);
        return;
    }
    fprintf(stderr, "[%d/%d] %s: loading\n", i + 1, np, prob->name);
    int st = bench_load_problem(prob, o, &A, err, sizeof err);
    if (st) {
        bench_result *r = new_result(s, prob->name, NULL, 0, BENCH_LU, MIX_FP64);
        if (r) snprintf(r->note, sizeof r->note, "not loaded: %.100s", err[0] ? err : mix_strerror(st));
        fprintf(stderr, "[%d/%d] %s: skipped: %s\n", i + 1, np, prob->name, err[0] ? err : mix_strerror(st));
        return;
    }
    int spd = cli_spd_candidate(&A);
    int square = A.nrows == A.ncols;
    /* The library's lists, FP64 (the LAPACKE / FP64 CG baseline) first and AUTO last. */
    mix_prec lu_precs[CLI_MAX_PRECS], cg_precs[CLI_MAX_PRECS];
    const int n_lu = cli_precs(MIX_ROLE_FACTOR, 0, 1, lu_precs);
    const int n_cg = cli_precs(MIX_ROLE_STORAGE, 0, 1, cg_precs);
    double budget_end = mixm_wtime() + 3 * o->time_limit;
    if (!square || A.nrows > o->dense_max) {
        bench_result *r = new_result(s, prob->name, &A, spd, BENCH_LU, MIX_FP64);
        if (r) {
            if (!square) snprintf(r->note, sizeof r->note, "not square (%d x %d)", A.nrows, A.ncols);
            else snprintf(r->note, sizeof r->note, "dense LU skipped: n = %d > --dense-max %d", A.nrows, o->dense_max);
        }
    } else {
        method_rows(i, np, prob, &A, spd, BENCH_LU, lu_precs, n_lu, budget_end, o, s);
    }
    if (spd && square && A.nrows <= o->dense_max) /* dposv, the low precisions, AUTO */
        method_rows(i, np, prob, &A, spd, BENCH_CHOL, lu_precs, n_lu, budget_end + o->time_limit, o, s);
    if (spd) {
        method_rows(i, np, prob, &A, spd, BENCH_CG, cg_precs, n_cg, budget_end + 3 * o->time_limit, o, s);
        method_rows(i, np, prob, &A, spd, BENCH_CG_AMG, bench_amg_precs, BENCH_AMG_NPRECS,
                    budget_end + 4 * o->time_limit, o, s);
    } else if (square && A.nrows > o->dense_max) {
        static const mix_prec splu_precs[] = {MIX_FP64, MIX_FP32, MIX_PREC_AUTO}; /* UMFPACK first */
        method_rows(i, np, prob, &A, spd, BENCH_SPLU, splu_precs, 3, budget_end + 4 * o->time_limit, o, s);
    }
    mixm_csr_free(&A);
}

/* Speedups against the FP64 baseline of the same matrix and method. */
static void set_speedups(bench_set *s)
{
    for (int i = 0; i < s->count; i++) {
        bench_result *r = &s->r[i];
        if (r->outcome != BENCH_OK && r->outcome != BENCH_FALLBACK) continue;
        for (int j = 0; j < s->count; j++) {
            bench_result *b = &s->r[j];
            if (b->prec == MIX_FP64 && b->method == r->method && !strcmp(b->matrix, r->matrix) &&
                b->outcome == BENCH_OK && b->time > 0 && r->time > 0)
                r->speedup = b->time / r->time;
            if (b->prec == MIX_FP64 && b->method == BENCH_LU && !strcmp(b->matrix, r->matrix))
                r->kappa1 = b->kappa1;
        }
    }
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o = {0, 1, MIX_BACKEND_AUTO, 4096, 60.0, 50000000LL, 0.2, 200, 0, 0};
    bench_serial_parent();
    const char *outdir = "bench-out";
    bench_input *probs = NULL;
    int np = 0, pcap = 0, explicit_inputs = 0;
    int rc = bench_args(argc, argv, &o, &outdir, &probs, &np, &pcap, &explicit_inputs);
    if (rc >= 0) return rc;
    if (!explicit_inputs) {
        const char *d = bench_default_dir();
        if (!d) return cli_error(CLI_USAGE, "bench: no bundled matrices found (set MIX_MATRIX_DIR or give a DIR)");
        bench_add_dir(d, &probs, &np, &pcap);
        if (o.gen) bench_add_generated(&o, &probs, &np, &pcap);
    }
    if (!np) return cli_error(CLI_USAGE, "bench: no *.mtx or *.mtx.gz files in the given inputs");
    if (mkdir(outdir, 0777) && errno != EEXIST)
        return cli_error(CLI_USAGE, "%s: cannot create the output folder: %s", outdir, strerror(errno));

    bench_set s;
    memset(&s, 0, sizeof s);
    s.outdir = outdir;
    s.threshold_lu_factor = 10.0;
    s.cg_tol = 1e-10;
    {
        bench_backend_probe pr;
        bench_probe_backend(o.backend, &pr);
        if (pr.status)
            return cli_error(CLI_SOLVER_FAILED, "cannot use backend %s: %s", mix_backend_name(o.backend),
                             mix_strerror(pr.status));
        snprintf(s.backend, sizeof s.backend, "%s", mix_backend_name(pr.used));
        snprintf(s.device, sizeof s.device, "%s", pr.caps.device);
        snprintf(s.libraries, sizeof s.libraries, "%s", pr.caps.libraries);
        o.backend = pr.used; /* every child uses the same one */
    }
    double t_start = mixm_wtime();
    o.t_end = o.max_time > 0 ? t_start + o.max_time : INFINITY;
    for (int i = 0; i < np; i++) bench_problem(i, np, &probs[i], &o, &s);
    s.wall = mixm_wtime() - t_start;
    for (int i = 0; i < np; i++) free(probs[i].path);
    free(probs);
    set_speedups(&s);
    rc = bench_report(&s, stdout);
    free(s.r);
    return rc ? CLI_USAGE : CLI_OK;
}
