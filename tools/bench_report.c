/* bench_report.c: outputs of `mixsolve bench`: stdout table, results.csv, report.md, gnuplot plots, summary. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tools/bench.h"
#include "tools/cli.h"

#ifndef MIX_GNUPLOT
#define MIX_GNUPLOT "gnuplot"
#endif

static const char *method_name(bench_method m)
{
    return m == BENCH_LU ? "lu" : m == BENCH_CHOL ? "chol" : m == BENCH_CG_AMG ? "cg-amg" : m == BENCH_SPLU ? "splu" : "cg";
}

static const char *solver_label(const bench_result *r)
{
    if (r->prec == MIX_FP64)
        return r->method == BENCH_LU     ? "fp64 (dgesv)"
               : r->method == BENCH_CHOL ? "fp64 (dposv)"
               : r->method == BENCH_SPLU ? "fp64 (umfpack)"
                                         : "fp64";
    return mix_prec_name(r->prec);
}

static void fmt_num(char *buf, size_t n, const char *fmt, double v, int have)
{
    if (have && isfinite(v)) snprintf(buf, n, fmt, v);
    else if (have && isinf(v)) snprintf(buf, n, "inf");
    else snprintf(buf, n, "-");
}

static int ran(const bench_result *r) { return r->outcome != BENCH_SKIPPED; }

/* ---- summary in the form of NVIDIA's cuSOLVER Tensor Core IRS table ---------------------------- */

/* The summary's rows: each method with its precisions from the library's table (cli_precs:
 * FP64 first, AUTO last; rows no run has are left out), so a new precision has its row. */
typedef struct {
    bench_method m;
    mix_prec p;
} summary_row;

static int summary_rows(summary_row *rows)
{
    static const struct {
        bench_method m;
        mix_prec_role role;
        int with_auto;
    } methods[] = {{BENCH_LU, MIX_ROLE_FACTOR, 1}, {BENCH_CG, MIX_ROLE_STORAGE, 1}, {BENCH_CHOL, MIX_ROLE_FACTOR, 1},
       {BENCH_CG_AMG, MIX_ROLE_STORAGE, 1}, {BENCH_SPLU, MIX_ROLE_FACTOR, 1}};
    int n = 0;
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        mix_prec p[CLI_MAX_PRECS];
        const int np = cli_precs(methods[k].role, 0, methods[k].with_auto, p);
        for (int j = 0; j < np; j++) rows[n++] = (summary_row){methods[k].m, p[j]};
    }
    return n;
}

/* One row of the summary (nothing when no run has it): the silent failures it counted. */
static int summary_line(const bench_set *s, FILE *f, int md, summary_row row)
{
    int run = 0, ok = 0, fb = 0, fail = 0, silent = 0, to = 0, nsp = 0;
    double logsum = 0, best = 0;
    for (int i = 0; i < s->count; i++) {
        const bench_result *r = &s->r[i];
        if (r->method != row.m || r->prec != row.p || !ran(r)) continue;
        run++;
        switch (r->outcome) {
        case BENCH_OK: ok++; break;
        case BENCH_FALLBACK: fb++; break;
        case BENCH_FAILED: fail++; break;
        case BENCH_SILENT: silent++; break;
        default: to++; break;
        }
        if (r->speedup > 0) {
            logsum += log(r->speedup);
            nsp++;
            best = fmax(best, r->speedup);
        }
    }
    if (!run) return 0;
    char sp[32], bs[32];
    const char *label = row.p == MIX_FP64 ? (row.m == BENCH_LU     ? "fp64 (dgesv)"
                                             : row.m == BENCH_CHOL ? "fp64 (dposv)"
                                             : row.m == BENCH_SPLU ? "fp64 (umfpack)"
                                                                   : "fp64 (baseline)")
                                          : mix_prec_name(row.p);
    fmt_num(sp, sizeof sp, "%.2fx", exp(logsum / (nsp ? nsp : 1)), nsp > 0);
    fmt_num(bs, sizeof bs, "%.2fx", best, nsp > 0);
    if (md)
        fprintf(f, "| %s | %s | %d | %s | %s | %d | %d | %d | %s%d%s | %d |\n", method_name(row.m), label, run, sp, bs,
                ok, fb, fail, silent ? "**" : "", silent, silent ? "**" : "", to);
    else
        fprintf(f, "%-6s %-13s %5d %10s %7s %10d %9d %8d %7d %9d\n", method_name(row.m), label, run, sp, bs, ok, fb,
                fail, silent, to);
    return silent;
}

