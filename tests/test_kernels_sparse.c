/* test_kernels_sparse.c: the device backend's sparse operations checked against the CPU backend (bit for bit, or within a stated bound where reduction order differs). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#include "kernels/backend_sparse.h"
#include "kernels/common/spmv_row.h"
#include "kernels/cpu/sparse_cpu.h"
#include "kernels/cpu/sparse_cpu_impl.h"
#include "kernels/cpu/spmv_tune.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"
#ifdef MIX_HAVE_CUDA
#include "kernels/cuda/cuda_sparse.h"
#endif

/* What is compared, and how:
 *  - element-wise results (conversions FP64 -> sloppy, x += alpha p, p = r + beta p, y += v in
 *    FP64, 1/sqrt(a_ii)) and the SpMV with one thread per row: the same arithmetic in the same
 *    order on both backends (shared kernels/common bodies; the .cu is built without FMA
 *    contraction, and the host C is too on the default x86-64 target: a build whose CFLAGS let
 *    gcc contract a*b+c into FMA, e.g. -march=native, makes the host differ in the last bit),
 *    so the stored bytes must be identical;
 *  - SpMV with a row split over L lanes: the row sum is added in another order.  Bound per row:
 *    |y_dev - y_cpu| <= 4 (m + 4) u R + out, with m the row length, u the unit roundoff of the
 *    arithmetic (2^-24, or 2^-53 for FP64), R = sum_k |a_ik x_k|, and `out` the output rounding
 *    (one unit of the stored format at |y|, or the larger FIXED16 step of the two blocks);
 *  - FP64 reductions (norms, dots): |s_dev - s_cpu| <= 2 n 2^-53 sum |terms|. */

#define SK_N 1013 /* not a multiple of the 32-entry vector blocks; above several warps */

/* The storage precisions of the library's list, FP64 first (then the SELL formats). */
#define sk_precs (mixt_precs(MIX_ROLE_STORAGE, 0).p)
#define SK_NPREC (mixt_precs(MIX_ROLE_STORAGE, 0).n)

typedef struct {
    mix_context *dev, *ref;
    const mixi_sparse_ops *d, *r;
    mixm_csr A;
    mixi_spmat *dA, *rA; /* FP64 copies */
} sk_fix;

/* A nonsymmetric test matrix: rows of 0 to ~2 mean entries, one row of 300, one empty row,
 * magnitudes spread over 2^-4 .. 2^4, a positive diagonal everywhere but the empty row. */
static int sk_matrix(int n, int mean, uint64_t seed, mixm_csr *A)
{
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    int64_t *len = calloc((size_t)n, sizeof *len);
    char *mark = calloc((size_t)n, 1);
    if (!len || !mark) return MIX_ERR_ALLOC;
    int64_t nnz = 0;
    for (int i = 0; i < n; i++) {
        len[i] = i == 7 ? 0 : i == 100 ? 300 : 1 + (int64_t)(mixm_rng_next(&g) % (uint64_t)(2 * mean));
        if (len[i] > n) len[i] = n;
        nnz += len[i];
    }
    int st = mixm_csr_alloc(A, n, n, nnz);
    if (st) goto out;
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = k;
        if (len[i] == 0) continue;
        memset(mark, 0, (size_t)n);
        mark[i] = 1;
        for (int64_t t = 1; t < len[i];) {
            int j = (int)(mixm_rng_next(&g) % (uint64_t)n);
            if (!mark[j]) {
                mark[j] = 1;
                t++;
            }
        }
        for (int j = 0; j < n; j++) {
            if (!mark[j]) continue;
            double mag = ldexp(1.0, (int)(mixm_rng_next(&g) % 9) - 4);
            double v = (2.0 * mixm_rng_uniform(&g) - 1.0) * mag;
            if (j == i) v = 4.0 + mixm_rng_uniform(&g) * 8.0;
            A->colind[k] = j;
            A->val[k++] = v;
        }
    }
    A->rowptr[n] = k;
out:
    free(len);
    free(mark);
    return st;
}

static int sk_open(sk_fix *f, int mean)
{
    memset(f, 0, sizeof *f);
    /* The reference is the CPU's portable C body, the order of operations the device follows
     * (the CPU's AVX2 FIXED16 SpMV decodes x first and sums by a tree). */
    mixi_cpu_sparse_force_portable(1);
    if (mix_context_create(&f->dev, mixt_backend) || mix_context_create(&f->ref, MIX_BACKEND_CPU))
        return 0;
    f->d = f->dev->ops->sparse;
    f->r = f->ref->ops->sparse;
    if (!f->d || !f->r || !f->d->csr_create) return 0;
    if (sk_matrix(SK_N, mean, 42 + (uint64_t)mean, &f->A)) return 0;
    return !f->d->csr_create(f->dev->state, SK_N, f->A.rowptr, f->A.colind, f->A.val, &f->dA) &&
           !f->r->csr_create(f->ref->state, SK_N, f->A.rowptr, f->A.colind, f->A.val, &f->rA);
}

static void sk_close(sk_fix *f)
{
    if (f->dA) f->d->csr_destroy(f->dev->state, f->dA);
    if (f->rA) f->r->csr_destroy(f->ref->state, f->rA);
    mixm_csr_free(&f->A);
    mix_context_destroy(f->dev);
    mix_context_destroy(f->ref);
    mixi_cpu_sparse_force_portable(0);
}

/* Backend memory holding a copy of host doubles. */
static double *sk_put(mix_context *c, const double *h, int n)
{
    void *p = NULL;
    size_t bytes = (size_t)n * sizeof(double);
    if (c->ops->alloc(c->state, &p, bytes)) return NULL;
    if (c->ops->upload(c->state, p, h, bytes)) {
        c->ops->free(c->state, p);
        return NULL;
    }
    return p;
}

static int sk_get(mix_context *c, double *h, const double *p, int n)
{
    return c->ops->download(c->state, h, p, (size_t)n * sizeof(double));
}

static int sv_alloc(mix_context *c, mix_prec p, int n, mixi_svec *v)
{
    size_t vb, nb;
    memset(v, 0, sizeof *v);
    v->prec = p;
    v->n = n;
    if (mixi_svec_bytes(p, n, &vb, &nb)) return MIX_ERR_INVALID_ARG;
    int st = c->ops->alloc(c->state, &v->val, vb);
    if (!st && nb) st = c->ops->alloc(c->state, (void **)&v->norm, nb);
    if (!st) st = c->ops->memset0(c->state, v->val, vb);
    if (!st && nb) st = c->ops->memset0(c->state, v->norm, nb);
    return st;
}

static void sv_free(mix_context *c, mixi_svec *v)
{
    c->ops->free(c->state, v->val);
    c->ops->free(c->state, v->norm);
    v->val = NULL;
    v->norm = NULL;
}

/* A host copy of a sloppy vector's bytes (values without the padding, and the norms). */
typedef struct {
    mix_prec prec;
    int n;
    unsigned char *val;
    float *norm;
    size_t vb, nb;
} sv_host;

static int sv_get(mix_context *c, const mixi_svec *v, sv_host *h)
{
    memset(h, 0, sizeof *h);
    h->prec = v->prec;
    h->n = v->n;
    if (mixi_svec_bytes(v->prec, v->n, &h->vb, &h->nb)) return 0;
    h->val = calloc(h->vb, 1);
    h->norm = calloc(h->nb ? h->nb : 1, 1);
    if (!h->val || !h->norm) return 0;
    h->vb -= 16; /* the padding is never written */
    if (c->ops->download(c->state, h->val, v->val, h->vb)) return 0;
    return !h->nb || !c->ops->download(c->state, h->norm, v->norm, h->nb);
}

static void sv_host_free(sv_host *h)
{
    free(h->val);
    free(h->norm);
}

/* Element i decoded on the host with the shared loaders. */
static double sv_at(const sv_host *h, int64_t i)
{
    switch (h->prec) {
    case MIX_FP64: return mixk_svec_ld_fp64(h->val, h->norm, i);
    case MIX_FP32: return mixk_svec_ld_fp32(h->val, h->norm, i);
    case MIX_FP16: return mixk_svec_ld_fp16(h->val, h->norm, i);
    case MIX_BF16: return mixk_svec_ld_bf16(h->val, h->norm, i);
    default: return mixk_svec_ld_fixed16(h->val, h->norm, i);
    }
}

static int sv_same_bits(const sv_host *a, const sv_host *b)
{
    return a->vb == b->vb && a->nb == b->nb && !memcmp(a->val, b->val, a->vb) &&
           (!a->nb || !memcmp(a->norm, b->norm, a->nb));
}

/* |a - b| <= 2 n 2^-53 sum|terms| (+ the tiniest absolute slack for sums that cancel to 0). */
static int red_close(double a, double b, int n, double sum_abs)
{
    return fabs(a - b) <= 2.0 * n * 0x1p-53 * sum_abs + 1e-300;
}

/* Test vector: magnitudes over 2^-6 .. 2^6, block 2 (entries 64..95) zero, and a sign mix. */
static void sk_vector(int n, uint64_t seed, double *x)
{
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (int i = 0; i < n; i++) {
        double mag = ldexp(1.0, (int)(mixm_rng_next(&g) % 13) - 6);
        x[i] = (i >= 64 && i < 96) ? 0.0 : (2.0 * mixm_rng_uniform(&g) - 1.0) * mag;
    }
}

/* The same sloppy vector on both backends, made by vec_from64 from the same FP64 data (which
 * test_from64 checks to agree bit for bit). */
typedef struct {
    mixi_svec d, r;
} sv_pair;

static int pair_make(sk_fix *f, mix_prec p, uint64_t seed, double alpha, sv_pair *v)
{
    double *h = malloc(SK_N * sizeof *h);
    int ok = h != NULL;
    if (ok) sk_vector(SK_N, seed, h);
    ok = ok && !sv_alloc(f->dev, p, SK_N, &v->d) && !sv_alloc(f->ref, p, SK_N, &v->r);
    double *dh = ok ? sk_put(f->dev, h, SK_N) : NULL;
    ok = ok && dh && !f->d->vec_from64(f->dev->state, dh, NULL, alpha, &v->d, NULL) &&
         !f->r->vec_from64(f->ref->state, h, NULL, alpha, &v->r, NULL);
    if (dh) f->dev->ops->free(f->dev->state, dh);
    free(h);
    return ok;
}

static void pair_free(sk_fix *f, sv_pair *v)
{
    sv_free(f->dev, &v->d);
    sv_free(f->ref, &v->r);
}

/* Both sides' bytes equal. */
static int pair_same(sk_fix *f, const sv_pair *v)
{
    sv_host a, b;
    int ok = sv_get(f->dev, &v->d, &a) && sv_get(f->ref, &v->r, &b) && sv_same_bits(&a, &b);
    sv_host_free(&a);
    sv_host_free(&b);
    return ok;
}

/* ---- conversions FP64 <-> sloppy -------------------------------------------------------------- */

