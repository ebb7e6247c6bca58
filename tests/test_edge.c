/* test_edge.c: the floating-point range edges: regression tests of issue 12's defects (dense LU, CG, threads). */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"

/* The CG storage precisions of the library's list, FP64 first. */
#define cg_storage (mixt_precs(MIX_ROLE_STORAGE, 0).p)
#define NSTORAGE (mixt_precs(MIX_ROLE_STORAGE, 0).n)

static const double nonfinite[3] = {NAN, INFINITY, -INFINITY};

/* tridiag(-1, 4, -1) * s, n x n, as CSR. */
static void tridiag(int n, double s, mixm_csr *A)
{
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(A, n, n, 3 * (int64_t)n - 2), MIX_SUCCESS);
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = k;
        if (i > 0) { A->colind[k] = i - 1; A->val[k++] = -s; }
        A->colind[k] = i; A->val[k++] = 4.0 * s;
        if (i + 1 < n) { A->colind[k] = i + 1; A->val[k++] = -s; }
    }
    A->rowptr[n] = k;
    A->nnz = k;
}

/* A copy of A with every value times s. */
static void csr_scaled(const mixm_csr *A, double s, mixm_csr *B)
{
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(B, A->nrows, A->ncols, A->nnz), MIX_SUCCESS);
    memcpy(B->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof *B->rowptr);
    memcpy(B->colind, A->colind, (size_t)A->nnz * sizeof *B->colind);
    for (int64_t k = 0; k < A->nnz; k++) B->val[k] = A->val[k] * s;
    B->nnz = A->nnz;
}

/* tridiag(-1, 4, -1) of order n as a CG system: the CG edge tests' set-up. */
static void tri_open(mixt_cg_sys *f, int n)
{
    tridiag(n, 1.0, &f->A);
    mixt_cg_open(f);
}

/* Every storage and preconditioner on (sa A) x = sb b, sa and sb powers of two: never NOT_SPD or
 * NAN (A is SPD, the data finite); success only with a true residual, re-checked here with a
 * range-safe norm, within 10 tol; the reported true_rel_residual is that of the returned x; and,
 * the scaling being exact, the same status and iteration count as the unscaled system (sa an even
 * power of two: A is rescaled by powers of 4, so that Jacobi's 1/sqrt(a_ii) stays exact). */
static void cg_scale_invariant(const mixm_csr *A0, const double *b0, double sa, double sb)
{
    mix_context *ctx = mixt_context();
    int n = A0->nrows;
    mixm_csr A;
    csr_scaled(A0, sa, &A);
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) b[i] = b0[i] * sb;
    mix_sparse *S = mixt_sparse(ctx, &A), *S0 = mixt_sparse(ctx, A0);
    for (int pc = 0; pc < 2; pc++)
        for (int k = 0; k < NSTORAGE; k++) {
            mix_cg_params p = mixt_cg_params(cg_storage[k], pc ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE);
            mix_cg_info info, ref;
            int st0 = mix_dcg(ctx, &p, S0, b0, x, &ref);
            int st = mix_dcg(ctx, &p, S, b, x, &info);
            double rel = mixt_cg_true_rel(&A, b, x);
            if (st != st0 || info.iter != ref.iter || (st == MIX_SUCCESS && !(rel <= 10 * p.tol)))
                printf("\n    x%g b%g %s %s: status %d reason %d iter %d rel %.3e (reported %.3e);"
                       " unscaled: status %d iter %d",
                       sa, sb, mix_prec_name(p.sloppy_prec), pc ? "jacobi" : "plain", st,
                       info.reason, info.iter, rel, info.true_rel_residual, st0, ref.iter);
            CU_ASSERT(st != MIX_ERR_NOT_SPD && st != MIX_ERR_NAN);
            CU_ASSERT_EQUAL(st, st0);
            CU_ASSERT_EQUAL(info.iter, ref.iter);
            if (st == MIX_SUCCESS) CU_ASSERT(rel <= 10 * p.tol);
            CU_ASSERT(fabs(info.true_rel_residual - rel) <= 1e-2 * rel + 1e-14);
        }
    free(b);
    free(x);
    mix_sparse_destroy(S);
    mix_sparse_destroy(S0);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* Not exactly scaled (1e300, 1e-310 are no powers of two): never NOT_SPD/NAN, and success only
 * with a re-checked residual within 10 tol. */
static void cg_truthful(const mixm_csr *A, const double *b)
{
    mix_context *ctx = mixt_context();
    int n = A->nrows;
    mix_sparse *S = mixt_sparse(ctx, A);
    double *x = malloc((size_t)n * sizeof *x);
    for (int pc = 0; pc < 2; pc++)
        for (int k = 0; k < NSTORAGE; k++) {
            mix_cg_params p = mixt_cg_params(cg_storage[k], pc ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE);
            mix_cg_info info;
            int st = mix_dcg(ctx, &p, S, b, x, &info);
            double rel = mixt_cg_true_rel(A, b, x);
            CU_ASSERT(st != MIX_ERR_NOT_SPD && st != MIX_ERR_NAN);
            CU_ASSERT(st == MIX_SUCCESS || st == MIX_ERR_NOT_CONVERGED);
            if (st == MIX_SUCCESS) CU_ASSERT(rel <= 10 * p.tol);
            CU_ASSERT(fabs(info.true_rel_residual - rel) <= 1e-2 * rel + 1e-14);
        }
    free(x);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
}