/* CG where storage precision can pay: the speed on matrices with n >= 10000 (issue 11's target). */
static void summary_large_cg(const bench_set *s, FILE *f, int md, const summary_row *rows, int nrows)
{
    fprintf(f, "%sCG speed vs FP64 (geo-mean) on matrices with n >= 10000:", md ? "\n" : "");
    for (int k = 0; k < nrows; k++) {
        if (rows[k].m != BENCH_CG || rows[k].p == MIX_FP64) continue;
        double logsum = 0;
        int nsp = 0;
        for (int i = 0; i < s->count; i++) {
            const bench_result *r = &s->r[i];
            if (r->method == BENCH_CG && r->prec == rows[k].p && ran(r) && r->n >= 10000 && r->speedup > 0) {
                logsum += log(r->speedup);
                nsp++;
            }
        }
        char sp[32];
        fmt_num(sp, sizeof sp, "%.2fx", exp(logsum / (nsp ? nsp : 1)), nsp > 0);
        fprintf(f, " %s %s (%d)%s", mix_prec_name(rows[k].p), sp, nsp, k + 1 < nrows ? "," : "");
    }
    fprintf(f, "\n");
}

void bench_summary(const bench_set *s, FILE *f, int md)
{
    summary_row rows[5 * CLI_MAX_PRECS];
    const int nrows = summary_rows(rows);
    if (md) {
        fprintf(f, "| method | precision | matrices run | speed vs FP64 (geo-mean) | best | refined without fallback "
                   "| fallbacks | failures | silent failures | timeouts/crashes |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n");
    } else {
        fprintf(f, "%-6s %-13s %5s %10s %7s %10s %9s %8s %7s %9s\n", "method", "precision", "run", "speed/FP64",
                "best", "no-fallbk", "fallbacks", "failures", "silent", "timeout");
    }
    int silent_total = 0;
    for (int k = 0; k < nrows; k++) silent_total += summary_line(s, f, md, rows[k]);
    fprintf(f, "%sSilent failures (reported success, recomputed check failed): %d%s\n", md ? "\n**" : "",
            silent_total, md ? "**\n" : "");
    summary_large_cg(s, f, md, rows, nrows);
}

/* ---- table, CSV ------------------------------------------------------------------------------- */

static void print_table(const bench_set *s, FILE *f)
{
    fprintf(f, "%-26s %6s %-2s %-12s %-14s %5s %9s %9s %9s %8s %8s  %s\n", "matrix", "n", "m", "solver", "outcome",
            "iter", "check", "fwd err", "time(s)", "speedup", "kappa1", "note");
    for (int i = 0; i < s->count; i++) {
        const bench_result *r = &s->r[i];
        char chk[24], fwd[24], tm[24], sp[24], ka[24];
        int have = ran(r) && r->outcome != BENCH_TIMEOUT && r->outcome != BENCH_CRASHED;
        fmt_num(chk, sizeof chk, "%.2e", r->check, have);
        fmt_num(fwd, sizeof fwd, "%.2e", r->fwd_err, have);
        fmt_num(tm, sizeof tm, "%.2e", r->time, have);
        fmt_num(sp, sizeof sp, "%.2f", r->speedup, r->speedup > 0);
        fmt_num(ka, sizeof ka, "%.1e", r->kappa1, r->kappa1 > 0);
        fprintf(f, "%-26.26s %6d %-2s %-12s %-14s %5d %9s %9s %9s %8s %8s  %s\n", r->matrix, r->n,
                method_name(r->method), solver_label(r), bench_outcome_name(r->outcome), r->iter, chk, fwd, tm, sp, ka,
                r->note);
    }
}

static int write_csv(const bench_set *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "matrix,n,nnz,spd_candidate,method,precision,outcome,status,iter,inner_iter,reliable_updates,fell_back,"
               "reason,check_recomputed,check_solver,fwd_err,time_s,speedup_vs_fp64,kappa1_est,note\n");
    for (int i = 0; i < s->count; i++) {
        const bench_result *r = &s->r[i];
        char note[160];
        snprintf(note, sizeof note, "%s", r->note);
        for (char *c = note; *c; c++)
            if (*c == '"' || *c == ',') *c = ';';
        fprintf(f, "%s,%d,%lld,%d,%s,%s,%s,%d,%d,%d,%d,%d,%d,%.6e,%.6e,%.6e,%.6e,%.4f,%.6e,\"%s\"\n", r->matrix, r->n,
                r->nnz, r->spd_candidate, method_name(r->method), mix_prec_name(r->prec), bench_outcome_name(r->outcome),
                r->status, r->iter, r->inner_iter, r->reliable_updates, r->fell_back, r->reason, r->check,
                r->solver_check, r->fwd_err, r->time, r->speedup, r->kappa1, note);
    }
    return fclose(f) ? -1 : 0;
}