static void test_from64(void)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, 4));
    double *h = malloc(SK_N * sizeof *h), *sc = malloc(SK_N * sizeof *sc);
    CU_ASSERT_FATAL(h && sc);
    sk_vector(SK_N, 7, h);
    for (int i = 0; i < SK_N; i++) sc[i] = 0.5 + (i % 5) * 0.375;
    double *dh = sk_put(f.dev, h, SK_N), *dsc = sk_put(f.dev, sc, SK_N);
    CU_ASSERT_FATAL(dh && dsc);
    for (int k = 0; k < SK_NPREC; k++) {
        for (int with_scale = 0; with_scale < 2; with_scale++) {
            sv_pair v;
            CU_ASSERT_FATAL(!sv_alloc(f.dev, sk_precs[k], SK_N, &v.d) &&
                            !sv_alloc(f.ref, sk_precs[k], SK_N, &v.r));
            double vd = -1.0, vr = -2.0, alpha = -0.7;
            CU_ASSERT(!f.d->vec_from64(f.dev->state, dh, with_scale ? dsc : NULL, alpha, &v.d, &vd));
            CU_ASSERT(!f.r->vec_from64(f.ref->state, h, with_scale ? sc : NULL, alpha, &v.r, &vr));
            CU_ASSERT(pair_same(&f, &v));
            CU_ASSERT(red_close(vd, vr, SK_N, vr)); /* every term is a square */
            pair_free(&f, &v);
        }
    }
    f.dev->ops->free(f.dev->state, dh);
    f.dev->ops->free(f.dev->state, dsc);
    free(h);
    free(sc);
    sk_close(&f);
}

static void test_accum64_zero(void)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, 4));
    double *y = malloc(SK_N * sizeof *y), *yd = malloc(SK_N * sizeof *yd);
    double *sc = malloc(SK_N * sizeof *sc);
    CU_ASSERT_FATAL(y && yd && sc);
    for (int i = 0; i < SK_N; i++) sc[i] = 1.0 / (1.0 + i % 3);
    double *dsc = sk_put(f.dev, sc, SK_N);
    CU_ASSERT_FATAL(dsc != NULL);
    for (int k = 0; k < SK_NPREC; k++) {
        sv_pair v;
        CU_ASSERT_FATAL(pair_make(&f, sk_precs[k], 11, 1.3, &v));
        sk_vector(SK_N, 12, y);
        double *dy = sk_put(f.dev, y, SK_N);
        CU_ASSERT_FATAL(dy != NULL);
        CU_ASSERT(!f.d->vec_accum64(f.dev->state, &v.d, dsc, 0.3, dy));
        CU_ASSERT(!f.r->vec_accum64(f.ref->state, &v.r, sc, 0.3, y));
        CU_ASSERT(!sk_get(f.dev, yd, dy, SK_N));
        CU_ASSERT(!memcmp(y, yd, SK_N * sizeof *y));
        /* vec_zero: every value and norm zero, as the CPU leaves them. */
        CU_ASSERT(!f.d->vec_zero(f.dev->state, &v.d));
        CU_ASSERT(!f.r->vec_zero(f.ref->state, &v.r));
        CU_ASSERT(pair_same(&f, &v));
        f.dev->ops->free(f.dev->state, dy);
        pair_free(&f, &v);
    }
    f.dev->ops->free(f.dev->state, dsc);
    free(y);
    free(yd);
    free(sc);
    sk_close(&f);
}

/* ---- fused blas1 ------------------------------------------------------------------------------ */

static void test_cg_update(void)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, 4));
    for (int k = 0; k < SK_NPREC; k++) {
        const mix_prec p = sk_precs[k];
        sv_pair P, AP, X, R;
        CU_ASSERT_FATAL(pair_make(&f, p, 21, 1.0, &P) && pair_make(&f, p, 22, 2.0, &AP) &&
                        pair_make(&f, p, 23, 0.5, &X) && pair_make(&f, p, 24, 1.0, &R));
        sv_host rold;
        CU_ASSERT_FATAL(sv_get(f.ref, &R.r, &rold));
        double rr_d, rd_d, rr_r, rd_r, alpha = 0.37;
        CU_ASSERT(!f.d->cg_update(f.dev->state, alpha, &P.d, &AP.d, &X.d, &R.d, &rr_d, &rd_d));
        CU_ASSERT(!f.r->cg_update(f.ref->state, alpha, &P.r, &AP.r, &X.r, &R.r, &rr_r, &rd_r));
        CU_ASSERT(pair_same(&f, &X));
        CU_ASSERT(pair_same(&f, &R));
        sv_host rnew;
        CU_ASSERT_FATAL(sv_get(f.ref, &R.r, &rnew));
        double sabs = 0.0;
        for (int i = 0; i < SK_N; i++) sabs += fabs(sv_at(&rnew, i) * sv_at(&rold, i));
        CU_ASSERT(red_close(rr_d, rr_r, SK_N, rr_r));
        CU_ASSERT(red_close(rd_d, rd_r, SK_N, sabs));
        /* The reduction is reproducible: the same inputs give the same bits. */
        double rr2, rd2;
        sv_host_free(&rold);
        sv_host_free(&rnew);
        sv_pair R2, X2;
        CU_ASSERT_FATAL(pair_make(&f, p, 24, 1.0, &R2) && pair_make(&f, p, 23, 0.5, &X2));
        CU_ASSERT(!f.d->cg_update(f.dev->state, alpha, &P.d, &AP.d, &X2.d, &R2.d, &rr2, &rd2));
        CU_ASSERT(memcmp(&rr2, &rr_d, sizeof rr2) == 0 && memcmp(&rd2, &rd_d, sizeof rd2) == 0);
        pair_free(&f, &R2);
        pair_free(&f, &X2);
        /* 16-bit p, Ap, r with an FP32 partial solution x (the solver's x_sloppy): the same
         * bits on both backends for x and r. */
        if (p == MIX_FP16 || p == MIX_BF16 || p == MIX_FIXED16) {
            sv_pair X32;
            CU_ASSERT_FATAL(pair_make(&f, p, 24, 1.0, &R2) && pair_make(&f, MIX_FP32, 23, 0.5, &X32));
            CU_ASSERT(!f.d->cg_update(f.dev->state, alpha, &P.d, &AP.d, &X32.d, &R2.d, &rr_d, &rd_d));
            CU_ASSERT(!f.r->cg_update(f.ref->state, alpha, &P.r, &AP.r, &X32.r, &R2.r, &rr_r, &rd_r));
            CU_ASSERT(pair_same(&f, &X32));
            CU_ASSERT(pair_same(&f, &R2));
            CU_ASSERT(red_close(rr_d, rr_r, SK_N, rr_r));
            pair_free(&f, &R2);
            pair_free(&f, &X32);
        }
        pair_free(&f, &P);
        pair_free(&f, &AP);
        pair_free(&f, &X);
        pair_free(&f, &R);
    }
    sk_close(&f);
}

static void test_axpby_dot(void)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, 4));
    const double ab[][2] = {{1.0, 0.75}, {0.0, -1.5}, {-2.0, 0.0}, {1.0 - 1e-3, 3.1}};
    for (int k = 0; k < SK_NPREC; k++) {
        const mix_prec p = sk_precs[k];
        for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
            sv_pair X, Y;
            CU_ASSERT_FATAL(pair_make(&f, p, 31, 1.0, &X) && pair_make(&f, p, 32, 1.0, &Y));
            CU_ASSERT(!f.d->axpby(f.dev->state, ab[c][0], &X.d, ab[c][1], &Y.d));
            CU_ASSERT(!f.r->axpby(f.ref->state, ab[c][0], &X.r, ab[c][1], &Y.r));
            CU_ASSERT(pair_same(&f, &Y));
            double dd, dr;
            CU_ASSERT(!f.d->dot(f.dev->state, &X.d, &Y.d, &dd));
            CU_ASSERT(!f.r->dot(f.ref->state, &X.r, &Y.r, &dr));
            sv_host hx, hy;
            CU_ASSERT_FATAL(sv_get(f.ref, &X.r, &hx) && sv_get(f.ref, &Y.r, &hy));
            double sabs = 0.0;
            for (int i = 0; i < SK_N; i++) sabs += fabs(sv_at(&hx, i) * sv_at(&hy, i));
            CU_ASSERT(red_close(dd, dr, SK_N, sabs));
            sv_host_free(&hx);
            sv_host_free(&hy);
            pair_free(&f, &X);
            pair_free(&f, &Y);
        }
    }
    sk_close(&f);
}

/* ---- SpMV ------------------------------------------------------------------------------------ */

static double unit_roundoff(mix_prec p)
{
    return p == MIX_FP64 ? 0x1p-53 : 0x1p-24;
}

/* Output rounding allowance of element i of y (both sides' stored values). */
static double out_term(const sv_host *a, const sv_host *b, int64_t i)
{
    double y = fmax(fabs(sv_at(a, i)), fabs(sv_at(b, i)));
    switch (a->prec) {
    case MIX_FP16: return ldexp(y, -10) + 0x1p-24; /* one unit, subnormals included */
    case MIX_BF16: return ldexp(y, -7) + 0x1p-133;
    case MIX_FIXED16: {
        /* half a step each side, and the float rounding of encode and decode */
        int64_t blk = i / MIXK_SVEC_BLOCK;
        return 1.01 * fmax(a->norm[blk], b->norm[blk]) / 32767.0;
    }
    default: return 0.0;
    }
}

/* |a_ij| as stored in `p` (the conversion's rounding, done with the shared format code), so
 * that R bounds the sums the kernels really add; FIXED16: the diagonal (diag) is a float, the
 * other entries are on the step of rmax = max_{j!=i} |a_ij| of the row and the matrix's
 * mantissa c (fixed16_mant). */
static float fixed16_mant(const mixm_csr *A, const double *sc)
{
    double g = 0.0;
    for (int i = 0; i < A->nrows; i++)
        g = fmax(g, mixk_fixed16_row_offmax(A->rowptr, A->colind, A->val, sc, i));
    return mixk_fixed16_mant(g);
}
static double stored_abs(mix_prec p, double v, double rmax, float c, int diag)
{
    switch (p) {
    case MIX_FP32: return fabs((double)(float)v);
    case MIX_FP16: return fabs((double)mixk_f16_to_f32(mixk_f64_to_f16(v)));
    case MIX_BF16: return fabs((double)mixk_bf16_to_f32(mixk_f64_to_bf16(v)));
    case MIX_FIXED16: {
        if (diag) return fabs((double)(float)v);
        const double h = mixk_fixed16_row_step(mixk_fixed16_row_exp(rmax, c), c);
        return h > 0.0 ? fabs((double)mixk_fixed16_encode_f64(v / h, 1.0) * h) : 0.0;
    }
    default: return fabs(v);
    }
}

/* Device SpMV of every precision, with `lanes` threads per row (CUDA), against the CPU: bits
 * when exact, else the row bound of the header comment. */
