/* test_posv.c: the Cholesky pieces of the dense ops table and the mix_d?posv / mix_dposv_ir drivers. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cblas.h>
#include <lapacke.h>
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#include "kernels/backend_dense.h"
#include "matrices/generators.h"
#include "solvers/dense/dense.h"

/* ============================================================================================
 * Dense operations on the backend under test, against host references.
 * ============================================================================================ */

typedef struct {
    mix_context *ctx;
    const mixi_dense_ops *d;
} ops_fix;

static int ops_open(ops_fix *f)
{
    f->ctx = NULL;
    f->d = NULL;
    if (mix_context_create(&f->ctx, mixt_backend)) return 0;
    f->d = f->ctx->ops->dense;
    return f->d != NULL;
}

/* Column-major transpose: dst (cols x rows, ld ldd) = src^T (src rows x cols, ld lds). */
static void transpose32(int rows, int cols, const float *src, int lds, float *dst, int ldd)
{
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) dst[(size_t)i * ldd + j] = src[(size_t)j * lds + i];
}

/* gemm_f32 with transposed operands gives what the untransposed op gives on explicitly
 * transposed copies, for every compute precision (only the order of the FP32 sums may differ:
 * |diff| <= 2 k eps32 sum |a||b|, with |a|, |b| <= 1). */
static void test_gemm_transposes(void)
{
    ops_fix f;
    CU_ASSERT_FATAL(ops_open(&f));
    const int m = 37, n = 29, k = 41, ld = 53; /* ld covers every stored shape */
    float *a = mixt_rand32((size_t)ld * ld, 1), *b = mixt_rand32((size_t)ld * ld, 2),
          *at = malloc((size_t)ld * ld * 4), *bt = malloc((size_t)ld * ld * 4),
          *c = malloc((size_t)ld * n * 4), *cr = malloc((size_t)ld * n * 4);
    CU_ASSERT_FATAL(a && b && at && bt && c && cr);
    float *da = mixt_put(f.ctx, NULL, (size_t)ld * ld * 4), *db = mixt_put(f.ctx, NULL, (size_t)ld * ld * 4),
          *dc = mixt_put(f.ctx, NULL, (size_t)ld * n * 4);
    void *work = mixt_put(f.ctx, NULL, ((size_t)m * k + (size_t)k * n) * 4);
    CU_ASSERT_FATAL(da && db && dc && work);
    const mix_prec comp[4] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    void *st = f.ctx->state;
    for (int t = 0; t < 4; t++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                /* Stored operands: op(A) is m x k, op(B) k x n. */
                const float *sa = a, *sb = b;
                if (ta) { transpose32(m, k, a, ld, at, ld); sa = at; }
                if (tb) { transpose32(k, n, b, ld, bt, ld); sb = bt; }
                size_t ov = 7, ovr = 7;
                CU_ASSERT_EQUAL(f.ctx->ops->upload(st, da, sa, (size_t)ld * ld * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.ctx->ops->upload(st, db, sb, (size_t)ld * ld * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.ctx->ops->memset0(st, dc, (size_t)ld * n * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.d->gemm_f32(st, comp[t], ta, tb, m, n, k, -1.0f, da, ld, db, ld,
                                              0.0f, dc, ld, work, &ov), MIX_SUCCESS);
                CU_ASSERT_EQUAL(mixt_get(f.ctx, c, dc, (size_t)ld * n * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.ctx->ops->upload(st, da, a, (size_t)ld * ld * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.ctx->ops->upload(st, db, b, (size_t)ld * ld * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.d->gemm_f32(st, comp[t], MIXK_NOTRANS, MIXK_NOTRANS, m, n, k,
                                              -1.0f, da, ld, db, ld, 0.0f, dc, ld, work, &ovr),
                                MIX_SUCCESS);
                CU_ASSERT_EQUAL(mixt_get(f.ctx, cr, dc, (size_t)ld * n * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(ov, 0);
                CU_ASSERT_EQUAL(ovr, 0);
                double worst = 0.0;
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < m; i++)
                        worst = fmax(worst, fabs((double)c[(size_t)j * ld + i] -
                                                 cr[(size_t)j * ld + i]));
                CU_ASSERT(worst <= 2.0 * k * k * 0x1p-24);
                /* Not a vacuous comparison: the product is far from zero. */
                CU_ASSERT(fabs(cr[0]) + fabs(cr[1]) + fabs(cr[ld]) > 1e-3);
            }
    /* An FP16 overflow in a transposed operand is counted. */
    transpose32(m, k, a, ld, at, ld);
    at[3 * ld + 2] = 7e4f;
    size_t ov = 0;
    CU_ASSERT_EQUAL(f.ctx->ops->upload(st, da, at, (size_t)ld * ld * 4), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->gemm_f32(st, MIX_FP16, MIXK_TRANS, MIXK_NOTRANS, m, n, k, -1.0f, da, ld,
                                  db, ld, 1.0f, dc, ld, work, &ov), MIX_SUCCESS);
    CU_ASSERT_EQUAL(ov, 1);
    mixt_drop(f.ctx, da); mixt_drop(f.ctx, db); mixt_drop(f.ctx, dc); mixt_drop(f.ctx, work);
    free(a); free(b); free(at); free(bt); free(c); free(cr);
    mix_context_destroy(f.ctx);
}

/* trsm_f32 in all 16 cases: op(T) X = B (or X op(T) = B) holds to FP32 accuracy, reading only
 * the `uplo` triangle (the other one holds NaN) and, with a unit diagonal, not the diagonal. */
static void test_trsm_cases(void)
{
    ops_fix f;
    CU_ASSERT_FATAL(ops_open(&f));
    const int n = 45, nb = 23, ldt = 47, ldb = 49;
    float *t = mixt_rand32((size_t)ldt * n, 3), *b = mixt_rand32((size_t)ldb * n, 4),
          *x = malloc((size_t)ldb * n * 4);
    CU_ASSERT_FATAL(t && b && x);
    void *st = f.ctx->state;
    float *dt = mixt_put(f.ctx, NULL, (size_t)ldt * n * 4), *dx = mixt_put(f.ctx, NULL, (size_t)ldb * n * 4);
    CU_ASSERT_FATAL(dt && dx);
    for (int side = 0; side < 2; side++)
        for (int uplo = 0; uplo < 2; uplo++)
            for (int trans = 0; trans < 2; trans++)
                for (int diag = 0; diag < 2; diag++) {
                    /* Well-conditioned triangle: |off-diagonal| <= 1/n, diagonal in [2, 3]. */
                    float *tc = malloc((size_t)ldt * n * 4);
                    CU_ASSERT_FATAL(tc != NULL);
                    for (int j = 0; j < n; j++)
                        for (int i = 0; i < n; i++) {
                            float v = t[(size_t)j * ldt + i];
                            int in = uplo == MIXK_LOWER ? i > j : i < j;
                            tc[(size_t)j * ldt + i] = i == j ? (diag == MIXK_UNIT ? 1e3f
                                                                                  : 2.5f + 0.5f * v)
                                                     : in ? v / n
                                                          : NAN;
                        }
                    int rows = side == MIXK_LEFT ? n : nb, cols = side == MIXK_LEFT ? nb : n;
                    CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dt, tc, (size_t)ldt * n * 4),
                                    MIX_SUCCESS);
                    CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dx, b, (size_t)ldb * n * 4),
                                    MIX_SUCCESS);
                    CU_ASSERT_EQUAL(f.d->trsm_f32(st, side, uplo, trans, diag, rows, cols, dt, ldt,
                                                  dx, ldb), MIX_SUCCESS);
                    CU_ASSERT_EQUAL(mixt_get(f.ctx, x, dx, (size_t)ldb * n * 4), MIX_SUCCESS);
                    /* op(T)(p, q) from the stored triangle, unit diagonal honoured. */
#define TOP(p, q)                                                                                 \
    ((p) == (q) ? (diag == MIXK_UNIT ? 1.0 : (double)tc[(size_t)(q) * ldt + (p)])                 \
     : (trans ? ((uplo == MIXK_LOWER) == ((q) > (p)) ? (double)tc[(size_t)(p) * ldt + (q)] : 0.0) \
              : ((uplo == MIXK_LOWER) == ((p) > (q)) ? (double)tc[(size_t)(q) * ldt + (p)] : 0.0)))
                    double worst = 0.0;
                    for (int j = 0; j < cols; j++)
                        for (int i = 0; i < rows; i++) {
                            double s = 0.0;
                            if (side == MIXK_LEFT)
                                for (int p = 0; p < n; p++) s += TOP(i, p) * x[(size_t)j * ldb + p];
                            else
                                for (int p = 0; p < n; p++) s += x[(size_t)p * ldb + i] * TOP(p, j);
                            worst = fmax(worst, fabs(s - b[(size_t)j * ldb + i]));
                        }
#undef TOP
                    CU_ASSERT(worst <= 1e-5);
                    /* Rows of B beyond the block are untouched. */
                    for (int j = 0; j < cols; j++)
                        CU_ASSERT(memcmp(x + (size_t)j * ldb + rows, b + (size_t)j * ldb + rows,
                                         (size_t)(ldb - rows) * 4) == 0);
                    free(tc);
                }
    mixt_drop(f.ctx, dt); mixt_drop(f.ctx, dx);
    free(t); free(b); free(x);
    mix_context_destroy(f.ctx);
}

/* SPD test matrix (ld n, both triangles): randsvd with eigenvalues 1 ... 1/kappa, scaled. */
static double *spd(int n, double kappa, double scale, unsigned seed)
{
    double *a = malloc((size_t)n * n * sizeof *a);
    CU_ASSERT_FATAL(a != NULL);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd_spd(n, kappa, 3, seed, a), MIX_SUCCESS);
    for (size_t k = 0; k < (size_t)n * n; k++) a[k] *= scale;
    return a;
}

/* The other triangle of the ld x n array a (n x n matrix) set to NaN: it must never be read. */
static void poison_other(int uplo, int n, double *a, int lda)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (uplo == MIXK_LOWER ? i < j : i > j) a[(size_t)j * lda + i] = NAN;
}

/* max |x - y| over the uplo triangle of the n x n column-major x and y (ld n); *other_nan says
 * whether x's other triangle is all NaN. */
static double triangle_diff(int uplo, int n, const double *x, const double *y, int *other_nan)
{
    double diff = 0;
    *other_nan = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            size_t q = (size_t)j * n + i;
            if (uplo == MIXK_LOWER ? i >= j : i <= j) diff = fmax(diff, fabs(x[q] - y[q]));
            else *other_nan &= isnan(x[q]);
        }
    return diff;
}