/* Defect 2: ||b||^2 underflows: x = 0 was reported as "zero right-hand side, converged". */
static void test_cg_tiny(void)
{
    enum { N = 50 };
    mixm_csr A;
    double b[N], ones[N];
    for (int i = 0; i < N; i++) ones[i] = 1.0;
    tridiag(N, 1.0, &A);
    mixm_csr_matvec(&A, ones, b);
    cg_scale_invariant(&A, b, 0x1p-566, 0x1p-565); /* ~1e-170, b = A ones */
    cg_scale_invariant(&A, b, 1.0, 0x1p-997);      /* b ~ 1e-300 */
    cg_scale_invariant(&A, b, 1.0, 0x1p-1060);     /* subnormal b */
    mixm_csr_free(&A);
    tridiag(N, 1e-170, &A);
    mixm_csr_matvec(&A, ones, b);
    cg_truthful(&A, b);
    mixm_csr_free(&A);
    /* b = 0 exactly is still the zero right-hand side. */
    mixt_cg_sys f;
    tri_open(&f, N);
    double x[N];
    mix_cg_info info;
    memset(b, 0, sizeof b);
    CU_ASSERT_EQUAL(mix_dcg(f.ctx, NULL, f.S, b, x, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info.reason, MIX_CG_ZERO_RHS);
    CU_ASSERT_EQUAL(info.true_rel_residual, 0.0);
    mixt_cg_close(&f);
}

/* Defect 3: 1e300 tridiag: the sloppy residual under/overflowed and p'Ap = 0 read as "not SPD". */
static void test_cg_huge(void)
{
    enum { N = 4 };
    mixm_csr A;
    double ones[N] = {1, 1, 1, 1}, b[N];
    tridiag(N, 1.0, &A);
    cg_scale_invariant(&A, ones, 0x1p996, 1.0);      /* ~1e300 A, b = ones */
    mixm_csr_matvec(&A, ones, b);
    cg_scale_invariant(&A, b, 0x1p996, 0x1p997);     /* b = A ones: ||b||^2 overflows */
    cg_scale_invariant(&A, b, 0x1p-1030, 0x1p-1030); /* subnormal entries */
    cg_scale_invariant(&A, b, 0x1p1020, 1.0);
    mixm_csr_free(&A);
    tridiag(N, 1e300, &A);
    cg_truthful(&A, ones);
    mixm_csr_matvec(&A, ones, b);
    cg_truthful(&A, b);
    mixm_csr_free(&A);
}

/* Defect 4: a finite b with ||b||^2 > DBL_MAX was called "NaN or Inf". */
static void test_cg_big_rhs(void)
{
    mixm_csr A;
    double b[4] = {1e300, 2e300, 3e300, 1.7e308};
    tridiag(4, 1.0, &A);
    cg_truthful(&A, b);
    double b2[4] = {1, 2, 3, 4};
    cg_scale_invariant(&A, b2, 1.0, 0x1p1020);
    mixm_csr_free(&A);
}

/* Defect 5: stopped before iterating, true_rel_residual was Inf although x = 0 has residual 1. */
static void test_cg_early_stop_residual(void)
{
    enum { N = 5 };
    mixm_csr A;
    tridiag(N, 1.0, &A);
    A.val[A.rowptr[2] + 1] = -4.0; /* a negative diagonal: Jacobi refuses before iterating */
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    double b[N] = {1, 2, 3, 4, 5}, x[N];
    for (int k = 0; k < NSTORAGE; k++) {
        mix_cg_params p = mixt_cg_params(cg_storage[k], MIX_PRECOND_JACOBI);
        mix_cg_info info;
        CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_ERR_NOT_SPD);
        CU_ASSERT_EQUAL(info.reason, MIX_CG_BREAKDOWN_NOT_SPD);
        CU_ASSERT_DOUBLE_EQUAL(info.true_rel_residual, mixt_cg_true_rel(&A, b, x), 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(info.true_rel_residual, 1.0, 1e-12);
    }
    /* A given x0 keeps its own residual. */
    mix_cg_params p;
    mix_cg_params_init(&p);
    p.precond = MIX_PRECOND_JACOBI;
    p.x0_given = 1;
    for (int i = 0; i < N; i++) x[i] = 0.5;
    mix_cg_info info;
    CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_ERR_NOT_SPD);
    CU_ASSERT_DOUBLE_EQUAL(info.true_rel_residual, mixt_cg_true_rel(&A, b, x), 1e-12);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* NaN/Inf anywhere in b is a failure, never "converged" (NaN read as small). */
static void test_cg_nan_rhs(void)
{
    enum { N = 6 };
    mixt_cg_sys f;
    tri_open(&f, N);
    for (int t = 0; t < 3; t++)
        for (int pos = 0; pos < N; pos++) {
            double b[N] = {1, 1, 1, 1, 1, 1}, x[N];
            b[pos] = nonfinite[t];
            mix_cg_info info;
            CU_ASSERT_EQUAL(mix_dcg(f.ctx, NULL, f.S, b, x, &info), MIX_ERR_NAN);
            CU_ASSERT_EQUAL(info.reason, MIX_CG_BREAKDOWN_NAN);
            CU_ASSERT_EQUAL(info.converged, 0);
        }
    mixt_cg_close(&f);
}

/* b = A (1, 2, 3)^T for a column-major 3 x 3 A. */
static void rhs3(const double *a, double *b)
{
    const double xt[3] = {1, 2, 3};
    for (int i = 0; i < 3; i++) {
        b[i] = 0;
        for (int j = 0; j < 3; j++) b[i] += a[i + 3 * j] * xt[j];
    }
}

/* mix_dgesv_ir in precision prec on copies of the column-major a0 (n x n, n <= 3) and b0. */
static int small_gesv(mix_context *ctx, mix_prec prec, int n, const double *a0, const double *b0,
                      double *x, mix_gesv_info *info)
{
    double a[9], b[3];
    int ipiv[3];
    memcpy(a, a0, sizeof(double) * n * n);
    memcpy(b, b0, sizeof(double) * n);
    mix_gesv_params p = mixt_params(prec, MIX_REFINE_AUTO);
    return mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, info);
}

