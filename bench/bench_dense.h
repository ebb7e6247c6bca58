/* bench_dense.h: what bench_gesv and bench_posv share: options, the table's head and foot, the timed repetitions of one method. */
#ifndef MIX_BENCH_DENSE_H
#define MIX_BENCH_DENSE_H

#include "mixsolve.h"

enum { BENCH_LAPACK64, BENCH_LAPACK_MIXED, BENCH_MIX }; /* dgesv/dposv, dsgesv/dsposv, mixsolve */
typedef struct {
    const char *name;
    int kind;
    mix_prec prec;
    mix_refine refine;
} bench_method;

typedef struct {
    int sizes[16], nsizes, mode, reps, haar;
    double kappas[8];
    int nkappas;
} bench_opts;

/* One call of a method on w (A, overwritten), b, x; ipiv: n ints (LU) or NULL. */
typedef int (*bench_call)(mix_context *ctx, const bench_method *m, int n, double *w, int *ipiv,
                          double *b, double *x, int *iter, mix_gesv_info *info);

typedef struct {
    double best, cpu, tf, tr; /* wall and CPU time of the best repetition, factor / refine */
    int iter, inner, st;
    mix_prec used;            /* the factor precision mixsolve took */
} bench_result;

/* The first BENCH_COMMON methods of either table: LAPACKE_d<family>, LAPACKE_ds<family>, then
 * the simple drivers mix_d?<family> (FP32, TF32, FP16, BF16); family "gesv" or "posv". */
#define BENCH_COMMON 6
void bench_common_methods(const char *family, bench_method *out);
/* Options -n -k -m -r (and -g haar|fast where with_g); 0, or 2 after a bad one. */
int bench_parse(int argc, char **argv, int with_g, bench_opts *o);
/* A CPU context; the machine line and the table's head printed.  NULL on failure. */
mix_context *bench_start(const char *prog, const bench_opts *o, const char *head,
                         const char *rule);
/* The load line; ctx destroyed. */
void bench_finish(mix_context *ctx);
/* The best of o->reps calls of m (w := a before each). */
void bench_time(mix_context *ctx, const bench_method *m, int reps, int n, const double *a,
                double *w, int *ipiv, double *b, double *x, bench_call call, bench_result *r);
/* ipiv: n ints when with_ipiv; a, w: n x n; b, x: n.  0, or 1 (message printed) when short. */
int bench_alloc(const char *prog, int n, int with_ipiv, double **a, double **w, double **b,
                double **x, int **ipiv);

#endif