static void spmv_case(int mean, int lanes, int exact)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, mean));
    for (int k = 0; k < SK_NPREC; k++) {
        const mix_prec p = sk_precs[k];
        for (int with_scale = 0; with_scale < 2; with_scale++) {
            /* Jacobi-like symmetric scaling diag(s) A diag(s). */
            double *sc = malloc(SK_N * sizeof *sc);
            CU_ASSERT_FATAL(sc != NULL);
            for (int i = 0; i < SK_N; i++) sc[i] = 1.0 / (1.0 + (i % 7) * 0.25);
            double *dsc = sk_put(f.dev, sc, SK_N);
            mixi_spmat *dS = NULL, *rS = NULL;
            CU_ASSERT_FATAL(dsc != NULL);
            CU_ASSERT_FATAL(!f.d->csr_convert(f.dev->state, f.dA, p, with_scale ? dsc : NULL, &dS));
            CU_ASSERT_FATAL(!f.r->csr_convert(f.ref->state, f.rA, p, with_scale ? sc : NULL, &rS));
#ifdef MIX_HAVE_CUDA
            if (mixt_backend == MIX_BACKEND_CUDA) CU_ASSERT(!mixi_cuda_spmat_set_lanes(dS, lanes));
#else
            (void)lanes;
#endif
            sv_pair X, Y;
            CU_ASSERT_FATAL(pair_make(&f, p, 41, 1.0, &X) && pair_make(&f, p, 42, 1.0, &Y));
            double xyd, xyr;
            CU_ASSERT(!f.d->spmv(f.dev->state, dS, &X.d, &Y.d, &xyd));
            CU_ASSERT(!f.r->spmv(f.ref->state, rS, &X.r, &Y.r, &xyr));
            sv_host hx, yd, yr;
            CU_ASSERT_FATAL(sv_get(f.ref, &X.r, &hx) && sv_get(f.dev, &Y.d, &yd) &&
                            sv_get(f.ref, &Y.r, &yr));
            if (exact) CU_ASSERT(sv_same_bits(&yd, &yr));
            int bad = 0;
            double sabs = 0.0, rows = 0.0;
            const float cm = fixed16_mant(&f.A, with_scale ? sc : NULL);
            for (int i = 0; i < SK_N; i++) {
                double R = 0.0, rmax = 0.0, si = with_scale ? sc[i] : 1.0;
                const int64_t q0 = f.A.rowptr[i], q1 = f.A.rowptr[i + 1];
                for (int64_t q = q0; q < q1; q++)
                    if (f.A.colind[q] != i)
                        rmax = fmax(rmax, fabs(si * f.A.val[q] * (with_scale ? sc[f.A.colind[q]] : 1.0)));
                for (int64_t q = q0; q < q1; q++) {
                    int j = f.A.colind[q];
                    double a = si * f.A.val[q] * (with_scale ? sc[j] : 1.0);
                    R += stored_abs(p, a, rmax, cm, j == i) * fabs(sv_at(&hx, j));
                }
                const double arith = 4.0 * ((double)(q1 - q0) + 4.0) * unit_roundoff(p) * R;
                if (!(fabs(sv_at(&yd, i) - sv_at(&yr, i)) <= arith + out_term(&yd, &yr, i))) bad++;
                /* xy adds x_i (A x)_i with the unrounded row sums, |(A x)_i| <= R (1 + ...). */
                sabs += fabs(sv_at(&hx, i)) * (R + arith);
                rows += fabs(sv_at(&hx, i)) * arith;
            }
            CU_ASSERT_EQUAL(bad, 0);
            if (exact) rows = 0.0; /* the rows agree bit for bit */
            CU_ASSERT(fabs(xyd - xyr) <= 2.0 * SK_N * 0x1p-53 * sabs + rows + 1e-300);
            sv_host_free(&hx);
            sv_host_free(&yd);
            sv_host_free(&yr);
            pair_free(&f, &X);
            pair_free(&f, &Y);
            f.d->csr_destroy(f.dev->state, dS);
            f.r->csr_destroy(f.ref->state, rS);
            f.dev->ops->free(f.dev->state, dsc);
            free(sc);
        }
    }
    sk_close(&f);
}

/* a_ij as stored in `p`, signed (stored_abs's rounding). */
static double stored_val(mix_prec p, double v, double rmax, float c, int diag)
{
    return copysign(stored_abs(p, v, rmax, c, diag), v);
}

/* FP32 vectors over a 16-bit matrix (mix_cg_params.narrow_vectors = 0): each row's sum is
 * accumulated in FP64 and rounded once, so y_i is within half an FP32 unit of the exact sum of
 * the stored values times x, however much the row cancels (an FP32 running sum misses that by
 * m 2^-24 sum |a_ik x_k|); and the 16-bit y of the same x (decoded) is y_i rounded to storage,
 * bit for bit.  A backend without the capability answers MIX_ERR_UNSUPPORTED. */
static void spmv_acc_vectors(int portable)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, 6));
    mixi_cpu_sparse_force_portable(portable); /* the CPU's AVX2 kernels too */
    const mix_prec narrow[] = {MIX_FP16, MIX_BF16, MIX_FIXED16};
    for (int k = 0; k < 3; k++) {
        const mix_prec p = narrow[k];
        mixi_spmat *dS = NULL;
        CU_ASSERT_FATAL(!f.d->csr_convert(f.dev->state, f.dA, p, NULL, &dS));
        sv_pair X16, Y16;
        mixi_svec x32, y32;
        CU_ASSERT_FATAL(pair_make(&f, p, 43, 1.0, &X16) && pair_make(&f, p, 44, 1.0, &Y16));
        CU_ASSERT_FATAL(!sv_alloc(f.dev, MIX_FP32, SK_N, &x32) && !sv_alloc(f.dev, MIX_FP32, SK_N, &y32));
        sv_host hx16;
        CU_ASSERT_FATAL(sv_get(f.dev, &X16.d, &hx16));
        double *xd = malloc(SK_N * sizeof *xd);
        CU_ASSERT_FATAL(xd != NULL);
        for (int i = 0; i < SK_N; i++) xd[i] = sv_at(&hx16, i); /* floats: exact in FP32 */
        double *dxd = sk_put(f.dev, xd, SK_N);
        CU_ASSERT_FATAL(dxd && !f.d->vec_from64(f.dev->state, dxd, NULL, 1.0, &x32, NULL));
        double xy32, xy16;
        const int st = f.d->spmv(f.dev->state, dS, &x32, &y32, &xy32);
        if (!f.d->spmv_acc_vectors) {
            CU_ASSERT_EQUAL(st, MIX_ERR_UNSUPPORTED);
        } else {
            CU_ASSERT_FATAL(st == MIX_SUCCESS);
            CU_ASSERT(!f.d->spmv(f.dev->state, dS, &X16.d, &Y16.d, &xy16));
            sv_host hy32, hy16;
            CU_ASSERT_FATAL(sv_get(f.dev, &y32, &hy32) && sv_get(f.dev, &Y16.d, &hy16));
            int off = 0, unrounded = 0;
            const float cm = fixed16_mant(&f.A, NULL);
            float *yf = (float *)(void *)hy32.val;
            for (int i = 0; i < SK_N; i++) {
                double e = 0.0, R = 0.0, rmax = 0.0;
                const int64_t q0 = f.A.rowptr[i], q1 = f.A.rowptr[i + 1];
                for (int64_t q = q0; q < q1; q++)
                    if (f.A.colind[q] != i) rmax = fmax(rmax, fabs(f.A.val[q]));
                for (int64_t q = q0; q < q1; q++) {
                    const int j = f.A.colind[q];
                    const double t = stored_val(p, f.A.val[q], rmax, cm, j == i) * xd[j];
                    e += t;
                    R += fabs(t);
                }
                if (!(fabs((double)yf[i] - e) <= 0x1p-24 * fabs(e) + 4.0 * (double)(q1 - q0) * 0x1p-53 * R))
                    off++;
            }
            /* The 16-bit y: y32 rounded into the storage (FIXED16: block by block). */
            for (int64_t b = 0; b * MIXK_SVEC_BLOCK < SK_N; b++) {
                const int cnt = (int)(SK_N - b * MIXK_SVEC_BLOCK < MIXK_SVEC_BLOCK ? SK_N - b * MIXK_SVEC_BLOCK : MIXK_SVEC_BLOCK);
                uint16_t want[MIXK_SVEC_BLOCK];
                float wnorm = 0.0f;
                if (p == MIX_FIXED16) mixk_svec_st_block_fixed16(want - b * MIXK_SVEC_BLOCK, &wnorm - b, b, yf + b * MIXK_SVEC_BLOCK, cnt);
                for (int t = 0; t < cnt; t++) {
                    const int64_t i = b * MIXK_SVEC_BLOCK + t;
                    const uint16_t got = ((const uint16_t *)(const void *)hy16.val)[i];
                    const uint16_t w = p == MIX_FP16 ? mixk_f32_to_f16(yf[i])
                                       : p == MIX_BF16 ? mixk_f32_to_bf16(yf[i]) : want[t];
                    if (got != w) unrounded++;
                }
                if (p == MIX_FIXED16 && hy16.norm[b] != wnorm) unrounded++;
            }
            CU_ASSERT_EQUAL(off, 0);
            CU_ASSERT_EQUAL(unrounded, 0);
            CU_ASSERT(fabs(xy32 - xy16) <= 1e-12 * fabs(xy32) + 1e-300); /* same unrounded sums */
            sv_host_free(&hy32);
            sv_host_free(&hy16);
        }
        sv_host_free(&hx16);
        f.dev->ops->free(f.dev->state, dxd);
        free(xd);
        sv_free(f.dev, &x32);
        sv_free(f.dev, &y32);
        pair_free(&f, &X16);
        pair_free(&f, &Y16);
        f.d->csr_destroy(f.dev->state, dS);
    }
    sk_close(&f);
}

static void test_spmv_acc_vectors(void)
{
    spmv_acc_vectors(1);
    spmv_acc_vectors(0);
}

/* A fresh copy *As of A64 in p with MIXSOLVE_SPMV_VARIANT = var (unset: NULL), the portable
 * bodies forced or not, and *yv for its results, like x. */
static int variant_copy(mix_context *c, const mixi_spmat *A64, mix_prec p, const char *var,
                        int portable, const mixi_svec *x, mixi_spmat **As, mixi_svec *yv)
{
    *As = NULL;
    memset(yv, 0, sizeof *yv);
    if (var) setenv("MIXSOLVE_SPMV_VARIANT", var, 1);
    mixi_cpu_sparse_force_portable(portable);
    const int ok = !c->ops->sparse->csr_convert(c->state, A64, p, NULL, As) &&
                   !sv_alloc(c, x->prec, x->n, yv);
    unsetenv("MIXSOLVE_SPMV_VARIANT");
    mixi_cpu_sparse_force_portable(0);
    return ok;
}

static void variant_drop(mix_context *c, mixi_spmat *As, mixi_svec *yv)
{
    if (As) c->ops->sparse->csr_destroy(c->state, As);
    sv_free(c, yv);
}

/* One SpMV of a fresh copy of A64 in p (variant forced by name, or the portable body: NULL)
 * over x; its y and <x, A x> into *y and *xy. */
static int cpu_variant_spmv(mix_context *c, const mixi_spmat *A64, mix_prec p, const char *var,
                            const mixi_svec *x, sv_host *y, double *xy)
{
    mixi_spmat *As;
    mixi_svec yv;
    int ok = variant_copy(c, A64, p, var, !var, x, &As, &yv);
    ok = ok && !c->ops->sparse->spmv(c->state, As, x, &yv, xy) && sv_get(c, &yv, y);
    variant_drop(c, As, &yv);
    return ok;
}

/* A64 (FP64, backend memory) of A and a host x of seed's values; closed by cpu_problem_close. */
static void cpu_problem_open(mix_context *c, const mixm_csr *A, uint64_t seed, mixi_spmat **A64,
                             double **xd)
{
    *A64 = NULL;
    CU_ASSERT_FATAL(!c->ops->sparse->csr_create(c->state, A->nrows, A->rowptr, A->colind, A->val, A64));
    *xd = malloc((size_t)A->nrows * sizeof **xd);
    CU_ASSERT_FATAL(*xd != NULL);
    sk_vector(A->nrows, seed, *xd);
}

