/* test_kernels.c: device backend kernels checked against the CPU backend (the reference) on awkward sizes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#include "kernels/backend_dense.h"
#include "matrices/mixmat.h"

/* ============================================================================================
 * Dense family: every operation of kernels/backend_dense.h on the device backend against the
 * same operation of the CPU backend, with sizes above a warp (n > 32), leading dimensions larger
 * than the row count and odd, zero scalars, NaN/Inf where the operation must see them.
 * ============================================================================================ */

typedef struct {
    mix_context *dev, *ref;
    const mixi_dense_ops *d, *r;
} dk_fix;

static int dk_open(dk_fix *f)
{
    memset(f, 0, sizeof *f);
    if (mix_context_create(&f->dev, mixt_backend) || mix_context_create(&f->ref, MIX_BACKEND_CPU))
        return 0;
    f->d = f->dev->ops->dense;
    f->r = f->ref->ops->dense;
    return f->d != NULL && f->r != NULL;
}

static void dk_close(dk_fix *f)
{
    mix_context_destroy(f->dev);
    mix_context_destroy(f->ref);
}

static int dk_same_bits32(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* getrf_panel_f32 (pivot offset off) of the m x n panel a (ld lda) on the device (da, dpiv,
 * dwork) and on the CPU (lur, ipivr): both succeed with the same info, which is returned. */
static int dk_panel(dk_fix *f, const float *a, int m, int n, int lda, int off, float *da,
                    int *dpiv, void *dwork, float *lur, int *ipivr)
{
    int info = 99, infor = 98;
    memcpy(lur, a, (size_t)lda * n * 4);
    CU_ASSERT_EQUAL(f->dev->ops->upload(f->dev->state, da, a, (size_t)lda * n * 4), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f->d->getrf_panel_f32(f->dev->state, m, n, da, lda, dpiv, off, dwork, &info),
                    MIX_SUCCESS);
    CU_ASSERT_EQUAL(f->r->getrf_panel_f32(f->ref->state, m, n, lur, lda, ipivr, off, NULL, &infor),
                    MIX_SUCCESS);
    CU_ASSERT_EQUAL(info, infor);
    if (info != infor) /* which report differs: the next device run's log says */
        printf("\n    panel %d x %d: info %d on %s, %d on the CPU", m, n, info,
               mix_backend_name(mixt_backend), infor);
    return info;
}

#define DK_SETUP(f)                                                                                \
    dk_fix f;                                                                                      \
    CU_ASSERT_FATAL(dk_open(&f))

/* Conversion with row/column scaling: bit-identical FP32 results and the same overflow counts. */
static void dk_test_convert(void)
{
    DK_SETUP(f);
    const int m = 67, n = 45, lda = 71, ldo = 69;
    double *a = mixt_rand64((size_t)lda * n, 1), *r = mixt_rand64(m, 2), *c = mixt_rand64(n, 3);
    CU_ASSERT_FATAL(a && r && c);
    a[5] = 1e6;            /* FP16 overflow only (scaled or not) */
    a[lda + 7] = 1e300;    /* overflow everywhere */
    a[2 * lda + 1] = NAN;  /* counted too */
    a[3 * lda + 2] = 1e-300; /* underflows to zero, not an overflow */
    for (int i = 0; i < m; i++) r[i] = 1.0 + fabs(r[i]);
    for (int j = 0; j < n; j++) c[j] = 1.0 + fabs(c[j]);
    double *da = mixt_put(f.dev, a, (size_t)lda * n * 8), *dr = mixt_put(f.dev, r, (size_t)m * 8),
           *dc = mixt_put(f.dev, c, (size_t)n * 8);
    float *dout = mixt_put(f.dev, NULL, (size_t)ldo * n * 4);
    float *out = calloc((size_t)ldo * n, 4), *ref = calloc((size_t)ldo * n, 4);
    CU_ASSERT_FATAL(da && dr && dc && dout && out && ref);
    const mix_prec targets[4] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    for (int t = 0; t < 4; t++)
        for (int scaled = 0; scaled < 2; scaled++) {
            size_t ov = 99, ov_ref = 77;
            double s = scaled ? 0.375 : 1.0;
            CU_ASSERT_EQUAL(f.d->convert_f64_to_f32(f.dev->state, targets[t], m, n, da, lda,
                                                    scaled ? dr : NULL, scaled ? dc : NULL, s,
                                                    dout, ldo, &ov), MIX_SUCCESS);
            CU_ASSERT_EQUAL(f.r->convert_f64_to_f32(f.ref->state, targets[t], m, n, a, lda,
                                                    scaled ? r : NULL, scaled ? c : NULL, s, ref,
                                                    ldo, &ov_ref), MIX_SUCCESS);
            CU_ASSERT_EQUAL(mixt_get(f.dev, out, dout, (size_t)ldo * n * 4), MIX_SUCCESS);
            CU_ASSERT_EQUAL(ov, ov_ref);
            CU_ASSERT(ov >= (targets[t] == MIX_FP16 ? 3u : 2u));
            for (int j = 0; j < n; j++) /* the padding rows are not compared */
                CU_ASSERT(dk_same_bits32(out + (size_t)j * ldo, ref + (size_t)j * ldo, (size_t)m));
        }
    /* A NULL count is allowed; an empty matrix does nothing and counts nothing. */
    CU_ASSERT_EQUAL(f.d->convert_f64_to_f32(f.dev->state, MIX_FP16, m, n, da, lda, NULL, NULL, 1.0,
                                            dout, ldo, NULL), MIX_SUCCESS);
    size_t ov = 5;
    CU_ASSERT_EQUAL(f.d->convert_f64_to_f32(f.dev->state, MIX_FP16, 0, n, da, lda, NULL, NULL, 1.0,
                                            dout, ldo, &ov), MIX_SUCCESS);
    CU_ASSERT_EQUAL(ov, 0);
    mixt_drop(f.dev, da); mixt_drop(f.dev, dr); mixt_drop(f.dev, dc); mixt_drop(f.dev, dout);
    free(a); free(r); free(c); free(out); free(ref);
    dk_close(&f);
}

/* Norms, column/row maxima and non-finite counts, NaN propagation included. */
static void dk_test_reductions(void)
{
    DK_SETUP(f);
    const int m = 300, n = 41, lda = 303;
    double *a = mixt_rand64((size_t)lda * n, 4), *r = mixt_rand64(m, 5), *c = mixt_rand64(n, 6);
    CU_ASSERT_FATAL(a && r && c);
    double *da = mixt_put(f.dev, a, (size_t)lda * n * 8), *dr = mixt_put(f.dev, r, (size_t)m * 8),
           *dc = mixt_put(f.dev, c, (size_t)n * 8);
    double *dv = mixt_put(f.dev, NULL, (size_t)m * 8);
    double v[300], vr[300], nd, nr;
    CU_ASSERT_FATAL(da && dr && dc && dv);
    for (int pass = 0; pass < 2; pass++) {
        size_t cnt = 1, cnt_ref = 2;
        CU_ASSERT_EQUAL(f.d->norm_inf_f64(f.dev->state, m, n, da, lda, &nd), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->norm_inf_f64(f.ref->state, m, n, a, lda, &nr), MIX_SUCCESS);
        CU_ASSERT(pass ? (isnan(nd) && isnan(nr)) : fabs(nd - nr) <= 1e-14 * nr);
        CU_ASSERT_EQUAL(f.d->count_nonfinite_f64(f.dev->state, m, n, da, lda, &cnt), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->count_nonfinite_f64(f.ref->state, m, n, a, lda, &cnt_ref),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(cnt, cnt_ref);
        CU_ASSERT_EQUAL(cnt, pass ? 3u : 0u);
        /* Maxima are exact: same products, max is order-free. */
        CU_ASSERT_EQUAL(f.d->col_absmax_f64(f.dev->state, m, n, da, lda, v), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->col_absmax_f64(f.ref->state, m, n, a, lda, vr), MIX_SUCCESS);
        for (int j = 0; j < n; j++) CU_ASSERT(v[j] == vr[j] || (isnan(v[j]) && isnan(vr[j])));
        CU_ASSERT_EQUAL(f.d->col_absmax_scaled_f64(f.dev->state, m, n, da, lda, dr, dv),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->col_absmax_scaled_f64(f.ref->state, m, n, a, lda, r, vr), MIX_SUCCESS);
        CU_ASSERT_EQUAL(mixt_get(f.dev, v, dv, (size_t)n * 8), MIX_SUCCESS);
        for (int j = 0; j < n; j++) CU_ASSERT(v[j] == vr[j] || (isnan(v[j]) && isnan(vr[j])));
        CU_ASSERT_EQUAL(f.d->row_absmax_scaled_f64(f.dev->state, m, n, da, lda, dc, dv),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->row_absmax_scaled_f64(f.ref->state, m, n, a, lda, c, vr), MIX_SUCCESS);
        CU_ASSERT_EQUAL(mixt_get(f.dev, v, dv, (size_t)m * 8), MIX_SUCCESS);
        for (int i = 0; i < m; i++) CU_ASSERT(v[i] == vr[i] || (isnan(v[i]) && isnan(vr[i])));
        /* Second pass: a NaN and two Infs; the padding rows hold garbage that must be ignored. */
        a[7 * lda + 299] = NAN;
        a[40 * lda] = INFINITY;
        a[3] = -INFINITY;
        a[7 * lda + 301] = NAN; /* padding */
        CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, da, a, (size_t)lda * n * 8), MIX_SUCCESS);
    }
    mixt_drop(f.dev, da); mixt_drop(f.dev, dr); mixt_drop(f.dev, dc); mixt_drop(f.dev, dv);
    free(a); free(r); free(c);
    dk_close(&f);
}