/* Every precision of precs solves the 3 x 3 column-major a0 x = a0 (1, 2, 3)^T to a backward
 * error within tol, and reports one within tol where `reported`. */
static void small_sweep(const double *a0, const mix_prec *precs, int np, double tol, int reported)
{
    double b0[3];
    rhs3(a0, b0);
    mix_context *ctx = mixt_context();
    for (int k = 0; k < np; k++) {
        double x[3];
        mix_gesv_info info;
        int st = small_gesv(ctx, precs[k], 3, a0, b0, x, &info);
        double be = mixm_dense_backward_error(3, 1, a0, 3, b0, 3, x, 3);
        if (st != MIX_SUCCESS || !(be <= tol))
            printf("\n    %s: status %d backward error %.3e (reported %.3e) x = %g %g %g",
                   mix_prec_name(precs[k]), st, be, info.backward_error, x[0], x[1], x[2]);
        CU_ASSERT_EQUAL(st, MIX_SUCCESS);
        CU_ASSERT(be <= tol);
        if (reported) CU_ASSERT(info.backward_error <= tol);
    }
    mix_context_destroy(ctx);
}

/* Defect 1: the 3 x 3 subnormal matrix of the issue.  OpenBLAS's dgesv made x NaN, and the
 * backward error check turned the NaN into 0: success with x = NaN. */
static void test_lu_subnormal(void)
{
    const double s = 1e-310;
    /* Column-major. */
    double a0[9] = {4 * s, 1 * s, 0, 1 * s, 4 * s, 1 * s, 0, 1 * s, 4 * s};
    const mix_prec precs[] = {MIX_FP64, MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16, MIX_PREC_AUTO};
    small_sweep(a0, precs, 6, 1e-13, 1);
    double b0[3];
    rhs3(a0, b0);
    /* The simple drivers too (they return 0 only with a usable x). */
    for (int k = 0; k < 4; k++) {
        double a[9], b[3], x[3];
        int ipiv[3], iter;
        memcpy(a, a0, sizeof a);
        memcpy(b, b0, sizeof b);
        const mixt_args c = {0, MIX_COL_MAJOR, 0, 3, 1, a, 3, ipiv, b, 3, x, 3, &iter};
        CU_ASSERT_EQUAL(mixt_call_simple(MIXT_LU, k, &c), 0);
        CU_ASSERT(mixm_dense_backward_error(3, 1, a0, 3, b0, 3, x, 3) <= 1e-13);
    }
}

/* One subnormal row in an otherwise well-scaled matrix (no range scaling: the largest entries
 * are ~1): FP16's row equilibration needs a factor 2^1030, which is clamped to 2^1023 rather
 * than made Inf; every precision must still answer correctly (here through the fallback). */
