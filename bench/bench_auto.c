/* bench_auto.c: issue 32's targets side by side: LAPACKE_dgesv, LAPACKE_dsgesv, mix_dsgesv and
 * mix_dgesv_ir AUTO (and, with chol, LAPACKE_dposv, mix_dsposv, mix_dposv_ir AUTO), the calls
 * interleaved round by round so that load drifts hit them alike; best of ROUNDS.
 *   bench_auto [-r ROUNDS] PROBLEM...
 * Small systems are timed in batches of calls (batch_size), best batch of ROUNDS per call.
 * PROBLEM: randsvd:N:KAPPA (mode 3), random:N (uniform [0, 1), as bench_gesv -m 0), urandom:N
 * (uniform [-1, 1), the main job's gen_random_N),
 * dd:N (uniform [-1, 1) plus N on the diagonal), spd:N:KAPPA (randsvd SPD, Cholesky rows).
 * Prints one Markdown row per method: best and median wall-clock seconds and median process
 * CPU seconds, each with its speed-up against the FP64 LAPACK driver of the same problem (the
 * same statistic), what the mixsolve call did (factor precision, iter, fallback reason) and the
 * backward error of its x.  CPU time leaves out what other processes take from the cores (with
 * OPENBLAS_NUM_THREADS=1 and OMP_NUM_THREADS=1 their load then barely blurs the ratios); a
 * shared machine's wall clock is noisy, its medians less than its bests.  LU problems get a
 * last row, LAPACKE_sgetrf on the FP32 copy of A: T_low, and the worst-case bound of a failed
 * attempt, 1 + T_low/T64 + 0.1 (doc/man3/mix_dgesv_ir.3, WORST CASE), from the same run. */
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "mixsolve.h"
#include "matrices/generators.h"
#include "matrices/mixmat.h"

enum { M_LAPACK64, M_LAPACK_MIXED, M_SIMPLE, M_AUTO, M_SGETRF, M_COUNT };
static const char *const gesv_names[M_COUNT] = {"LAPACKE_dgesv", "LAPACKE_dsgesv", "mix_dsgesv",
                                                "mix_dgesv_ir AUTO", "LAPACKE_sgetrf (T_low)"};
static const char *const posv_names[M_COUNT] = {"LAPACKE_dposv", "LAPACKE_dsposv", "mix_dsposv",
                                                "mix_dposv_ir AUTO", "-"};

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    double best, med, cpu, berr; /* best and median wall, median CPU seconds per call */
    double *wall_k, *cpu_k;      /* per round */
    int st, iter;
    mix_gesv_info info;
} result;

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

static const char *reason_name(int r)
{
    static const char *const names[] = {"", "direct", "overflow", "factor failed", "not converged",
                                        "NaN", "too slow"};
    return r >= 0 && r <= 6 ? names[r] : "?";
}

/* A randsvd matrix from the cache in $TMPDIR, or generated (minutes at n = 4096 under load)
 * and cached; 0 on success. */
static int randsvd_cached(int spd, int n, double kappa, double *a)
{
    char path[512];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/mixsolve-auto-%s-%d-%.0e.bin", dir && *dir ? dir : "/tmp",
             spd ? "spd" : "gen", n, kappa);
    const size_t nn = (size_t)n * n;
    FILE *f = fopen(path, "rb");
    if (f) {
        const size_t got = fread(a, sizeof *a, nn, f);
        fclose(f);
        if (got == nn) return 0;
    }
    int st = spd ? mixm_gen_randsvd_spd(n, kappa, 3, 2026, a) : mixm_gen_randsvd(n, kappa, 3, 2026, a);
    if (!st && (f = fopen(path, "wb"))) {
        fwrite(a, sizeof *a, nn, f);
        fclose(f);
    }
    return st;
}

