/* test_edge.c: the floating-point range edges: regression tests of issue 12's defects (dense LU, CG, threads). */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "tests/edge_check.h"
#include "matrices/mixmat.h"

static const mix_prec cg_storage[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};
#define NSTORAGE 5

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

/* Every storage and preconditioner on (sa A) x = sb b, sa and sb powers of two: never NOT_SPD or
 * NAN (A is SPD, the data finite); success only with a true residual, re-checked here with a
 * range-safe norm, within 10 tol; the reported true_rel_residual is that of the returned x; and,
 * the scaling being exact, the same status and iteration count as the unscaled system (sa an even
 * power of two: A is rescaled by powers of 4, so that Jacobi's 1/sqrt(a_ii) stays exact). */
static void cg_scale_invariant(const mixm_csr *A0, const double *b0, double sa, double sb)
{
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    int n = A0->nrows;
    mixm_csr A;
    csr_scaled(A0, sa, &A);
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) b[i] = b0[i] * sb;
    mix_sparse *S = NULL, *S0 = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, A.rowptr, A.colind, A.val, &S), MIX_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, A0->rowptr, A0->colind, A0->val, &S0),
                          MIX_SUCCESS);
    for (int pc = 0; pc < 2; pc++)
        for (int k = 0; k < NSTORAGE; k++) {
            mix_cg_params p;
            mix_cg_params_init(&p);
            p.sloppy_prec = cg_storage[k];
            p.precond = pc ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
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
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    int n = A->nrows;
    mix_sparse *S = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, A->rowptr, A->colind, A->val, &S), MIX_SUCCESS);
    double *x = malloc((size_t)n * sizeof *x);
    for (int pc = 0; pc < 2; pc++)
        for (int k = 0; k < NSTORAGE; k++) {
            mix_cg_params p;
            mix_cg_params_init(&p);
            p.sloppy_prec = cg_storage[k];
            p.precond = pc ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
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
    tridiag(N, 1.0, &A);
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    mix_sparse *S = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, N, A.rowptr, A.colind, A.val, &S), MIX_SUCCESS);
    double x[N];
    mix_cg_info info;
    memset(b, 0, sizeof b);
    CU_ASSERT_EQUAL(mix_dcg(ctx, NULL, S, b, x, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info.reason, MIX_CG_ZERO_RHS);
    CU_ASSERT_EQUAL(info.true_rel_residual, 0.0);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
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
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    mix_sparse *S = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, N, A.rowptr, A.colind, A.val, &S), MIX_SUCCESS);
    double b[N] = {1, 2, 3, 4, 5}, x[N];
    for (int k = 0; k < NSTORAGE; k++) {
        mix_cg_params p;
        mix_cg_params_init(&p);
        p.sloppy_prec = cg_storage[k];
        p.precond = MIX_PRECOND_JACOBI;
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
    mixm_csr A;
    tridiag(N, 1.0, &A);
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    mix_sparse *S = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, N, A.rowptr, A.colind, A.val, &S), MIX_SUCCESS);
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int t = 0; t < 3; t++)
        for (int pos = 0; pos < N; pos++) {
            double b[N] = {1, 1, 1, 1, 1, 1}, x[N];
            b[pos] = bad[t];
            mix_cg_info info;
            CU_ASSERT_EQUAL(mix_dcg(ctx, NULL, S, b, x, &info), MIX_ERR_NAN);
            CU_ASSERT_EQUAL(info.reason, MIX_CG_BREAKDOWN_NAN);
            CU_ASSERT_EQUAL(info.converged, 0);
        }
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* Defect 1: the 3 x 3 subnormal matrix of the issue.  OpenBLAS's dgesv made x NaN, and the
 * backward error check turned the NaN into 0: success with x = NaN. */