static void test_lu_subnormal_row(void)
{
    const double t = 1e-310;
    double a0[9] = {4, t, 1, 1, 4 * t, 1, 0, t, 4}; /* column-major; row 2 subnormal */
    const mix_prec precs[] = {MIX_FP64, MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    small_sweep(a0, precs, 5, 1e-15, 0);
}

/* The backward error never turns a NaN into 0: an x whose norm is NaN is no success. */
static void test_lu_huge(void)
{
    /* Entries near DBL_MAX: row sums overflow, LU's growth would. */
    const double s = 0x1p1020;
    double a0[4] = {4 * s, -1 * s, -1 * s, 4 * s}, b0[4] = {3 * s, 3 * s};
    mix_context *ctx = mixt_context();
    const mix_prec precs[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16};
    for (int k = 0; k < 4; k++) {
        double x[2];
        mix_gesv_info info;
        int st = small_gesv(ctx, precs[k], 2, a0, b0, x, &info);
        CU_ASSERT_EQUAL(st, MIX_SUCCESS);
        CU_ASSERT(mixm_dense_backward_error(2, 1, a0, 2, b0, 2, x, 2) <= 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(x[0], 1.0, 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(x[1], 1.0, 1e-14);
    }
    mix_context_destroy(ctx);
}

/* ---- The edge-case generator ------------------------------------------------------------------
 * Every driver and precision on systems scaled by 2^k, k across the whole exponent range
 * (subnormal to near overflow), A and b separately, plus NaN/Inf in each argument.  The one
 * invariant: a success status implies the FP64 re-check (range-safe, mixm_dense_backward_error) within
 * tolerance and a reported figure that matches it; a failure has a truthful reason. */

/* Exponents for A and for b: subnormal, tiny, the edges of the unscaled window (2^+-64), huge. */
static const int gen_exps[] = {-1068, -1030, -1000, -700, -300, -66, -64, 0, 63, 65, 300, 700, 1000, 1020};
#define NGEN_EXPS (int)(sizeof gen_exps / sizeof gen_exps[0])

/* Exponent of the solution of (2^ka A) x = 2^kb b, b = A x0 with |x0| in [0.5, 1.5]. */
static int sol_exp(int ka, int kb) { return kb - ka; }

enum { GEN_N = 12 };

typedef struct {
    const char *name;
    mixt_family fam;
    mix_prec prec; /* the expert driver's factor precision */
    int simple;    /* 0 the expert driver; 1..4 the FP32, TF32, FP16, BF16 simple driver */
    int layout;
    char uplo;     /* SPD only */
} dense_driver;

enum { C = MIX_COL_MAJOR, R = MIX_ROW_MAJOR };
static const dense_driver dense_drivers[] = {
    {"fp64", MIXT_LU, MIX_FP64, 0, C, 0},   {"fp32", MIXT_LU, MIX_FP32, 0, C, 0},
    {"tf32", MIXT_LU, MIX_TF32, 0, R, 0},   {"fp16", MIXT_LU, MIX_FP16, 0, C, 0},
    {"bf16", MIXT_LU, MIX_BF16, 0, R, 0},   {"auto", MIXT_LU, MIX_PREC_AUTO, 0, C, 0},
    {"dsgesv", MIXT_LU, MIX_FP32, 1, C, 0}, {"dxgesv", MIXT_LU, MIX_TF32, 2, R, 0},
    {"dhgesv", MIXT_LU, MIX_FP16, 3, C, 0}, {"dbgesv", MIXT_LU, MIX_BF16, 4, C, 0},
};
/* Cholesky (mix_dposv_ir, mix_d?posv): the same scales on an SPD randsvd matrix. */
static const dense_driver spd_drivers[] = {
    {"posv fp64 L", MIXT_SPD, MIX_FP64, 0, C, 'L'}, {"posv fp32 U", MIXT_SPD, MIX_FP32, 0, C, 'U'},
    {"posv tf32 L", MIXT_SPD, MIX_TF32, 0, R, 'L'}, {"posv fp16 U", MIXT_SPD, MIX_FP16, 0, R, 'U'},
    {"posv bf16 L", MIXT_SPD, MIX_BF16, 0, C, 'L'}, {"posv auto L", MIXT_SPD, MIX_PREC_AUTO, 0, C, 'L'},
    {"dsposv", MIXT_SPD, MIX_FP32, 1, C, 'L'},      {"dxposv", MIXT_SPD, MIX_TF32, 2, R, 'U'},
    {"dhposv", MIXT_SPD, MIX_FP16, 3, C, 'U'},      {"dbposv", MIXT_SPD, MIX_BF16, 4, C, 'L'},
};
#define NDRIVERS 10

/* Runs one driver on column-major a0/b0 (copied; row-major drivers get transposes): status and
 * x (column-major); *berr the reported backward error (NAN for the simple drivers). */
static int dense_run(mix_context *ctx, const dense_driver *d, int n, const double *a0,
                     const double *b0, double *x, double *berr)
{
    double a[GEN_N * GEN_N], b[GEN_N], xr[GEN_N];
    int ipiv[GEN_N], iter, rm = d->layout == MIX_ROW_MAJOR;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) a[rm ? i * n + j : i + j * n] = a0[i + j * n];
    memcpy(b, b0, (size_t)n * sizeof *b);
    const mixt_args c = {0, d->layout, d->uplo, n, 1, a, n, ipiv, b, rm ? 1 : n, xr, rm ? 1 : n,
                         &iter};
    *berr = NAN;
    int st;
    if (d->simple) {
        st = mixt_call_simple(d->fam, d->simple - 1, &c);
    } else {
        mix_gesv_params p = mixt_params(d->prec, MIX_REFINE_AUTO);
        mix_gesv_info info;
        st = mixt_call_expert(d->fam, ctx, &p, &c, &info);
        *berr = info.backward_error;
        CU_ASSERT_EQUAL(info.status, st);
    }
    memcpy(x, xr, (size_t)n * sizeof *x);
    return st;
}

/* The simple drivers speak LAPACK: 0 success, n+1 NaN, -1011 any other failure. */
static int simple_ok(int st) { return st == 0; }

static void dense_check(const dense_driver *d, int n, const double *a, const double *b, int st,
                        const double *x, double berr, int kx, int *bad)
{
    double re = mixm_dense_backward_error(n, 1, a, n, b, n, x, n);
    int ok = d->simple ? simple_ok(st) : st == MIX_SUCCESS;
    if (ok) {
        /* Success: the re-check within a few unit roundoffs (n = 12, kappa ~ 10), and the
         * driver's own figure the same. */
        int good = re <= 1e-14 && (d->simple || fabs(berr - re) <= 1e-14);
        if (!good) {
            (*bad)++;
            printf("\n    %s kx %d: success with backward error %.3e (reported %.3e)", d->name, kx, re, berr);
        }
        return;
    }
    /* Failure: a solution out of FP64's range (overflow, or subnormal: digits lost). */
    int truthful = d->simple ? (st == -1011 && (kx >= 1000 || kx <= -1000))
                             : ((st == MIX_ERR_OVERFLOW && kx >= 1000) ||
                                (st == MIX_ERR_NOT_CONVERGED && kx <= -1000));
    if (!truthful) {
        (*bad)++;
        printf("\n    %s kx %d: status %d (%s)", d->name, kx, st, d->simple ? "simple" : mix_strerror(st));
    }
}

/* Every driver of the table on 2^ka A0 x = 2^kb A0 x0: A alone scaled, b alone, both alike
 * (x ~ 1), both apart (x near or beyond FP64's range). */
static void gen_scaled(const double *a0, const dense_driver *drivers, const char *label)
{
    const int n = GEN_N;
    double x0[GEN_N], a[GEN_N * GEN_N], b[GEN_N], x[GEN_N];
    for (int i = 0; i < n; i++) x0[i] = 0.5 + (i % 5) * 0.25;
    mix_context *ctx = mixt_context();
    int bad = 0, runs = 0;
    for (int ia = 0; ia < NGEN_EXPS; ia++)
        for (int ib = 0; ib < NGEN_EXPS; ib++) {
            int ka = gen_exps[ia], kb = gen_exps[ib];
            if (ka != 0 && kb != 0 && ka != kb && ka != -kb) continue;
            for (int k = 0; k < n * n; k++) a[k] = ldexp(a0[k], ka);
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int j = 0; j < n; j++) s += a0[i + j * n] * x0[j];
                b[i] = ldexp(s, kb);
            }
            int kx = sol_exp(ka, kb); /* x = 2^(kb - ka) x0 */
            for (int d = 0; d < NDRIVERS; d++) {
                double berr;
                int st = dense_run(ctx, &drivers[d], n, a, b, x, &berr);
                dense_check(&drivers[d], n, a, b, st, x, berr, kx, &bad);
                runs++;
            }
        }
    printf("\n    %s: %d runs, %d violations", label, runs, bad);
    CU_ASSERT_EQUAL(bad, 0);
    mix_context_destroy(ctx);
}