/* |x - y| <= tol * scale entry by entry. */
static int dk_close32(const float *x, const float *y, int m, int n, int ldx, int ldy, double tol,
                      double scale)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            if (!(fabs((double)x[(size_t)j * ldx + i] - (double)y[(size_t)j * ldy + i]) <=
                  tol * scale))
                return 0;
    return 1;
}

/* Tensor Core GEMM semantics: inputs rounded (RNE) to `compute`, exact products, FP32 sums; only
 * the order of the sums may differ from the CPU's, so |diff| <= 2 k eps32 sum |a||b| + |beta c|. */
static void dk_test_gemm_f32(void)
{
    DK_SETUP(f);
    const int m = 70, n = 33, k = 45, lda = 73, ldb = 47, ldc = 71;
    float *a = mixt_rand32((size_t)lda * k, 7), *b = mixt_rand32((size_t)ldb * n, 8),
          *c0 = mixt_rand32((size_t)ldc * n, 9);
    float *c = malloc((size_t)ldc * n * 4), *cr = malloc((size_t)ldc * n * 4);
    float *refwork = malloc(((size_t)m * k + (size_t)k * n) * 4);
    CU_ASSERT_FATAL(a && b && c0 && c && cr && refwork);
    float *da = mixt_put(f.dev, a, (size_t)lda * k * 4), *db = mixt_put(f.dev, b, (size_t)ldb * n * 4),
          *dc = mixt_put(f.dev, NULL, (size_t)ldc * n * 4);
    void *dwork = mixt_put(f.dev, NULL, ((size_t)m * k + (size_t)k * n) * 4);
    CU_ASSERT_FATAL(da && db && dc && dwork);
    const mix_prec comp[4] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    const float alphas[3] = {-1.0f, 0.0f, 0.5f}, betas[3] = {1.0f, 0.0f, 0.0f};
    for (int t = 0; t < 4; t++)
        for (int s = 0; s < 3; s++) {
            memcpy(cr, c0, (size_t)ldc * n * 4);
            if (betas[s] == 0.0f) cr[5] = NAN; /* beta = 0: C is not read */
            CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, dc, cr, (size_t)ldc * n * 4),
                            MIX_SUCCESS);
            size_t ov = 9, ovr = 8;
            CU_ASSERT_EQUAL(f.d->gemm_f32(f.dev->state, comp[t], MIXK_NOTRANS, MIXK_NOTRANS, m, n,
                                          k, alphas[s], da, lda, db, ldb, betas[s], dc, ldc, dwork,
                                          &ov), MIX_SUCCESS);
            CU_ASSERT_EQUAL(f.r->gemm_f32(f.ref->state, comp[t], MIXK_NOTRANS, MIXK_NOTRANS, m, n,
                                          k, alphas[s], a, lda, b, ldb, betas[s], cr, ldc, refwork,
                                          &ovr), MIX_SUCCESS);
            CU_ASSERT_EQUAL(mixt_get(f.dev, c, dc, (size_t)ldc * n * 4), MIX_SUCCESS);
            CU_ASSERT_EQUAL(ov, 0);
            CU_ASSERT_EQUAL(ovr, 0);
            /* |a|, |b| <= 1: sum |a||b| <= k; |beta c| <= 1. */
            CU_ASSERT(dk_close32(c, cr, m, n, ldc, ldc, 2.0 * k * 0x1p-24, k + 1.0));
            if (alphas[s] == 0.0f) /* alpha = 0, beta = 0: exact zeros, no NaN from C */
                CU_ASSERT(dk_close32(c, cr, m, n, ldc, ldc, 0.0, 1.0));
        }
    /* One entry beyond FP16's range: counted for FP16 only, on both backends. */
    a[3 * lda + 2] = 7e4f;
    CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, da, a, (size_t)lda * k * 4), MIX_SUCCESS);
    for (int t = 0; t < 4; t++) {
        size_t ov = 9, ovr = 8;
        CU_ASSERT_EQUAL(f.d->gemm_f32(f.dev->state, comp[t], MIXK_NOTRANS, MIXK_NOTRANS, m, n, k,
                                      -1.0f, da, lda, db, ldb, 1.0f, dc, ldc, dwork, &ov),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->gemm_f32(f.ref->state, comp[t], MIXK_NOTRANS, MIXK_NOTRANS, m, n, k,
                                      -1.0f, a, lda, b, ldb, 1.0f, cr, ldc, refwork, &ovr),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(ov, ovr);
        CU_ASSERT_EQUAL(ov, comp[t] == MIX_FP16 ? 1u : 0u);
    }
    /* k = 0: C := beta C. */
    CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, dc, c0, (size_t)ldc * n * 4), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->gemm_f32(f.dev->state, MIX_FP16, MIXK_NOTRANS, MIXK_NOTRANS, m, n, 0,
                                  1.0f, da, lda, db, ldb, 0.5f, dc, ldc, dwork, NULL),
                    MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, c, dc, (size_t)ldc * n * 4), MIX_SUCCESS);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            CU_ASSERT(c[(size_t)j * ldc + i] == 0.5f * c0[(size_t)j * ldc + i]);
    mixt_drop(f.dev, da); mixt_drop(f.dev, db); mixt_drop(f.dev, dc); mixt_drop(f.dev, dwork);
    free(a); free(b); free(c0); free(c); free(cr); free(refwork);
    dk_close(&f);
}