/* norm_inf_sym_f64 and symm_f64 against LAPACK/BLAS on the full matrix; convert_sym_f64_to_f32
 * against a host loop, both uplo, the other triangle NaN. */
static void test_sym_f64_ops(void)
{
    ops_fix f;
    CU_ASSERT_FATAL(ops_open(&f));
    void *st = f.ctx->state;
    const int n = 67, lda = 70, k = 3, ldb = 71;
    double *full = spd(n, 50.0, 3.0, 21), *a = malloc((size_t)lda * n * 8);
    double *b = mixt_rand64((size_t)ldb * k, 22), *c = malloc((size_t)ldb * k * 8),
           *cr = malloc((size_t)ldb * k * 8), *dv = malloc((size_t)n * 8);
    float *out = malloc((size_t)lda * n * 4);
    CU_ASSERT_FATAL(a && b && c && cr && dv && out);
    for (int i = 0; i < n; i++) dv[i] = ldexp(1.0, (i % 5) - 2);
    double ref = LAPACKE_dlange(LAPACK_COL_MAJOR, 'I', n, n, full, n);
    for (int uplo = 0; uplo < 2; uplo++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < lda; i++) a[(size_t)j * lda + i] = i < n ? full[(size_t)j * n + i] : 7.0;
        poison_other(uplo, n, a, lda);
        double *da = mixt_put(f.ctx, a, (size_t)lda * n * 8), *db = mixt_put(f.ctx, b, (size_t)ldb * k * 8),
               *dc = mixt_put(f.ctx, NULL, (size_t)ldb * k * 8), *dd = mixt_put(f.ctx, dv, (size_t)n * 8);
        float *dout = mixt_put(f.ctx, NULL, (size_t)lda * n * 4);
        CU_ASSERT_FATAL(da && db && dc && dd && dout);
        double nrm = -1;
        CU_ASSERT_EQUAL(f.d->norm_inf_sym_f64(st, uplo, n, da, lda, &nrm), MIX_SUCCESS);
        CU_ASSERT(fabs(nrm - ref) <= 1e-13 * ref);
        for (int kk = 1; kk <= k; kk += k - 1) { /* k = 1 (symv) and k = 3 (symm) */
            CU_ASSERT_EQUAL(f.d->symm_f64(st, uplo, n, kk, -2.0, da, lda, db, ldb, 0.0, dc, ldb),
                            MIX_SUCCESS);
            CU_ASSERT_EQUAL(mixt_get(f.ctx, c, dc, (size_t)ldb * k * 8), MIX_SUCCESS);
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, kk, n, -2.0, full, n, b, ldb,
                        0.0, cr, ldb);
            double worst = 0;
            for (int j = 0; j < kk; j++)
                for (int i = 0; i < n; i++)
                    worst = fmax(worst, fabs(c[(size_t)j * ldb + i] - cr[(size_t)j * ldb + i]));
            CU_ASSERT(worst <= 1e-12 * ref);
        }
        /* convert: lower triangle of fl32(s D A D), strict upper untouched (left at 0). */
        size_t ovf = 9;
        CU_ASSERT_EQUAL(f.d->convert_sym_f64_to_f32(st, MIX_FP16, uplo, n, da, lda, dd, 4.0, dout,
                                                    lda, &ovf), MIX_SUCCESS);
        CU_ASSERT_EQUAL(ovf, 0);
        CU_ASSERT_EQUAL(mixt_get(f.ctx, out, dout, (size_t)lda * n * 4), MIX_SUCCESS);
        int exact = 1;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                float want = i >= j ? (float)(dv[i] * full[(size_t)j * n + i] * (dv[j] * 4.0))
                                    : 0.0f;
                exact &= out[(size_t)j * lda + i] == want;
            }
        CU_ASSERT(exact);
        /* One entry beyond FP16 in the triangle counts; NaN in the other triangle does not. */
        double big = 1e5 / (dv[5] * dv[2] * 4.0);
        a[uplo == MIXK_LOWER ? (size_t)2 * lda + 5 : (size_t)5 * lda + 2] = big;
        CU_ASSERT_EQUAL(f.ctx->ops->upload(st, da, a, (size_t)lda * n * 8), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->convert_sym_f64_to_f32(st, MIX_FP16, uplo, n, da, lda, dd, 4.0, dout,
                                                    lda, &ovf), MIX_SUCCESS);
        CU_ASSERT_EQUAL(ovf, 1);
        CU_ASSERT_EQUAL(f.d->convert_sym_f64_to_f32(st, MIX_BF16, uplo, n, da, lda, dd, 4.0, dout,
                                                    lda, &ovf), MIX_SUCCESS);
        CU_ASSERT_EQUAL(ovf, 0);
        /* A NaN in the triangle shows in the norm. */
        a[uplo == MIXK_LOWER ? (size_t)2 * lda + 5 : (size_t)5 * lda + 2] = NAN;
        CU_ASSERT_EQUAL(f.ctx->ops->upload(st, da, a, (size_t)lda * n * 8), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->norm_inf_sym_f64(st, uplo, n, da, lda, &nrm), MIX_SUCCESS);
        CU_ASSERT(isnan(nrm));
        mixt_drop(f.ctx, da); mixt_drop(f.ctx, db); mixt_drop(f.ctx, dc); mixt_drop(f.ctx, dd); mixt_drop(f.ctx, dout);
    }
    free(full); free(a); free(b); free(c); free(cr); free(dv); free(out);
    mix_context_destroy(f.ctx);
}

