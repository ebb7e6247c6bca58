/* cost_timer.c: a LAPACK program (linked with -llapack) timing dgesv_ or dposv_ against LAPACK's
 * own, call by call in alternation, for bench/cost_envelope.sh to run with the drop-in preloaded
 * (issue 20: no routed call may cost more than 1.3x LAPACK's).
 *   cost_timer gesv|posv hard|easy N [ROUNDS]
 * hard: randsvd kappa 1e12 (mode 3; COST_HARD_KAPPA overrides it, issue 32 measures 1e15),
 * where low-precision refinement fails; easy: kappa 1e2.
 * dgesv_/dposv_ resolve to the preloaded drop-in; LAPACK's are taken from liblapack.so.3
 * itself.  The matrix is cached in $TMPDIR (randsvd at n = 4000 takes seconds).
 * Times are wall clock, or CPU time with COST_TIMER_CLOCK=cpu.
 * Prints "first_routed first_plain median_ratio max_ratio median_plain berr": the first call
 * (the drop-in's one-time setup included), then over ROUNDS (default 5) pairs the median and
 * largest routed/plain ratio and the median plain time (seconds), and the routed backward
 * error. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "matrices/generators.h"
#include "matrices/mixmat.h"

typedef void (*gesv_fn)(const int *, const int *, double *, const int *, int *, double *,
                        const int *, int *);
typedef void (*posv_fn)(const char *, const int *, const int *, double *, const int *, double *,
                        const int *, int *, size_t);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, int *info, size_t uplo_len);

/* COST_TIMER_CLOCK=cpu: the process's CPU time, which other processes' load does not inflate
 * (meaningful with one BLAS/OpenMP thread, as bench/cost_envelope.sh runs it); else wall time. */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void)
{
    struct timespec t;
    clock_gettime(clock_id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The matrix, from the cache or generated (and cached). */
static int load(int spd, int hard, int n, double *a)
{
    char path[512];
    const char *dir = getenv("TMPDIR"), *hk = getenv("COST_HARD_KAPPA");
    const double kappa = hard ? (hk && atof(hk) > 1.0 ? atof(hk) : 1e12) : 1e2;
    snprintf(path, sizeof path, "%s/mixsolve-cost-%s-%s-%d-%.0e.bin", dir && *dir ? dir : "/tmp",
             spd ? "spd" : "gen", hard ? "hard" : "easy", n, kappa);
    size_t nn = (size_t)n * n;
    FILE *f = fopen(path, "rb");
    if (f) {
        size_t got = fread(a, sizeof *a, nn, f);
        fclose(f);
        if (got == nn) return 0;
    }
    if (spd ? mixm_gen_randsvd_spd(n, kappa, 3, 2026, a) : mixm_gen_randsvd(n, kappa, 3, 2026, a))
        return 1;
    if ((f = fopen(path, "wb"))) {
        fwrite(a, sizeof *a, nn, f);
        fclose(f);
    }
    return 0;
}

static int cmp(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u > v) - (u < v);
}

/* One call of the routine (routed: the preloaded symbol; else LAPACK's), seconds. */
static double call(int spd, int routed, void *plain, int n, double *a, double *x, int *ipiv)
{
    int one = 1, info = 0;
    double t = now();
    if (spd) (routed ? dposv_ : (posv_fn)plain)("L", &n, &one, a, &n, x, &n, &info, 1);
    else (routed ? dgesv_ : (gesv_fn)plain)(&n, &one, a, &n, ipiv, x, &n, &info);
    t = now() - t;
    if (info) fprintf(stderr, "cost_timer: INFO = %d\n", info);
    return t;
}

int main(int argc, char **argv)
{
    int n = argc > 3 ? atoi(argv[3]) : 0, rounds = argc > 4 ? atoi(argv[4]) : 5;
    if (argc < 4 || n < 1 || rounds < 1 || rounds > 99) {
        fprintf(stderr, "usage: cost_timer gesv|posv hard|easy N [ROUNDS]\n");
        return 2;
    }
    const char *ck = getenv("COST_TIMER_CLOCK");
    if (ck && strcmp(ck, "cpu") == 0) clock_id = CLOCK_PROCESS_CPUTIME_ID;
    const int spd = strcmp(argv[1], "posv") == 0, hard = strcmp(argv[2], "hard") == 0;
    void *lib = dlopen("liblapack.so.3", RTLD_NOW | RTLD_NOLOAD);
    void *plain = lib ? dlsym(lib, spd ? "dposv_" : "dgesv_") : NULL;
    size_t nn = (size_t)n * n;
    double *a0 = malloc(nn * sizeof *a0), *a = malloc(nn * sizeof *a),
           *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!plain || !a0 || !a || !b || !x || !ipiv || load(spd, hard, n, a0)) {
        fprintf(stderr, "cost_timer: no LAPACK, memory or matrix\n");
        return 2;
    }
    for (int i = 0; i < n; i++) b[i] = cos(i);
    double first[2] = {0.0, 0.0}, ratio[99], tp[99];
    for (int k = -1; k < rounds; k++) {
        double t[2];
        for (int routed = 1; routed >= 0; routed--) { /* routed first: its setup in round -1 */
            memcpy(a, a0, nn * sizeof *a);
            memcpy(x, b, (size_t)n * sizeof *x);
            t[routed] = call(spd, routed, plain, n, a, x, ipiv);
        }
        if (k < 0) {
            first[0] = t[1], first[1] = t[0];
            continue;
        }
        ratio[k] = t[1] / t[0];
        tp[k] = t[0];
    }
    /* x holds LAPACK's last solution; the routed one for the backward error. */
    memcpy(a, a0, nn * sizeof *a);
    memcpy(x, b, (size_t)n * sizeof *x);
    call(spd, 1, plain, n, a, x, ipiv);
    double berr = mixm_dense_backward_error(n, 1, a0, n, b, n, x, n);
    double rmax = ratio[0];
    for (int k = 1; k < rounds; k++) rmax = fmax(rmax, ratio[k]);
    qsort(ratio, (size_t)rounds, sizeof *ratio, cmp);
    qsort(tp, (size_t)rounds, sizeof *tp, cmp);
    printf("%.4f %.4f %.3f %.3f %.4f %.1e\n", first[0], first[1], ratio[rounds / 2], rmax,
           tp[rounds / 2], berr);
    free(a0), free(a), free(b), free(x), free(ipiv);
    return 0;
}
