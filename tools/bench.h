/* bench.h: results of `mixsolve bench` shared by the runner (cmd_bench.c) and the reports (bench_report.c). */
#ifndef MIXSOLVE_BENCH_H
#define MIXSOLVE_BENCH_H

#include <stdio.h>
#include "mixsolve.h"

#define BENCH_HIST 64

/* How one solve ended, as judged by the benchmark's own FP64 check. */
typedef enum {
    BENCH_OK,        /* converged in the low precision, no fallback, check passed */
    BENCH_FALLBACK,  /* solved through the FP64 fallback, check passed */
    BENCH_FAILED,    /* the solver reported a failure (status, not converged, not SPD) */
    BENCH_SILENT,    /* the solver reported success but the recomputed check fails */
    BENCH_TIMEOUT,   /* killed at the per-solve time limit */
    BENCH_CRASHED,   /* the solve process died (signal) */
    BENCH_SKIPPED    /* not run (size limit, budget); the note says why */
} bench_outcome;

/* BENCH_CHOL: dense Cholesky-IR (mix_dposv_ir; baseline LAPACKE_dposv) on SPD candidates.
 * BENCH_CG_AMG: mix_dcg with MIX_PRECOND_AMG (tools/bench_amg.c).
 * BENCH_SPLU: sparse LU-IR (mix_dgesv_sparse; baseline UMFPACK) beyond --dense-max, not SPD. */
typedef enum { BENCH_LU, BENCH_CG, BENCH_CHOL, BENCH_CG_AMG, BENCH_SPLU } bench_method;

/* One matrix x method x precision. */
typedef struct {
    char matrix[64];
    int n;
    long long nnz;
    int spd_candidate;
    bench_method method;
    mix_prec prec;       /* MIX_FP64 = the baseline (LAPACKE_dgesv or FP64 CG) */
    bench_outcome outcome;
    int status;          /* mixsolve status (LAPACK info for the baseline) */
    int iter, inner_iter, reliable_updates, fell_back, reason;
    mix_prec used;       /* LU: the factor precision the solver used (what AUTO took) */
    mix_prec auto_low;   /* AUTO rows: the factor precision AUTO picks at this size (its low
                            precision, named in the note after a fallback) */
    double check;        /* LU: backward error; CG: true relative residual; recomputed in FP64 */
    double solver_check; /* the same as the solver reported it */
    double fwd_err;      /* ||x - ones||inf (b = A ones) */
    double time;         /* seconds, best of the repetitions */
    double speedup;      /* FP64 baseline time / time (0 when either is missing) */
    double kappa1;       /* 1-norm condition estimate (LAPACKE_dgecon), baseline LU only */
    int hist_len;
    double hist[BENCH_HIST];
    char note[120];
} bench_result;

typedef struct {
    bench_result *r;
    int count, cap;
    const char *outdir;
    char backend[16], device[128], libraries[128];
    double threshold_lu_factor; /* LU accepted when backward error <= factor * sqrt(n) * eps */
    double cg_tol;
    double wall;
} bench_set;

/* Inline so that the report's parts (bench_report.c, bench_amg.c) share it without a call circle. */
static inline const char *bench_outcome_name(bench_outcome o)
{
    static const char *const names[] = {"ok", "fallback", "FAILED", "SILENT-FAILURE", "timeout", "crashed",
                                        "skipped"};
    return (unsigned)o <= BENCH_SKIPPED ? names[o] : "?";
}
/* tools/bench_amg.c: the storages of the AMG rows (FP64, AUTO), and the report's section on
 * iterations and times with and without the multigrid preconditioner. */
#define BENCH_AMG_NPRECS 2
extern const mix_prec bench_amg_precs[BENCH_AMG_NPRECS];
void bench_amg_report(const bench_set *s, FILE *f);
/* Table on stdout, results.csv, report.md and the gnuplot plots in s->outdir; 0 or -1. */
int bench_report(bench_set *s, FILE *table);
/* The NVIDIA-style per-precision summary (also part of the report). */
void bench_summary(const bench_set *s, FILE *f, int markdown);

#endif