/* syrk_f32 (lower triangle) against gemm_f32 on the same inputs, every compute precision;
 * potrf_f32 + potrs_f32_f64 solve an SPD system; potrf_f32's info for an indefinite and a NaN
 * matrix; shift_diag_f32; potrf_f64/potrs_f64 in both uplo against LAPACK. */
static void test_chol_f32_ops(void)
{
    ops_fix f;
    CU_ASSERT_FATAL(ops_open(&f));
    void *st = f.ctx->state;
    const int n = 300, k = 70, lda = 303, ldc = 301;
    float *a = mixt_rand32((size_t)lda * k, 31), *c0 = mixt_rand32((size_t)ldc * n, 32);
    float *c = malloc((size_t)ldc * n * 4), *cr = malloc((size_t)ldc * n * 4);
    CU_ASSERT_FATAL(a && c0 && c && cr);
    float *da = mixt_put(f.ctx, a, (size_t)lda * k * 4), *dc = mixt_put(f.ctx, NULL, (size_t)ldc * n * 4);
    void *work = mixt_put(f.ctx, NULL, 2 * (size_t)n * k * 4);
    CU_ASSERT_FATAL(da && dc && work);
    const mix_prec comp[4] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    for (int t = 0; t < 4; t++) {
        size_t ov = 5;
        CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dc, c0, (size_t)ldc * n * 4), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->syrk_f32(st, comp[t], n, k, -1.0f, da, lda, 1.0f, dc, ldc, work, &ov),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(ov, 0);
        CU_ASSERT_EQUAL(mixt_get(f.ctx, c, dc, (size_t)ldc * n * 4), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dc, c0, (size_t)ldc * n * 4), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->gemm_f32(st, comp[t], MIXK_NOTRANS, MIXK_TRANS, n, n, k, -1.0f, da,
                                      lda, da, lda, 1.0f, dc, ldc, work, &ov), MIX_SUCCESS);
        CU_ASSERT_EQUAL(mixt_get(f.ctx, cr, dc, (size_t)ldc * n * 4), MIX_SUCCESS);
        double worst = 0.0;
        for (int j = 0; j < n; j++)
            for (int i = j; i < n; i++)
                worst = fmax(worst, fabs((double)c[(size_t)j * ldc + i] - cr[(size_t)j * ldc + i]));
        CU_ASSERT(worst <= 2.0 * k * k * 0x1p-24 + 1e-6);
        /* Rows below n in C's padding are untouched. */
        CU_ASSERT(memcmp(c + n, c0 + n, (size_t)(ldc - n) * 4) == 0);
    }
    /* An FP16 overflow in A is reported. */
    a[5] = 1e5f;
    CU_ASSERT_EQUAL(f.ctx->ops->upload(st, da, a, (size_t)lda * k * 4), MIX_SUCCESS);
    size_t ov = 0;
    CU_ASSERT_EQUAL(f.d->syrk_f32(st, MIX_FP16, n, k, -1.0f, da, lda, 1.0f, dc, ldc, work, &ov),
                    MIX_SUCCESS);
    CU_ASSERT(ov > 0);

    /* potrf_f32 + potrs_f32_f64 with D scaling: X solves A X = B to FP32 accuracy. */
    const int m = 120, nr = 3;
    double *full = spd(m, 100.0, 1.0, 33), *dv = malloc((size_t)m * 8), *b = mixt_rand64((size_t)m * nr, 34);
    double *x = malloc((size_t)m * nr * 8);
    float *l = malloc((size_t)m * m * 4);
    CU_ASSERT_FATAL(dv && b && x && l);
    for (int i = 0; i < m; i++) dv[i] = ldexp(1.0, i % 3);
    size_t pbytes = 0;
    CU_ASSERT_EQUAL(f.d->potrf_f32_worksize(st, m, &pbytes), MIX_SUCCESS);
    double *dfull = mixt_put(f.ctx, full, (size_t)m * m * 8), *ddv = mixt_put(f.ctx, dv, (size_t)m * 8),
           *db = mixt_put(f.ctx, b, (size_t)m * nr * 8), *dx = mixt_put(f.ctx, NULL, (size_t)m * nr * 8);
    float *dl = mixt_put(f.ctx, NULL, (size_t)m * m * 4), *sw = mixt_put(f.ctx, NULL, (size_t)m * nr * 4);
    void *pw = mixt_put(f.ctx, NULL, pbytes);
    CU_ASSERT_FATAL(dfull && ddv && db && dx && dl && sw && pw);
    int info = 7;
    CU_ASSERT_EQUAL(f.d->convert_sym_f64_to_f32(st, MIX_FP32, MIXK_LOWER, m, dfull, m, ddv, 2.0,
                                                dl, m, NULL), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->potrf_f32(st, m, dl, m, pw, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info, 0);
    CU_ASSERT_EQUAL(f.d->potrs_f32_f64(st, m, nr, dl, m, ddv, 2.0, db, m, dx, m, sw), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.ctx, x, dx, (size_t)m * nr * 8), MIX_SUCCESS);
    double *r = malloc((size_t)m * nr * 8);
    memcpy(r, b, (size_t)m * nr * 8);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nr, m, -1.0, full, m, x, m, 1.0, r, m);
    double rmax = 0, xmax = 0;
    for (int i = 0; i < m * nr; i++) rmax = fmax(rmax, fabs(r[i])), xmax = fmax(xmax, fabs(x[i]));
    CU_ASSERT(rmax <= 1e-4 * xmax);
    CU_ASSERT(xmax > 0.1);
    /* b == x allowed. */
    CU_ASSERT_EQUAL(f.d->potrs_f32_f64(st, m, nr, dl, m, ddv, 2.0, db, m, db, m, sw), MIX_SUCCESS);
    double *x2 = malloc((size_t)m * nr * 8);
    CU_ASSERT_EQUAL(mixt_get(f.ctx, x2, db, (size_t)m * nr * 8), MIX_SUCCESS);
    CU_ASSERT(memcmp(x, x2, (size_t)m * nr * 8) == 0);

    /* A negative shift makes the matrix indefinite: info > 0; a NaN: info != 0. */
    CU_ASSERT_EQUAL(f.d->convert_sym_f64_to_f32(st, MIX_FP32, MIXK_LOWER, m, dfull, m, NULL, 1.0,
                                                dl, m, NULL), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->shift_diag_f32(st, m, dl, m, -0.5f), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->potrf_f32(st, m, dl, m, pw, &info), MIX_SUCCESS);
    CU_ASSERT(info > 0 && info <= m);
    full[5 * m + 40] = NAN; /* lower triangle (row 40, column 5) */
    CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dfull, full, (size_t)m * m * 8), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->convert_sym_f64_to_f32(st, MIX_FP32, MIXK_LOWER, m, dfull, m, NULL, 1.0,
                                                dl, m, NULL), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->potrf_f32(st, m, dl, m, pw, &info), MIX_SUCCESS);
    CU_ASSERT(info != 0);

    /* potrf_f64/potrs_f64, both uplo, the other triangle NaN: LAPACK's factor and solution. */
    free(full);
    full = spd(m, 100.0, 1.0, 35);
    double *af = malloc((size_t)m * m * 8), *ar = malloc((size_t)m * m * 8);
    size_t wb = 0;
    CU_ASSERT_EQUAL(f.d->potrf_f64_worksize(st, m, &wb), MIX_SUCCESS);
    void *w64 = mixt_put(f.ctx, NULL, wb);
    CU_ASSERT_FATAL(af && ar && w64);
    for (int uplo = 0; uplo < 2; uplo++) {
        memcpy(af, full, (size_t)m * m * 8);
        poison_other(uplo, m, af, m);
        memcpy(ar, af, (size_t)m * m * 8);
        char u = uplo == MIXK_LOWER ? 'L' : 'U';
        CU_ASSERT_EQUAL(LAPACKE_dpotrf(LAPACK_COL_MAJOR, u, m, ar, m), 0);
        CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dfull, af, (size_t)m * m * 8), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->potrf_f64(st, uplo, m, dfull, m, w64, &info), MIX_SUCCESS);
        CU_ASSERT_EQUAL(info, 0);
        CU_ASSERT_EQUAL(mixt_get(f.ctx, af, dfull, (size_t)m * m * 8), MIX_SUCCESS);
        int other_nan;
        CU_ASSERT(triangle_diff(uplo, m, af, ar, &other_nan) <= 1e-12);
        CU_ASSERT(other_nan);
        memcpy(x, b, (size_t)m * nr * 8);
        CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dx, b, (size_t)m * nr * 8), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->potrs_f64(st, uplo, m, nr, dfull, m, dx, m), MIX_SUCCESS);
        CU_ASSERT_EQUAL(LAPACKE_dpotrs(LAPACK_COL_MAJOR, u, m, nr, ar, m, x, m), 0);
        CU_ASSERT_EQUAL(mixt_get(f.ctx, x2, dx, (size_t)m * nr * 8), MIX_SUCCESS);
        double dx_ = 0, xm = 0;
        for (int i = 0; i < m * nr; i++) dx_ = fmax(dx_, fabs(x2[i] - x[i])), xm = fmax(xm, fabs(x[i]));
        CU_ASSERT(dx_ <= 1e-11 * xm);
    }
    /* Not positive definite in FP64: info as dpotrf. */
    memcpy(af, full, (size_t)m * m * 8);
    af[(size_t)50 * m + 50] = -1.0;
    memcpy(ar, af, (size_t)m * m * 8);
    int want = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', m, ar, m);
    CU_ASSERT(want > 0);
    CU_ASSERT_EQUAL(f.ctx->ops->upload(st, dfull, af, (size_t)m * m * 8), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->potrf_f64(st, MIXK_LOWER, m, dfull, m, w64, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info, want);

    mixt_drop(f.ctx, da); mixt_drop(f.ctx, dc); mixt_drop(f.ctx, work); mixt_drop(f.ctx, dfull); mixt_drop(f.ctx, ddv); mixt_drop(f.ctx, db);
    mixt_drop(f.ctx, dx); mixt_drop(f.ctx, dl); mixt_drop(f.ctx, sw); mixt_drop(f.ctx, pw); mixt_drop(f.ctx, w64);
    free(a); free(c0); free(c); free(cr); free(full); free(dv); free(b); free(x); free(l);
    free(r); free(x2); free(af); free(ar);
    mix_context_destroy(f.ctx);
}

