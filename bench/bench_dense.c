/* bench_dense.c: what bench_gesv and bench_posv share (bench_dense.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cblas.h>
#include "matrices/generators.h"
#include "bench/bench_dense.h"
#include "matrices/mixmat.h"

static char load0[32];

static void loadavg(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return;
    if (fgets(buf, (int)len, f)) buf[strcspn(buf, " ")] = '\0'; /* the 1-minute figure */
    fclose(f);
}

/* CPU time of the process (all threads): on a loaded machine it shows the work a method does
 * where the wall clock mostly shows the queue it waited in. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void common_methods(const char *family, bench_method *out)
{
    static char names[BENCH_COMMON][32];
    static const char letter[] = "sxhb";
    static const mix_prec prec[] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    static const char *const label[] = {"FP32", "TF32", "FP16", "BF16"};
    snprintf(names[0], sizeof names[0], "LAPACKE_d%s", family);
    snprintf(names[1], sizeof names[1], "LAPACKE_ds%s", family);
    out[0] = (bench_method){names[0], BENCH_LAPACK64, MIX_FP64, MIX_REFINE_AUTO};
    out[1] = (bench_method){names[1], BENCH_LAPACK_MIXED, MIX_FP32, MIX_REFINE_CLASSICAL};
    for (int i = 0; i < 4; i++) {
        snprintf(names[2 + i], sizeof names[2 + i], "mix_d%c%s (%s)", letter[i], family,
                 label[i]);
        out[2 + i] = (bench_method){names[2 + i], BENCH_MIX, prec[i], MIX_REFINE_AUTO};
    }
}

/* 0, or 2 after a bad option or a mode outside [d->min_mode, 5]; sizes and kappas from d only
 * where none is given. */
static int parse(int argc, char **argv, const bench_opts *d, bench_opts *o)
{
    *o = *d;
    o->nsizes = o->nkappas = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) return 2;
        if (!strcmp(argv[i], "-n") && o->nsizes < 16) o->sizes[o->nsizes++] = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && o->nkappas < 8) o->kappas[o->nkappas++] = atof(argv[++i]);
        else if (!strcmp(argv[i], "-m")) o->mode = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r")) o->reps = atoi(argv[++i]);
        else if (d->with_g && !strcmp(argv[i], "-g")) o->haar = !strcmp(argv[++i], "haar");
        else return 2;
    }
    if (!o->nsizes) memcpy(o->sizes, d->sizes, sizeof d->sizes), o->nsizes = d->nsizes;
    if (!o->nkappas) memcpy(o->kappas, d->kappas, sizeof d->kappas), o->nkappas = d->nkappas;
    return o->reps < 1 || o->mode < d->min_mode || o->mode > 5 ? 2 : 0;
}

static mix_context *start(const char *prog, const bench_opts *o, const char *head)
{
    mix_context *ctx;
    if (mix_context_create(&ctx, MIX_BACKEND_CPU)) {
        fprintf(stderr, "%s: no CPU context\n", prog);
        return NULL;
    }
    /* AUTO's rows are its steady state, as the main job's: a prediction at a large order makes
     * it measure its rates now (a process's first calls wait until their FP64 work pays for
     * the measurement, mix_dgesv_ir(3)). */
    mix_prec steady;
    mix_gesv_auto_prec(ctx, 16384, 1, &steady);
    mix_caps caps;
    mix_backend_caps(MIX_BACKEND_CPU, &caps);
    char date[64];
    loadavg(load0, sizeof load0);
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("CPU: %s; %s; OpenBLAS core %s, %d threads; %s; randsvd mode %d; best of %d; AUTO "
           "calibrated first\n\n",
           caps.device, caps.libraries, openblas_get_corename(), openblas_get_num_threads(), date,
           o->mode, o->reps);
    printf("%s\n", head);
    for (const char *c = head; *c; c++) /* the rule: one |---| a column */
        fputs(*c != '|' ? "" : c[1] ? "|---" : "|\n", stdout);
    return ctx;
}

