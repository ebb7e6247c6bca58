/* bench_gesv.c: times LAPACK dgesv/dsgesv against the mixsolve dense drivers on randsvd matrices (Markdown table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "mixsolve.h"
#include "matrices/generators.h"
#include "bench/bench_dense.h"

static const char *kappa_str(double kappa)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "%.0e", kappa);
    return buf;
}

/* After bench_run's common six. */
static const bench_method extra[] = {
    {"GMRES-IR FP32", BENCH_MIX, MIX_FP32, MIX_REFINE_GMRES},
    {"GMRES-IR FP16", BENCH_MIX, MIX_FP16, MIX_REFINE_GMRES},
    {"GMRES-IR BF16", BENCH_MIX, MIX_BF16, MIX_REFINE_GMRES},
    {"mix_dgesv_ir AUTO", BENCH_MIX, MIX_PREC_AUTO, MIX_REFINE_AUTO},
};

static int usage(void)
{
    fprintf(stderr, "usage: bench_gesv [-n N]... [-k KAPPA]... [-m MODE] [-r REPS]\n"
                    "  defaults: -n 1000 -n 2000 -n 4000 -k 1e2 -k 1e6 -m 3 -r 1 (best of REPS)\n"
                    "  -m 0: uniform random entries in [0, 1) instead of randsvd (kappa ignored)\n");
    return 2;
}

static int call(mix_context *ctx, const bench_method *m, int n, double *w, int *ipiv, double *b,
                double *x, int *iter, mix_gesv_info *info)
{
    if (m->kind == BENCH_LAPACK64) {
        memcpy(x, b, (size_t)n * sizeof *x);
        return LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, w, n, ipiv, x, n);
    }
    if (m->kind == BENCH_LAPACK_MIXED)
        return LAPACKE_dsgesv(LAPACK_COL_MAJOR, n, 1, w, n, ipiv, b, n, x, n, iter);
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = m->prec;
    p.refine = m->refine;
    return mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, w, n, ipiv, b, n, x, n, info);
}

/* One row of the table. */
static void row(const bench_opts *o, int n, double kappa, const bench_method *m,
                const bench_result *r, const bench_result *ref, double berr)
{
    char it[32] = "-", prof[48] = "-", name[64];
    if (m->kind == BENCH_LAPACK_MIXED) snprintf(it, sizeof it, "%d", r->iter);
    if (m->kind == BENCH_MIX) {
        snprintf(it, sizeof it, "%d (%d)", r->iter, r->inner);
        snprintf(prof, sizeof prof, "%.4f / %.4f", r->tf, r->tr);
    }
    snprintf(name, sizeof name, "%s%s%s%s", m->name, m->prec == MIX_PREC_AUTO ? " (took " : "",
             m->prec == MIX_PREC_AUTO ? mix_prec_name(r->used) : "",
             m->prec == MIX_PREC_AUTO ? ")" : "");
    printf("| %d | %s | %s%s | %.4f | %.1f | %.2f | %s | %.1e | %s |\n", n,
           o->mode == 0 ? "uniform" : kappa_str(kappa), name, r->st ? " (error)" : "", r->best,
           2.0 * n * (double)n * n / 3.0 / r->best / 1e9, ref->best / r->best, it, berr, prof);
    fflush(stdout);
}

static int problem(const bench_opts *o, int n, double kappa, double *a, double *b, double *x)
{
    fprintf(stderr, "generating n = %d, kappa = %g\n", n, kappa);
    if (o->mode == 0) mixm_gen_random_dense(n, 2024 + (uint64_t)n, a);
    else mixm_gen_randsvd(n, kappa, o->mode, 2024 + (uint64_t)n, a);
    for (int i = 0; i < n; i++) x[i] = 1.0 + sin((double)i);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, a, n, x, 1, 0.0, b, 1);
    return 0;
}

int main(int argc, char **argv)
{
    static const bench_opts defaults = {
        .sizes = {1000, 2000, 4000}, .nsizes = 3, .kappas = {1e2, 1e6}, .nkappas = 2, .mode = 3,
        .reps = 1};
    return bench_run(argc, argv, &defaults, usage, "gesv",
                     "| n | kappa | method | time (s) | GFLOP/s | speedup vs dgesv | iter (inner) | "
                     "backward error | factor / refine (s) |",
                     extra, sizeof extra / sizeof extra[0], problem, call, row);
}
