/* bench_posv.c: times LAPACK dposv/dsposv against the mixsolve SPD drivers on SPD randsvd matrices (Markdown table). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cblas.h>
#include <lapacke.h>
#include "mixsolve.h"
#include "matrices/generators.h"

static void loadavg(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return;
    if (fgets(buf, (int)len, f)) buf[strcspn(buf, " ")] = '\0'; /* the 1-minute figure */
    fclose(f);
}

enum { M_DPOSV, M_DSPOSV, M_MIX };
typedef struct {
    const char *name;
    int kind;
    mix_prec prec;
    mix_refine refine;
} method;

static const method methods[] = {
    {"LAPACKE_dposv", M_DPOSV, MIX_FP64, MIX_REFINE_AUTO},
    {"LAPACKE_dsposv", M_DSPOSV, MIX_FP32, MIX_REFINE_CLASSICAL},
    {"mix_dsposv (FP32)", M_MIX, MIX_FP32, MIX_REFINE_AUTO},
    {"mix_dxposv (TF32)", M_MIX, MIX_TF32, MIX_REFINE_AUTO},
    {"mix_dhposv (FP16)", M_MIX, MIX_FP16, MIX_REFINE_AUTO},
    {"mix_dbposv (BF16)", M_MIX, MIX_BF16, MIX_REFINE_AUTO},
    {"AUTO", M_MIX, MIX_PREC_AUTO, MIX_REFINE_AUTO},
    {"GMRES-IR BF16", M_MIX, MIX_BF16, MIX_REFINE_GMRES},
};
#define NMETHODS (sizeof methods / sizeof methods[0])

/* ---- A fast SPD generator for power-of-two n ------------------------------------------------
 * The Haar-random Q of mixm_gen_randsvd_spd costs ~3 n^3 flops (minutes at n = 8192 on a shared
 * 2-core machine).  Here Q = W S P W with W the normalized Walsh-Hadamard matrix, S random signs,
 * P a random permutation: A = Q diag(sigma) Q^T has the same eigenvalues (randsvd mode 3,
 * geometric, 1 ... 1/kappa), dense delocalized eigenvectors (every entry of W is +-1/sqrt(n)),
 * and costs O(n^2 log n). */

/* X := W X for every column (in place), W symmetric orthogonal. */
static void fwht_cols(int n, double *x)
{
    const double f = 1.0 / sqrt((double)n);
    for (int j = 0; j < n; j++) {
        double *c = x + (size_t)j * n;
        for (int h = 1; h < n; h *= 2)
            for (int i = 0; i < n; i += 2 * h)
                for (int k = i; k < i + h; k++) {
                    double u = c[k], v = c[k + h];
                    c[k] = u + v;
                    c[k + h] = u - v;
                }
        for (int i = 0; i < n; i++) c[i] *= f;
    }
}

/* X := W X W for a symmetric X (tmp: n^2 doubles). */
static void wxw(int n, double *x, double *tmp)
{
    fwht_cols(n, x);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) tmp[(size_t)i * n + j] = x[(size_t)j * n + i];
    fwht_cols(n, tmp);
    memcpy(x, tmp, (size_t)n * n * sizeof *x);
}

static int gen_hadamard_spd(int n, double kappa, uint64_t seed, double *a)
{
    double *tmp = malloc((size_t)n * n * sizeof *tmp);
    int *perm = malloc((size_t)n * sizeof *perm);
    double *sgn = malloc((size_t)n * sizeof *sgn);
    if (!tmp || !perm || !sgn) {
        free(tmp); free(perm); free(sgn);
        return MIX_ERR_ALLOC;
    }
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(mixm_rng_next(&g) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < n; i++) sgn[i] = mixm_rng_next(&g) & 1 ? 1.0 : -1.0;
    memset(a, 0, (size_t)n * n * sizeof *a);
    for (int i = 0; i < n; i++) /* geometric eigenvalues, in random order */
        a[(size_t)i * n + i] = pow(kappa, -(double)perm[i] / (n > 1 ? n - 1 : 1));
    wxw(n, a, tmp);
    /* S P (W D W) P^T S: symmetric, still exactly the same spectrum. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            tmp[(size_t)j * n + i] = sgn[i] * sgn[j] * a[(size_t)perm[j] * n + perm[i]];
    memcpy(a, tmp, (size_t)n * n * sizeof *a);
    wxw(n, a, tmp);
    for (int j = 0; j < n; j++) /* exactly symmetric */
        for (int i = j + 1; i < n; i++) {
            double m = 0.5 * (a[(size_t)j * n + i] + a[(size_t)i * n + j]);
            a[(size_t)j * n + i] = a[(size_t)i * n + j] = m;
        }
    free(tmp); free(perm); free(sgn);
    return MIX_SUCCESS;
}