static void finish(mix_context *ctx)
{
    char load1[32];
    loadavg(load1, sizeof load1);
    printf("\nload average (1 min) at start %s, at end %s\n", load0, load1);
    mix_context_destroy(ctx);
}

static void time_method(mix_context *ctx, const bench_method *m, int reps, int n, const double *a,
                double *w, int *ipiv, double *b, double *x, bench_call call, bench_result *r)
{
    *r = (bench_result){.best = INFINITY, .used = m->prec};
    for (int k = 0; k < reps; k++) {
        memcpy(w, a, (size_t)n * n * sizeof *w);
        mix_gesv_info info = {0};
        int iter = 0;
        double t0 = mixm_wtime(), c0 = cpu_seconds();
        r->st = call(ctx, m, n, w, ipiv, b, x, &iter, &info);
        double el = mixm_wtime() - t0, ce = cpu_seconds() - c0;
        if (m->kind == BENCH_LAPACK_MIXED) r->iter = iter;
        if (el < r->best) {
            r->best = el;
            r->cpu = ce;
            if (m->kind == BENCH_MIX) {
                r->used = info.factor_prec_used;
                r->iter = info.iter;
                r->inner = info.inner_iter;
                r->tf = info.t_factor;
                r->tr = info.t_refine;
            }
        }
    }
}

static int alloc_problem(const char *prog, int n, int with_ipiv, double **a, double **w, double **b,
                double **x, int **ipiv)
{
    size_t nn = (size_t)n * n;
    *a = malloc(nn * sizeof **a);
    *w = malloc(nn * sizeof **w);
    *b = malloc((size_t)n * sizeof **b);
    *x = malloc((size_t)n * sizeof **x);
    *ipiv = with_ipiv ? malloc((size_t)n * sizeof **ipiv) : NULL;
    if (*a && *w && *b && *x && (*ipiv || !with_ipiv)) return 0;
    fprintf(stderr, "%s: out of memory at n = %d\n", prog, n);
    return 1;
}

int bench_run(int argc, char **argv, const bench_opts *d, int (*usage)(void), const char *family,
              const char *head, const bench_method *extra, size_t nextra, bench_problem problem,
              bench_call call, bench_row row)
{
    bench_opts opts;
    const bench_opts *o = &opts;
    if (parse(argc, argv, d, &opts)) return usage();
    char prog[32];
    snprintf(prog, sizeof prog, "bench_%s", family);
    bench_method methods[BENCH_COMMON + 8];
    const size_t nm = BENCH_COMMON + (nextra < 8 ? nextra : 8);
    common_methods(family, methods);
    memcpy(methods + BENCH_COMMON, extra, (nm - BENCH_COMMON) * sizeof *extra);
    mix_context *ctx = start(prog, o, head);
    if (!ctx) return 1;
    for (int si = 0; si < o->nsizes; si++)
        for (int ki = 0; ki < o->nkappas; ki++) {
            int n = o->sizes[si], *ipiv;
            double kappa = o->kappas[ki], *a, *w, *b, *x;
            if (alloc_problem(prog, n, !strcmp(family, "gesv"), &a, &w, &b, &x, &ipiv) ||
                problem(o, n, kappa, a, b, x))
                return 1;
            bench_result ref = {0};
            for (size_t mi = 0; mi < nm; mi++) {
                bench_result r;
                time_method(ctx, &methods[mi], o->reps, n, a, w, ipiv, b, x, call, &r);
                if (methods[mi].kind == BENCH_LAPACK64) ref = r;
                row(o, n, kappa, &methods[mi], &r, &ref,
                    mixm_dense_backward_error(n, 1, a, n, b, n, x, n));
            }
            free(a); free(w); free(b); free(x); free(ipiv);
        }
    finish(ctx);
    return 0;
}
