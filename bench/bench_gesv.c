/* bench_gesv.c: times LAPACK dgesv/dsgesv against the mixsolve dense drivers on randsvd matrices (Markdown table). */
#include <math.h>
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

static const char *kappa_str(double kappa)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "%.0e", kappa);
    return buf;
}

enum { M_DGESV, M_DSGESV, M_MIX };
typedef struct {
    const char *name;
    int kind;
    mix_prec prec;
    mix_refine refine;
} method;

static const method methods[] = {
    {"LAPACKE_dgesv", M_DGESV, MIX_FP64, MIX_REFINE_AUTO},
    {"LAPACKE_dsgesv", M_DSGESV, MIX_FP32, MIX_REFINE_CLASSICAL},
    {"mix_dsgesv (FP32)", M_MIX, MIX_FP32, MIX_REFINE_AUTO},
    {"mix_dxgesv (TF32)", M_MIX, MIX_TF32, MIX_REFINE_AUTO},
    {"mix_dhgesv (FP16)", M_MIX, MIX_FP16, MIX_REFINE_AUTO},
    {"mix_dbgesv (BF16)", M_MIX, MIX_BF16, MIX_REFINE_AUTO},
    {"GMRES-IR FP32", M_MIX, MIX_FP32, MIX_REFINE_GMRES},
    {"GMRES-IR FP16", M_MIX, MIX_FP16, MIX_REFINE_GMRES},
    {"GMRES-IR BF16", M_MIX, MIX_BF16, MIX_REFINE_GMRES},
    {"mix_dgesv_ir AUTO", M_MIX, MIX_PREC_AUTO, MIX_REFINE_AUTO},
};
#define NMETHODS (sizeof methods / sizeof methods[0])

static void usage(void)
{
    fprintf(stderr, "usage: bench_gesv [-n N]... [-k KAPPA]... [-m MODE] [-r REPS]\n"
                    "  defaults: -n 1000 -n 2000 -n 4000 -k 1e2 -k 1e6 -m 3 -r 1 (best of REPS)\n"
                    "  -m 0: uniform random entries in [0, 1) instead of randsvd (kappa ignored)\n");
}

int main(int argc, char **argv)
{
    int sizes[16], nsizes = 0, mode = 3, reps = 1;
    double kappas[8];
    int nkappas = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) { usage(); return 2; }
        if (!strcmp(argv[i], "-n") && nsizes < 16) sizes[nsizes++] = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && nkappas < 8) kappas[nkappas++] = atof(argv[++i]);
        else if (!strcmp(argv[i], "-m")) mode = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r")) reps = atoi(argv[++i]);
        else { usage(); return 2; }
    }
    if (!nsizes) sizes[nsizes++] = 1000, sizes[nsizes++] = 2000, sizes[nsizes++] = 4000;
    if (!nkappas) kappas[nkappas++] = 1e2, kappas[nkappas++] = 1e6;
    if (reps < 1 || mode < 0 || mode > 5) { usage(); return 2; }

    mix_context *ctx;
    if (mix_context_create(&ctx, MIX_BACKEND_CPU)) {
        fprintf(stderr, "bench_gesv: no CPU context\n");
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
    printf("| n | kappa | method | time (s) | GFLOP/s | speedup vs dgesv | iter (inner) | "
           "backward error | factor / refine (s) |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");

    for (int si = 0; si < nsizes; si++)
        for (int ki = 0; ki < nkappas; ki++) {
            int n = sizes[si];
            double kappa = kappas[ki];
            size_t nn = (size_t)n * n;
            double *a = malloc(nn * sizeof *a), *w = malloc(nn * sizeof *w);
            double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
            int *ipiv = malloc((size_t)n * sizeof *ipiv);
            if (!a || !w || !b || !x || !ipiv) {
                fprintf(stderr, "bench_gesv: out of memory at n = %d\n", n);
                return 1;
            }
            fprintf(stderr, "generating n = %d, kappa = %g\n", n, kappa);
            if (mode == 0) mixm_gen_random_dense(n, 2024 + (uint64_t)n, a);
            else mixm_gen_randsvd(n, kappa, mode, 2024 + (uint64_t)n, a);
            for (int i = 0; i < n; i++) x[i] = 1.0 + sin((double)i);
            cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, a, n, x, 1, 0.0, b, 1);
            double t_ref = 0.0;
            for (size_t mi = 0; mi < NMETHODS; mi++) {
                const method *m = &methods[mi];
                double best = INFINITY, tf = 0, tr = 0;
                int iter = 0, inner = 0, st = 0;
                mix_prec used = m->prec;
                for (int r = 0; r < reps; r++) {
                    memcpy(w, a, nn * sizeof *w);
                    mix_gesv_info info = {0};
                    double t0 = mixm_wtime();
                    if (m->kind == M_DGESV) {
                        memcpy(x, b, (size_t)n * sizeof *x);
                        st = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, w, n, ipiv, x, n);
                    } else if (m->kind == M_DSGESV) {
                        st = LAPACKE_dsgesv(LAPACK_COL_MAJOR, n, 1, w, n, ipiv, b, n, x, n, &iter);
                    } else {
                        mix_gesv_params p;
                        mix_gesv_params_init(&p);
                        p.factor_prec = m->prec;
                        p.refine = m->refine;
                        st = mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, w, n, ipiv, b, n, x, n,
                                          &info);
                    }
                    double el = mixm_wtime() - t0;
                    if (el < best) {
                        best = el;
                        if (m->kind == M_MIX) {
                            iter = info.iter;
                            inner = info.inner_iter;
                            tf = info.t_factor;
                            tr = info.t_refine;
                            used = info.factor_prec_used;
                        }
                    }
                }
                if (m->kind == M_DGESV) t_ref = best;
                double berr = mixm_dense_backward_error(n, 1, a, n, b, n, x, n);
                char it[32] = "-", prof[48] = "-";
                if (m->kind == M_DSGESV) snprintf(it, sizeof it, "%d", iter);
                if (m->kind == M_MIX) {
                    snprintf(it, sizeof it, "%d (%d)", iter, inner);
                    snprintf(prof, sizeof prof, "%.4f / %.4f", tf, tr);
                }
                char name[64];
                snprintf(name, sizeof name, "%s%s%s%s", m->name,
                         m->prec == MIX_PREC_AUTO ? " (took " : "",
                         m->prec == MIX_PREC_AUTO ? mix_prec_name(used) : "",
                         m->prec == MIX_PREC_AUTO ? ")" : "");
                printf("| %d | %s | %s%s | %.4f | %.1f | %.2f | %s | %.1e | %s |\n", n,
                       mode == 0 ? "uniform" : kappa_str(kappa), name, st ? " (error)" : "", best, 2.0 * n * (double)n * n / 3.0 / best / 1e9,
                       t_ref / best, it, berr, prof);
                fflush(stdout);
            }
            free(a); free(w); free(b); free(x); free(ipiv);
        }
    loadavg(load1, sizeof load1);
    printf("\nload average (1 min) at start %s, at end %s\n", load0, load1);
    mix_context_destroy(ctx);
    return 0;
}