/* ---- plots ------------------------------------------------------------------------------------ */

static FILE *open_in(const bench_set *s, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", s->outdir, name);
    return fopen(path, "w");
}

static const bench_result *find(const bench_set *s, const char *matrix, bench_method m, mix_prec p)
{
    for (int i = 0; i < s->count; i++)
        if (s->r[i].method == m && s->r[i].prec == p && !strcmp(s->r[i].matrix, matrix)) return &s->r[i];
    return NULL;
}

/* One row per matrix that has a baseline: the speedup of each precision ("-" when missing). */
static int speedup_data(const bench_set *s, bench_method m, const mix_prec *precs, int np, const char *file)
{
    FILE *f = open_in(s, file);
    if (!f) return -1;
    int rows = 0;
    for (int i = 0; i < s->count; i++) {
        const bench_result *b = &s->r[i];
        if (b->method != m || b->prec != MIX_FP64 || b->outcome != BENCH_OK) continue;
        fprintf(f, "%s", b->matrix);
        for (int k = 0; k < np; k++) {
            const bench_result *r = find(s, b->matrix, m, precs[k]);
            if (r && r->speedup > 0) fprintf(f, " %.4f", r->speedup);
            else fprintf(f, " -");
        }
        fprintf(f, "\n");
        rows++;
    }
    fclose(f);
    return rows;
}

/* The precisions the plots draw, from the library's table: the low factor and storage ones (one
 * curve or bar each against FP64), and every storage one (CG's iterations, FP64 included). */
typedef struct {
    mix_prec lu_low[CLI_MAX_PRECS], cg_low[CLI_MAX_PRECS], cg_all[CLI_MAX_PRECS];
    int n_lu_low, n_cg_low, n_cg_all;
} plot_precs;

static void get_plot_precs(plot_precs *pp)
{
    pp->n_lu_low = cli_precs(MIX_ROLE_FACTOR, 1, 0, pp->lu_low);
    pp->n_cg_low = cli_precs(MIX_ROLE_STORAGE, 1, 0, pp->cg_low);
    pp->n_cg_all = cli_precs(MIX_ROLE_STORAGE, 0, 0, pp->cg_all);
}

/* Iterations per matrix, one data block per curve k (method m[k], or m[0] for every curve where
 * one_method; precision precs[k]): one row per run without fallback, against the condition
 * estimate (runs without one left out) or, by_n, the matrix order.  The number of rows. */
static int iters_data(const bench_set *s, const bench_method *m, int one_method, const mix_prec *precs,
                      int np, int by_n, const char *file)
{
    FILE *f = open_in(s, file);
    int rows = 0;
    if (!f) return 0;
    for (int k = 0; k < np; k++) {
        const bench_method mk = m[one_method ? 0 : k];
        fprintf(f, "# %s %s\n", method_name(mk), mix_prec_name(precs[k]));
        for (int i = 0; i < s->count; i++) {
            const bench_result *r = &s->r[i];
            if (r->method != mk || r->prec != precs[k] || r->outcome != BENCH_OK) continue;
            if (by_n && r->iter > 0) fprintf(f, "%d %d %s\n", r->n, r->iter, r->matrix);
            else if (!by_n && r->kappa1 > 0 && isfinite(r->kappa1))
                fprintf(f, "%.6e %d %s\n", r->kappa1, r->iter, r->matrix);
            else continue;
            rows++;
        }
        fprintf(f, "\n\n");
    }
    fclose(f);
    return rows;
}

/* Convergence history of the matrix whose FP16 LU-IR needed the most iterations without fallback
 * (its name into matrix): 1 when written. */
