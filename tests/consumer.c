/* consumer.c: an outside program built against the installed libmixsolve (make installcheck) that uses every public name of doc/DESIGN.md section 3. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <mixsolve.h>

/* Its own checks (not tests/mixt_util.c): an outside program sees the installed library only. */
static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "consumer: FAILED: %s\n", what);
        failures++;
    }
}

/* A = [4 1 0; 1 3 1; 0 1 2] (SPD, well conditioned), x* = (1, -2, 3): b = A x*. */
static const double A3[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
static const double XSTAR[3] = {1, -2, 3};

static double err3(const double *x)
{
    double e = 0;
    for (int i = 0; i < 3; i++) e = fmax(e, fabs(x[i] - XSTAR[i]));
    return e;
}

static void rhs(double *b)
{
    for (int i = 0; i < 3; i++) {
        b[i] = 0;
        for (int j = 0; j < 3; j++) b[i] += A3[i + 3 * j] * XSTAR[j];
    }
}

typedef int (*simple_driver)(int, int, int, double *, int, int *, double *, int, double *, int,
                             int *);

static void simple_drivers(void)
{
    const simple_driver drv[4] = {mix_dsgesv, mix_dxgesv, mix_dhgesv, mix_dbgesv};
    const char *name[4] = {"mix_dsgesv", "mix_dxgesv", "mix_dhgesv", "mix_dbgesv"};
    for (int k = 0; k < 4; k++) {
        double a[9], b[3], x[3];
        int ipiv[3], iter = 0;
        memcpy(a, A3, sizeof a);
        rhs(b);
        const int info = drv[k](MIX_COL_MAJOR, 3, 1, a, 3, ipiv, b, 3, x, 3, &iter);
        printf("%s: info %d, iter %d, x = (%.15g, %.15g, %.15g)\n", name[k], info, iter, x[0],
               x[1], x[2]);
        check(info == 0, name[k]);
        check(err3(x) < 1e-12, "simple driver solution");
    }
    /* Row-major storage of the same (symmetric) matrix, and one illegal argument. */
    double a[9], b[3], x[3];
    int ipiv[3], iter;
    memcpy(a, A3, sizeof a);
    rhs(b);
    check(mix_dsgesv(MIX_ROW_MAJOR, 3, 1, a, 3, ipiv, b, 1, x, 1, &iter) == 0 && err3(x) < 1e-12,
          "row-major mix_dsgesv");
    check(mix_dsgesv(MIX_COL_MAJOR, -1, 1, a, 3, ipiv, b, 3, x, 3, &iter) == -2,
          "n < 0 is illegal argument 2");
}

static void expert_driver(mix_context *ctx)
{
    mix_prec precs[MIX_CAPS_PREC_SLOTS + 1]; /* the library's factor precisions, then AUTO */
    const int nprecs = mix_prec_list(MIX_ROLE_FACTOR, precs, MIX_CAPS_PREC_SLOTS);
    precs[nprecs] = MIX_PREC_AUTO;
    const mix_refine refines[] = {MIX_REFINE_CLASSICAL, MIX_REFINE_GMRES, MIX_REFINE_AUTO};
    double hist[8];
    for (int p = 0; p <= nprecs; p++)
        for (size_t r = 0; r < 3; r++) {
            mix_gesv_params par;
            mix_gesv_info inf;
            mix_gesv_params_init(&par);
            par.factor_prec = precs[p];
            par.refine = refines[r];
            par.tol = 0;
            par.max_iter = 30;
            par.gmres_restart = 10;
            par.fallback = 1;
            par.scale = 1;
            par.residual_history = hist;
            par.history_capacity = 8;
            double a[9], b[3], x[3];
            int ipiv[3];
            memcpy(a, A3, sizeof a);
            rhs(b);
            const int st = mix_dgesv_ir(ctx, &par, MIX_COL_MAJOR, 3, 1, a, 3, ipiv, b, 3, x, 3, &inf);
            check(st == MIX_SUCCESS && inf.status == MIX_SUCCESS, mix_strerror(st));
            check(err3(x) < 1e-12, "mix_dgesv_ir solution");
            check(inf.backward_error < 1e-14, "mix_dgesv_ir backward error");
            check(inf.history_length >= 0 && inf.history_length <= 8, "history length");
            check(inf.t_factor >= 0 && inf.t_refine >= 0, "timings");
            const mix_fallback_reason why = (mix_fallback_reason)inf.reason;
            check(why == MIX_REASON_NONE || why == MIX_REASON_DIRECT || why == MIX_REASON_OVERFLOW ||
                      why == MIX_REASON_FACTOR_FAILED || why == MIX_REASON_NOT_CONVERGED ||
                      why == MIX_REASON_NAN_IN_REFINEMENT,
                  "fallback reason");
            check(why != MIX_REASON_NONE || !inf.fell_back, "no reason, no fallback");
            if (p == 0 && r == 0)
                printf("mix_dgesv_ir: %s, iter %d (inner %d), backward error %.2e\n",
                       mix_prec_name(inf.factor_prec_used), inf.iter, inf.inner_iter,
                       inf.backward_error);
        }
    /* Device pointers need a CUDA context; on a CPU context this must fail cleanly. */
    if (mix_context_backend(ctx) == MIX_BACKEND_CPU) {
        mix_gesv_params par;
        mix_gesv_info inf;
        mix_gesv_params_init(&par);
        double a[9], b[3], x[3];
        int ipiv[3];
        memcpy(a, A3, sizeof a);
        rhs(b);
        const int st = mix_dgesv_ir_gpu(ctx, &par, MIX_COL_MAJOR, 3, 1, a, 3, ipiv, b, 3, x, 3, &inf);
        printf("mix_dgesv_ir_gpu on a CPU context: %d (%s)\n", st, st < 0 ? "illegal argument" : mix_strerror(st));
        check(st != MIX_SUCCESS, "mix_dgesv_ir_gpu refuses a CPU context");
    }
}

/* 1-D Laplacian tridiag(-1, 2, -1) of order 50 in CSR, b = A * ones. */
static void cg(mix_context *ctx)
{
    enum { N = 50 };
    int64_t rowptr[N + 1];
    int32_t col[3 * N];
    double val[3 * N], b[N], x[N];
    int nz = 0;
    for (int i = 0; i < N; i++) {
        rowptr[i] = nz;
        if (i > 0) { col[nz] = i - 1; val[nz++] = -1; }
        col[nz] = i; val[nz++] = 2;
        if (i < N - 1) { col[nz] = i + 1; val[nz++] = -1; }
        b[i] = (i == 0 || i == N - 1) ? 1 : 0;
    }
    rowptr[N] = nz;
    mix_sparse *A = NULL;
    check(mix_sparse_create_csr(ctx, N, rowptr, col, val, &A) == MIX_SUCCESS, "mix_sparse_create_csr");
    if (!A) return;
    mix_prec sloppy[MIX_CAPS_PREC_SLOTS]; /* the library's storage precisions */
    const int nsloppy = mix_prec_list(MIX_ROLE_STORAGE, sloppy, MIX_CAPS_PREC_SLOTS);
    check(nsloppy >= 2 && sloppy[0] == MIX_FP64 && mix_prec_list(MIX_ROLE_ALL, NULL, 0) == MIX_NUM_PREC,
          "mix_prec_list");
    for (int k = 0; k < nsloppy; k++) {
        mix_cg_params p;
        mix_cg_info inf;
        mix_cg_params_init(&p);
        p.sloppy_prec = sloppy[k];
        p.tol = 1e-10;
        p.max_iter = 2000;
        p.delta = 0.1;
        p.precond = k % 2 ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
        p.x0_given = 0;
        const int st = mix_dcg(ctx, &p, A, b, x, &inf);
        double e = 0;
        for (int i = 0; i < N; i++) e = fmax(e, fabs(x[i] - 1));
        printf("mix_dcg %s: %s, %d iterations, %d reliable updates, residual %.2e, error %.2e\n",
               mix_prec_name(sloppy[k]), mix_strerror(st), inf.iter, inf.reliable_updates,
               inf.true_rel_residual, e);
        check(st == MIX_SUCCESS && inf.status == MIX_SUCCESS && inf.converged, "mix_dcg converged");
        check(inf.reason == MIX_CG_CONVERGED, "mix_dcg reason");
        check(inf.true_rel_residual <= 1e-10 && e < 1e-6, "mix_dcg solution");
        check(inf.t_setup >= 0 && inf.t_solve >= 0, "cg timings");
        check(p.escalate == 1 && inf.stages >= 1 && inf.stages <= MIX_CG_MAX_STAGES &&
                  inf.stage_prec[inf.stages - 1] != MIX_PREC_AUTO &&
                  inf.stage_iter[inf.stages - 1] <= inf.iter &&
                  inf.stage_reason[inf.stages - 1] == MIX_CG_CONVERGED,
              "cg stage record");
        check(MIX_CG_STORAGE_OVERFLOW != MIX_CG_CONVERGED, "cg stage reasons");
    }
    /* b = 0: x = 0 comes back at once. */
    {
        mix_cg_params p;
        mix_cg_info inf;
        mix_cg_params_init(&p);
        double z[N];
        memset(z, 0, sizeof z);
        for (int i = 0; i < N; i++) x[i] = 7;
        const int st = mix_dcg(ctx, &p, A, z, x, &inf);
        const mix_cg_reason why = (mix_cg_reason)inf.reason;
        printf("mix_dcg with b = 0: %s, reason %s\n", mix_strerror(st),
               why == MIX_CG_ZERO_RHS ? "zero rhs" : why == MIX_CG_CONVERGED ? "converged" :
               why == MIX_CG_MAX_ITER ? "max iter" : why == MIX_CG_STAGNATED ? "stagnated" :
               why == MIX_CG_BREAKDOWN_NOT_SPD ? "not SPD" :
               why == MIX_CG_BREAKDOWN_NAN ? "NaN" : "?");
        double e = 0;
        for (int i = 0; i < N; i++) e = fmax(e, fabs(x[i]));
        check(why == MIX_CG_ZERO_RHS && e == 0, "mix_dcg with b = 0 returns x = 0");
    }
    if (mix_context_backend(ctx) == MIX_BACKEND_CPU) {
        mix_cg_params p;
        mix_cg_info inf;
        mix_cg_params_init(&p);
        check(mix_dcg_gpu(ctx, &p, A, b, x, &inf) != MIX_SUCCESS, "mix_dcg_gpu refuses a CPU context");
    }
    mix_sparse_destroy(A);
}

static void capabilities(void)
{
    mix_backend bs[MIX_NUM_BACKENDS]; /* the library's list */
    const int nb = mix_backend_list(bs, MIX_NUM_BACKENDS);
    for (int k = 0; k < nb && k < MIX_NUM_BACKENDS; k++) {
        mix_caps c;
        memset(&c, 0, sizeof c);
        const int st = mix_backend_caps(bs[k], &c);
        check(st == MIX_SUCCESS, "mix_backend_caps");
        printf("backend %s: compiled %d, available %d, device \"%s\", libraries \"%s\"; gemm",
               mix_backend_name(bs[k]), c.compiled, c.available, c.device, c.libraries);
        for (int p = 0; p < MIX_NUM_PREC; p++) {
            const mix_prec_support s = c.gemm[p];
            printf(" %s=%s", mix_prec_name((mix_prec)p),
                   s == MIX_PREC_NATIVE ? "native" : s == MIX_PREC_EMULATED ? "emulated" : "-");
        }
        printf("; storage");
        for (int p = 0; p < MIX_NUM_PREC; p++)
            printf(" %s=%d", mix_prec_name((mix_prec)p), c.storage[p] != MIX_PREC_UNSUPPORTED);
        printf("\n");
    }
    check(mix_backend_name(MIX_BACKEND_AUTO) != NULL && mix_backend_list(NULL, 0) == MIX_NUM_BACKENDS - 1,
          "backend names");
}

int main(void)
{
    printf("mixsolve %s\n", mix_version());
    /* Every status has a sentence. */
    const int statuses[] = {MIX_SUCCESS, MIX_ERR_INVALID_ARG, MIX_ERR_ALLOC, MIX_ERR_BACKEND,
                            MIX_ERR_SINGULAR, MIX_ERR_NOT_SPD, MIX_ERR_NAN, MIX_ERR_NOT_CONVERGED,
                            MIX_ERR_IO, MIX_ERR_PARSE, MIX_ERR_NOT_IMPLEMENTED, MIX_ERR_OVERFLOW,
                            MIX_ERR_UNSUPPORTED, MIX_ERR_INTERNAL};
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        check(mix_strerror(statuses[i]) && strlen(mix_strerror(statuses[i])) > 0, "mix_strerror");
    check(MIX_FP64 == 0 && MIX_FIXED16 == 5 && MIX_PREC_AUTO == 256, "mix_prec values");

    mix_context *ctx = NULL;
    int st = mix_context_create(&ctx, MIX_BACKEND_CPU);
    check(st == MIX_SUCCESS, "mix_context_create(CPU)");
    if (ctx) {
        expert_driver(ctx);
        cg(ctx);
        mix_context_destroy(ctx);
    }
    simple_drivers();
    capabilities();
    printf("consumer: %s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