/* Panel LU (same pivots, close factors, global pivot offsets), row swaps (bit-identical),
 * unit-lower triangular solve; then the exact-zero-pivot and NaN cases. */
static void dk_test_panel_laswp_trsm(void)
{
    DK_SETUP(f);
    const int m = 100, n = 40, lda = 103, off = 5;
    float *a = mixt_rand32((size_t)lda * n, 10), *lu = malloc((size_t)lda * n * 4);
    float *lur = malloc((size_t)lda * n * 4);
    int ipiv[40], ipivr[40];
    CU_ASSERT_FATAL(a && lu && lur);
    size_t wbytes = 0;
    CU_ASSERT_EQUAL(f.d->getrf_panel_f32_worksize(f.dev->state, m, n, &wbytes), MIX_SUCCESS);
    float *da = mixt_put(f.dev, a, (size_t)lda * n * 4);
    int *dpiv = mixt_put(f.dev, NULL, sizeof ipiv);
    void *dwork = mixt_put(f.dev, NULL, wbytes ? wbytes : 1);
    CU_ASSERT_FATAL(da && dpiv && dwork);
    CU_ASSERT_EQUAL(dk_panel(&f, a, m, n, lda, off, da, dpiv, dwork, lur, ipivr), 0);
    CU_ASSERT_EQUAL(mixt_get(f.dev, ipiv, dpiv, sizeof ipiv), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, lu, da, (size_t)lda * n * 4), MIX_SUCCESS);
    CU_ASSERT(memcmp(ipiv, ipivr, sizeof ipiv) == 0);
    for (int i = 0; i < n; i++) CU_ASSERT(ipiv[i] > off + i && ipiv[i] <= off + m);
    CU_ASSERT(dk_close32(lu, lur, m, n, lda, lda, 1e-4, 1.0));

    /* laswp with the LU's (local) pivots and with arbitrary ones (backwards, repeated). */
    const int nc = 37, ldw = 111, k1 = 3, k2 = 40;
    int piv[40];
    for (int i = 0; i < 40; i++) piv[i] = i % 3 == 0 ? 100 - i : ipivr[i] - off;
    piv[10] = 1; /* a pivot above the current row is legal for laswp */
    float *w = mixt_rand32((size_t)ldw * nc, 11), *wr = malloc((size_t)ldw * nc * 4),
          *wd = malloc((size_t)ldw * nc * 4);
    CU_ASSERT_FATAL(w && wr && wd);
    int *dp = mixt_put(f.dev, piv, sizeof piv);
    float *dw = mixt_put(f.dev, w, (size_t)ldw * nc * 4);
    CU_ASSERT_FATAL(dp && dw);
    memcpy(wr, w, (size_t)ldw * nc * 4);
    CU_ASSERT_EQUAL(f.d->laswp_f32(f.dev->state, nc, dw, ldw, k1, k2, dp), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.r->laswp_f32(f.ref->state, nc, wr, ldw, k1, k2, piv), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, wd, dw, (size_t)ldw * nc * 4), MIX_SUCCESS);
    CU_ASSERT(memcmp(wd, wr, (size_t)ldw * nc * 4) == 0);

    /* trsm with the panel's unit lower triangle (n x n) on an n x nc block. */
    CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, da, lur, (size_t)lda * n * 4), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, dw, w, (size_t)ldw * nc * 4), MIX_SUCCESS);
    memcpy(wr, w, (size_t)ldw * nc * 4);
    CU_ASSERT_EQUAL(f.d->trsm_f32(f.dev->state, MIXK_LEFT, MIXK_LOWER, MIXK_NOTRANS, MIXK_UNIT, n,
                                  nc, da, lda, dw, ldw), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.r->trsm_f32(f.ref->state, MIXK_LEFT, MIXK_LOWER, MIXK_NOTRANS, MIXK_UNIT, n,
                                  nc, lur, lda, wr, ldw), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, wd, dw, (size_t)ldw * nc * 4), MIX_SUCCESS);
    double big = 0;
    for (int j = 0; j < nc; j++)
        for (int i = 0; i < n; i++) big = fmax(big, fabs(wr[(size_t)j * ldw + i]));
    CU_ASSERT(dk_close32(wd, wr, n, nc, ldw, ldw, 1e-5, big));
    /* The rows below the triangle are untouched. */
    for (int j = 0; j < nc; j++)
        CU_ASSERT(memcmp(wd + (size_t)j * ldw + n, w + (size_t)j * ldw + n,
                         (size_t)(ldw - n) * 4) == 0);

    /* Column 6 exactly zero: info = 7 on both, pivots still global. */
    for (int i = 0; i < m; i++) a[6 * lda + i] = 0.0f;
    CU_ASSERT_EQUAL(dk_panel(&f, a, m, n, lda, 0, da, dpiv, dwork, lur, ipivr), 7);
    /* A NaN in a fresh panel: info = -1 on both. */
    free(a);
    a = mixt_rand32((size_t)lda * n, 21);
    CU_ASSERT_FATAL(a != NULL);
    a[6 * lda + 50] = NAN;
    CU_ASSERT_EQUAL(dk_panel(&f, a, m, n, lda, 0, da, dpiv, dwork, lur, ipivr), -1);

    mixt_drop(f.dev, da); mixt_drop(f.dev, dpiv); mixt_drop(f.dev, dwork);
    mixt_drop(f.dev, dp); mixt_drop(f.dev, dw);
    free(a); free(lu); free(lur); free(w); free(wr); free(wd);
    dk_close(&f);
}