static void cpu_problem_close(mix_context *c, mixm_csr *A, mixi_spmat *A64, double *xd)
{
    free(xd);
    c->ops->sparse->csr_destroy(c->state, A64);
    mixm_csr_free(A);
}

/* A variant's name parses to its body and prefetch distance, and names it back. */
static void variant_name_round_trip(const char *name, int body, int pfd)
{
    const int code = mixi_spmv_variant_parse(name);
    CU_ASSERT_EQUAL(mixi_spmv_body(code), body);
    CU_ASSERT_EQUAL(mixi_spmv_pfd(code), pfd);
    CU_ASSERT_STRING_EQUAL(mixi_spmv_variant_name(code), name);
}

/* Every CPU SpMV body with software prefetch (kernels/cpu/spmv_tune.h; the bodies without it:
 * tests/test_spmv_tune.c) gives the portable body's bits: every SELL format, its own and FP32
 * vectors, on 3D Poisson 24^3 (contiguous slots) and the irregular test matrix. */
static void test_spmv_cpu_prefetch_variants(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    mix_context *c = mixt_context();
    for (int m = 0; m < 2; m++) {
        mixm_csr A;
        CU_ASSERT_FATAL(m ? !sk_matrix(SK_N, 6, 7, &A) : !mixm_gen_poisson3d(24, &A));
        mixi_spmat *A64;
        double *xd;
        cpu_problem_open(c, &A, 99, &A64, &xd);
        for (int k = 1; k < SK_NPREC; k++)
            for (int wide = 0; wide < 2; wide++) {
                const mix_prec p = sk_precs[k], vp = wide ? MIX_FP32 : p;
                if (wide && p == MIX_FP32) continue;
                mixi_svec x;
                sv_host ref, got;
                double xr = 0.0, xg = 0.0;
                CU_ASSERT_FATAL(!sv_alloc(c, vp, A.nrows, &x));
                CU_ASSERT_FATAL(!c->ops->sparse->vec_from64(c->state, xd, NULL, 1.0, &x, NULL));
                CU_ASSERT_FATAL(cpu_variant_spmv(c, A64, p, NULL, &x, &ref, &xr));
                for (int vd = 0; vd < 2 * MIXI_SPMV_NVAR; vd++) {
                    const int v = vd % MIXI_SPMV_NVAR, d = vd < MIXI_SPMV_NVAR ? MIXI_SPMV_PF_DIST : MIXI_SPMV_PF_FAR;
                    if (!mixi_spmv_has_pf(v) || v == MIXI_SPMV_CSR) continue; /* FP64's: below */
                    const char *name = mixi_spmv_variant_name(v | d << MIXI_SPMV_PF_SHIFT);
                    CU_ASSERT_FATAL(cpu_variant_spmv(c, A64, p, name, &x, &got, &xg));
                    if (!sv_same_bits(&ref, &got) || memcmp(&xr, &xg, sizeof xr) != 0)
                        CU_FAIL("a prefetching SpMV variant is not the portable body's bits");
                    sv_host_free(&got);
                }
                sv_host_free(&ref);
                sv_free(c, &x);
            }
        cpu_problem_close(c, &A, A64, xd);
    }
    mix_context_destroy(c);
    /* The names round-trip, and a prefetching variant names its body. */
    variant_name_round_trip("avx512-gather-pf", MIXI_SPMV_AVX512_GATHER, MIXI_SPMV_PF_DIST);
    variant_name_round_trip("avx2-contig-pf-far", MIXI_SPMV_AVX2_CONTIG, MIXI_SPMV_PF_FAR);
    CU_ASSERT_STRING_EQUAL(mixi_spmv_variant_name(MIXI_SPMV_AVX2_CONTIG | 7 << MIXI_SPMV_PF_SHIFT), "?");
}

/* The SpMV of a copy of A64 in p scaled by `scale` (variant forced by name: NULL the portable
 * body) over x, with its unit_diag flag as converted and then cleared: *unit the flag, *same
 * whether both products gave the same bits, *bytes the matrix bytes it counts. */
static int unit_diag_spmv(mix_context *c, const mixi_spmat *A64, mix_prec p, const double *scale,
                          const char *var, const mixi_svec *x, int *unit, int *same, int64_t *bytes)
{
    if (var) setenv("MIXSOLVE_SPMV_VARIANT", var, 1);
    mixi_cpu_sparse_force_portable(!var);
    mixi_spmat *As = NULL;
    mixi_svec yv = {0};
    sv_host y[2] = {{0}, {0}};
    double xy[2] = {0.0, 0.0};
    int ok = !c->ops->sparse->csr_convert(c->state, A64, p, scale, &As) && !sv_alloc(c, x->prec, x->n, &yv);
    unsetenv("MIXSOLVE_SPMV_VARIANT");
    *unit = ok && As->sell.unit_diag;
    *bytes = ok ? As->bytes : 0;
    for (int r = 0; ok && r < 2; r++) {
        As->sell.unit_diag = r ? 0 : *unit; /* cleared: the diagonal's ones are read */
        ok = !c->ops->sparse->spmv(c->state, As, x, &yv, &xy[r]) && sv_get(c, &yv, &y[r]);
    }
    mixi_cpu_sparse_force_portable(0);
    *same = ok && sv_same_bits(&y[0], &y[1]) && memcmp(&xy[0], &xy[1], sizeof xy[0]) == 0;
    sv_host_free(&y[0]);
    sv_host_free(&y[1]);
    variant_drop(c, As, &yv);
    return ok;
}

static int sk_banded(int n, int hw, uint64_t seed, mixm_csr *A);

/* A Jacobi-scaled copy (D^-1/2 A D^-1/2) holds a diagonal of ones in every format: unit_diag is
 * set, its bytes leave the SpMV's, and every body (portable, each vector body this CPU runs)
 * gives the bits it gives reading the ones; an unscaled copy, or a scale off on one row, keeps
 * the flag clear (3-D Poisson 24^3 and a band of diagonal 4 .. 12). */
static void test_spmv_unit_diagonal(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    mix_context *c = mixt_context();
    const char *vars[] = {NULL, "avx2-contig", "avx2-gather", "avx2-loads", "avx512-contig", "avx512-gather"};
    for (int m = 0; m < 2; m++) {
        mixm_csr A;
        CU_ASSERT_FATAL(m ? !sk_banded(SK_N, 5, 31, &A) : !mixm_gen_poisson3d(24, &A));
        mixi_spmat *A64;
        double *xd, *scale = malloc((size_t)A.nrows * sizeof *scale);
        cpu_problem_open(c, &A, 17, &A64, &xd);
        CU_ASSERT_FATAL(scale && !c->ops->sparse->diag_rsqrt(c->state, A64, scale));
        for (int k = 1; k < SK_NPREC; k++) {
            const mix_prec p = sk_precs[k];
            const int64_t del = p == MIX_FIXED16 ? 4 : mixk_prec_bytes(p);
            mixi_svec x;
            CU_ASSERT_FATAL(!sv_alloc(c, MIX_FP32, A.nrows, &x));
            CU_ASSERT_FATAL(!c->ops->sparse->vec_from64(c->state, xd, NULL, 1.0, &x, NULL));
            int unit, same;
            int64_t b_unit, b_plain;
            CU_ASSERT_FATAL(unit_diag_spmv(c, A64, p, NULL, NULL, &x, &unit, &same, &b_plain));
            CU_ASSERT_FALSE(unit);
            for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
                CU_ASSERT_FATAL(unit_diag_spmv(c, A64, p, scale, vars[v], &x, &unit, &same, &b_unit));
                CU_ASSERT_TRUE(unit);
                CU_ASSERT_TRUE(same);
                CU_ASSERT_EQUAL(b_unit, b_plain - (int64_t)A.nrows * del);
            }
            const double s5 = scale[5];
            scale[5] *= 1.5; /* row 5's diagonal 2.25 */
            CU_ASSERT_FATAL(unit_diag_spmv(c, A64, p, scale, NULL, &x, &unit, &same, &b_unit));
            CU_ASSERT_FALSE(unit);
            scale[5] = s5;
            sv_free(c, &x);
        }
        free(scale);
        cpu_problem_close(c, &A, A64, xd);
    }
    mix_context_destroy(c);
}

/* A banded test matrix: row i holds columns i - hw .. i + hw (clipped), values of mixed signs
 * and magnitudes 2^-4 .. 2^4, diagonal 4 .. 12. */
static int sk_banded(int n, int hw, uint64_t seed, mixm_csr *A)
{
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    int st = mixm_csr_alloc(A, n, n, (int64_t)n * (2 * hw + 1));
    if (st) return st;
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = k;
        for (int j = i - hw; j <= i + hw; j++) {
            if (j < 0 || j >= n) continue;
            const double mag = ldexp(1.0, (int)(mixm_rng_next(&g) % 9) - 4);
            A->colind[k] = j;
            A->val[k++] = j == i ? 4.0 + 8.0 * mixm_rng_uniform(&g) : (2.0 * mixm_rng_uniform(&g) - 1.0) * mag;
        }
    }
    A->rowptr[n] = k;
    return MIX_SUCCESS;
}

/* FP64 CSR SpMVs of one copy of A64 (MIXSOLVE_SPMV_VARIANT = var, or the tuner: NULL), `calls`
 * of them, each against ref's bits and <x, A x>. */
static int csr_runs_same(mix_context *c, const mixi_spmat *A64, const char *var, const mixi_svec *x,
                         int calls, const sv_host *ref, double xr)
{
    const mixi_sparse_ops *o = c->ops->sparse;
    mixi_spmat *As;
    mixi_svec yv;
    int ok = variant_copy(c, A64, MIX_FP64, var, 0, x, &As, &yv);
    for (int r = 0; ok && r < calls; r++) {
        sv_host got;
        double xg = 0.0;
        ok = !o->spmv(c->state, As, x, &yv, &xg) && sv_get(c, &yv, &got) && sv_same_bits(ref, &got) &&
             memcmp(&xr, &xg, sizeof xr) == 0;
        sv_host_free(&got);
    }
    /* a forced variant runs as named; the tuner has chosen one of CSR's */
    const char *name = o->spmv_variant(c->state, As);
    ok = ok && (var ? strcmp(name, var) == 0 : strncmp(name, "csr", 3) == 0);
    variant_drop(c, As, &yv);
    return ok;
}

/* Every FP64 CSR variant forced, and the tuner through its whole timing (bodies, then the
 * prefetch stage), give the portable row body's bits: 3D Poisson 24^3 and 56^3 (its values and
 * column indices above MIXI_HUGE_MIN: the huge-page allocation path), a band, and the irregular
 * test matrix (an empty row, a row of 300). */