static int history_data(const bench_set *s, const plot_precs *pp, char *matrix, size_t len)
{
    const bench_result *pick = NULL;
    for (int i = 0; i < s->count; i++) {
        const bench_result *r = &s->r[i];
        if (r->method == BENCH_LU && r->prec == MIX_FP16 && r->outcome == BENCH_OK && r->hist_len >= 2 &&
            (!pick || r->iter > pick->iter))
            pick = r;
    }
    FILE *f;
    if (!pick || !(f = open_in(s, "history.dat"))) return 0;
    snprintf(matrix, len, "%s", pick->matrix);
    for (int k = 0; k < pp->n_lu_low; k++) {
        const bench_result *r = find(s, pick->matrix, BENCH_LU, pp->lu_low[k]);
        fprintf(f, "# %s\n", mix_prec_name(pp->lu_low[k]));
        for (int j = 0; r && j < r->hist_len; j++)
            if (r->hist[j] > 0) fprintf(f, "%d %.6e\n", j, r->hist[j]);
        fprintf(f, "\n\n");
    }
    fclose(f);
    return 1;
}

/* A gnuplot plot command's curves, one per precision: "FIRST title 'p0', '' EACH title 'p1', ..."
 * with EACH's %d the curve's data column (k + 2) or index (k), as the data files lay them out. */
static void plot_curves(FILE *f, const char *first, const char *each, int column, const mix_prec *p, int n)
{
    for (int k = 0; k < n; k++) {
        fprintf(f, "%s", k ? ", '' " : "plot ");
        if (k == 0) fprintf(f, "%s", first);
        else fprintf(f, each, column ? k + 2 : k);
        fprintf(f, " title '%s'", mix_prec_name(p[k]));
    }
    fprintf(f, "\n");
}

static void speedup_plot(const bench_set *s, FILE *f, int cg, const plot_precs *pp)
{
    fprintf(f, "set output 'speedup_%s.png'\n"
               "set title '%s: speed relative to FP64 (%s) per matrix, backend %s (>1 = faster)'\n"
               "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
               "set boxwidth 0.9\nset xtics rotate by -60 font ',7'\nset logscale y 2\nset ylabel 'speedup vs FP64'\n",
            cg ? "cg" : "lu", cg ? "mixed-precision CG" : "LU-IR", cg ? "CG" : "LAPACKE_dgesv", s->backend);
    char first[64];
    snprintf(first, sizeof first, "'%s' using 2:xtic(1)", cg ? "speedup_cg.dat" : "speedup_lu.dat");
    plot_curves(f, first, "using %d", 1, cg ? pp->cg_low : pp->lu_low, cg ? pp->n_cg_low : pp->n_lu_low);
    fprintf(f, "unset logscale y\nset xtics norotate font ''\nset style data points\nset ylabel\n");
}

/* Issue 37's picture: CG's iterations per matrix order with Jacobi (FP64 storage) and with one
 * AMG V-cycle per iteration (FP64 and AUTO storage). */
static int amg_iters_data(const bench_set *s)
{
    static const bench_method m[3] = {BENCH_CG, BENCH_CG_AMG, BENCH_CG_AMG};
    static const mix_prec p[3] = {MIX_FP64, MIX_FP64, MIX_PREC_AUTO};
    return iters_data(s, m, 0, p, 3, 1, "iters_amg.dat");
}

static void amg_plot(const bench_set *s, FILE *f)
{
    fprintf(f, "set output 'amg_iters.png'\n"
               "set title 'CG iterations to tol %.0e: Jacobi against one AMG V-cycle per iteration'\n"
               "set logscale xy\nset xlabel 'matrix order n'\nset ylabel 'CG iterations'\n"
               "plot 'iters_amg.dat' index 0 using 1:2 with points pt 1 title 'Jacobi, FP64 storage', "
               "'' index 1 using 1:2 with points pt 6 title 'AMG, FP64 storage', "
               "'' index 2 using 1:2 with points pt 2 title 'AMG, AUTO storage'\n"
               "unset logscale xy\n",
            s->cg_tol);
}