/* Correction solve with FP32 factors on FP64 columns: scaled, with a zero column, x aliasing b;
 * and the FP64 fallback getrf/getrs.  Results agree with the CPU's to FP32 (FP64) accuracy. */
static void dk_test_solves(void)
{
    DK_SETUP(f);
    const int n = 65, lda = 67, nrhs = 3, ldb = 69;
    double *a = mixt_rand64((size_t)lda * n, 13), *b = mixt_rand64((size_t)ldb * nrhs, 14);
    double *r = mixt_rand64(n, 15), *c = mixt_rand64(n, 16);
    double *x = malloc((size_t)ldb * nrhs * 8), *xr = malloc((size_t)ldb * nrhs * 8);
    float *lu = malloc((size_t)lda * n * 4), *rwork = malloc((size_t)n * nrhs * 4);
    int ipiv[65];
    CU_ASSERT_FATAL(a && b && r && c && x && xr && lu && rwork);
    for (int i = 0; i < n; i++) {
        a[(size_t)i * lda + i] += 4.0; /* well conditioned */
        r[i] = 0.5 + fabs(r[i]);
        c[i] = 0.5 + fabs(c[i]);
        b[ldb + i] = 0.0;         /* column 1 is zero */
        b[2 * ldb + i] *= 1e-30;  /* column 2 would underflow FP32 without the power-of-two scale */
    }
    const double s = 0.25;
    CU_ASSERT_EQUAL(f.r->convert_f64_to_f32(f.ref->state, MIX_FP32, n, n, a, lda, r, c, s, lu, lda,
                                            NULL), MIX_SUCCESS);
    int info = 1;
    CU_ASSERT_EQUAL(f.r->getrf_panel_f32(f.ref->state, n, n, lu, lda, ipiv, 0, NULL, &info),
                    MIX_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(info, 0);
    float *dlu = mixt_put(f.dev, lu, (size_t)lda * n * 4), *dwork = mixt_put(f.dev, NULL, (size_t)n * nrhs * 4);
    int *dpiv = mixt_put(f.dev, ipiv, sizeof ipiv);
    double *db = mixt_put(f.dev, b, (size_t)ldb * nrhs * 8), *dx = mixt_put(f.dev, NULL, (size_t)ldb * nrhs * 8);
    double *dr = mixt_put(f.dev, r, (size_t)n * 8), *dc = mixt_put(f.dev, c, (size_t)n * 8);
    CU_ASSERT_FATAL(dlu && dwork && dpiv && db && dx && dr && dc);
    CU_ASSERT_EQUAL(f.d->getrs_f32_f64(f.dev->state, n, nrhs, dlu, lda, dpiv, dr, dc, s, db, ldb,
                                       dx, ldb, dwork), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.r->getrs_f32_f64(f.ref->state, n, nrhs, lu, lda, ipiv, r, c, s, b, ldb, xr,
                                       ldb, rwork), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, x, dx, (size_t)ldb * nrhs * 8), MIX_SUCCESS);
    for (int j = 0; j < nrhs; j++) {
        double big = 0, diff = 0;
        for (int i = 0; i < n; i++) {
            big = fmax(big, fabs(xr[(size_t)j * ldb + i]));
            diff = fmax(diff, fabs(x[(size_t)j * ldb + i] - xr[(size_t)j * ldb + i]));
        }
        CU_ASSERT(j == 1 ? (big == 0.0 && diff == 0.0) : (big > 0.0 && diff <= 1e-4 * big));
    }
    /* In place (x = b) gives what the separate call gave, bit for bit. */
    CU_ASSERT_EQUAL(f.d->getrs_f32_f64(f.dev->state, n, nrhs, dlu, lda, dpiv, dr, dc, s, db, ldb,
                                       db, ldb, dwork), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, xr, db, (size_t)ldb * nrhs * 8), MIX_SUCCESS);
    for (int j = 0; j < nrhs; j++)
        CU_ASSERT(memcmp(xr + (size_t)j * ldb, x + (size_t)j * ldb, (size_t)n * 8) == 0);

    /* FP64 fallback: factor on the device, solve, compare with LAPACK through the CPU backend. */
    size_t wb = 0;
    CU_ASSERT_EQUAL(f.d->getrf_f64_worksize(f.dev->state, n, &wb), MIX_SUCCESS);
    double *da = mixt_put(f.dev, a, (size_t)lda * n * 8);
    void *dw = mixt_put(f.dev, NULL, wb ? wb : 1);
    CU_ASSERT_FATAL(da && dw);
    CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, db, b, (size_t)ldb * nrhs * 8), MIX_SUCCESS);
    info = 3;
    CU_ASSERT_EQUAL(f.d->getrf_f64(f.dev->state, n, da, lda, dpiv, dw, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info, 0);
    CU_ASSERT_EQUAL(f.d->getrs_f64(f.dev->state, n, nrhs, da, lda, dpiv, db, ldb), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, x, db, (size_t)ldb * nrhs * 8), MIX_SUCCESS);
    int ipr[65];
    memcpy(xr, b, (size_t)ldb * nrhs * 8);
    double *ar = malloc((size_t)lda * n * 8);
    CU_ASSERT_FATAL(ar != NULL);
    memcpy(ar, a, (size_t)lda * n * 8);
    CU_ASSERT_EQUAL(f.r->getrf_f64(f.ref->state, n, ar, lda, ipr, NULL, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.r->getrs_f64(f.ref->state, n, nrhs, ar, lda, ipr, xr, ldb), MIX_SUCCESS);
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            double u = x[(size_t)j * ldb + i], v = xr[(size_t)j * ldb + i];
            CU_ASSERT(fabs(u - v) <= 1e-12 * (fabs(v) + (j == 2 ? 1e-30 : 1.0)));
        }
    /* A singular matrix: info = the first zero pivot, as LAPACK. */
    memset(a + 9 * (size_t)lda, 0, (size_t)lda * 8);
    CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, da, a, (size_t)lda * n * 8), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->getrf_f64(f.dev->state, n, da, lda, dpiv, dw, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info, 10);

    mixt_drop(f.dev, dlu); mixt_drop(f.dev, dwork); mixt_drop(f.dev, dpiv); mixt_drop(f.dev, db); mixt_drop(f.dev, dx);
    mixt_drop(f.dev, dr); mixt_drop(f.dev, dc); mixt_drop(f.dev, da); mixt_drop(f.dev, dw);
    free(a); free(b); free(r); free(c); free(x); free(xr); free(lu); free(rwork); free(ar);
    dk_close(&f);
}

