/* bench_amg.c: the multigrid rows of `mixsolve bench` (mix_dcg with MIX_PRECOND_AMG, hierarchy
 * in FP64 and in AUTO's storage) and their section of report.md: iterations and times with and
 * without AMG, matrix by matrix. */
#include <string.h>
#include "tools/bench.h"

const mix_prec bench_amg_precs[BENCH_AMG_NPRECS] = {MIX_FP64, MIX_PREC_AUTO};

static const bench_result *row(const bench_set *s, const char *matrix, bench_method m, mix_prec p)
{
    for (int i = 0; i < s->count; i++)
        if (s->r[i].method == m && s->r[i].prec == p && !strcmp(s->r[i].matrix, matrix)) return &s->r[i];
    return NULL;
}

/* "iterations / seconds", or the outcome when the row did not converge. */
static void cell(FILE *f, const bench_result *r)
{
    if (!r) fprintf(f, " - |");
    else if (r->outcome == BENCH_OK) fprintf(f, " %d / %.3g |", r->iter, r->time);
    else fprintf(f, " %s |", bench_outcome_name(r->outcome));
}

void bench_amg_report(const bench_set *s, FILE *f)
{
    int any = 0;
    for (int i = 0; i < s->count && !any; i++) any = s->r[i].method == BENCH_CG_AMG;
    if (!any) return;
    fprintf(f, "\n## CG with and without multigrid (MIX_PRECOND_AMG)\n\n"
               "Iterations / seconds (best repeated solve: the hierarchy cached on the matrix; the "
               "first solve, with the set-up, in the notes of the AMG rows).\n\n"
               "| matrix | n | CG Jacobi FP64 | CG Jacobi AUTO | CG AMG FP64 | CG AMG AUTO | AMG first solve |\n"
               "|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < s->count; i++) {
        const bench_result *a = &s->r[i];
        if (a->method != BENCH_CG_AMG || a->prec != MIX_FP64) continue;
        const bench_result *auto_amg = row(s, a->matrix, BENCH_CG_AMG, MIX_PREC_AUTO);
        fprintf(f, "| %s | %d |", a->matrix, a->n);
        cell(f, row(s, a->matrix, BENCH_CG, MIX_FP64));
        cell(f, row(s, a->matrix, BENCH_CG, MIX_PREC_AUTO));
        cell(f, a);
        cell(f, auto_amg);
        fprintf(f, " %s |\n", auto_amg ? auto_amg->note : "");
    }
}