static void test_gen_dense_scaled(void)
{
    double a0[GEN_N * GEN_N];
    mixm_gen_randsvd(GEN_N, 10.0, 3, 12, a0);
    gen_scaled(a0, dense_drivers, "dense");
}

/* NaN, +Inf, -Inf in each entry of A and of b, and a NaN tolerance: refused as such. */
/* NaN, +Inf, -Inf in each entry of a0 that family fam reads (SPD: the lower triangle) and of b0
 * (n = 5): every expert precision answers MIX_ERR_NAN, the FP32 simple driver n + 1. */
static void refuse_nonfinite(mix_context *ctx, mixt_family fam, const double *a0, const double *b0)
{
    enum { n = 5 };
    double a[n * n], b[n], ac[n * n], x[n];
    int ipiv[n], iter;
    const mixt_args c = {0, MIX_COL_MAJOR, 'L', n, 1, ac, n, ipiv, b, n, x, n, &iter};
    const mix_prec precs[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_TF32};
    for (int v = 0; v < 3; v++)
        for (int pos = 0; pos < n * n + n; pos++) {
            if (fam == MIXT_SPD && pos < n * n && pos % n < pos / n) continue; /* upper: unread */
            memcpy(a, a0, sizeof a);
            memcpy(b, b0, sizeof b);
            if (pos < n * n) a[pos] = nonfinite[v];
            else b[pos - n * n] = nonfinite[v];
            for (int k = 0; k < 5; k++) {
                mix_gesv_params p = mixt_params(precs[k], MIX_REFINE_AUTO);
                mix_gesv_info info;
                memcpy(ac, a, sizeof ac);
                CU_ASSERT_EQUAL(mixt_call_expert(fam, ctx, &p, &c, &info), MIX_ERR_NAN);
            }
            memcpy(ac, a, sizeof ac);
            CU_ASSERT_EQUAL(mixt_call_simple(fam, 0, &c), n + 1);
        }
}

static void test_gen_dense_nonfinite(void)
{
    const int n = 5;
    double a0[25], b0[5], x[5];
    int ipiv[5];
    mixm_gen_randsvd(n, 10.0, 3, 5, a0);
    for (int i = 0; i < n; i++) b0[i] = 1.0 + i;
    mix_context *ctx = mixt_context();
    refuse_nonfinite(ctx, MIXT_LU, a0, b0);
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.tol = NAN;
    CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, a0, n, ipiv, b0, n, x, n, NULL), -2);
    CU_ASSERT_EQUAL(mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, a0, n, b0, n, x, n, NULL), -2);
    /* Cholesky: NaN/Inf in the triangle it reads, or in b. */
    mixm_gen_randsvd_spd(n, 10.0, 3, 5, a0);
    refuse_nonfinite(ctx, MIXT_SPD, a0, b0);
    mix_context_destroy(ctx);
}

