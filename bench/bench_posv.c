/* bench_posv.c: times LAPACK dposv/dsposv against the mixsolve SPD drivers on SPD randsvd matrices (Markdown table). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "mixsolve.h"
#include "matrices/generators.h"
#include "bench/bench_dense.h"

/* After bench_run's common six. */
static const bench_method extra[] = {
    {"AUTO", BENCH_MIX, MIX_PREC_AUTO, MIX_REFINE_AUTO},
    {"GMRES-IR BF16", BENCH_MIX, MIX_BF16, MIX_REFINE_GMRES},
};

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

static int usage(void)
{
    fprintf(stderr, "usage: bench_posv [-n N]... [-k KAPPA]... [-m MODE] [-r REPS] [-g haar|fast]\n"
                    "  defaults: -n 2048 -n 4096 -k 1e2 -m 3 -r 1 (best of REPS), -g fast: the\n"
                    "  Hadamard-based SPD generator (geometric eigenvalues) for power-of-two n,\n"
                    "  Haar-random randsvd (mode -m) otherwise or with -g haar\n"
                    "  the simple drivers' settings: AUTO refinement (classical, then CG-IR)\n");
    return 2;
}

static int call(mix_context *ctx, const bench_method *m, int n, double *w, int *ipiv, double *b,
                double *x, int *iter, mix_gesv_info *info)
{
    (void)ipiv;
    if (m->kind == BENCH_LAPACK64) {
        memcpy(x, b, (size_t)n * sizeof *x);
        return LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, w, n, x, n);
    }
    if (m->kind == BENCH_LAPACK_MIXED)
        return LAPACKE_dsposv(LAPACK_COL_MAJOR, 'L', n, 1, w, n, b, n, x, n, iter);
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = m->prec;
    p.refine = m->refine;
    return mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, w, n, b, n, x, n, info);
}

/* One row of the table. */
static void row(const bench_opts *o, int n, double kappa, const bench_method *m,
                const bench_result *r, const bench_result *ref, double berr)
{
    char it[32] = "-", prof[48] = "-";
    (void)o;
    if (m->kind == BENCH_LAPACK_MIXED) snprintf(it, sizeof it, "%d", r->iter);
    if (m->kind == BENCH_MIX) {
        if (m->prec == MIX_PREC_AUTO)
            snprintf(it, sizeof it, "%d (%d) %s", r->iter, r->inner, mix_prec_name(r->used));
        else
            snprintf(it, sizeof it, "%d (%d)", r->iter, r->inner);
        snprintf(prof, sizeof prof, "%.4f / %.4f", r->tf, r->tr);
    }
    printf("| %d | %.0e | %s%s | %.4f | %.1f | %.2f | %.3f | %.2f | %s | %.1e | %s |\n", n, kappa,
           m->name, r->st ? " (error)" : "", r->best, n * (double)n * n / 3.0 / r->best / 1e9,
           ref->best / r->best, r->cpu, ref->cpu / r->cpu, it, berr, prof);
    fflush(stdout);
}

static int problem(const bench_opts *o, int n, double kappa, double *a, double *b, double *x)
{
    int fast = !o->haar && n > 0 && (n & (n - 1)) == 0;
    fprintf(stderr, "generating n = %d, kappa = %g (%s)\n", n, kappa, fast ? "Hadamard" : "Haar");
    if (fast ? gen_hadamard_spd(n, kappa, 2024 + (uint64_t)n, a)
             : mixm_gen_randsvd_spd(n, kappa, o->mode, 2024 + (uint64_t)n, a)) {
        fprintf(stderr, "bench_posv: generator failed at n = %d\n", n);
        return 1;
    }
    for (int i = 0; i < n; i++) x[i] = 1.0 + sin((double)i);
    cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, a, n, x, 1, 0.0, b, 1);
    return 0;
}

int main(int argc, char **argv)
{
    static const bench_opts defaults = {.sizes = {2048, 4096}, .nsizes = 2, .kappas = {1e2},
                                        .nkappas = 1, .mode = 3, .reps = 1,
                                        .with_g = 1, .min_mode = 1};
    return bench_run(argc, argv, &defaults, usage, "posv",
                     "| n | kappa | method | time (s) | GFLOP/s | speedup vs dposv | CPU time (s) | "
                     "CPU-time ratio | iter (inner) | backward error | factor / refine (s) |",
                     extra, sizeof extra / sizeof extra[0], problem, call, row);
}