static const char *write_plots(const bench_set *s, int *made)
{
    static char conv_matrix[64];
    plot_precs pp;
    get_plot_precs(&pp);
    *made = 0;
    int n_lu = speedup_data(s, BENCH_LU, pp.lu_low, pp.n_lu_low, "speedup_lu.dat");
    int n_cg = speedup_data(s, BENCH_CG, pp.cg_low, pp.n_cg_low, "speedup_cg.dat");
    static const bench_method lu = BENCH_LU, cg = BENCH_CG;
    const int n_it = iters_data(s, &lu, 1, pp.lu_low, pp.n_lu_low, 0, "iters_cond.dat");
    const int n_itcg = iters_data(s, &cg, 1, pp.cg_all, pp.n_cg_all, 0, "iters_cond_cg.dat");
    const int n_amg = amg_iters_data(s);
    const int n_hist = history_data(s, &pp, conv_matrix, sizeof conv_matrix);
    FILE *f = open_in(s, "plots.gp");
    if (!f) return NULL;
    fprintf(f, "# plots.gp: gnuplot script written by mixsolve bench (run it in this folder).\n"
               "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1400,600 noenhanced font ',9' }"
               " else { set terminal png size 1400,600 noenhanced }\n"
               "set datafile missing '-'\nset grid ytics\nset key outside right top\n");
    for (int cg = 0; cg < 2; cg++) {
        if ((cg ? n_cg : n_lu) <= 0) continue;
        speedup_plot(s, f, cg, &pp);
        (*made)++;
    }
    if (n_it > 0) {
        fprintf(f, "set output 'iters_vs_cond.png'\n"
                   "set title 'LU-IR outer iterations against the 1-norm condition estimate (LAPACKE_dgecon)'\n"
                   "set logscale x\nset xlabel 'kappa_1(A) estimate'\nset ylabel 'refinement iterations'\n");
        plot_curves(f, "'iters_cond.dat' index 0 using 1:2 with points", "index %d using 1:2 with points", 0,
                    pp.lu_low, pp.n_lu_low);
        fprintf(f, "unset logscale x\n");
        (*made)++;
    }
    if (n_itcg > 0) {
        fprintf(f, "set output 'cg_iters_vs_cond.png'\n"
                   "set title 'CG (Jacobi) iterations against the 1-norm condition estimate'\n"
                   "set logscale xy\nset xlabel 'kappa_1(A) estimate'\nset ylabel 'CG iterations'\n");
        plot_curves(f, "'iters_cond_cg.dat' index 0 using 1:2 with points", "index %d using 1:2 with points", 0,
                    pp.cg_all, pp.n_cg_all);
        fprintf(f, "unset logscale xy\n");
        (*made)++;
    }
    if (n_amg > 0) {
        amg_plot(s, f);
        (*made)++;
    }
    if (n_hist) {
        fprintf(f, "set output 'convergence.png'\n"
                   "set title 'LU-IR convergence history on %s (backward error per outer iteration)'\n"
                   "set logscale y\nset format y '%%.0e'\nset xlabel 'outer iteration'\nset ylabel 'backward error'\n",
                conv_matrix);
        plot_curves(f, "'history.dat' index 0 with linespoints", "index %d with linespoints", 0, pp.lu_low,
                    pp.n_lu_low);
        (*made)++;
    }
    fclose(f);
    return n_hist ? conv_matrix : NULL;
}

static int run_gnuplot(const bench_set *s)
{
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' plots.gp > gnuplot.log 2>&1", s->outdir, MIX_GNUPLOT);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot plots.gp > gnuplot.log 2>&1", s->outdir);
        rc = system(cmd);
    }
    return rc;
}

/* ---- report.md -------------------------------------------------------------------------------- */