static void test_spmv_cpu_csr_variants(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    mix_context *c = mixt_context();
    for (int m = 0; m < 4; m++) {
        mixm_csr A;
        CU_ASSERT_FATAL(m == 0   ? !mixm_gen_poisson3d(24, &A)
                        : m == 1 ? !mixm_gen_poisson3d(56, &A)
                        : m == 2 ? !sk_banded(5003, 5, 11, &A)
                                 : !sk_matrix(SK_N, 6, 7, &A));
        if (m == 1) CU_ASSERT((size_t)A.rowptr[A.nrows] * sizeof(int32_t) >= MIXI_HUGE_MIN);
        mixi_spmat *A64;
        double *xd;
        cpu_problem_open(c, &A, 99 + (uint64_t)m, &A64, &xd);
        mixi_svec x;
        sv_host ref;
        double xr = 0.0;
        CU_ASSERT_FATAL(!sv_alloc(c, MIX_FP64, A.nrows, &x));
        CU_ASSERT_FATAL(!c->ops->sparse->vec_from64(c->state, xd, NULL, 1.0, &x, NULL));
        CU_ASSERT_FATAL(cpu_variant_spmv(c, A64, MIX_FP64, NULL, &x, &ref, &xr));
        /* the reference is kernels/common's row itself */
        for (int i = 0; i < A.nrows; i++) {
            const double yi = mixk_spmv_row_fp64(A.rowptr, A.colind, A.val, xd, NULL, i);
            if (memcmp(&yi, ref.val + (size_t)i * sizeof yi, sizeof yi) != 0) {
                CU_FAIL("the portable FP64 SpMV is not kernels/common's row");
                break;
            }
        }
        CU_ASSERT(csr_runs_same(c, A64, "csr", &x, 2, &ref, xr));
        CU_ASSERT(csr_runs_same(c, A64, "csr-pf", &x, 2, &ref, xr));
        CU_ASSERT(csr_runs_same(c, A64, "csr-pf-far", &x, 2, &ref, xr));
        CU_ASSERT(csr_runs_same(c, A64, NULL, &x, MIXI_TUNE_WARMUP + (1 + MIXI_SPMV_NPF) * MIXI_TUNE_ROUNDS + 2, &ref, xr));
        sv_host_free(&ref);
        sv_free(c, &x);
        cpu_problem_close(c, &A, A64, xd);
    }
    mix_context_destroy(c);
    variant_name_round_trip("csr-pf", MIXI_SPMV_CSR, MIXI_SPMV_PF_DIST);
    CU_ASSERT_EQUAL(mixi_spmv_pfd(mixi_spmv_variant_parse("csr-pf-far")), MIXI_SPMV_PF_FAR);
}

/* FP64's tuner: CSR timed, then its prefetch stage; MIXSOLVE_TUNE=off pins plain CSR at once. */
static void test_spmv_tuner_csr(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    const char *env = getenv("MIXSOLVE_TUNE");
    char *saved = env ? strdup(env) : NULL;
    for (int with = 0; with < 3; with++) {
        if (with == 2) setenv("MIXSOLVE_TUNE", "off", 1);
        else unsetenv("MIXSOLVE_TUNE");
        mixi_spmv_tuner T;
        mixi_spmv_tuner_init(&T, MIX_FP64, 1, 1);
        if (with == 2) CU_ASSERT_STRING_EQUAL(mixi_spmv_tuner_choice(&T), "csr");
        if (with < 2 && T.chosen >= 0) continue; /* forced by the environment */
        int c = 0;
        for (; mixi_spmv_tuner_timing(&T) && c < 100; c++) {
            const int v = mixi_spmv_tuner_next(&T);
            CU_ASSERT_EQUAL(mixi_spmv_body(v), MIXI_SPMV_CSR);
            CU_ASSERT(with < 2 || mixi_spmv_pfd(v) == 0);
            const double t = mixi_spmv_pfd(v) ? (with ? 0.9 : 1.01) : 1.0;
            mixi_spmv_tuner_done(&T, MIX_FP64, v, 1e-3 * t, 1e6);
        }
        CU_ASSERT_EQUAL(c, with == 2 ? MIXI_TUNE_ROUNDS : MIXI_TUNE_WARMUP + (1 + MIXI_SPMV_NPF) * MIXI_TUNE_ROUNDS);
        CU_ASSERT_STRING_EQUAL(mixi_spmv_tuner_choice(&T), with == 1 ? "csr-pf" : "csr");
    }
    if (saved) setenv("MIXSOLVE_TUNE", saved, 1);
    else unsetenv("MIXSOLVE_TUNE");
    free(saved);
}

/* The line `key` (as "VmFlags:") of the mapping holding p in /proc/self/smaps into out; 0, or
 * -1 where the file cannot tell. */
static int vma_field(const void *p, const char *key, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    int in = 0, found = -1;
    while (found < 0 && fgets(out, (int)len, f)) {
        unsigned long lo, hi;
        if (sscanf(out, "%lx-%lx ", &lo, &hi) == 2 && strchr(out, ' ') > strchr(out, '-'))
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && !strncmp(out, key, strlen(key)))
            found = 0;
    }
    fclose(f);
    return found;
}

/* Whether that mapping carries VmFlags `flag` ("hg": advised for huge pages); -1: unknown. */
static int vma_flag(const void *p, const char *flag)
{
    char line[512], want[8];
    if (vma_field(p, "VmFlags:", line, sizeof line)) return -1;
    snprintf(want, sizeof want, " %s", flag);
    return strstr(line, want) != NULL;
}

/* Its AnonHugePages in kB; -1: unknown. */
static long vma_huge_kb(const void *p)
{
    char line[512];
    return vma_field(p, "AnonHugePages:", line, sizeof line) ? -1 : atol(line + 14);
}

/* A matrix streamed MIXI_HUGE_PAGE_PASSES times moves to huge pages (FP64 CSR of 3-D Poisson
 * 56^3: 9.8 MB of values), where the system can move a block at all (Linux 6.1+ with huge
 * pages: mixi_pages_collapse on a probe block); its products keep their bits. */
static void test_streamed_matrix_to_huge_pages(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    const size_t pb = (size_t)16 << 20;
    unsigned char *probe = mixi_malloc(pb);
    CU_ASSERT_FATAL(probe != NULL);
    memset(probe, 1, pb);
    const int can = mixi_pages_collapse(probe, pb) == 0 && vma_huge_kb(probe) > 0;
    mixi_free(probe);
    mix_context *c = mixt_context();
    mixm_csr A;
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(56, &A));
    mixi_spmat *A64;
    double *xd;
    cpu_problem_open(c, &A, 5, &A64, &xd);
    mixi_svec x, y;
    CU_ASSERT_FATAL(!sv_alloc(c, MIX_FP64, A.nrows, &x) && !sv_alloc(c, MIX_FP64, A.nrows, &y));
    CU_ASSERT_FATAL(!c->ops->sparse->vec_from64(c->state, xd, NULL, 1.0, &x, NULL));
    double xy, first = 0.0;
    for (int k = 0; k <= MIXI_HUGE_PAGE_PASSES; k++) {
        CU_ASSERT_FATAL(!c->ops->sparse->spmv(c->state, A64, &x, &y, &xy));
        if (k == 0) first = xy;
    }
    CU_ASSERT(memcmp(&first, &xy, sizeof xy) == 0);
    CU_ASSERT_EQUAL(A64->passes, MIXI_HUGE_PAGE_PASSES + 1);
    if (can) CU_ASSERT(vma_huge_kb(A64->val) > 0);
    sv_free(c, &x), sv_free(c, &y);
    cpu_problem_close(c, &A, A64, xd);
    mix_context_destroy(c);
}

/* Huge pages: none asked for at allocation (their fresh first touch costs a lazily backed guest
 * 3-4 ms a MB), asked for where mixi_pages_streamed says a written block is streamed; a block
 * too small or not on a huge-page boundary is left alone. */
static void check_streamed_advice(void)
{
#if defined(__linux__)
    /* Above glibc's largest mmap threshold (32 MiB): mappings of their own, never a reused part
     * of the heap that an earlier block's advice may cover. */
    const size_t b = (size_t)64 << 20;
    unsigned char *p = mixi_malloc(b), *q = mixi_malloc(b);
    CU_ASSERT_FATAL(p && q);
    p[0] = p[b - 1] = q[0] = 1;
    const int before = vma_flag(p, "hg");
    if (before >= 0) { /* smaps readable */
        CU_ASSERT_EQUAL(before, 0);
        mixi_pages_streamed(p, b);
        mixi_pages_streamed(q + MIXI_HUGE_ALIGN / 2, b / 2); /* not on a boundary */
        FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        if (thp) { /* a kernel with huge pages takes the advice */
            fclose(thp);
            CU_ASSERT_EQUAL(vma_flag(p, "hg"), 1);
        }
        CU_ASSERT_EQUAL(vma_flag(q, "hg"), 0);
        CU_ASSERT_EQUAL(vma_flag(q + b - 1, "hg"), 0);
    }
    CU_ASSERT(p[0] == 1 && p[b - 1] == 1); /* advice leaves the contents */
    mixi_free(p), mixi_free(q);
#endif
}

/* Host blocks of MIXI_HUGE_MIN bytes or more (matrices, vectors: lib/core/alloc.c) are usable,
 * aligned as mixi_alloc_alignment says (2 MiB on Linux, where huge pages can back them), and
 * freed cleanly (the sanitizer builds check the frees); smaller ones keep 64 bytes. */
static void test_alloc_huge_blocks(void)
{
    check_streamed_advice();
    const long live = mixi_alloc_live();
    const size_t sizes[] = {100, MIXI_HUGE_MIN - 1, MIXI_HUGE_MIN, MIXI_HUGE_MIN + 12345, 3 * MIXI_HUGE_ALIGN + 1};
    CU_ASSERT_EQUAL(mixi_alloc_alignment(100), 64);
    CU_ASSERT_EQUAL(mixi_alloc_alignment(MIXI_HUGE_MIN - 1), 64);
    CU_ASSERT(mixi_alloc_alignment(MIXI_HUGE_MIN) == 64 || mixi_alloc_alignment(MIXI_HUGE_MIN) == MIXI_HUGE_ALIGN);
#if defined(__linux__)
    CU_ASSERT_EQUAL(mixi_alloc_alignment(MIXI_HUGE_MIN), MIXI_HUGE_ALIGN);
#endif
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        const size_t b = sizes[k];
        unsigned char *p = mixi_malloc(b);
        CU_ASSERT_FATAL(p != NULL);
        CU_ASSERT_EQUAL((uintptr_t)p % mixi_alloc_alignment(b), 0);
        memset(p, 0xa5, b);
        CU_ASSERT(p[0] == 0xa5 && p[b / 2] == 0xa5 && p[b - 1] == 0xa5);
        mixi_free(p);
    }
    double *q = mixi_calloc(MIXI_HUGE_MIN / sizeof(double) + 7, sizeof(double));
    CU_ASSERT_FATAL(q != NULL);
    CU_ASSERT(q[0] == 0.0 && q[MIXI_HUGE_MIN / sizeof(double) + 6] == 0.0);
    mixi_free(q);
    if (mixt_backend == MIX_BACKEND_CPU) { /* the CPU backend's allocations are these blocks */
        mix_context *c = mixt_context();
        void *d = NULL;
        CU_ASSERT_FATAL(!c->ops->alloc(c->state, &d, MIXI_HUGE_MIN + 8));
        CU_ASSERT_EQUAL((uintptr_t)d % mixi_alloc_alignment(MIXI_HUGE_MIN + 8), 0);
        CU_ASSERT(!c->ops->memset0(c->state, d, MIXI_HUGE_MIN + 8));
        c->ops->free(c->state, d);
        mix_context_destroy(c);
    }
    CU_ASSERT_EQUAL(mixi_alloc_live(), live);
}