static void test_gen_posv_scaled(void)
{
    double a0[GEN_N * GEN_N];
    mixm_gen_randsvd_spd(GEN_N, 10.0, 3, 21, a0);
    gen_scaled(a0, spd_drivers, "posv");
}

/* CG: every storage and preconditioner on tridiag(-1, 4, -1) and a 2D Poisson matrix, scaled. */
static void cg_gen_matrix(int which, mixm_csr *A)
{
    if (which == 0) {
        tridiag(30, 1.0, A);
        return;
    }
    /* 6 x 6 grid, 5-point Laplacian. */
    const int m = 6, n = m * m;
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(A, n, n, 5 * (int64_t)n), MIX_SUCCESS);
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        int r = i / m, c = i % m;
        A->rowptr[i] = k;
        if (r > 0) { A->colind[k] = i - m; A->val[k++] = -1.0; }
        if (c > 0) { A->colind[k] = i - 1; A->val[k++] = -1.0; }
        A->colind[k] = i; A->val[k++] = 4.0;
        if (c + 1 < m) { A->colind[k] = i + 1; A->val[k++] = -1.0; }
        if (r + 1 < m) { A->colind[k] = i + m; A->val[k++] = -1.0; }
    }
    A->rowptr[n] = k;
    A->nnz = k;
}

static void test_gen_cg_scaled(void)
{
    mix_context *ctx = mixt_context();
    int bad = 0, runs = 0;
    for (int which = 0; which < 2; which++) {
        mixm_csr A0, A;
        cg_gen_matrix(which, &A0);
        const int n = A0.nrows;
        double *x0 = malloc((size_t)n * sizeof *x0), *b0 = malloc((size_t)n * sizeof *b0);
        double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
        for (int i = 0; i < n; i++) x0[i] = 0.5 + (i % 5) * 0.25;
        mixm_csr_matvec(&A0, x0, b0);
        /* Reference: status and iterations of the unscaled system, per (storage, precond). */
        int ref_st[2][MIX_CAPS_PREC_SLOTS], ref_it[2][MIX_CAPS_PREC_SLOTS];
        mix_sparse *S = mixt_sparse(ctx, &A0);
        for (int pc = 0; pc < 2; pc++)
            for (int k = 0; k < NSTORAGE; k++) {
                mix_cg_params p = mixt_cg_params(cg_storage[k], pc);
                mix_cg_info info;
                ref_st[pc][k] = mix_dcg(ctx, &p, S, b0, x, &info);
                ref_it[pc][k] = info.iter;
            }
        mix_sparse_destroy(S);
        for (int ia = 0; ia < NGEN_EXPS; ia++)
            for (int ib = 0; ib < NGEN_EXPS; ib++) {
                int ka = gen_exps[ia] & ~1, kb = gen_exps[ib]; /* A by even powers: Jacobi exact */
                if (ka != 0 && kb != 0 && (ka != (kb & ~1)) && ka != -(kb & ~1)) continue;
                csr_scaled(&A0, ldexp(1.0, ka), &A);
                for (int i = 0; i < n; i++) b[i] = ldexp(b0[i], kb);
                const int kx = kb - ka; /* (2^ka A) x = 2^kb A x0 */
                /* Exactly scaled data (no subnormal rounding): the same outcome as unscaled. */
                const int exact = ka >= -1020 && kb >= -1000;
                S = mixt_sparse(ctx, &A);
                for (int pc = 0; pc < 2; pc++)
                    for (int k = 0; k < NSTORAGE; k++) {
                        mix_cg_params p = mixt_cg_params(cg_storage[k], pc);
                        mix_cg_info info;
                        int st = mix_dcg(ctx, &p, S, b, x, &info);
                        double rel = mixt_cg_true_rel(&A, b, x);
                        int ok;
                        if (st == MIX_SUCCESS)
                            ok = rel <= 10 * p.tol && fabs(info.true_rel_residual - rel) <= 1e-2 * rel + 1e-14;
                        else
                            ok = (st == MIX_ERR_NOT_CONVERGED &&
                                  (info.reason == MIX_CG_MAX_ITER || info.reason == MIX_CG_STAGNATED ||
                                   (info.reason == MIX_CG_OUT_OF_RANGE && kx <= -1000))) ||
                                 (st == MIX_ERR_OVERFLOW && info.reason == MIX_CG_OUT_OF_RANGE && kx >= 1000);
                        if (ok && exact && kx > -1000 && kx < 1000)
                            ok = st == ref_st[pc][k] && info.iter == ref_it[pc][k];
                        if (!ok) {
                            bad++;
                            printf("\n    cg %s %s %s ka %d kb %d: status %d reason %d iter %d rel %.3e "
                                   "(reported %.3e); unscaled %d, %d iterations",
                                   which ? "poisson" : "tridiag", mix_prec_name(p.sloppy_prec),
                                   pc ? "jacobi" : "plain", ka, kb, st, info.reason, info.iter, rel,
                                   info.true_rel_residual, ref_st[pc][k], ref_it[pc][k]);
                        }
                        runs++;
                    }
                mix_sparse_destroy(S);
                mixm_csr_free(&A);
            }
        free(x0); free(b0); free(b); free(x);
        mixm_csr_free(&A0);
    }
    printf("\n    cg: %d runs, %d violations", runs, bad);
    CU_ASSERT_EQUAL(bad, 0);
    mix_context_destroy(ctx);
}

