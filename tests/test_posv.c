/* test_posv.c: the Cholesky pieces of the dense ops table and the mix_d?posv / mix_dposv_ir drivers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/mix_internal.h"
#include "kernels/backend_dense.h"

/* ============================================================================================
 * Dense operations on the backend under test, against host references.
 * ============================================================================================ */

typedef struct {
    mix_context *ctx;
    const mix_dense_ops *d;
} ops_fix;

static int ops_open(ops_fix *f)
{
    f->ctx = NULL;
    f->d = NULL;
    if (mix_context_create(&f->ctx, mixt_backend)) return 0;
    f->d = f->ctx->ops->dense;
    return f->d != NULL;
}

/* Backend copy of `bytes` host bytes (NULL host: zeroed); NULL if it cannot be had. */
static void *put(ops_fix *f, const void *host, size_t bytes)
{
    void *p = NULL;
    if (f->ctx->ops->alloc(f->ctx->state, &p, bytes ? bytes : 1)) return NULL;
    int st = host ? f->ctx->ops->upload(f->ctx->state, p, host, bytes)
                  : f->ctx->ops->memset0(f->ctx->state, p, bytes);
    if (st) {
        f->ctx->ops->free(f->ctx->state, p);
        return NULL;
    }
    return p;
}

static int get(ops_fix *f, void *host, const void *dev, size_t bytes)
{
    return f->ctx->ops->download(f->ctx->state, host, dev, bytes);
}

static void drop(ops_fix *f, void *p) { f->ctx->ops->free(f->ctx->state, p); }

static float *rand32(size_t n, unsigned seed)
{
    float *x = malloc(n * sizeof *x);
    unsigned long long s = seed * 2654435761ull + 1;
    for (size_t i = 0; x && i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
    return x;
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
    float *a = rand32((size_t)ld * ld, 1), *b = rand32((size_t)ld * ld, 2),
          *at = malloc((size_t)ld * ld * 4), *bt = malloc((size_t)ld * ld * 4),
          *c = malloc((size_t)ld * n * 4), *cr = malloc((size_t)ld * n * 4);
    CU_ASSERT_FATAL(a && b && at && bt && c && cr);
    float *da = put(&f, NULL, (size_t)ld * ld * 4), *db = put(&f, NULL, (size_t)ld * ld * 4),
          *dc = put(&f, NULL, (size_t)ld * n * 4);
    void *work = put(&f, NULL, ((size_t)m * k + (size_t)k * n) * 4);
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
                CU_ASSERT_EQUAL(get(&f, c, dc, (size_t)ld * n * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.ctx->ops->upload(st, da, a, (size_t)ld * ld * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.ctx->ops->upload(st, db, b, (size_t)ld * ld * 4), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.d->gemm_f32(st, comp[t], MIXK_NOTRANS, MIXK_NOTRANS, m, n, k,
                                              -1.0f, da, ld, db, ld, 0.0f, dc, ld, work, &ovr),
                                MIX_SUCCESS);
                CU_ASSERT_EQUAL(get(&f, cr, dc, (size_t)ld * n * 4), MIX_SUCCESS);
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
    drop(&f, da); drop(&f, db); drop(&f, dc); drop(&f, work);
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
    float *t = rand32((size_t)ldt * n, 3), *b = rand32((size_t)ldb * n, 4),
          *x = malloc((size_t)ldb * n * 4);
    CU_ASSERT_FATAL(t && b && x);
    void *st = f.ctx->state;
    float *dt = put(&f, NULL, (size_t)ldt * n * 4), *dx = put(&f, NULL, (size_t)ldb * n * 4);
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
                    CU_ASSERT_EQUAL(get(&f, x, dx, (size_t)ldb * n * 4), MIX_SUCCESS);
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
    drop(&f, dt); drop(&f, dx);
    free(t); free(b); free(x);
    mix_context_destroy(f.ctx);
}

static const mixt_test ops_tests[] = {
    {"gemm_f32 transposed operands, every compute precision", test_gemm_transposes},
    {"trsm_f32 every side/uplo/trans/diag, one triangle read", test_trsm_cases},
    {NULL, NULL},
};

void mixt_register_posv(mix_backend b)
{
    mixt_add_backend_suite(b, "posv-ops", ops_tests);
}