/* The tuner's prefetch stage: after the bodies, a vector body is timed without prefetch and with
 * the near and the far distance; the fastest (the plain body within 2%) is kept, as a pure
 * function of the times. */
static void test_spmv_tuner_prefetch_stage(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    /* per case: the near and the far distance's time (the plain body: 1), and the choice */
    static const double near_t[] = {1.01, 0.9, 0.95}, far_t[] = {1.015, 0.95, 0.85};
    static const char *const want[] = {"avx2-gather", "avx2-gather-pf", "avx2-gather-pf-far"};
    for (int with = 0; with < 3; with++) {
        mixi_spmv_tuner T;
        mixi_spmv_tuner_init(&T, MIX_FIXED16, 1, 0); /* AVX2's bodies: contig, gather, loads */
        if (T.chosen >= 0) return;                   /* pinned or forced by the environment */
        int c = 0;
        for (; mixi_spmv_tuner_timing(&T) && c < 100; c++) {
            const int v = mixi_spmv_tuner_next(&T), pfd = mixi_spmv_pfd(v);
            const int gather = mixi_spmv_body(v) == MIXI_SPMV_AVX2_GATHER;
            const double t = (gather ? 1.0 : 2.0) * (pfd == MIXI_SPMV_PF_DIST ? near_t[with]
                                                     : pfd == MIXI_SPMV_PF_FAR ? far_t[with] : 1.0);
            mixi_spmv_tuner_done(&T, MIX_FIXED16, v, 1e-3 * t, 1e6);
        }
        CU_ASSERT_EQUAL(c, MIXI_TUNE_WARMUP + MIXI_TUNE_ROUNDS * 3 + MIXI_SPMV_NPF * MIXI_TUNE_ROUNDS);
        CU_ASSERT_EQUAL(mixi_spmv_tuner_next(&T), mixi_spmv_variant_parse(want[with]));
        CU_ASSERT_STRING_EQUAL(mixi_spmv_tuner_choice(&T), want[with]);
    }
}

static void test_spmv_thread_per_row(void) { spmv_case(3, 1, 1); }
static void test_spmv_subwarp(void) { spmv_case(12, 8, 0); }
static void test_spmv_warp(void) { spmv_case(40, 32, 0); }

/* SELL's escapes on the device: n = 40000 with a band, an entry 35000 columns away every 997th
 * row (escaped slices) and a row of 20000 entries (escaped for its padding); every format's SpMV,
 * one thread per row on both sides, gives the CPU's bits. */
static void test_spmv_sell_escapes(void)
{
    const int n = 40000;
    int64_t nnz = 0;
    mixm_csr A;
    /* 5 a row, row 100's 20000 and one far entry every 997 rows (41): it wrote past 5 n + 20000 */
    CU_ASSERT_FATAL(!mixm_csr_alloc(&A, n, n, 5 * (int64_t)n + 20000 + n / 997 + 1));
    for (int i = 0; i < n; i++) {
        A.rowptr[i] = nnz;
        int far = i % 997 == 5 ? (i + 35000) % n : -1;
        for (int j = i == 100 ? 0 : i - 2; j <= i + 2 || (i == 100 && j < 20000); j++) {
            if (j < 0 || j >= n) continue;
            if (far >= 0 && far < j) { /* columns sorted */
                A.colind[nnz] = far, A.val[nnz++] = -0.375;
                far = -1;
            }
            A.colind[nnz] = j;
            A.val[nnz++] = j == i ? 4.5 + (i % 5) : -0.25 - 0.125 * ((i + j) % 3);
        }
        if (far >= 0) A.colind[nnz] = far, A.val[nnz++] = -0.375;
    }
    A.rowptr[n] = A.nnz = nnz;
    CU_ASSERT_FATAL(nnz <= 5 * (int64_t)n + 20000 + n / 997 + 1);
    mix_context *dev = NULL, *ref = NULL;
    CU_ASSERT_FATAL(!mix_context_create(&dev, mixt_backend) && !mix_context_create(&ref, MIX_BACKEND_CPU));
    mixi_cpu_sparse_force_portable(1);
    const mixi_sparse_ops *d = dev->ops->sparse, *r = ref->ops->sparse;
    mixi_spmat *dA = NULL, *rA = NULL;
    CU_ASSERT_FATAL(!d->csr_create(dev->state, n, A.rowptr, A.colind, A.val, &dA) &&
                    !r->csr_create(ref->state, n, A.rowptr, A.colind, A.val, &rA));
    double *xh = malloc((size_t)n * sizeof *xh);
    CU_ASSERT_FATAL(xh != NULL);
    sk_vector(n, 61, xh);
    double *dx = sk_put(dev, xh, n);
    CU_ASSERT_FATAL(dx != NULL);
    for (int k = 1; k < SK_NPREC; k++) { /* the SELL formats */
        const mix_prec p = sk_precs[k];
        mixi_spmat *dS = NULL, *rS = NULL;
        mixi_svec xd, xr, yd, yr;
        CU_ASSERT_FATAL(!d->csr_convert(dev->state, dA, p, NULL, &dS) && !r->csr_convert(ref->state, rA, p, NULL, &rS));
        CU_ASSERT_FATAL(!sv_alloc(dev, p, n, &xd) && !sv_alloc(ref, p, n, &xr) && !sv_alloc(dev, p, n, &yd) &&
                        !sv_alloc(ref, p, n, &yr));
        CU_ASSERT(!d->vec_from64(dev->state, dx, NULL, 1.0, &xd, NULL) && !r->vec_from64(ref->state, xh, NULL, 1.0, &xr, NULL));
        double xyd, xyr;
        CU_ASSERT(!d->spmv(dev->state, dS, &xd, &yd, &xyd) && !r->spmv(ref->state, rS, &xr, &yr, &xyr));
        sv_host hd, hr;
        CU_ASSERT_FATAL(sv_get(dev, &yd, &hd) && sv_get(ref, &yr, &hr));
        CU_ASSERT(sv_same_bits(&hd, &hr));
        CU_ASSERT(fabs(xyd - xyr) <= 1e-12 * fabs(xyr) + 1e-300); /* FP64 sums in another order */
        sv_host_free(&hd);
        sv_host_free(&hr);
        sv_free(dev, &xd), sv_free(ref, &xr), sv_free(dev, &yd), sv_free(ref, &yr);
        d->csr_destroy(dev->state, dS);
        r->csr_destroy(ref->state, rS);
    }
    dev->ops->free(dev->state, dx);
    free(xh);
    d->csr_destroy(dev->state, dA);
    r->csr_destroy(ref->state, rA);
    mixi_cpu_sparse_force_portable(0);
    mix_context_destroy(dev);
    mix_context_destroy(ref);
    mixm_csr_free(&A);
}

/* FP64: y = A x and r = b - A x with ||r||^2; 1/sqrt(a_ii). */
static void test_fp64_ops(void)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, 6));
    double *x = malloc(SK_N * sizeof *x), *b = malloc(SK_N * sizeof *b);
    double *yr = malloc(SK_N * sizeof *yr), *yd = malloc(SK_N * sizeof *yd);
    CU_ASSERT_FATAL(x && b && yr && yd);
    sk_vector(SK_N, 51, x);
    sk_vector(SK_N, 52, b);
    double *z = calloc(SK_N, sizeof *z);
    CU_ASSERT_FATAL(z != NULL);
    double *dx = sk_put(f.dev, x, SK_N), *db = sk_put(f.dev, b, SK_N), *dy = sk_put(f.dev, b, SK_N);
    double *dz = sk_put(f.dev, z, SK_N);
    CU_ASSERT_FATAL(dx && db && dy && dz);
    const int lanes[] = {1, 4, 32};
    for (int c = 0; c < 3; c++) {
#ifdef MIX_HAVE_CUDA
        if (mixt_backend == MIX_BACKEND_CUDA) CU_ASSERT(!mixi_cuda_spmat_set_lanes(f.dA, lanes[c]));
#endif
        const int exact = lanes[c] == 1 || mixt_backend == MIX_BACKEND_CPU;
        double rr0; /* r = 0 - A x: the FP64 SpMV, negated exactly */
        CU_ASSERT(!f.d->residual64(f.dev->state, f.dA, dz, dx, dy, &rr0));
        CU_ASSERT(!f.r->residual64(f.ref->state, f.rA, z, x, yr, &rr0));
        CU_ASSERT(!sk_get(f.dev, yd, dy, SK_N));
        int bad = 0;
        for (int i = 0; i < SK_N; i++) {
            double R = 0.0, m = (double)(f.A.rowptr[i + 1] - f.A.rowptr[i]);
            for (int64_t q = f.A.rowptr[i]; q < f.A.rowptr[i + 1]; q++)
                R += fabs(f.A.val[q] * x[f.A.colind[q]]);
            if (exact ? memcmp(&yd[i], &yr[i], sizeof yd[i]) != 0
                      : !(fabs(yd[i] - yr[i]) <= 4.0 * (m + 4.0) * 0x1p-53 * R))
                bad++;
        }
        CU_ASSERT_EQUAL(bad, 0);
        double rrd, rrr;
        CU_ASSERT(!f.d->residual64(f.dev->state, f.dA, db, dx, dy, &rrd));
        CU_ASSERT(!f.r->residual64(f.ref->state, f.rA, b, x, yr, &rrr));
        CU_ASSERT(!sk_get(f.dev, yd, dy, SK_N));
        if (exact) CU_ASSERT(!memcmp(yd, yr, SK_N * sizeof *yd));
        /* Row differences of 4 (m + 4) u R per entry move ||r||^2 by at most about twice that. */
        double slack = 0.0;
        for (int i = 0; i < SK_N && !exact; i++) {
            double R = fabs(b[i]), m = (double)(f.A.rowptr[i + 1] - f.A.rowptr[i]);
            for (int64_t q = f.A.rowptr[i]; q < f.A.rowptr[i + 1]; q++)
                R += fabs(f.A.val[q] * x[f.A.colind[q]]);
            slack += 2.0 * fabs(yr[i]) * 4.0 * (m + 4.0) * 0x1p-53 * R + 1e-300;
        }
        CU_ASSERT(fabs(rrd - rrr) <= 2.0 * SK_N * 0x1p-53 * rrr + 2.0 * slack);
    }
    double nd, nr;
    CU_ASSERT(!f.d->nrm2sq64(f.dev->state, SK_N, dx, &nd));
    CU_ASSERT(!f.r->nrm2sq64(f.ref->state, SK_N, x, &nr));
    CU_ASSERT(red_close(nd, nr, SK_N, nr));
    /* Jacobi scale: the empty row 7 has no diagonal, so both say NOT_SPD and agree elsewhere. */
    CU_ASSERT_EQUAL(f.d->diag_rsqrt(f.dev->state, f.dA, dy), MIX_ERR_NOT_SPD);
    CU_ASSERT_EQUAL(f.r->diag_rsqrt(f.ref->state, f.rA, yr), MIX_ERR_NOT_SPD);
    CU_ASSERT(!sk_get(f.dev, yd, dy, SK_N));
    CU_ASSERT(!memcmp(yd, yr, SK_N * sizeof *yd));
    f.dev->ops->free(f.dev->state, dx);
    f.dev->ops->free(f.dev->state, db);
    f.dev->ops->free(f.dev->state, dy);
    f.dev->ops->free(f.dev->state, dz);
    free(z);
    free(x);
    free(b);
    free(yr);
    free(yd);
    sk_close(&f);
}

