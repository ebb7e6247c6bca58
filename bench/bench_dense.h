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
    int with_g, min_mode;   /* the defaults': -g accepted; the least -m */
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

/* bench_run's first BENCH_COMMON methods: LAPACKE_d<family>, LAPACKE_ds<family>, then
 * the simple drivers mix_d?<family> (FP32, TF32, FP16, BF16); family "gesv" or "posv". */
#define BENCH_COMMON 6
/* A (n x n) and b = A x for the problem (n, kappa) (x: scratch); 0, or 1 with a message. */
typedef int (*bench_problem)(const bench_opts *o, int n, double kappa, double *a, double *b,
                             double *x);
/* One row of the table; ref: the LAPACK FP64 driver's result (the first method). */
typedef void (*bench_row)(const bench_opts *o, int n, double kappa, const bench_method *m,
                          const bench_result *r, const bench_result *ref, double berr);
/* bench_<family>'s main: options -n -k -m -r (-g haar|fast where d->with_g) over the defaults
 * d (usage() after a bad one), then the table (its head: the column names) of the common
 * methods and extra[nextra] on every (size, kappa). */
int bench_run(int argc, char **argv, const bench_opts *d, int (*usage)(void), const char *family,
              const char *head, const bench_method *extra, size_t nextra, bench_problem problem,
              bench_call call, bench_row row);

#endif