static const mixt_test ops_tests[] = {
    {"gemm_f32 transposed operands, every compute precision", test_gemm_transposes},
    {"trsm_f32 every side/uplo/trans/diag, one triangle read", test_trsm_cases},
    {"symmetric FP64 ops: norm, symm/symv, triangle conversion", test_sym_f64_ops},
    {"syrk_f32, potrf_f32, potrs_f32_f64, shift, potrf/potrs_f64", test_chol_f32_ops},
    {NULL, NULL},
};

/* ============================================================================================
 * Drivers: mix_d?posv, mix_dposv_ir.
 * ============================================================================================ */

static const mix_prec low_precs[4] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
typedef int (*posv_fn)(int, char, int, int, double *, int, double *, int, double *, int, int *);
static const posv_fn simple[4] = {mix_dsposv, mix_dxposv, mix_dhposv, mix_dbposv};

static double *rhs(int n, int nrhs, const double *a)
{
    double *xt = malloc((size_t)n * nrhs * 8), *b = malloc((size_t)n * nrhs * 8);
    for (int k = 0; k < n * nrhs; k++) xt[k] = sin(1.0 + k) + 0.5;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, nrhs, n, 1.0, a, n, xt, n, 0.0, b, n);
    free(xt);
    return b;
}

/* mix_dposv_ir on a copy whose other triangle is NaN; checks A untouched (iter >= 0) or holding
 * LAPACK's FP64 factor in its triangle (iter < 0), and the backward error. */
static mixt_outcome solve(mix_context *ctx, const mix_gesv_params *p, char uplo, int n, int nrhs,
                     const double *a, const double *b)
{
    int ul = uplo == 'L' ? MIXK_LOWER : MIXK_UPPER;
    double *ac = malloc((size_t)n * n * 8), *a0 = malloc((size_t)n * n * 8),
           *x = calloc((size_t)n * nrhs, 8);
    memcpy(ac, a, (size_t)n * n * 8);
    poison_other(ul, n, ac, n);
    memcpy(a0, ac, (size_t)n * n * 8);
    mix_gesv_info info;
    int st = mix_dposv_ir(ctx, p, MIX_COL_MAJOR, uplo, n, nrhs, ac, n, b, n, x, n, &info);
    mixt_outcome o = mixt_outcome_of(st, &info, n, nrhs, a, b, x);
    if (o.st == MIX_SUCCESS) {
        if (o.iter >= 0) {
            CU_ASSERT(info.backward_error <= mixt_berr_bound(n));
            CU_ASSERT(memcmp(ac, a0, (size_t)n * n * 8) == 0);
            CU_ASSERT_EQUAL(info.fell_back, 0);
        } else {
            CU_ASSERT_EQUAL(info.fell_back, 1);
            CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP64);
            LAPACKE_dpotrf(LAPACK_COL_MAJOR, uplo, n, a0, n);
            int same_other;
            CU_ASSERT(triangle_diff(ul, n, ac, a0, &same_other) <= 1e-12);
            CU_ASSERT(same_other);
        }
    }
    free(ac); free(a0); free(x);
    return o;
}