/* Conversion refuses what the format cannot hold, as the CPU does; a failed allocation at any
 * point gives MIX_ERR_ALLOC and leaves no host allocation behind. */
static void test_convert_errors(void)
{
    sk_fix f;
    CU_ASSERT_FATAL(sk_open(&f, 4));
    mixm_csr B;
    CU_ASSERT_FATAL(!mixm_csr_alloc(&B, 2, 2, 2));
    B.rowptr[0] = 0;
    B.rowptr[1] = 1;
    B.rowptr[2] = 2;
    B.colind[0] = 0;
    B.colind[1] = 1;
    B.val[0] = 1e6; /* beyond FP16's 65504 */
    B.val[1] = 1.0;
    mixi_spmat *dB = NULL, *S = NULL;
    CU_ASSERT_FATAL(!f.d->csr_create(f.dev->state, 2, B.rowptr, B.colind, B.val, &dB));
    CU_ASSERT_EQUAL(f.d->csr_convert(f.dev->state, dB, MIX_FP16, NULL, &S), MIX_ERR_OVERFLOW);
    CU_ASSERT(S == NULL);
    CU_ASSERT_EQUAL(f.d->csr_convert(f.dev->state, dB, MIX_TF32, NULL, &S), MIX_ERR_INVALID_ARG);
    CU_ASSERT(!f.d->csr_convert(f.dev->state, dB, MIX_BF16, NULL, &S));
    f.d->csr_destroy(f.dev->state, S);
    f.d->csr_destroy(f.dev->state, dB);
    long live = mixi_alloc_live();
    int st = MIX_ERR_ALLOC, k;
    for (k = 0; k < 20 && st == MIX_ERR_ALLOC; k++) {
        mixi_spmat *C = NULL, *D = NULL;
        mixi_alloc_fail_after(k);
        st = f.d->csr_create(f.dev->state, 2, B.rowptr, B.colind, B.val, &C);
        if (!st) st = f.d->csr_convert(f.dev->state, C, MIX_FIXED16, NULL, &D);
        mixi_alloc_fail_after(-1);
        CU_ASSERT(st == MIX_SUCCESS || st == MIX_ERR_ALLOC);
        f.d->csr_destroy(f.dev->state, D);
        f.d->csr_destroy(f.dev->state, C);
        CU_ASSERT_EQUAL(mixi_alloc_live(), live);
    }
    CU_ASSERT_EQUAL(st, MIX_SUCCESS);
    CU_ASSERT(k > 1);
    mixm_csr_free(&B);
    sk_close(&f);
}

static const mixt_test sparse_kernel_tests[] = {
    {"from64 bits", test_from64},
    {"accum64 and zero bits", test_accum64_zero},
    {"cg_update bits and reductions", test_cg_update},
    {"axpby bits, dot bound", test_axpby_dot},
    {"spmv thread per row bits", test_spmv_thread_per_row},
    {"spmv 8 lanes per row bound", test_spmv_subwarp},
    {"spmv warp per row bound", test_spmv_warp},
    {"spmv SELL escapes (far entries, long row) bits", test_spmv_sell_escapes},
    {"fp64 spmv residual norm diag", test_fp64_ops},
    {"convert overflow and alloc failure", test_convert_errors},
    {NULL, NULL},
};

/* A prolongator-like test matrix held square (n x n, columns < m): rows of 0 to 5 entries at
 * random columns, the diagonal where i < m (and a few rows without it), one row of 250 entries
 * (a SELL escape, long row), magnitudes over 2^-4 .. 2^4. */
static int spmv_t_matrix(int n, int m, mixm_csr *A)
{
    mixm_rng g;
    mixm_rng_seed(&g, 77);
    char *mark = calloc((size_t)m, 1);
    int st = mark ? mixm_csr_alloc(A, n, n, (int64_t)6 * n + 250) : MIX_ERR_ALLOC;
    int64_t k = 0;
    for (int i = 0; i < n && !st; i++) {
        A->rowptr[i] = k;
        const int len = i == 100 ? 250 : (int)(mixm_rng_next(&g) % 6);
        memset(mark, 0, (size_t)m);
        for (int t = 0; t < len; t++) mark[mixm_rng_next(&g) % (uint64_t)m] = 1;
        if (i < m && i % 9) mark[i] = 1;
        for (int j = 0; j < m; j++)
            if (mark[j]) {
                A->colind[k] = j;
                A->val[k++] = (2.0 * mixm_rng_uniform(&g) - 1.0) * ldexp(1.0, (int)(mixm_rng_next(&g) % 9) - 4);
            }
    }
    if (!st) A->rowptr[n] = A->nnz = k;
    free(mark);
    return st;
}

/* y = A^T x (spmv_t) for every storage, x and y in its accumulator: within the storage's rounding
 * of the entries and one rounding of y of the exact FP64 sums (a transposition error, a lost or
 * doubled entry, a column past m written, all fail it); two calls give the same bits (CPU). */
static void test_spmv_t(void)
{
    mix_context *c = mixt_context();
    const mixi_sparse_ops *o = c->ops->sparse;
    const int n = 5000, m = 1200; /* above PAR_MIN: the CPU's threads share the rows */
    mixm_csr A;
    CU_ASSERT_FATAL(!spmv_t_matrix(n, m, &A));
    double *xd = malloc((size_t)n * sizeof *xd), *dx = NULL;
    CU_ASSERT_FATAL(xd != NULL);
    sk_vector(n, 5, xd);
    mixi_spmat *A64 = NULL;
    CU_ASSERT_FATAL(!o->csr_create(c->state, n, A.rowptr, A.colind, A.val, &A64));
    CU_ASSERT_FATAL(!c->ops->alloc(c->state, (void **)&dx, (size_t)n * sizeof *dx));
    CU_ASSERT_FATAL(!c->ops->upload(c->state, dx, xd, (size_t)n * sizeof *dx));
    CU_ASSERT_FATAL(o->spmv_t != NULL);
    for (int q = 0; q < SK_NPREC; q++) {
        const mix_prec p = sk_precs[q], vp = mixk_prec_acc(p);
        mixi_spmat *As = NULL;
        mixi_svec x, y;
        sv_host hx, hy, hy2;
        CU_ASSERT_FATAL(!o->csr_convert(c->state, A64, p, NULL, &As));
        CU_ASSERT_FATAL(!sv_alloc(c, vp, n, &x) && !sv_alloc(c, vp, m, &y));
        CU_ASSERT_FATAL(!o->vec_from64(c->state, dx, NULL, 1.0, &x, NULL) && sv_get(c, &x, &hx));
        CU_ASSERT_EQUAL(o->spmv_t(c->state, As, &x, &y), MIX_SUCCESS);
        CU_ASSERT_FATAL(sv_get(c, &y, &hy));
        CU_ASSERT_EQUAL(o->spmv_t(c->state, As, &x, &y), MIX_SUCCESS);
        CU_ASSERT_FATAL(sv_get(c, &y, &hy2));
        if (mixt_backend == MIX_BACKEND_CPU) CU_ASSERT(sv_same_bits(&hy, &hy2));
        /* Entry rounding: half a unit of the format (FIXED16: half the row's step, at most
         * rowmax / 32767; its diagonal a float). */
        const double u = p == MIX_FP64 ? 0x1p-53 : ldexp(1.0, -mixk_prec_mant_bits(p) - 1);
        double *ref = calloc((size_t)m, sizeof *ref), *bnd = calloc((size_t)m, sizeof *bnd);
        CU_ASSERT_FATAL(ref && bnd);
        for (int i = 0; i < n; i++) {
            double rowmax = 0.0;
            for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
                if (A.colind[k] != i && fabs(A.val[k]) > rowmax) rowmax = fabs(A.val[k]);
            const double xi = sv_at(&hx, i);
            for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
                const int j = A.colind[k];
                const double e = p == MIX_FIXED16 && j != i ? rowmax / 32767.0 : 0x1p-24 * fabs(A.val[k]);
                ref[j] += A.val[k] * xi;
                bnd[j] += ((p == MIX_FIXED16 ? e : u * fabs(A.val[k])) + (p == MIX_FP16 ? 0x1p-25 : 0.0)) * fabs(xi) +
                          0x1p-50 * fabs(A.val[k] * xi);
            }
        }
        int bad = 0;
        for (int j = 0; j < m; j++)
            bad += !(fabs(sv_at(&hy, j) - ref[j]) <= bnd[j] + (vp == MIX_FP64 ? 0x1p-52 : 0x1p-23) * fabs(ref[j]));
        CU_ASSERT_EQUAL(bad, 0);
        if (bad) printf("\n    spmv_t %s: %d of %d columns outside the bound", mixk_prec_name(p), bad, m);
        free(ref);
        free(bnd);
        sv_host_free(&hx);
        sv_host_free(&hy);
        sv_host_free(&hy2);
        sv_free(c, &x);
        sv_free(c, &y);
        o->csr_destroy(c->state, As);
    }
    c->ops->free(c->state, dx);
    o->csr_destroy(c->state, A64);
    free(xd);
    mixm_csr_free(&A);
    mix_context_destroy(c);
}

/* The fused multigrid passes of whatever backend runs (the CPU's portable and vector bodies are
 * also checked in test_sparse_format.c): spmv_axpby = spmv into t, then axpby(a, t, b, z), and
 * cheb_update = axpby(a, r, b, d), then axpby(1, d, c, x), bit for bit. */

/* A sloppy vector of precision p on c holding seed's values (sk_vector), rounded to p. */
static int fz_vec(mix_context *c, mix_prec p, int n, uint64_t seed, mixi_svec *v)
{
    double *h = malloc((size_t)n * sizeof *h), *dh = NULL;
    int ok = h != NULL && !sv_alloc(c, p, n, v);
    if (ok) sk_vector(n, seed, h);
    ok = ok && (dh = sk_put(c, h, n)) != NULL && !c->ops->sparse->vec_from64(c->state, dh, NULL, 1.0, v, NULL);
    if (dh) c->ops->free(c->state, dh);
    free(h);
    return ok;
}

/* Both vectors' bytes (values and FIXED16 norms) equal. */
static int fz_same(mix_context *c, const mixi_svec *a, const mixi_svec *b)
{
    sv_host ha, hb;
    const int ok = sv_get(c, a, &ha) && sv_get(c, b, &hb) && sv_same_bits(&ha, &hb);
    sv_host_free(&ha);
    sv_host_free(&hb);
    return ok;
}

/* One storage copy S (vectors in its accumulator): y = a S x + b z fused against the two
 * passes, z apart from y, z = y and z = x; y = x and narrow vectors refused.  Returns the number
 * of mismatches. */