/* A and b = A 1 for the problem; 0 or 1 (unknown problem, no memory). */
static int make(const char *kind, int n, double kappa, double *a, double *b)
{
    int st = 1;
    if (!strcmp(kind, "randsvd") || !strcmp(kind, "spd"))
        st = randsvd_cached(!strcmp(kind, "spd"), n, kappa, a);
    else if (!strcmp(kind, "random") || !strcmp(kind, "dd") || !strcmp(kind, "urandom")) {
        st = mixm_gen_random_dense(n, 2024 + (uint64_t)n, a);
        for (size_t i = 0; !st && i < (size_t)n * n; i++)
            if (!strcmp(kind, "random")) a[i] = 0.5 * (a[i] + 1.0);
        for (int i = 0; !st && !strcmp(kind, "dd") && i < n; i++) a[i + (size_t)i * n] += n;
    }
    for (int i = 0; !st && i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += a[i + (size_t)j * n];
        b[i] = s;
    }
    return st != 0;
}

/* One call of method m on w (a copy of A); x receives the solution. */
static int call(mix_context *ctx, int chol, int m, int n, double *w, int *ipiv, double *b,
                double *x, result *r)
{
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    switch (m) {
    case M_LAPACK64:
        memcpy(x, b, (size_t)n * sizeof *x);
        return chol ? LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, w, n, x, n)
                    : LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, w, n, ipiv, x, n);
    case M_LAPACK_MIXED:
        return chol ? LAPACKE_dsposv(LAPACK_COL_MAJOR, 'L', n, 1, w, n, b, n, x, n, &r->iter)
                    : LAPACKE_dsgesv(LAPACK_COL_MAJOR, n, 1, w, n, ipiv, b, n, x, n, &r->iter);
    case M_SIMPLE:
        return chol ? mix_dsposv(MIX_COL_MAJOR, 'L', n, 1, w, n, b, n, x, n, &r->iter)
                    : mix_dsgesv(MIX_COL_MAJOR, n, 1, w, n, ipiv, b, n, x, n, &r->iter);
    case M_SGETRF: /* w holds the FP32 copy of A (made outside the clock) */
        return LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, (float *)w, n, ipiv) < 0;
    default:
        return chol ? mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, w, n, b, n, x, n, &r->info)
                    : mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, w, n, ipiv, b, n, x, n, &r->info);
    }
}

static void print_row(const char *prob, int n, const char *name, const result *r,
                      const result *r64, int m)
{
    char what[128] = "-";
    if (m == M_LAPACK_MIXED || m == M_SIMPLE) snprintf(what, sizeof what, "iter %d", r->iter);
    if (m == M_AUTO)
        snprintf(what, sizeof what, "%s, iter %d (%d inner)%s%s", mix_prec_name(r->info.factor_prec_used),
                 r->info.iter, r->info.inner_iter, r->info.reason ? ", " : "",
                 reason_name(r->info.reason));
    if (m == M_SGETRF)
        snprintf(what, sizeof what, "bound 1 + T_low/T64 + 0.1: %.2fx best, %.2fx median, %.2fx CPU",
                 1.1 + r->best / r64->best, 1.1 + r->med / r64->med, 1.1 + r->cpu / r64->cpu);
    printf("| %s | %d | %s | %.3g | %.2fx | %.3g | %.2fx | %.3g | %.2fx | %s | ", prob, n, name,
           r->best, r64->best / r->best, r->med, r64->med / r->med, r->cpu, r64->cpu / r->cpu, what);
    if (m == M_SGETRF) printf("- |%s\n", r->st ? " (error)" : "");
    else printf("%.1e |%s\n", r->berr, r->st ? " (error)" : "");
}

/* Calls per timed batch: a small system takes microseconds, near the clock's resolution and
 * below its jitter, so each round times a batch of calls (each on its own copy of A, made
 * outside the clock) and divides; the copies stay within about 4 MB (in cache, as a single
 * copy made just before its call is). */
static int batch_size(int n)
{
    const double k = 4e6 / (8.0 * n * n);
    return k >= 1000.0 ? 1000 : k >= 1.0 ? (int)k : 1;
}

/* Round k of method m (k = 0: warm-up, calibration and first touch, not recorded): a batch of
 * calls, each on its own copy of A made outside the clock (FP32 for M_SGETRF). */