/* NaN/Inf in b, in x0 (x0_given), in the matrix, in the tolerance: refused as such. */
static void test_gen_cg_nonfinite(void)
{
    enum { N = 8 };
    mixt_cg_sys f;
    tri_open(&f, N);
    for (int v = 0; v < 3; v++)
        for (int pos = 0; pos < N; pos++)
            for (int k = 0; k < NSTORAGE; k++) {
                double b[N], x[N];
                mix_cg_params p = mixt_cg_params(cg_storage[k], MIX_PRECOND_NONE);
                mix_cg_info info;
                for (int i = 0; i < N; i++) b[i] = 1.0;
                b[pos] = nonfinite[v];
                CU_ASSERT_EQUAL(mix_dcg(f.ctx, &p, f.S, b, x, &info), MIX_ERR_NAN);
                CU_ASSERT_EQUAL(info.converged, 0);
                b[pos] = 1.0;
                p.x0_given = 1;
                for (int i = 0; i < N; i++) x[i] = 0.0;
                x[pos] = nonfinite[v];
                CU_ASSERT_EQUAL(mix_dcg(f.ctx, &p, f.S, b, x, &info), MIX_ERR_NAN);
                CU_ASSERT_EQUAL(info.reason, MIX_CG_BREAKDOWN_NAN);
            }
    mix_cg_params p;
    mix_cg_params_init(&p);
    p.tol = NAN;
    double b[N] = {1, 1, 1, 1, 1, 1, 1, 1}, x[N];
    CU_ASSERT_EQUAL(mix_dcg(f.ctx, &p, f.S, b, x, NULL), -2); /* p: illegal argument 2 */
    /* A matrix with NaN/Inf is refused when it is created. */
    for (int v = 0; v < 3; v++) {
        mix_sparse *S = NULL;
        f.A.val[4] = nonfinite[v];
        CU_ASSERT_EQUAL(mix_sparse_create_csr(f.ctx, N, f.A.rowptr, f.A.colind, f.A.val, &S),
                        MIX_ERR_NAN);
    }
    mixt_cg_close(&f);
}

/* ---- The API probe of issue 20: aliased b and x, a huge GMRES restart ------------------------ */

enum { ALIAS_N = 200, ALIAS_NRHS = 2 };

/* A random n x n matrix made diagonally dominant (symmetric when sym), column-major. */
static void dominant(int n, int sym, uint64_t seed, double *a)
{
    double *r = mixt_rand64((size_t)n * n, seed);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[i + (size_t)j * n] = sym ? 0.5 * (r[i + (size_t)j * n] + r[j + (size_t)i * n])
                                       : r[i + (size_t)j * n];
    for (int i = 0; i < n; i++) a[i + (size_t)i * n] += n;
    free(r);
}

/* One dense driver (column-major whatever its table layout) with x the very array b, or
 * overlapping it by half a column (shift > 0): success and a backward error against the
 * original A and b. */
static void alias_one(mix_context *ctx, const dense_driver *d, const double *a0, const double *b0,
                      size_t shift)
{
    const int n = ALIAS_N, nrhs = ALIAS_NRHS;
    double *a = malloc(sizeof(double) * n * n), *buf = calloc((size_t)n * nrhs + shift, 8);
    int *ipiv = malloc(sizeof(int) * n), iter = 0, st;
    CU_ASSERT_FATAL(a && buf && ipiv);
    memcpy(a, a0, sizeof(double) * n * n);
    double *b = buf + shift, *x = buf; /* x's columns straddle b's when shift > 0 */
    memcpy(b, b0, sizeof(double) * n * nrhs);
    const mixt_args c = {0, MIX_COL_MAJOR, d->uplo, n, nrhs, a, n, ipiv, b, n, x, n, &iter};
    if (d->simple) {
        st = mixt_call_simple(d->fam, d->simple - 1, &c);
    } else {
        mix_gesv_params p = mixt_params(d->prec, MIX_REFINE_AUTO);
        st = mixt_call_expert(d->fam, ctx, &p, &c, NULL);
    }
    double be = mixm_dense_backward_error(n, nrhs, a0, n, b0, n, x, n);
    CU_ASSERT_EQUAL(st, 0);
    CU_ASSERT(be <= mixt_berr_bound(n));
    if (st != 0 || !(be <= mixt_berr_bound(n)))
        printf("\n    %s shift %zu: status %d iter %d backward error %.3e", d->name, shift, st, iter,
               be);
    free(a);
    free(buf);
    free(ipiv);
}

/* b and x the same array (or overlapping) in every dense driver: supported, b is read before x
 * is written (doc/man3/mix_dsgesv.3); never a success with a wrong answer. */