/* FP64 BLAS of the residual and GMRES: every transpose pair, zero scalars, copies. */
static void dk_test_blas_f64(void)
{
    DK_SETUP(f);
    const int m = 53, n = 38, k = 41, ld = 59;
    double *a = mixt_rand64((size_t)ld * 60, 17), *b = mixt_rand64((size_t)ld * 60, 18),
           *c0 = mixt_rand64((size_t)ld * 60, 19);
    double *c = malloc((size_t)ld * 60 * 8), *cr = malloc((size_t)ld * 60 * 8);
    CU_ASSERT_FATAL(a && b && c0 && c && cr);
    double *da = mixt_put(f.dev, a, (size_t)ld * 60 * 8), *dbm = mixt_put(f.dev, b, (size_t)ld * 60 * 8),
           *dc = mixt_put(f.dev, NULL, (size_t)ld * 60 * 8);
    CU_ASSERT_FATAL(da && dbm && dc);
    const size_t bytes = (size_t)ld * 60 * 8;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int z = 0; z < 2; z++) {
                double alpha = z ? 0.0 : -1.5, beta = z ? 0.0 : 0.75;
                memcpy(cr, c0, bytes);
                if (z) cr[1] = NAN; /* beta = 0: never read */
                CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, dc, cr, bytes), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.d->gemm_f64(f.dev->state, ta, tb, m, n, k, alpha, da, ld, dbm,
                                              ld, beta, dc, ld), MIX_SUCCESS);
                CU_ASSERT_EQUAL(f.r->gemm_f64(f.ref->state, ta, tb, m, n, k, alpha, a, ld, b, ld,
                                              beta, cr, ld), MIX_SUCCESS);
                CU_ASSERT_EQUAL(mixt_get(f.dev, c, dc, bytes), MIX_SUCCESS);
                int ok = 1;
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < m; i++)
                        ok &= fabs(c[(size_t)j * ld + i] - cr[(size_t)j * ld + i]) <= 1e-13 * k;
                CU_ASSERT(ok);
            }
    /* gemv both ways; then with an empty inner dimension (y := beta y). */
    for (int t = 0; t < 3; t++) {
        int trans = t == 1, mm = m, nn = t == 2 ? 0 : n;
        int ylen = trans ? nn : mm;
        memcpy(cr, c0, bytes);
        CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, dc, cr, bytes), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->gemv_f64(f.dev->state, trans, mm, nn, 2.0, da, ld, dbm, -0.5, dc),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->gemv_f64(f.ref->state, trans, mm, nn, 2.0, a, ld, b, -0.5, cr),
                        MIX_SUCCESS);
        CU_ASSERT_EQUAL(mixt_get(f.dev, c, dc, bytes), MIX_SUCCESS);
        for (int i = 0; i < ylen; i++) CU_ASSERT(fabs(c[i] - cr[i]) <= 1e-13 * m);
    }
    /* axpy, scal (including by zero), dot, nrm2 on n = 1000 (several blocks). */
    const int nv = 1000;
    memcpy(cr, c0, (size_t)nv * 8);
    CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, dc, cr, (size_t)nv * 8), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->axpy_f64(f.dev->state, nv, 0.3, da, dc), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.r->axpy_f64(f.ref->state, nv, 0.3, a, cr), MIX_SUCCESS);
    double dd = 0, dr = 1, n2 = 0, n2r = 1;
    CU_ASSERT_EQUAL(f.d->dot_f64(f.dev->state, nv, dc, dbm, &dd), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.r->dot_f64(f.ref->state, nv, cr, b, &dr), MIX_SUCCESS);
    CU_ASSERT(fabs(dd - dr) <= 1e-13 * nv);
    CU_ASSERT_EQUAL(f.d->nrm2_f64(f.dev->state, nv, dc, &n2), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.r->nrm2_f64(f.ref->state, nv, cr, &n2r), MIX_SUCCESS);
    CU_ASSERT(fabs(n2 - n2r) <= 1e-14 * n2r);
    /* scal by -2 is exact: against the device's own axpy result (cuBLAS's axpy may fuse the
     * multiply-add where the CPU's does not, so that one agrees to rounding only). */
    CU_ASSERT_EQUAL(mixt_get(f.dev, cr, dc, (size_t)nv * 8), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->scal_f64(f.dev->state, nv, -2.0, dc), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixt_get(f.dev, c, dc, (size_t)nv * 8), MIX_SUCCESS);
    for (int i = 0; i < nv; i++) CU_ASSERT(c[i] == -2.0 * cr[i]);
    CU_ASSERT_EQUAL(f.d->scal_f64(f.dev->state, nv, 0.0, dc), MIX_SUCCESS);
    CU_ASSERT_EQUAL(f.d->nrm2_f64(f.dev->state, nv, dc, &n2), MIX_SUCCESS);
    CU_ASSERT_EQUAL(n2, 0.0);
    CU_ASSERT_EQUAL(f.d->dot_f64(f.dev->state, 0, dc, dc, &dd), MIX_SUCCESS);
    CU_ASSERT_EQUAL(dd, 0.0);

    /* lacpy, plain and transposed, into a larger leading dimension: bit-identical. */
    for (int trans = 0; trans < 2; trans++) {
        memcpy(cr, c0, bytes);
        CU_ASSERT_EQUAL(f.dev->ops->upload(f.dev->state, dc, cr, bytes), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.d->lacpy_f64(f.dev->state, trans, m, n, da, ld, dc, ld - 2), MIX_SUCCESS);
        CU_ASSERT_EQUAL(f.r->lacpy_f64(f.ref->state, trans, m, n, a, ld, cr, ld - 2), MIX_SUCCESS);
        CU_ASSERT_EQUAL(mixt_get(f.dev, c, dc, bytes), MIX_SUCCESS);
        CU_ASSERT(memcmp(c, cr, bytes) == 0);
    }
    mixt_drop(f.dev, da); mixt_drop(f.dev, dbm); mixt_drop(f.dev, dc);
    free(a); free(b); free(c0); free(c); free(cr);
    dk_close(&f);
}