/* Refined to the FP64 backward error without fallback, with p; says which case was not. */
static void expect_refined(mix_context *ctx, mix_gesv_params p, char uplo, int n, int nrhs,
                           const double *a, const double *b)
{
    mixt_outcome o = solve(ctx, &p, uplo, n, nrhs, a, b);
    CU_ASSERT_EQUAL(o.st, MIX_SUCCESS);
    CU_ASSERT(o.iter >= 0);
    if (o.iter < 0)
        printf("\n  %s refine %d, n %d %c: iter %d reason %d\n", mix_prec_name(p.factor_prec),
               p.refine, n, uplo, o.iter, o.reason);
}

/* Every precision (and FP64) agrees with LAPACKE_dposv to the accuracy kappa eps allows. */
static void test_agrees_with_dposv(void)
{
    mix_context *ctx = mixt_context();
    const int n = 160, nrhs = 3;
    double *a = spd(n, 1e2, 5.0, 41), *b = rhs(n, nrhs, a);
    double *al = malloc((size_t)n * n * 8), *xl = malloc((size_t)n * nrhs * 8);
    memcpy(al, a, (size_t)n * n * 8);
    memcpy(xl, b, (size_t)n * nrhs * 8);
    CU_ASSERT_EQUAL(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, nrhs, al, n, xl, n), 0);
    const mix_prec precs[5] = {MIX_FP64, MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    for (int t = 0; t < 5; t++)
        for (int u = 0; u < 2; u++) {
            double *ac = malloc((size_t)n * n * 8), *x = malloc((size_t)n * nrhs * 8);
            memcpy(ac, a, (size_t)n * n * 8);
            mix_gesv_params p = mixt_params(precs[t], MIX_REFINE_AUTO);
            mix_gesv_info info;
            CU_ASSERT_EQUAL(mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, u ? 'U' : 'L', n, nrhs, ac, n, b,
                                         n, x, n, &info), MIX_SUCCESS);
            const size_t nx = (size_t)n * nrhs;
            CU_ASSERT(mixt_max_diff(nx, x, xl) <= 1e-12 * mixt_max_abs(nx, xl));
            if (precs[t] == MIX_FP64) {
                CU_ASSERT_EQUAL(info.iter, -1);
                CU_ASSERT_EQUAL(info.reason, MIX_REASON_DIRECT);
            } else {
                CU_ASSERT(info.iter >= 0);
                CU_ASSERT_EQUAL(info.factor_prec_used, precs[t]);
            }
            free(ac); free(x);
        }
    free(a); free(b); free(al); free(xl);
    mix_context_destroy(ctx);
}

/* SPD randsvd matrices, every precision and refinement, kappa up to 1e4: no fallback, both uplo;
 * FP32 (any refinement) and FP16/TF32 with a Krylov inner solver further, to 1e6 (kappa u_f up
 * to ~500: Carson and Higham's GMRES-IR bound; CG-IR behaves alike on these). */
static void test_randsvd_no_fallback(void)
{
    mix_context *ctx = mixt_context();
    const int n = 150;
    const double kappas[] = {1e1, 1e2, 1e3, 1e4, 1e6};
    const mix_refine refines[] = {MIX_REFINE_AUTO, MIX_REFINE_GMRES, MIX_REFINE_CG,
                                  MIX_REFINE_CLASSICAL};
    for (int kk = 0; kk < 5; kk++) {
        double *a = spd(n, kappas[kk], 1.0, 50 + kk), *b = rhs(n, 2, a);
        for (int t = 0; t < 4; t++)
            for (int r = 0; r < 4; r++) {
                /* Classical IR converges only while kappa u_f is well below 1. */
                double u = low_precs[t] == MIX_BF16 ? 0x1p-8
                         : low_precs[t] == MIX_FP32 ? 0x1p-24 : 0x1p-11;
                if (refines[r] == MIX_REFINE_CLASSICAL && kappas[kk] * u > 0.5) continue;
                if (kappas[kk] > 1e4 && low_precs[t] == MIX_BF16) continue;
                expect_refined(ctx, mixt_params(low_precs[t], refines[r]), (t + r) % 2 ? 'U' : 'L',
                               n, 2, a, b);
            }
        free(a); free(b);
    }
    mix_context_destroy(ctx);
}

/* Diagonal entries ~1e39, beyond FP32: the range scaling refines them in every precision, with
 * or without the symmetric scaling. */
static void beyond_fp32(mix_context *ctx, int n)
{
    double *a = spd(n, 1e3, 1e40, 62), *b = rhs(n, 1, a);
    for (int t = 0; t < 4; t++)
        for (int scale = 0; scale < 2; scale++) {
            mix_gesv_params p = mixt_params(low_precs[t], MIX_REFINE_AUTO);
            p.scale = scale;
            p.fallback = 0;
            expect_refined(ctx, p, scale ? 'U' : 'L', n, 1, a, b);
        }
    free(a); free(b);
}

/* Entries of 1e6 and 1e-8: every precision refines without fallback (FP16 thanks to the
 * symmetric scaling).  Entries beyond FP32's range: the driver's range scaling (solvers/dense/dense_range.c)
 * brings them back, every precision refines, with or without the symmetric scaling. */
static void test_badly_scaled(void)
{
    mix_context *ctx = mixt_context();
    const int n = 120;
    double *a = spd(n, 1e3, 1.0, 61);
    /* A := S A S with S_ii from 10^3 to 10^-4: entries from ~1e6 down to ~1e-8. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[(size_t)j * n + i] *= pow(10.0, 3.0 - 7.0 * i / (n - 1)) * pow(10.0, 3.0 - 7.0 * j / (n - 1));
    double *b = rhs(n, 1, a);
    double amax = 0, amin = INFINITY;
    for (int k = 0; k < n * n; k++) amax = fmax(amax, fabs(a[k])), amin = fmin(amin, fabs(a[k]));
    CU_ASSERT(amax >= 1e5 && amin <= 1e-8);
    for (int t = 0; t < 4; t++)
        expect_refined(ctx, mixt_params(low_precs[t], MIX_REFINE_AUTO), 'L', n, 1, a, b);
    free(a);
    free(b);
    beyond_fp32(ctx, n);
    mix_context_destroy(ctx);
}

/* Indefinite: every driver reports dpotrf's info, A's triangle holds dpotrf's partial factor.
 * Positive definite in FP64 but not in FP32 (kappa 1e12, no shift for FP32): FP64 fallback
 * with reason FACTOR_FAILED, iter -3. */
static void test_indefinite_and_fallback(void)
{
    mix_context *ctx = mixt_context();
    const int n = 90;
    double *a = spd(n, 10.0, 1.0, 71);
    for (int i = 0; i < n; i++) a[(size_t)i * n + i] -= (i == 60 ? 2.0 : 0.0);
    double *b = rhs(n, 1, a);
    double *ar = malloc((size_t)n * n * 8);
    memcpy(ar, a, (size_t)n * n * 8);
    int want = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, ar, n);
    CU_ASSERT(want > 0);
    for (int t = 0; t < 4; t++) {
        double *ac = malloc((size_t)n * n * 8), *x = calloc((size_t)n, 8), *bc = malloc((size_t)n * 8);
        memcpy(ac, a, (size_t)n * n * 8);
        memcpy(bc, b, (size_t)n * 8);
        int iter = 99;
        CU_ASSERT_EQUAL(simple[t](MIX_COL_MAJOR, 'L', n, 1, ac, n, bc, n, x, n, &iter), want);
        CU_ASSERT(iter < 0);
        int other_nan;
        CU_ASSERT(triangle_diff(MIXK_LOWER, n, ac, ar, &other_nan) <= 1e-12);
        mix_gesv_params p = mixt_params(low_precs[t], MIX_REFINE_AUTO);
        memcpy(ac, a, (size_t)n * n * 8);
        mix_gesv_info info;
        CU_ASSERT_EQUAL(mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, ac, n, bc, n, x, n, &info),
                        MIX_ERR_NOT_SPD);
        CU_ASSERT_EQUAL(info.status, MIX_ERR_NOT_SPD);
        CU_ASSERT(isnan(info.backward_error)); /* dpotrf failed: no X, not 0 */
        free(ac); free(x); free(bc);
    }
    free(a); free(b);
    a = spd(n, 1e12, 1.0, 72);
    b = rhs(n, 1, a);
    mix_gesv_params p = mixt_params(MIX_FP32, MIX_REFINE_AUTO);
    mixt_outcome o = solve(ctx, &p, 'U', n, 1, a, b);
    CU_ASSERT_EQUAL(o.st, MIX_SUCCESS);
    CU_ASSERT_EQUAL(o.iter, -3);
    CU_ASSERT_EQUAL(o.reason, MIX_REASON_FACTOR_FAILED);
    p.fallback = 0;
    o = solve(ctx, &p, 'U', n, 1, a, b);
    CU_ASSERT_EQUAL(o.st, MIX_ERR_NOT_SPD);
    /* No FP64 Cholesky ran: fell_back 0, the reason still says why the attempt failed. */
    CU_ASSERT_EQUAL(o.fell_back, 0);
    CU_ASSERT_EQUAL(o.reason, MIX_REASON_FACTOR_FAILED);
    free(a); free(b); free(ar);
    mix_context_destroy(ctx);
}