static void test_lu_subnormal(void)
{
    const double s = 1e-310;
    /* Column-major. */
    double a0[9] = {4 * s, 1 * s, 0, 1 * s, 4 * s, 1 * s, 0, 1 * s, 4 * s};
    double xt[3] = {1, 2, 3}, b0[3];
    for (int i = 0; i < 3; i++) {
        b0[i] = 0;
        for (int j = 0; j < 3; j++) b0[i] += a0[i + 3 * j] * xt[j];
    }
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    const mix_prec precs[] = {MIX_FP64, MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16, MIX_PREC_AUTO};
    for (int k = 0; k < 6; k++) {
        double a[9], b[3], x[3];
        int ipiv[3];
        memcpy(a, a0, sizeof a);
        memcpy(b, b0, sizeof b);
        mix_gesv_params p;
        mix_gesv_params_init(&p);
        p.factor_prec = precs[k];
        mix_gesv_info info;
        int st = mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, 3, 1, a, 3, ipiv, b, 3, x, 3, &info);
        double be = mixt_dense_backward_error(3, 1, a0, 3, b0, 3, x, 3);
        if (st != MIX_SUCCESS || !(be <= 1e-13))
            printf("\n    %s: status %d backward error %.3e (reported %.3e) x = %g %g %g",
                   mix_prec_name(precs[k]), st, be, info.backward_error, x[0], x[1], x[2]);
        CU_ASSERT_EQUAL(st, MIX_SUCCESS);
        CU_ASSERT(be <= 1e-13);
        CU_ASSERT(info.backward_error <= 1e-13);
    }
    /* The simple drivers too (they return 0 only with a usable x). */
    int (*const simple[])(int, int, int, double *, int, int *, double *, int, double *, int, int *) = {
        mix_dsgesv, mix_dxgesv, mix_dhgesv, mix_dbgesv};
    for (int k = 0; k < 4; k++) {
        double a[9], b[3], x[3];
        int ipiv[3], iter;
        memcpy(a, a0, sizeof a);
        memcpy(b, b0, sizeof b);
        int st = simple[k](MIX_COL_MAJOR, 3, 1, a, 3, ipiv, b, 3, x, 3, &iter);
        CU_ASSERT_EQUAL(st, 0);
        CU_ASSERT(mixt_dense_backward_error(3, 1, a0, 3, b0, 3, x, 3) <= 1e-13);
    }
    mix_context_destroy(ctx);
}

/* The backward error never turns a NaN into 0: an x whose norm is NaN is no success. */
static void test_lu_huge(void)
{
    /* Entries near DBL_MAX: row sums overflow, LU's growth would. */
    const double s = 0x1p1020;
    double a0[4] = {4 * s, -1 * s, -1 * s, 4 * s}, b0[4] = {3 * s, 3 * s};
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    const mix_prec precs[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16};
    for (int k = 0; k < 4; k++) {
        double a[4], b[2], x[2];
        int ipiv[2];
        memcpy(a, a0, sizeof a);
        memcpy(b, b0, sizeof b);
        mix_gesv_params p;
        mix_gesv_params_init(&p);
        p.factor_prec = precs[k];
        mix_gesv_info info;
        int st = mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, 2, 1, a, 2, ipiv, b, 2, x, 2, &info);
        CU_ASSERT_EQUAL(st, MIX_SUCCESS);
        CU_ASSERT(mixt_dense_backward_error(2, 1, a0, 2, b0, 2, x, 2) <= 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(x[0], 1.0, 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(x[1], 1.0, 1e-14);
    }
    mix_context_destroy(ctx);
}

static const mixt_test edge_tests[] = {
    {"LU on a subnormal matrix (defect 1)", test_lu_subnormal},
    {"LU near overflow", test_lu_huge},
    {"CG with ||b||^2 underflowing (defect 2)", test_cg_tiny},
    {"CG on 1e300 tridiag (defect 3)", test_cg_huge},
    {"CG with ||b||^2 overflowing (defect 4)", test_cg_big_rhs},
    {"CG stopped early: true residual of x (defect 5)", test_cg_early_stop_residual},
    {"CG with NaN/Inf in b", test_cg_nan_rhs},
    {NULL, NULL},
};

void mixt_register_edge(mix_backend b) { mixt_add_backend_suite(b, "edge", edge_tests); }