static void time_round(mix_context *ctx, int chol, int m, int n, const double *a, double *copies,
                       int batch, int *ipiv, double *b, double *x, result *r, int k)
{
    const size_t nn = (size_t)n * n;
    for (int c = 0; c < batch; c++) {
        double *w = copies + (size_t)c * nn;
        if (m == M_SGETRF)
            for (size_t i = 0; i < nn; i++) ((float *)w)[i] = (float)a[i];
        else
            memcpy(w, a, nn * sizeof *a);
    }
    const double w0 = mixm_wtime(), c0 = cpu_now();
    for (int c = 0; c < batch; c++)
        r->st |= call(ctx, chol, m, n, copies + (size_t)c * nn, ipiv, b, x, r);
    const double wall = (mixm_wtime() - w0) / batch, cpu = (cpu_now() - c0) / batch;
    if (k == 0) return;
    r->wall_k[k - 1] = wall;
    r->cpu_k[k - 1] = cpu;
    if (wall < r->best) r->best = wall;
}

static int bench_problem(mix_context *ctx, const char *spec, int rounds)
{
    char kind[16] = "";
    int n = 0;
    double kappa = 1e2;
    if (sscanf(spec, "%15[a-z]:%d:%lf", kind, &n, &kappa) < 2 || n < 1) return 1;
    const int chol = !strcmp(kind, "spd"), methods = chol ? M_SGETRF : M_COUNT;
    const size_t nn = (size_t)n * n;
    double *a = malloc(nn * sizeof *a), *b = malloc(n * sizeof *b),
           *x = malloc(n * sizeof *x), *times = malloc(2 * M_COUNT * (size_t)rounds * sizeof *times);
    int *ipiv = malloc(n * sizeof *ipiv);
    result r[M_COUNT];
    const int batch = batch_size(n);
    double *copies = malloc((size_t)batch * nn * sizeof *copies);
    if (!a || !b || !x || !ipiv || !copies || !times || make(kind, n, kappa, a, b)) return 1;
    for (int m = 0; m < M_COUNT; m++)
        r[m] = (result){INFINITY, 0, 0, 0, times + 2 * m * (size_t)rounds,
                        times + (2 * m + 1) * (size_t)rounds, 0, 0, {0}};
    for (int k = 0; k <= rounds; k++)
        for (int m = 0; m < methods; m++) {
            time_round(ctx, chol, m, n, a, copies, batch, ipiv, b, x, &r[m], k);
            /* randsvd SPD is stored whole: the full matrix checks either family */
            if (k == rounds && m != M_SGETRF)
                r[m].berr = mixm_dense_backward_error(n, 1, a, n, b, n, x, n);
        }
    for (int m = 0; m < methods; m++) {
        r[m].med = median(r[m].wall_k, rounds);
        r[m].cpu = median(r[m].cpu_k, rounds);
    }
    for (int m = 0; m < methods; m++)
        print_row(spec, n, (chol ? posv_names : gesv_names)[m], &r[m], &r[M_LAPACK64], m);
    fflush(stdout);
    free(a), free(b), free(x), free(ipiv), free(copies), free(times);
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 3, i = 1;
    if (argc > 2 && !strcmp(argv[1], "-r")) rounds = atoi(argv[2]), i = 3;
    if (i >= argc || rounds < 1) {
        fprintf(stderr, "usage: bench_auto [-r ROUNDS] randsvd:N:KAPPA|random:N|dd:N|spd:N:KAPPA...\n");
        return 2;
    }
    mix_context *ctx;
    if (mix_context_create(&ctx, MIX_BACKEND_CPU)) return 2;
    /* AUTO's steady state: its rates measured before the clock, as in a process whose dense
     * work has paid for them (a prediction of a large solve measures them); else AUTO takes
     * FP64 at small n until its calls' work pays (mix_dgesv_ir(3)). */
    mix_prec steady;
    mix_gesv_auto_prec(ctx, 16384, 1, &steady);
    printf("| problem | n | method | best s | speed | median s | speed | CPU s (median) | speed | "
           "path | backward error |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    int st = 0;
    for (; i < argc; i++)
        if (bench_problem(ctx, argv[i], rounds)) {
            fprintf(stderr, "bench_auto: bad problem or no memory: %s\n", argv[i]);
            st = 2;
        }
    mix_context_destroy(ctx);
    return st;
}