/* G G^T of rank r minus delta I: indefinite with n - r eigenvalues -delta (G uniform, seeded). */
static double *low_rank_minus(int n, int r, double delta, uint64_t seed)
{
    double *g = malloc((size_t)n * n * 8), *a = malloc((size_t)n * n * 8);
    CU_ASSERT_FATAL(g && a && mixm_gen_random_dense(n, seed, g) == MIX_SUCCESS);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, r, 1.0, g, n, g, n, 0.0, a, n);
    for (int i = 0; i < n; i++) a[(size_t)i * n + i] -= delta;
    free(g);
    return a;
}

/* GMRES-IR converges on an indefinite A: a low-precision Cholesky that a shift (16-bit) or its
 * rounding (FP32) lets through must not turn that into a success where dpotrf fails. */
static void test_gmres_indefinite(void)
{
    mix_context *ctx = mixt_context();
    const struct { int n, r; double delta; mix_prec prec; } c[] = {
        {100, 50, 1e-3, MIX_FP16}, {100, 50, 1e-3, MIX_BF16}, {100, 50, 1e-3, MIX_TF32},
        {200, 199, 1e-6, MIX_FP32}, {200, 199, 1e-2, MIX_FP16}};
    for (size_t t = 0; t < sizeof c / sizeof c[0]; t++) {
        const int n = c[t].n;
        double *a = low_rank_minus(n, c[t].r, c[t].delta, 91 + t), *b = rhs(n, 1, a);
        double *f = malloc((size_t)n * n * 8);
        memcpy(f, a, (size_t)n * n * 8);
        CU_ASSERT(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, f, n) > 0);
        for (int u = 0; u < 2; u++) {
            mix_gesv_params p = mixt_params(c[t].prec, MIX_REFINE_GMRES);
            mixt_outcome o = solve(ctx, &p, u ? 'U' : 'L', n, 1, a, b);
            CU_ASSERT_EQUAL(o.st, MIX_ERR_NOT_SPD);
            if (o.st != MIX_ERR_NOT_SPD)
                printf("\n    case %zu %c: status %d iter %d", t, u ? 'U' : 'L', o.st, o.iter);
        }
        free(a); free(b); free(f);
    }
    mix_context_destroy(ctx);
}

/* NaN/Inf in A's triangle or in B: n + 1 / MIX_ERR_NAN, nothing written; a NaN in the other
 * triangle is never seen. */
static void test_nan_inf(void)
{
    mix_context *ctx = mixt_context();
    const int n = 50;
    double *a = spd(n, 10.0, 1.0, 81), *b = rhs(n, 1, a);
    double *ac = malloc((size_t)n * n * 8), *a0 = malloc((size_t)n * n * 8),
           *bc = malloc((size_t)n * 8), *x = malloc((size_t)n * 8);
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < 4; t++) {
            memcpy(ac, a, (size_t)n * n * 8);
            memcpy(bc, b, (size_t)n * 8);
            if (c == 0) ac[(size_t)3 * n + 10] = NAN;   /* lower triangle */
            if (c == 1) ac[(size_t)7 * n + 7] = INFINITY; /* diagonal */
            if (c == 2) bc[4] = -INFINITY;
            memcpy(a0, ac, (size_t)n * n * 8);
            for (int i = 0; i < n; i++) x[i] = 3.0;
            int iter = 77;
            CU_ASSERT_EQUAL(simple[t](MIX_COL_MAJOR, 'L', n, 1, ac, n, bc, n, x, n, &iter), n + 1);
            CU_ASSERT(memcmp(ac, a0, (size_t)n * n * 8) == 0);
            CU_ASSERT_EQUAL(iter, 77);
            int untouched = 1;
            for (int i = 0; i < n; i++) untouched &= x[i] == 3.0;
            CU_ASSERT(untouched);
            mix_gesv_info info;
            CU_ASSERT_EQUAL(mix_dposv_ir(ctx, NULL, MIX_COL_MAJOR, 'L', n, 1, ac, n, bc, n, x, n,
                                         &info), MIX_ERR_NAN);
        }
    /* NaN above the diagonal with uplo 'L' (and below with 'U'): not read. */
    memcpy(ac, a, (size_t)n * n * 8);
    ac[(size_t)10 * n + 3] = NAN;
    int iter = 0;
    CU_ASSERT_EQUAL(mix_dsposv(MIX_COL_MAJOR, 'L', n, 1, ac, n, b, n, x, n, &iter), 0);
    CU_ASSERT(iter >= 0);
    CU_ASSERT(mixm_dense_backward_error(n, 1, a, n, b, n, x, n) <= mixt_berr_bound(n));
    memcpy(ac, a, (size_t)n * n * 8);
    ac[(size_t)3 * n + 10] = NAN;
    CU_ASSERT_EQUAL(mix_dsposv(MIX_COL_MAJOR, 'U', n, 1, ac, n, b, n, x, n, &iter), 0);
    CU_ASSERT(mixm_dense_backward_error(n, 1, a, n, b, n, x, n) <= mixt_berr_bound(n));
    free(a); free(b); free(ac); free(a0); free(bc); free(x);
    mix_context_destroy(ctx);
}