/* Device scratch of the setup operations fails cleanly: MIX_ERR_ALLOC, no host leak. */
static void dk_test_alloc_failure(void)
{
    DK_SETUP(f);
    const int m = 40, n = 40;
    double *a = mixt_rand64((size_t)m * n, 20);
    double *da = mixt_put(f.dev, a, (size_t)m * n * 8);
    CU_ASSERT_FATAL(a && da);
    long live = mixi_alloc_live();
    size_t cnt = 3;
    double nrm = 1, colmax[40];
    mixi_alloc_fail_after(0);
    CU_ASSERT_EQUAL(f.d->count_nonfinite_f64(f.dev->state, m, n, da, m, &cnt), MIX_ERR_ALLOC);
    mixi_alloc_fail_after(0);
    CU_ASSERT_EQUAL(f.d->norm_inf_f64(f.dev->state, m, n, da, m, &nrm), MIX_ERR_ALLOC);
    mixi_alloc_fail_after(0);
    CU_ASSERT_EQUAL(f.d->col_absmax_f64(f.dev->state, m, n, da, m, colmax), MIX_ERR_ALLOC);
    mixi_alloc_fail_after(-1);
    CU_ASSERT_EQUAL(mixi_alloc_live(), live);
    /* And works again afterwards. */
    CU_ASSERT_EQUAL(f.d->count_nonfinite_f64(f.dev->state, m, n, da, m, &cnt), MIX_SUCCESS);
    CU_ASSERT_EQUAL(cnt, 0);
    mixt_drop(f.dev, da);
    free(a);
    dk_close(&f);
}

static const mixt_test dense_kernel_tests[] = {
    {"convert_f64_to_f32 against CPU, overflow counts", dk_test_convert},
    {"norms, maxima, non-finite counts against CPU", dk_test_reductions},
    {"gemm_f32 per compute precision, zero scalars", dk_test_gemm_f32},
    {"panel LU, laswp, trsm against CPU; zero pivot, NaN", dk_test_panel_laswp_trsm},
    {"getrs_f32_f64 scaled/aliased; getrf/getrs_f64", dk_test_solves},
    {"FP64 BLAS and lacpy against CPU", dk_test_blas_f64},
    {"setup scratch allocation failure", dk_test_alloc_failure},
    {NULL, NULL},
};

static void register_dense_kernels(mix_backend b)
{
    /* The CPU backend is the reference: only device backends are checked against it. */
    if (b == MIX_BACKEND_CPU) return;
    mixt_add_backend_suite(b, "dense-kernels", dense_kernel_tests);
}

void mixt_register_kernels(mix_backend b)
{
    register_dense_kernels(b);
    mixt_register_kernels_sparse(b); /* tests/test_kernels_sparse.c */
}
