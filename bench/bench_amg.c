/* bench_amg.c: CG with the multigrid preconditioner (MIX_PRECOND_AMG) against Jacobi CG on 3-D
 * Poisson (or 3-D anisotropic diffusion): first solve (matrix creation + set-up + solve) and a
 * repeated solve on the same matrix (best of 2), tol 1e-10, the b of bench/bench_cg.c and
 * bench/petsc_amg.c; a matrix created and destroyed first, so that no row pays the process's
 * start alone.  Usage: bench_amg [NX] [EPS] [ROW] [BACKEND]  (EPS > 0: -u_xx - u_yy - EPS u_zz
 * instead; ROW: only that row of the table, 0-3, -1 all; BACKEND: cpu (default) or cuda, the
 * context's: on cuda the set-up stays on the host, the cycle and the CG run on the device). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/api/mix_internal.h"
#include "solvers/amg/amg.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"

/* -u_xx - u_yy - eps u_zz, 7-point, in gen_poisson's order. */
static int aniso3d(int nx, double eps, mixm_csr *A)
{
    const int n = nx * nx * nx;
    int st = mixm_csr_alloc(A, n, n, 7 * (int64_t)n);
    int64_t e = 0;
    for (int i = 0; i < n && !st; i++) {
        const int c[3] = {i % nx, i / nx % nx, i / (nx * nx)}, stride[3] = {1, nx, nx * nx};
        const double w[3] = {1.0, 1.0, eps};
        A->rowptr[i] = e;
        for (int d = 2; d >= 0; d--)
            if (c[d] > 0) A->colind[e] = i - stride[d], A->val[e++] = -w[d];
        A->colind[e] = i, A->val[e++] = 4.0 + 2.0 * eps;
        for (int d = 0; d < 3; d++)
            if (c[d] < nx - 1) A->colind[e] = i + stride[d], A->val[e++] = -w[d];
    }
    if (!st) A->rowptr[n] = A->nnz = e;
    return st;
}

static void rhs(int n, double *b)
{
    mixm_rng g;
    mixm_rng_seed(&g, 2024);
    for (int i = 0; i < n; i++) b[i] = mixm_rng_uniform(&g) - 0.5;
}

typedef struct {
    const char *name;
    mix_prec prec;
    int precond;
} config;

static void run(mix_context *ctx, const mixm_csr *A, const double *b, double *x, const config *c,
                const char *grid)
{
    const double t0 = mixi_wtime(), c0 = (double)clock() / CLOCKS_PER_SEC;
    mix_sparse *S;
    if (mix_sparse_create_csr(ctx, A->nrows, A->rowptr, A->colind, A->val, &S)) return;
    const double t_mat = mixi_wtime() - t0;
    mix_cg_params p;
    mix_cg_params_init(&p);
    p.sloppy_prec = c->prec;
    p.precond = c->precond;
    mix_cg_info info;
    int st = mix_dcg(ctx, &p, S, b, x, &info);
    const double first = mixi_wtime() - t0, t_setup = info.t_setup;
    const double cpu_first = (double)clock() / CLOCKS_PER_SEC - c0;
    double best = 1e30, cpu_best = 1e30;
    for (int r = 0; r < 2 && !st; r++) {
        const double t = mixi_wtime(), c = (double)clock() / CLOCKS_PER_SEC;
        st = mix_dcg(ctx, &p, S, b, x, &info);
        if (mixi_wtime() - t < best) best = mixi_wtime() - t;
        if ((double)clock() / CLOCKS_PER_SEC - c < cpu_best) cpu_best = (double)clock() / CLOCKS_PER_SEC - c;
    }
    char levels[160] = "-";
    if (S->amg) {
        const mixi_amg *H = S->amg;
        double nnz = 0;
        for (int l = 0; l < H->nlev; l++) nnz += (double)H->lev[l].nnz;
        const mix_prec q = info.stage_prec[0];
        snprintf(levels, sizeof levels, "%d levels, coarsest %d, op. complexity %.2f, %.0f MB (FP64 %.0f MB)",
                 H->nlev, H->lev[H->nlev - 1].n, nnz / (double)H->lev[0].nnz,
                 (double)(c->prec == MIX_PREC_AUTO ? H->bytes_auto : H->bytes_stored[q]) / 1e6,
                 (double)H->bytes_stored[MIX_FP64] / 1e6);
    }
    printf("| mixsolve %s | %s | %d | %.2e | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", c->name,
           grid, info.iter, info.true_rel_residual, mix_prec_name(info.stage_prec[info.stages - 1]), t_mat,
           t_setup, first, best, cpu_first, cpu_best, st ? mix_strerror(st) : levels);
    fflush(stdout);
    mix_sparse_destroy(S);
}

int main(int argc, char **argv)
{
    const int nx = argc > 1 ? atoi(argv[1]) : 100;
    const double eps = argc > 2 ? atof(argv[2]) : 0.0;
    mixm_csr A;
    if (nx < 2 || (eps > 0.0 ? aniso3d(nx, eps, &A) : mixm_gen_poisson3d(nx, &A))) return 1;
    double *b = malloc((size_t)A.nrows * sizeof *b), *x = malloc((size_t)A.nrows * sizeof *x);
    mix_context *ctx;
    const mix_backend be = argc > 4 && !strcmp(argv[4], "cuda") ? MIX_BACKEND_CUDA : MIX_BACKEND_CPU;
    if (argc > 4 && be == MIX_BACKEND_CPU && strcmp(argv[4], "cpu")) {
        fprintf(stderr, "bench_amg: backend %s: cpu or cuda\n", argv[4]);
        return 2;
    }
    if (!b || !x || mix_context_create(&ctx, be)) {
        fprintf(stderr, "bench_amg: no %s context\n", mix_backend_name(be));
        return 1;
    }
    rhs(A.nrows, b);
    char grid[64];
    snprintf(grid, sizeof grid, eps > 0.0 ? "%d^3 aniso %g" : "%d^3", nx, eps);
    if (be == MIX_BACKEND_CUDA) strncat(grid, " (cuda)", sizeof grid - strlen(grid) - 1);
    const config cfg[] = {
        {"CG + Jacobi, FIXED16", MIX_FIXED16, MIX_PRECOND_JACOBI},
        {"CG + AMG, FP64", MIX_FP64, MIX_PRECOND_AMG},
        {"CG + AMG, FIXED16", MIX_FIXED16, MIX_PRECOND_AMG},
        {"CG + AMG, AUTO", MIX_PREC_AUTO, MIX_PRECOND_AMG},
    };
    printf("| solver | grid | iter | true rel. residual | storage | matrix s | set-up s | first solve s | "
           "repeated solve s | CPU s first | CPU s repeated | hierarchy |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const int only = argc > 3 ? atoi(argv[3]) : -1;
    /* Every row from the same process state: the first one would otherwise pay alone for the
     * threads' start and the first touch of fresh memory (1.3 s of Jacobi's 1.5 s matrix time
     * at 150^3 on a KVM guest). */
    mix_sparse *warm;
    if (!mix_sparse_create_csr(ctx, A.nrows, A.rowptr, A.colind, A.val, &warm)) mix_sparse_destroy(warm);
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++)
        if (only < 0 || only == (int)k) run(ctx, &A, b, x, &cfg[k], grid);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
    free(b);
    free(x);
    return 0;
}