/* Several right-hand sides, both layouts, both uplo, padded leading dimensions: the same X. */
static void test_layouts_uplo_multi_rhs(void)
{
    mix_context *ctx = mixt_context();
    const int n = 110, nrhs = 4, lda = 113, ldbc = 115, ldbr = 6;
    double *a = spd(n, 1e3, 2.0, 91), *b = rhs(n, nrhs, a);
    for (int t = 0; t < 4; t++)
        for (int layout = 0; layout < 2; layout++)
            for (int u = 0; u < 2; u++) {
                int rm = layout == 1;
                char uplo = u ? 'U' : 'L';
                int ldb = rm ? ldbr : ldbc;
                double *ap = malloc((size_t)lda * n * 8), *bp = malloc((size_t)ldb * (rm ? n : nrhs) * 8),
                       *xp = malloc((size_t)ldb * (rm ? n : nrhs) * 8);
                /* A stored in the layout, the triangle not named by uplo NaN (in that layout). */
                for (int m = 0; m < n; m++)     /* rows (row-major) or columns */
                    for (int q = 0; q < lda; q++) { /* within one; q >= n: padding */
                        int r = rm ? m : q, c = rm ? q : m;
                        int keep = u ? r <= c : r >= c;
                        ap[(size_t)m * lda + q] = q >= n ? -5.0
                                                  : keep ? a[(size_t)c * n + r] : NAN;
                    }
                for (int j = 0; j < nrhs; j++)
                    for (int i = 0; i < n; i++)
                        bp[rm ? (size_t)i * ldb + j : (size_t)j * ldb + i] = b[(size_t)j * n + i];
                for (size_t k = 0; k < (size_t)ldb * (rm ? n : nrhs); k++) xp[k] = 8.0;
                mix_gesv_params p = mixt_params(low_precs[t], MIX_REFINE_AUTO);
                mix_gesv_info info;
                CU_ASSERT_EQUAL(mix_dposv_ir(ctx, &p, rm ? MIX_ROW_MAJOR : MIX_COL_MAJOR, uplo, n,
                                             nrhs, ap, lda, bp, ldb, xp, ldb, &info), MIX_SUCCESS);
                CU_ASSERT(info.iter >= 0);
                double *x = malloc((size_t)n * nrhs * 8);
                int pad_ok = 1;
                for (int j = 0; j < nrhs; j++)
                    for (int i = 0; i < n; i++)
                        x[(size_t)j * n + i] = xp[rm ? (size_t)i * ldb + j : (size_t)j * ldb + i];
                if (rm)
                    for (int i = 0; i < n; i++)
                        for (int j = nrhs; j < ldb; j++) pad_ok &= xp[(size_t)i * ldb + j] == 8.0;
                else
                    for (int j = 0; j < nrhs; j++)
                        for (int i = n; i < ldb; i++) pad_ok &= xp[(size_t)j * ldb + i] == 8.0;
                CU_ASSERT(pad_ok);
                CU_ASSERT(mixm_dense_backward_error(n, nrhs, a, n, b, n, x, n) <= mixt_berr_bound(n));
                free(ap); free(bp); free(xp); free(x);
            }
    free(a); free(b);
    mix_context_destroy(ctx);
}

/* Every illegal argument: -i, nothing written. */
static void test_illegal_arguments(void)
{
    mix_context *ctx = mixt_context();
    enum { N = 4 };
    double a[N * N], b[N * 2], x[N * 2], a0[N * N], b0[N * 2];
    int iter = 55;
    for (int k = 0; k < N * N; k++) a[k] = a0[k] = (k % N == k / N) ? 10.0 : 1.0;
    for (int k = 0; k < 2 * N; k++) b[k] = b0[k] = 1.0, x[k] = 9.0;
    const int C = MIX_COL_MAJOR, R = MIX_ROW_MAJOR;
    /* (want, layout, uplo, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter) */
    const mixt_args c[] = {
        {-1, 0, 'L', N, 1, a, N, NULL, b, N, x, N, &iter},
        {-2, C, 'X', N, 1, a, N, NULL, b, N, x, N, &iter},
        {-2, C, 0, N, 1, a, N, NULL, b, N, x, N, &iter},
        {-3, C, 'L', -1, 1, a, N, NULL, b, N, x, N, &iter},
        {-4, C, 'L', N, -1, a, N, NULL, b, N, x, N, &iter},
        {-5, C, 'L', N, 1, NULL, N, NULL, b, N, x, N, &iter},
        {-6, C, 'U', N, 1, a, N - 1, NULL, b, N, x, N, &iter},
        {-6, R, 'L', N, 1, a, N - 1, NULL, b, 1, x, 1, &iter},
        {-7, C, 'L', N, 1, a, N, NULL, NULL, N, x, N, &iter},
        {-8, C, 'L', N, 1, a, N, NULL, b, N - 1, x, N, &iter},
        {-8, R, 'L', N, 2, a, N, NULL, b, 1, x, 2, &iter},
        {-9, C, 'L', N, 1, a, N, NULL, b, N, NULL, N, &iter},
        {-10, C, 'L', N, 1, a, N, NULL, b, N, x, 0, &iter},
        {-10, R, 'u', N, 2, a, N, NULL, b, 2, x, 1, &iter},
        {-11, C, 'L', N, 1, a, N, NULL, b, N, x, N, NULL},
    };
    const mixt_args valid = {0, C, 'L', N, 1, a, N, NULL, b, N, x, N, &iter};
    mixt_check_illegal(MIXT_SPD, ctx, c, sizeof c / sizeof c[0], &valid);
    mix_gesv_info info;
    if (!mixt_device_pointers())
        CU_ASSERT_EQUAL(mix_dposv_ir_gpu(ctx, NULL, C, 'L', N, 1, a, N, b, N, x, N, &info), -1);
    CU_ASSERT(memcmp(a, a0, sizeof a) == 0);
    CU_ASSERT(memcmp(b, b0, sizeof b) == 0);
    CU_ASSERT_EQUAL(iter, 55);
    int untouched = 1;
    for (int k = 0; k < 2 * N; k++) untouched &= x[k] == 9.0;
    CU_ASSERT(untouched);
    /* Empty sizes: success, nothing written; info may be NULL. */
    CU_ASSERT_EQUAL(mix_dsposv(C, 'L', 0, 1, a, 1, b, 1, x, 1, &iter), 0);
    CU_ASSERT_EQUAL(mix_dposv_ir(ctx, NULL, C, 'L', N, 0, a, N, b, N, x, N, NULL), 0);
    CU_ASSERT(memcmp(a, a0, sizeof a) == 0);
    CU_ASSERT_EQUAL(x[0], 9.0);
    mix_context_destroy(ctx);
}

/* Allocation failure at every allocation: MIX_ERR_ALLOC, A untouched, no leak. */
static int posv_drive(const mixt_dense_job *j, int ld, mix_gesv_info *info)
{
    return mix_dposv_ir(j->ctx, &j->p, j->layout, 'L', j->n, j->nrhs, j->ac, j->n, j->b, ld, j->x,
                        ld, info);
}

static void alloc_sweep(mix_prec prec, mix_refine refine, int layout, double kappa)
{
    const int n = 40, nrhs = 2;
    double *a = spd(n, kappa, 1.0, 101), *b = rhs(n, nrhs, a);
    mixt_alloc_sweep((mixt_dense_job){.drive = posv_drive, .p = mixt_params(prec, refine),
                                      .layout = layout, .n = n, .nrhs = nrhs, .a = a, .b = b,
                                      .keeps_a = 1});
    free(a); free(b);
}