/* CPU time of the process (all threads): on a loaded machine it shows the work a method does
 * where the wall clock mostly shows the queue it waited in. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_posv [-n N]... [-k KAPPA]... [-m MODE] [-r REPS] [-g haar|fast]\n"
                    "  defaults: -n 2048 -n 4096 -k 1e2 -m 3 -r 1 (best of REPS), -g fast: the\n"
                    "  Hadamard-based SPD generator (geometric eigenvalues) for power-of-two n,\n"
                    "  Haar-random randsvd (mode -m) otherwise or with -g haar\n"
                    "  the simple drivers' settings: AUTO refinement (classical, then CG-IR)\n");
}

int main(int argc, char **argv)
{
    int sizes[16], nsizes = 0, mode = 3, reps = 1, haar = 0;
    double kappas[8];
    int nkappas = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) { usage(); return 2; }
        if (!strcmp(argv[i], "-n") && nsizes < 16) sizes[nsizes++] = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && nkappas < 8) kappas[nkappas++] = atof(argv[++i]);
        else if (!strcmp(argv[i], "-m")) mode = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r")) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-g")) haar = !strcmp(argv[++i], "haar");
        else { usage(); return 2; }
    }
    if (!nsizes) sizes[nsizes++] = 2048, sizes[nsizes++] = 4096;
    if (!nkappas) kappas[nkappas++] = 1e2;
    if (reps < 1 || mode < 1 || mode > 5) { usage(); return 2; }

    mix_context *ctx;
    if (mix_context_create(&ctx, MIX_BACKEND_CPU)) {
        fprintf(stderr, "bench_posv: no CPU context\n");
        return 1;
    }
    mix_caps caps;
    mix_backend_caps(MIX_BACKEND_CPU, &caps);
    char load0[32], load1[32], date[64];
    loadavg(load0, sizeof load0);
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("CPU: %s; %s; OpenBLAS core %s, %d threads; %s; randsvd mode %d; best of %d\n\n",
           caps.device, caps.libraries, openblas_get_corename(), openblas_get_num_threads(), date,
           mode, reps);
    printf("| n | kappa | method | time (s) | GFLOP/s | speedup vs dposv | CPU time (s) | CPU-time "
           "ratio | iter (inner) | backward error | factor / refine (s) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");

    for (int si = 0; si < nsizes; si++)
        for (int ki = 0; ki < nkappas; ki++) {
            int n = sizes[si];
            double kappa = kappas[ki];
            size_t nn = (size_t)n * n;
            double *a = malloc(nn * sizeof *a), *w = malloc(nn * sizeof *w);
            double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
            if (!a || !w || !b || !x) {
                fprintf(stderr, "bench_posv: out of memory at n = %d\n", n);
                return 1;
            }
            fprintf(stderr, "generating n = %d, kappa = %g (%s)\n", n, kappa,
                    !haar && (n & (n - 1)) == 0 ? "Hadamard" : "Haar");
            int fast = !haar && n > 0 && (n & (n - 1)) == 0;
            if (fast ? gen_hadamard_spd(n, kappa, 2024 + (uint64_t)n, a)
                     : mixm_gen_randsvd_spd(n, kappa, mode, 2024 + (uint64_t)n, a)) {
                fprintf(stderr, "bench_posv: generator failed at n = %d\n", n);
                return 1;
            }
            for (int i = 0; i < n; i++) x[i] = 1.0 + sin((double)i);
            cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, a, n, x, 1, 0.0, b, 1);
            double t_ref = 0.0, c_ref = 0.0;
            for (size_t mi = 0; mi < NMETHODS; mi++) {
                const method *m = &methods[mi];
                double best = INFINITY, tf = 0, tr = 0, cpu = 0;
                int iter = 0, inner = 0, st = 0;
                mix_prec info_prec = MIX_FP64;
                for (int r = 0; r < reps; r++) {
                    memcpy(w, a, nn * sizeof *w);
                    mix_gesv_info info = {0};
                    double t0 = mixm_wtime(), c0 = cpu_seconds();
                    if (m->kind == M_DPOSV) {
                        memcpy(x, b, (size_t)n * sizeof *x);
                        st = LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, w, n, x, n);
                    } else if (m->kind == M_DSPOSV) {
                        st = LAPACKE_dsposv(LAPACK_COL_MAJOR, 'L', n, 1, w, n, b, n, x, n, &iter);
                    } else {
                        mix_gesv_params p;
                        mix_gesv_params_init(&p);
                        p.factor_prec = m->prec;
                        p.refine = m->refine;
                        st = mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, w, n, b, n, x, n,
                                          &info);
                    }
                    double el = mixm_wtime() - t0, ce = cpu_seconds() - c0;
                    if (el < best) {
                        best = el;
                        cpu = ce;
                        if (m->kind == M_MIX) {
                            info_prec = info.factor_prec_used;
                            iter = info.iter;
                            inner = info.inner_iter;
                            tf = info.t_factor;
                            tr = info.t_refine;
                        }
                    }
                }
                if (m->kind == M_DPOSV) t_ref = best, c_ref = cpu;
                double berr = mixm_dense_backward_error(n, 1, a, n, b, n, x, n);
                char it[32] = "-", prof[48] = "-";
                if (m->kind == M_DSPOSV) snprintf(it, sizeof it, "%d", iter);
                if (m->kind == M_MIX) {
                    if (m->prec == MIX_PREC_AUTO)
                        snprintf(it, sizeof it, "%d (%d) %s", iter, inner,
                                 mix_prec_name(info_prec));
                    else
                        snprintf(it, sizeof it, "%d (%d)", iter, inner);
                    snprintf(prof, sizeof prof, "%.4f / %.4f", tf, tr);
                }
                printf("| %d | %.0e | %s%s | %.4f | %.1f | %.2f | %.3f | %.2f | %s | %.1e | %s |\n", n,
                       kappa, m->name, st ? " (error)" : "", best,
                       n * (double)n * n / 3.0 / best / 1e9, t_ref / best, cpu, c_ref / cpu, it,
                       berr, prof);
                fflush(stdout);
            }
            free(a); free(w); free(b); free(x);
        }
    loadavg(load1, sizeof load1);
    printf("\nload average (1 min) at start %s, at end %s\n", load0, load1);
    mix_context_destroy(ctx);
    return 0;
}