static void test_alias_dense(void)
{
    const int n = ALIAS_N;
    double *a = malloc(sizeof(double) * n * n), *s = malloc(sizeof(double) * n * n);
    double *b = mixt_rand64((size_t)n * ALIAS_NRHS, 7);
    CU_ASSERT_FATAL(a && s && b);
    dominant(n, 0, 5, a);
    dominant(n, 1, 6, s);
    mix_context *ctx = mixt_context();
    for (size_t shift = 0; shift <= n / 2; shift += n / 2)
        for (int d = 0; d < NDRIVERS; d++) {
            alias_one(ctx, &dense_drivers[d], a, b, shift);
            alias_one(ctx, &spd_drivers[d], s, b, shift);
        }
    mix_context_destroy(ctx);
    free(a);
    free(s);
    free(b);
}

/* mix_dcg with x == b: success with a true residual within the tolerance. */
static void test_alias_cg(void)
{
    const int n = 100;
    mixt_cg_sys f;
    tri_open(&f, n);
    double b0[100], xb[100];
    for (int i = 0; i < n; i++) b0[i] = xb[i] = 1.0 + (i % 7);
    for (int given = 0; given < 2; given++) {
        mix_cg_params p;
        mix_cg_params_init(&p);
        p.x0_given = given; /* x0 = b itself, or zero */
        memcpy(xb, b0, sizeof b0);
        CU_ASSERT_EQUAL(mix_dcg(f.ctx, &p, f.S, xb, xb, NULL), MIX_SUCCESS);
        double rel = mixt_cg_true_rel(&f.A, b0, xb);
        CU_ASSERT(rel <= 1e-9);
        if (!(rel <= 1e-9)) printf("\n    x0_given %d: true residual %.3e", given, rel);
    }
    mixt_cg_close(&f);
}

/* gmres_restart far beyond n (10^6, and INT_MAX, where (m+1)(m+4) 8 bytes wraps a 64-bit size
 * near 2^30.5): clamped to n, a correct solution; never an allocation failure or worse. */
static void test_gmres_huge_restart(void)
{
    const int n = 600;
    double *a = malloc(sizeof(double) * n * n), *b = mixt_rand64(n, 3), *x = malloc(8 * n);
    double *s = malloc(sizeof(double) * n * n);
    int *ipiv = malloc(sizeof(int) * n);
    CU_ASSERT_FATAL(a && b && x && s && ipiv);
    mixm_gen_randsvd(n, 1e4, 3, 11, a);
    mixm_gen_randsvd_spd(n, 1e4, 3, 12, s);
    mix_context *ctx = mixt_context();
    const int restarts[] = {1000000, 1518500250 /* ~2^30.5 */, 2147483647};
    for (int k = 0; k < 3; k++)
        for (int spd = 0; spd < 2; spd++) {
            mix_gesv_params p = mixt_params(MIX_BF16, MIX_REFINE_AUTO);
            p.refine = MIX_REFINE_GMRES;
            p.gmres_restart = restarts[k];
            mix_gesv_info info;
            double *m = malloc(sizeof(double) * n * n);
            CU_ASSERT_FATAL(m != NULL);
            memcpy(m, spd ? s : a, sizeof(double) * n * n);
            int st = spd ? mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, m, n, b, n, x, n, &info)
                         : mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, m, n, ipiv, b, n, x, n, &info);
            double be = mixm_dense_backward_error(n, 1, spd ? s : a, n, b, n, x, n);
            CU_ASSERT_EQUAL(st, MIX_SUCCESS);
            CU_ASSERT(be <= mixt_berr_bound(n));
            if (st || !(be <= mixt_berr_bound(n)))
                printf("\n    %s restart %d: %s, backward error %.3e", spd ? "posv" : "gesv",
                       restarts[k], mix_strerror(st), be);
            free(m);
        }
    mix_context_destroy(ctx);
    free(a);
    free(b);
    free(x);
    free(s);
    free(ipiv);
}

static const mixt_test edge_tests[] = {
    {"LU on a subnormal matrix (defect 1)", test_lu_subnormal},
    {"LU near overflow", test_lu_huge},
    {"LU with one subnormal row (FP16 equilibration)", test_lu_subnormal_row},
    {"CG with ||b||^2 underflowing (defect 2)", test_cg_tiny},
    {"CG on 1e300 tridiag (defect 3)", test_cg_huge},
    {"CG with ||b||^2 overflowing (defect 4)", test_cg_big_rhs},
    {"CG stopped early: true residual of x (defect 5)", test_cg_early_stop_residual},
    {"CG with NaN/Inf in b", test_cg_nan_rhs},
    {"generator: dense LU, every driver, A and b scaled by 2^k", test_gen_dense_scaled},
    {"generator: dense LU and Cholesky, NaN/Inf in each argument", test_gen_dense_nonfinite},
    {"generator: Cholesky, every driver, A and b scaled by 2^k", test_gen_posv_scaled},
    {"generator: CG, every storage and preconditioner, scaled by 2^k", test_gen_cg_scaled},
    {"generator: CG, NaN/Inf in each argument", test_gen_cg_nonfinite},
    {"aliased b and x: every dense driver (issue 20)", test_alias_dense},
    {"aliased b and x: mix_dcg (issue 20)", test_alias_cg},
    {"GMRES restart of 10^6 and near 2^31 (issue 20)", test_gmres_huge_restart},
    {NULL, NULL},
};

void mixt_register_edge(mix_backend b) { mixt_add_backend_suite(b, "edge", edge_tests); }