static void test_alloc_failure(void)
{
    alloc_sweep(MIX_FP16, MIX_REFINE_AUTO, MIX_COL_MAJOR, 1e3); /* scaling + CG workspace */
    alloc_sweep(MIX_BF16, MIX_REFINE_GMRES, MIX_ROW_MAJOR, 1e2); /* copies + GMRES workspace */
    alloc_sweep(MIX_FP64, MIX_REFINE_AUTO, MIX_ROW_MAJOR, 10.0); /* FP64 chosen directly */
    alloc_sweep(MIX_FP32, MIX_REFINE_CG, MIX_COL_MAJOR, 1e12);   /* fallback after FP32 */
}

/* The residual history and the inner-iteration count of CG-IR. */
static void test_cg_ir_history(void)
{
    mix_context *ctx = mixt_context();
    const int n = 100;
    double *a = spd(n, 1e5, 1.0, 111), *b = rhs(n, 1, a), *x = malloc((size_t)n * 8);
    double *ac = malloc((size_t)n * n * 8), hist[40];
    memcpy(ac, a, (size_t)n * n * 8);
    mix_gesv_params p = mixt_params(MIX_BF16, MIX_REFINE_CG);
    p.residual_history = hist;
    p.history_capacity = 40;
    mix_gesv_info info;
    CU_ASSERT_EQUAL(mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, ac, n, b, n, x, n, &info),
                    MIX_SUCCESS);
    CU_ASSERT(info.iter >= 1);
    CU_ASSERT(info.inner_iter >= info.iter);
    CU_ASSERT_EQUAL(info.history_length, info.iter + 1);
    CU_ASSERT(hist[info.iter] <= mixt_berr_bound(n));
    CU_ASSERT(hist[0] > hist[info.iter]);
    free(a); free(b); free(x); free(ac);
    mix_context_destroy(ctx);
}

/* The cost-aware stop of the shared refinement: a preconditioner that is slow (5 ms per
 * application) and weak (Richardson, residual x0.4 per step, ~40 steps to go) is abandoned at
 * its deadline (a budget shorter than one application: the first round), as soon as the pace
 * of its first correction shows that it would pass the deadline (a budget of 10 such rounds:
 * the second round at the latest, whichever way the load goes), and refines to the end
 * without a budget. */
static int slow_identity(const mixi_precond *self, int k, const double *r, int ldr, double *c,
                         int ldc)
{
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < self->n; i++) c[(size_t)j * ldc + i] = r[(size_t)j * ldr + i];
    return MIX_SUCCESS;
}

static void test_refine_cost_stop(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return; /* host arrays below */
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, MIX_BACKEND_CPU), MIX_SUCCESS);
    const int n = 20;
    double a[20 * 20] = {0}, b[20], x[20], r[20];
    for (int i = 0; i < n; i++) a[i * n + i] = 0.6 + 0.4 * i / (n - 1), b[i] = 1.0 + i;
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.refine = MIX_REFINE_CLASSICAL;
    p.max_iter = 100;
    mixi_precond M = {slow_identity, ctx, n};
    const double budgets[3] = {1e-3, 0.05, 0.0};
    for (int k = 0; k < 3; k++) {
        mixi_refine_job job = {ctx, &p, n, 1, {a, n, 0, 0, NULL}, b, n, x, n, r, &M, NULL, NULL,
                               1.0 + n, budgets[k], 0.0, 0.0, 0.0, MIX_FP32, 0.0, 0.0};
        mixi_refine_result res;
        CU_ASSERT_EQUAL(mixi_refine(&job, &res), MIX_SUCCESS);
        if (budgets[k] > 0.0) {
            CU_ASSERT_EQUAL(res.too_slow, 1);
            CU_ASSERT_EQUAL(res.converged, 0);
            CU_ASSERT(k == 0 ? res.iter == 0 : res.iter <= 1);
        } else {
            CU_ASSERT_EQUAL(res.too_slow, 0);
            CU_ASSERT_EQUAL(res.converged, 1);
            CU_ASSERT(res.iter > 20);
        }
    }
    mix_context_destroy(ctx);
}

/* The stopping margin (issue 20, xlintstds DSPOSV N = 2 UPLO = U type 6): a solution accepted
 * without fallback passes LAPACK's test ||b - A x||inf < sqrt(n) eps ||A||inf ||x||inf
 * (dpot06, eps = 2^-53) also on a residual computed another way (both triangles, rows in
 * reverse order: another BLAS's summation), on thousands of small ill-conditioned draws. */
static void test_stopping_margin(void)
{
    enum { DRAWS = 3000 };
    int bad = 0, accepted = 0;
    for (int n = 2; n <= 4; n++)
        for (int t = 0; t < DRAWS; t++) {
            double a0[16], a[16], b[4], x[4];
            mixm_gen_randsvd_spd(n, sqrt(0.1 / DBL_EPSILON), 3, 1000 * (uint64_t)n + t, a0);
            for (int i = 0; i < n; i++) b[i] = 1.0 / (i + 1) - 0.3 * (t % 3);
            memcpy(a, a0, sizeof a);
            int iter = 0;
            char uplo = t & 1 ? 'U' : 'L';
            CU_ASSERT_EQUAL_FATAL(mix_dsposv(MIX_COL_MAJOR, uplo, n, 1, a, n, b, n, x, n, &iter), 0);
            if (iter < 0) continue; /* fell back: LAPACK's dposv answer */
            accepted++;
            double rn = 0.0, an = 0.0, xn = 0.0;
            for (int i = n - 1; i >= 0; i--) {
                double r = b[i], rowsum = 0.0;
                for (int j = n - 1; j >= 0; j--) {
                    r -= a0[i + j * n] * x[j];
                    rowsum += fabs(a0[i + j * n]);
                }
                if (fabs(r) > rn) rn = fabs(r);
                if (rowsum > an) an = rowsum;
                if (fabs(x[i]) > xn) xn = fabs(x[i]);
            }
            double ratio = rn / (an * xn * 0x1p-53);
            if (!(ratio < sqrt((double)n))) {
                if (bad++ < 5) printf("\n    n %d draw %d %c: %.3f >= sqrt(n)", n, t, uplo, ratio);
            }
        }
    printf("\n    %d accepted without fallback, %d over LAPACK's threshold", accepted, bad);
    CU_ASSERT_EQUAL(bad, 0);
}

static const mixt_test driver_tests[] = {
    {"agreement with LAPACKE_dposv, every precision, both uplo", test_agrees_with_dposv},
    {"SPD randsvd to kappa 1e4 (1e6) without fallback", test_randsvd_no_fallback},
    {"badly scaled: symmetric scaling, overflow without it", test_badly_scaled},
    {"indefinite -> info > 0; not PD in FP32 -> FP64 fallback", test_indefinite_and_fallback},
    {"GMRES-IR on an indefinite A -> MIX_ERR_NOT_SPD", test_gmres_indefinite},
    {"NaN/Inf: n + 1, nothing written; other triangle unread", test_nan_inf},
    {"multi-RHS, both layouts, both uplo, padded", test_layouts_uplo_multi_rhs},
    {"illegal arguments -> -i, nothing written; empty sizes", test_illegal_arguments},
    {"every allocation failing", test_alloc_failure},
    {"CG-IR inner iterations and residual history", test_cg_ir_history},
    {"refinement's cost-aware stop", test_refine_cost_stop},
    {"stopping margin: LAPACK's test on another residual", test_stopping_margin},
    {NULL, NULL},
};

void mixt_register_posv(mix_backend b)
{
    mixt_add_backend_suite(b, "posv-ops", ops_tests);
    mixt_add_backend_suite(b, "posv", driver_tests);
}