static int fz_spmv_axpby(mix_context *c, const mixi_spmat *S, mix_prec p, int n, double a, double b)
{
    const mixi_sparse_ops *o = c->ops->sparse;
    const mix_prec vp = mixk_prec_acc(p);
    mixi_svec x, z, t, ref, y;
    double xy;
    int bad = 0;
    CU_ASSERT_FATAL(fz_vec(c, vp, n, 61, &x) && fz_vec(c, vp, n, 62, &z) && fz_vec(c, vp, n, 62, &ref));
    CU_ASSERT_FATAL(!sv_alloc(c, vp, n, &t));
    CU_ASSERT(!o->spmv(c->state, S, &x, &t, &xy));
    CU_ASSERT(!o->axpby(c->state, a, &t, b, &ref));
    for (int alias = 0; alias < 2; alias++) {
        CU_ASSERT_FATAL(fz_vec(c, vp, n, alias ? 62 : 63, &y));
        CU_ASSERT(!o->spmv_axpby(c->state, S, &x, a, alias ? &y : &z, b, &y));
        bad += !fz_same(c, &y, &ref);
        sv_free(c, &y);
    }
    { /* z = x (both only read: multigrid's r - w A r) */
        mixi_svec ref2;
        CU_ASSERT_FATAL(fz_vec(c, vp, n, 61, &ref2) && fz_vec(c, vp, n, 64, &y));
        CU_ASSERT(!o->axpby(c->state, a, &t, b, &ref2));
        CU_ASSERT(!o->spmv_axpby(c->state, S, &x, a, &x, b, &y));
        bad += !fz_same(c, &y, &ref2);
        sv_free(c, &y), sv_free(c, &ref2);
    }
    CU_ASSERT_EQUAL(o->spmv_axpby(c->state, S, &x, a, &z, b, &x), MIX_ERR_UNSUPPORTED);
    if (vp != p) { /* 16-bit vectors over a 16-bit matrix: not the accumulator's */
        mixi_svec xn, yn;
        CU_ASSERT_FATAL(fz_vec(c, p, n, 61, &xn) && fz_vec(c, p, n, 62, &yn));
        CU_ASSERT_EQUAL(o->spmv_axpby(c->state, S, &xn, a, &yn, b, &yn), MIX_ERR_UNSUPPORTED);
        sv_free(c, &xn), sv_free(c, &yn);
    }
    sv_free(c, &x), sv_free(c, &z), sv_free(c, &t), sv_free(c, &ref);
    return bad;
}

static int spmv_t_matrix(int n, int m, mixm_csr *A);

/* Every storage format of a square matrix with a long row (a SELL escape) and of a
 * prolongator-like one in the rect layout; FP64 CSR also with 8 threads per row (CUDA). */
static void test_spmv_axpby_fused(void)
{
    mix_context *c = mixt_context();
    const mixi_sparse_ops *o = c->ops->sparse;
    CU_ASSERT_FATAL(o->spmv_axpby != NULL && o->csr_convert_rect != NULL);
    mixm_csr A[2];
    CU_ASSERT_FATAL(!sk_matrix(SK_N, 4, 91, &A[0]) && !spmv_t_matrix(5000, 1200, &A[1]));
    const double ab[][2] = {{-1.0, 1.0}, {1.0, 1.0}, {0.75, -2.5}};
    for (int rect = 0; rect < 2; rect++) {
        const int n = A[rect].nrows;
        mixi_spmat *A64 = NULL;
        CU_ASSERT_FATAL(!o->csr_create(c->state, n, A[rect].rowptr, A[rect].colind, A[rect].val, &A64));
        for (int q = 0; q < SK_NPREC; q++)
            for (int lanes = 1; lanes <= (sk_precs[q] == MIX_FP64 ? 8 : 1); lanes *= 8) {
                const mix_prec p = sk_precs[q];
                mixi_spmat *S = NULL;
                CU_ASSERT_FATAL(!(rect ? o->csr_convert_rect : o->csr_convert)(c->state, A64, p, NULL, &S));
#ifdef MIX_HAVE_CUDA
                if (mixt_backend == MIX_BACKEND_CUDA) CU_ASSERT(!mixi_cuda_spmat_set_lanes(S, lanes));
#endif
                for (size_t k = 0; k < sizeof ab / sizeof ab[0]; k++) {
                    const int bad = fz_spmv_axpby(c, S, p, n, ab[k][0], ab[k][1]);
                    CU_ASSERT_EQUAL(bad, 0);
                    if (bad) printf("\n    spmv_axpby %s rect %d lanes %d a %g: %d of 2 differ", mixk_prec_name(p), rect, lanes, ab[k][0], bad);
                }
                o->csr_destroy(c->state, S);
            }
        o->csr_destroy(c->state, A64);
    }
    mixm_csr_free(&A[0]);
    mixm_csr_free(&A[1]);
    mix_context_destroy(c);
}

/* cheb_update against two axpby for vectors of every storage precision, with the first step's
 * coefficients (b = 0, c = 0) and a later one's; aliased or mixed vectors refused. */
static void test_cheb_update_fused(void)
{
    mix_context *c = mixt_context();
    const mixi_sparse_ops *o = c->ops->sparse;
    CU_ASSERT_FATAL(o->cheb_update != NULL);
    const double abc[][3] = {{0.4, 0.0, 0.0}, {0.3, -1.7, 0.9}, {1.25, 0.5, 1.0}};
    for (int q = 0; q < SK_NPREC; q++)
        for (size_t k = 0; k < sizeof abc / sizeof abc[0]; k++) {
            const mix_prec p = sk_precs[q];
            const double a = abc[k][0], b = abc[k][1], cc = abc[k][2];
            mixi_svec r, d, x, d2, x2;
            CU_ASSERT_FATAL(fz_vec(c, p, SK_N, 71, &r) && fz_vec(c, p, SK_N, 72, &d) && fz_vec(c, p, SK_N, 73, &x) &&
                            fz_vec(c, p, SK_N, 72, &d2) && fz_vec(c, p, SK_N, 73, &x2));
            CU_ASSERT(!o->axpby(c->state, a, &r, b, &d2));
            CU_ASSERT(!o->axpby(c->state, 1.0, &d2, cc, &x2));
            CU_ASSERT(!o->cheb_update(c->state, a, &r, b, &d, cc, &x));
            const int dsame = fz_same(c, &d, &d2), xsame = fz_same(c, &x, &x2);
            CU_ASSERT(dsame && xsame);
            if (!dsame || !xsame) printf("\n    cheb_update %s case %d: d %d x %d", mixk_prec_name(p), (int)k, dsame, xsame);
            CU_ASSERT_EQUAL(o->cheb_update(c->state, a, &r, b, &d, cc, &d), MIX_ERR_UNSUPPORTED);
            CU_ASSERT_EQUAL(o->cheb_update(c->state, a, &d, b, &d, cc, &x), MIX_ERR_UNSUPPORTED);
            if (p != MIX_FP64) {
                mixi_svec w;
                CU_ASSERT_FATAL(fz_vec(c, MIX_FP64, SK_N, 74, &w));
                CU_ASSERT_EQUAL(o->cheb_update(c->state, a, &r, b, &d, cc, &w), MIX_ERR_UNSUPPORTED);
                sv_free(c, &w);
            }
            sv_free(c, &r), sv_free(c, &d), sv_free(c, &x), sv_free(c, &d2), sv_free(c, &x2);
        }
    mix_context_destroy(c);
}

/* The CPU's spmv_t gives the same bits on 1, 2 and 3 threads (above PAR_MIN, where the rows
 * are shared): it split the rows by the team, so an AMG-PCG solve restricting by it (FP64,
 * bcsstk16) differed in the last bits between OMP_NUM_THREADS=1, 2 and 3, and inside a
 * caller's OpenMP region (one thread) from the same solve alone. */
static void test_spmv_t_thread_bits(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return; /* CUDA adds by atomics (backend_sparse.h) */
    mix_context *c = mixt_context();
    const mixi_sparse_ops *o = c->ops->sparse;
    const int n = 20000, m = 2500;
    mixm_csr A;
    CU_ASSERT_FATAL(!spmv_t_matrix(n, m, &A));
    double *xd = malloc((size_t)n * sizeof *xd);
    CU_ASSERT_FATAL(xd != NULL);
    sk_vector(n, 7, xd);
    mixi_spmat *A64 = NULL;
    CU_ASSERT_FATAL(!o->csr_create(c->state, n, A.rowptr, A.colind, A.val, &A64));
#ifdef _OPENMP
    const int keep = omp_get_max_threads();
#endif
    const mix_prec precs[] = {MIX_FP64, MIX_FP32};
    for (int q = 0; q < 2; q++) {
        mixi_spmat *As = NULL;
        mixi_svec x, y;
        sv_host h1, h;
        CU_ASSERT_FATAL(!o->csr_convert(c->state, A64, precs[q], NULL, &As));
        CU_ASSERT_FATAL(!sv_alloc(c, precs[q], n, &x) && !sv_alloc(c, precs[q], m, &y));
        CU_ASSERT_FATAL(!o->vec_from64(c->state, xd, NULL, 1.0, &x, NULL));
        for (int threads = 1; threads <= 3; threads++) {
#ifdef _OPENMP
            omp_set_num_threads(threads);
#endif
            CU_ASSERT_EQUAL(o->spmv_t(c->state, As, &x, &y), MIX_SUCCESS);
            CU_ASSERT_FATAL(sv_get(c, &y, threads == 1 ? &h1 : &h));
            if (threads == 1) continue;
            CU_ASSERT(sv_same_bits(&h1, &h));
            sv_host_free(&h);
        }
        sv_host_free(&h1);
        sv_free(c, &x);
        sv_free(c, &y);
        o->csr_destroy(c->state, As);
    }
#ifdef _OPENMP
    omp_set_num_threads(keep);
#endif
    o->csr_destroy(c->state, A64);
    mixm_csr_free(&A);
    free(xd);
    mix_context_destroy(c);
}

/* Properties every backend's kernels have, the CPU's included. */
static const mixt_test sparse_property_tests[] = {
    {"spmv FP32 vectors over 16-bit, FP64 row sums", test_spmv_acc_vectors},
    {"spmv_t: A^T x within the storage's rounding, same bits twice", test_spmv_t},
    {"CPU spmv_t: the same bits on 1, 2 and 3 threads", test_spmv_t_thread_bits},
    {"spmv_axpby = spmv then axpby, bits, every format, z = y or x, rect", test_spmv_axpby_fused},
    {"cheb_update = axpby twice, bits, vectors of every precision", test_cheb_update_fused},
    {"CPU spmv variants with prefetch = portable bits", test_spmv_cpu_prefetch_variants},
    {"CPU SELL: a Jacobi-scaled copy's unit diagonal skipped, same bits", test_spmv_unit_diagonal},
    {"CPU spmv tuner: the prefetch stage", test_spmv_tuner_prefetch_stage},
    {"CPU FP64 CSR variants = portable bits (stencil, band, random)", test_spmv_cpu_csr_variants},
    {"CPU spmv tuner: FP64 CSR, its prefetch, MIXSOLVE_TUNE=off", test_spmv_tuner_csr},
    {"host blocks from MIXI_HUGE_MIN: aligned, usable, freed", test_alloc_huge_blocks},
    {"a matrix streamed often moves to huge pages, same bits", test_streamed_matrix_to_huge_pages},
    {NULL, NULL},
};

void mixt_register_kernels_sparse(mix_backend b)
{
    mixt_add_backend_suite(b, "sparse-properties", sparse_property_tests);
    /* The CPU backend is the reference: only device backends are checked against it. */
    if (b == MIX_BACKEND_CPU) return;
    mixt_add_backend_suite(b, "sparse-kernels", sparse_kernel_tests);
}