static void write_markdown(const bench_set *s, FILE *f, int plots_ok, const char *conv)
{
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    int nmat = 0;
    for (int i = 0; i < s->count; i++)
        if (i == 0 || strcmp(s->r[i].matrix, s->r[i - 1].matrix)) nmat++;
    fprintf(f, "# mixsolve benchmark report\n\n"
               "mixsolve %s, %s. Backend **%s** (%s; %s). %d matrices, %d solves, %.0f s.\n\n"
               "Every solve uses b = A·ones. The check column is recomputed by the benchmark in FP64 from the "
               "original sparse matrix, never taken from the solver: LU runs use the normwise backward error "
               "‖b − Ax‖∞ / (‖A‖∞‖x‖∞ + ‖b‖∞), accepted when ≤ %.0f·√n·ε; CG runs use the true relative "
               "residual ‖b − Ax‖₂/‖b‖₂, accepted when ≤ 10·tol (tol = %.0e, Jacobi preconditioner). A solve the "
               "solver calls a success that fails this check is a **silent failure**. Speedups are FP64 time "
               "(LAPACKE_dgesv for LU, FP64 CG for CG) divided by the time of the solve (each the best of at "
               "least two repetitions, more for short solves), in the same run; each solve runs in its own process. κ₁ is LAPACKE_dgecon's 1-norm estimate from the FP64 LU factors.\n\n",
            mix_version(), date, s->backend, s->device[0] ? s->device : "?", s->libraries[0] ? s->libraries : "?", nmat,
            s->count, s->wall, s->threshold_lu_factor, s->cg_tol);
    fprintf(f, "## Summary per precision\n\nIn the form of NVIDIA's cuSOLVER Tensor Core IRS table: relative speed "
               "against FP64 (geometric mean over the matrices where both solved), number of matrices refined "
               "without fallback, number of FP64 fallbacks (still correct results), failures reported by the "
               "solver, silent failures.\n\n");
    bench_summary(s, f, 1);
    fprintf(f, "\n## Plots\n\n");
    if (!plots_ok) {
        fprintf(f, "The plots could not be made (gnuplot missing or failed; see gnuplot.log). The data files "
                   "(*.dat) and plots.gp are in this folder.\n\n");
    } else {
        fprintf(f, "![LU-IR speedup](speedup_lu.png)\n\n![CG speedup](speedup_cg.png)\n\n"
                   "![LU-IR iterations against condition](iters_vs_cond.png)\n\n"
                   "![CG iterations against condition](cg_iters_vs_cond.png)\n\n"
                   "![CG iterations with and without AMG](amg_iters.png)\n\n");
        if (conv) fprintf(f, "![Convergence history on %s](convergence.png)\n\n", conv);
    }
    fprintf(f, "## All results\n\n| matrix | n | method | solver | outcome | iter | check | fwd err ‖x−1‖∞ | time (s) | "
               "speedup | κ₁ est. | note |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < s->count; i++) {
        const bench_result *r = &s->r[i];
        char chk[24], fwd[24], tm[24], sp[24], ka[24];
        int have = ran(r) && r->outcome != BENCH_TIMEOUT && r->outcome != BENCH_CRASHED;
        fmt_num(chk, sizeof chk, "%.2e", r->check, have);
        fmt_num(fwd, sizeof fwd, "%.2e", r->fwd_err, have);
        fmt_num(tm, sizeof tm, "%.3e", r->time, have);
        fmt_num(sp, sizeof sp, "%.2f", r->speedup, r->speedup > 0);
        fmt_num(ka, sizeof ka, "%.1e", r->kappa1, r->kappa1 > 0);
        int bad = r->outcome == BENCH_SILENT || r->outcome == BENCH_CRASHED;
        fprintf(f, "| %s | %d | %s | %s | %s%s%s | %d | %s | %s | %s | %s | %s | %s |\n", r->matrix, r->n,
                method_name(r->method), solver_label(r), bad ? "**" : "", bench_outcome_name(r->outcome), bad ? "**" : "",
                r->iter, chk, fwd, tm, sp, ka, r->note);
    }
    fprintf(f, "\nFiles: results.csv (all columns), *.dat and plots.gp (the plots' data and script).\n"
               "Matrices from the SuiteSparse Matrix Collection (CC-BY 4.0; Davis & Hu, ACM TOMS 38(1), 2011).\n");
}

int bench_report(bench_set *s, FILE *table)
{
    print_table(s, table);
    char path[4096];
    snprintf(path, sizeof path, "%s/results.csv", s->outdir);
    int rc = write_csv(s, path);
    int made = 0;
    const char *conv = write_plots(s, &made);
    int plots_ok = made > 0 && run_gnuplot(s) == 0;
    if (made > 0 && !plots_ok) fprintf(stderr, "mixsolve: note: plots not made (gnuplot missing or failed, see %s/gnuplot.log)\n", s->outdir);
    snprintf(path, sizeof path, "%s/report.md", s->outdir);
    FILE *f = fopen(path, "w");
    if (f) {
        write_markdown(s, f, plots_ok, conv);
        bench_amg_report(s, f);
        if (fclose(f)) rc = -1;
    } else {
        rc = -1;
    }
    fprintf(table, "\nSummary (backend %s, %.0f s):\n", s->backend, s->wall);
    bench_summary(s, table, 0);
    if (rc) fprintf(stderr, "mixsolve: cannot write the report into %s\n", s->outdir);
    else fprintf(table, "Report: %s/report.md (CSV: %s/results.csv)\n", s->outdir, s->outdir);
    return rc;
}
