/* test_sparse_format.c: the SELL-32 sloppy-matrix layout (kernels/common/sell.h) as the CPU backend stores it: round trips, escapes, SpMV bounds, portable = AVX2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/core/core.h"
#include "kernels/backend_sparse.h"
#include "kernels/common/spmv_row.h"
#include "kernels/cpu/sparse_cpu.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"

static const mix_prec sf_precs[] = {MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};
#define SF_NPREC 4

/* ---- test matrices ----------------------------------------------------------------------------- */

/* Rows built from a column list each (sorted, no duplicates), values from the RNG: magnitudes
 * 2^-4 .. 2^4, both signs, the diagonal in [4, 12). */
typedef struct {
    int n;
    int64_t *len;
    int32_t **cols;
} sf_rows;

static int sf_rows_init(sf_rows *r, int n)
{
    r->n = n;
    r->len = calloc((size_t)n, sizeof *r->len);
    r->cols = calloc((size_t)n, sizeof *r->cols);
    return r->len && r->cols;
}

static int sf_add(sf_rows *r, int i, int64_t j)
{
    if (j < 0 || j >= r->n) return 1; /* outside the matrix: not added */
    int32_t *c = realloc(r->cols[i], ((size_t)r->len[i] + 1) * sizeof *c);
    if (!c) return 0;
    r->cols[i] = c;
    c[r->len[i]++] = (int32_t)j;
    return 1;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int sf_to_csr(sf_rows *r, uint64_t seed, mixm_csr *A)
{
    int64_t nnz = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->len[i] > 1) qsort(r->cols[i], (size_t)r->len[i], sizeof(int32_t), cmp_i32);
        int64_t m = 0; /* drop duplicates */
        for (int64_t k = 0; k < r->len[i]; k++)
            if (m == 0 || r->cols[i][k] != r->cols[i][m - 1]) r->cols[i][m++] = r->cols[i][k];
        r->len[i] = m;
        nnz += m;
    }
    if (mixm_csr_alloc(A, r->n, r->n, nnz)) return 0;
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    int64_t k = 0;
    for (int i = 0; i < r->n; i++) {
        A->rowptr[i] = k;
        for (int64_t t = 0; t < r->len[i]; t++) {
            const int32_t j = r->cols[i][t];
            double v = (2.0 * mixm_rng_uniform(&g) - 1.0) * ldexp(1.0, (int)(mixm_rng_next(&g) % 9) - 4);
            if (j == i) v = 4.0 + 8.0 * mixm_rng_uniform(&g);
            A->colind[k] = j;
            A->val[k++] = v;
        }
    }
    A->rowptr[r->n] = k;
    return 1;
}

static void sf_rows_free(sf_rows *r)
{
    for (int i = 0; i < r->n; i++) free(r->cols[i]);
    free(r->cols);
    free(r->len);
}

/* Every escape and edge of the layout: n = 70001 (not a multiple of 32) banded rows; far entries
 * (|j - i| > 32767 for i < 30001) every 997th row and in row n - 4 (escaped slices); empty rows
 * (no diagonal either); a slice of rows of 1100 entries (wide, no padding: kept); a row of 40000
 * entries from column 0 (far and long) and a last row of 32750 near entries (its slice's padding
 * would be 32 times its entries: escaped). */
#define SF_N 70001
static int sf_escape_matrix(mixm_csr *A)
{
    sf_rows r;
    int ok = sf_rows_init(&r, SF_N);
    for (int i = 0; ok && i < SF_N; i++) {
        if (i == 5 || i == 6 || i == SF_N - 2) continue; /* empty rows */
        for (int d = -2; d <= 2 && ok; d++)
            if (d != 1) ok = sf_add(&r, i, i + d);
        if (ok && i % 997 == 3) ok = sf_add(&r, i, (i + 40000) % SF_N);
        if (i >= 640 && i < 672)
            for (int d = -550; d <= 550 && ok; d++) ok = sf_add(&r, i, i + d);
        if (i == 3000)
            for (int j = 0; j < 40000 && ok; j++) ok = sf_add(&r, i, j);
        if (i == SF_N - 4) ok = ok && sf_add(&r, i, 0);
        /* The last row, 32750 near entries: it starts below 32768 slots in its block (rows
         * 69984..70000), whose end alone passes 32767. */
        if (i == SF_N - 1)
            for (int d = -32750; d < 0 && ok; d++) ok = ok && sf_add(&r, i, i + d);
    }
    ok = ok && sf_to_csr(&r, 77, A);
    sf_rows_free(&r);
    return ok;
}

/* ---- the stored matrix, decoded ------------------------------------------------------------------ */

/* The value the format must store for v (FIXED16's step from the row max `off` and the matrix's
 * mantissa c), as a double. */
static float mant_of(const mixm_csr *A, const double *sc)
{
    double g = 0.0;
    for (int i = 0; i < A->nrows; i++)
        g = fmax(g, mixk_fixed16_row_offmax(A->rowptr, A->colind, A->val, sc, i));
    return mixk_fixed16_mant(g);
}
static double expected_value(mix_prec p, double v, double off, float c, int diag)
{
    switch (p) {
    case MIX_FP32: return (double)(float)v;
    case MIX_FP16: return (double)mixk_f16_to_f32(mixk_f64_to_f16(v));
    case MIX_BF16: return (double)mixk_bf16_to_f32(mixk_f64_to_bf16(v));
    default: {
        if (diag) return (double)(float)v;
        const double h = mixk_fixed16_row_step(mixk_fixed16_row_exp(off, c), c);
        return h > 0.0 ? mixk_fixed16_encode_f64(v / h, 1.0) * h : 0.0;
    }
    }
}

static double sv_value(const mixi_svec *v, int64_t i)
{
    switch (v->prec) {
    case MIX_FP32: return mixk_svec_ld_fp32(v->val, v->norm, i);
    case MIX_FP16: return mixk_svec_ld_fp16(v->val, v->norm, i);
    case MIX_BF16: return mixk_svec_ld_bf16(v->val, v->norm, i);
    default: return mixk_svec_ld_fixed16(v->val, v->norm, i);
    }
}

typedef struct {
    long esc_slices, bad_cols, bad_vals, bad_pad;
} roundtrip;

/* Decodes every row of the stored matrix and compares it with diag(sc) A diag(sc): the same
 * off-diagonal columns in the same order, the diagonal apart, every value bit for bit the format's
 * rounding of the FP64 one, padding slots 0 with offset 0. */
static roundtrip check_roundtrip(mix_prec p, const mixk_sell *C, const mixm_csr *A, const double *sc)
{
    roundtrip rt = {0, 0, 0, 0};
    const float c = mant_of(A, sc);
    if (p == MIX_FIXED16 && C->fmant != c) rt.bad_vals++;
    const int64_t ns = mixk_sell_nslice(A->nrows);
    for (int64_t s = 0; s < ns; s++) rt.esc_slices += (C->slice[s] & MIXK_SELL_ESC) != 0;
    for (int i = 0; i < A->nrows; i++) {
        double off = 0.0, d = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            const double v = sc ? (sc[i] * A->val[k]) * sc[j] : A->val[k];
            if (j == i) d = v;
            else off = fmax(off, fabs(v));
        }
        const int64_t s = i / MIXK_SELL_C, t = i % MIXK_SELL_C;
        const int esc = (C->slice[s] & MIXK_SELL_ESC) != 0;
        int64_t q = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            const double v = sc ? (sc[i] * A->val[k]) * sc[j] : A->val[k];
            if (j == i) continue;
            int e2;
            const int64_t at = mixk_sell_place(C, i, q++, &e2);
            const int64_t cj = esc ? C->ecol[at] : i + C->col[at];
            if (e2 != esc || cj != j) rt.bad_cols++;
            else if (mixk_sell_value(p, C, i, at, esc) != expected_value(p, v, off, c, 0)) rt.bad_vals++;
        }
        if (esc) {
            if (C->erp[C->eslice[s] + t + 1] - C->erp[C->eslice[s] + t] != q) rt.bad_cols++;
        } else {
            const int64_t w = mixk_sell_width(C, s);
            if (q > w) rt.bad_cols++;
            for (; q < w; q++) {
                int e2;
                const int64_t at = mixk_sell_place(C, i, q, &e2);
                if (C->col[at] != 0 || mixk_sell_value(p, C, i, at, 0) != 0.0) rt.bad_pad++;
            }
        }
        if (mixk_sell_value(p, C, i, -1, 0) != expected_value(p, d, off, c, 1)) rt.bad_vals++;
        if (p == MIX_FIXED16 && C->rexp[i] != mixk_fixed16_row_exp(off, c)) rt.bad_vals++;
    }
    return rt;
}

/* ---- fixture: the CPU backend, A in FP64, vectors ----------------------------------------------- */

typedef struct {
    mix_context *ctx;
    const mixi_sparse_ops *sp;
    mixi_spmat *A64;
} sf_fix;

static int sf_open(sf_fix *f, const mixm_csr *A)
{
    memset(f, 0, sizeof *f);
    if (mix_context_create(&f->ctx, MIX_BACKEND_CPU)) return 0;
    f->sp = f->ctx->ops->sparse;
    return !f->sp->csr_create(f->ctx->state, A->nrows, A->rowptr, A->colind, A->val, &f->A64);
}

static void sf_close(sf_fix *f)
{
    if (f->A64) f->sp->csr_destroy(f->ctx->state, f->A64);
    mix_context_destroy(f->ctx);
}

static int sv_new(mix_prec p, int n, mixi_svec *v)
{
    size_t vb, nb;
    memset(v, 0, sizeof *v);
    v->prec = p;
    v->n = n;
    if (mixi_svec_bytes(p, n, &vb, &nb)) return 0;
    v->val = calloc(vb, 1);
    v->norm = nb ? calloc(nb, 1) : NULL;
    return v->val && (!nb || v->norm);
}

static void sv_del(mixi_svec *v)
{
    free(v->val);
    free(v->norm);
}

/* x: magnitudes 2^-3 .. 2^3, both signs, one zero block. */
static void sf_vector(int n, uint64_t seed, double *x)
{
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (int i = 0; i < n; i++) {
        const double m = ldexp(1.0, (int)(mixm_rng_next(&g) % 7) - 3);
        x[i] = (i >= 32 && i < 64) ? 0.0 : (2.0 * mixm_rng_uniform(&g) - 1.0) * m;
    }
}

/* Unit roundoff of the stored value relative to its magnitude, and the absolute floor below
 * which the format is subnormal. */
static double value_err(mix_prec p, double a)
{
    switch (p) {
    case MIX_FP32: return 0x1p-24 * fabs(a) + 0x1p-150;
    case MIX_FP16: return 0x1p-11 * fabs(a) + 0x1p-25;
    case MIX_BF16: return 0x1p-8 * fabs(a) + 0x1p-134;
    default: return 0.0; /* FIXED16: per row, see below */
    }
}

/* One unit of y's storage at |y| (FIXED16: half the step of y's block, plus the float rounding
 * of the encoder). */
static double out_err(const mixi_svec *y, int64_t i)
{
    const double a = fabs(sv_value(y, i));
    switch (y->prec) {
    case MIX_FP32: return 0x1p-24 * a;
    case MIX_FP16: return 0x1p-10 * a + 0x1p-24;
    case MIX_BF16: return 0x1p-7 * a + 0x1p-133;
    default: return 1.01 * 0.5 * y->norm[i / MIXK_SVEC_BLOCK] / 32767.0 + 0x1p-24 * a;
    }
}

/* y = As x for every storage format against the FP64 product diag(sc) A diag(sc) x (x as
 * stored): per row |y_i - (A x)_i| <= sum_j e_ij |x_j| (the matrix's rounding to the format:
 * a unit of the element format, or half of FIXED16's row step and a float unit of its diagonal)
 * + (m + 4) 2^-23 R (float products and sums, R = sum_j |stored a_ij x_j|, m the row length)
 * + one unit of y's storage.  <x, A x> within the sum of |x_i| times those bounds.  Portable and
 * AVX2 kernels store the same bits and the same <x, A x>. */
static void check_spmv(sf_fix *f, mix_prec p, const mixm_csr *A, const double *sc)
{
    const int n = A->nrows;
    double *xh = malloc((size_t)n * sizeof *xh);
    mixi_svec x, y, y2;
    CU_ASSERT_FATAL(xh && sv_new(p, n, &x) && sv_new(p, n, &y) && sv_new(p, n, &y2));
    sf_vector(n, 101, xh);
    CU_ASSERT_FATAL(!f->sp->vec_from64(f->ctx->state, xh, NULL, 1.0, &x, NULL));
    const mixi_spmat *As = NULL;
    mixi_spmat *S = NULL;
    const int conv = f->sp->csr_convert(f->ctx->state, f->A64, p, sc, &S);
    if (conv) printf("convert %s: %s\n", mix_prec_name(p), mix_strerror(conv));
    CU_ASSERT_FATAL(!conv);
    As = S;
    double xy = 0.0, xy2 = 0.0;
    mixi_cpu_sparse_force_portable(1);
    CU_ASSERT(!f->sp->spmv(f->ctx->state, As, &x, &y, &xy));
    mixi_cpu_sparse_force_portable(0);
    CU_ASSERT(!f->sp->spmv(f->ctx->state, As, &x, &y2, &xy2));
    size_t vb = 0, nb = 0;
    CU_ASSERT_FATAL(!mixi_svec_bytes(p, n, &vb, &nb));
    CU_ASSERT(!memcmp(y.val, y2.val, vb - 16));
    CU_ASSERT(!nb || !memcmp(y.norm, y2.norm, nb));
    CU_ASSERT(!memcmp(&xy, &xy2, sizeof xy));
    long bad = 0;
    const float c = mant_of(A, sc);
    double xax = 0.0, xy_bound = 0.0;
    for (int i = 0; i < n; i++) {
        double ref = 0.0, err = 0.0, R = 0.0, off = 0.0;
        const int64_t m = A->rowptr[i + 1] - A->rowptr[i];
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] != i) off = fmax(off, fabs(sc ? (sc[i] * A->val[k]) * sc[A->colind[k]] : A->val[k]));
        const double h = mixk_fixed16_row_step(mixk_fixed16_row_exp(off, c), c);
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            const double v = sc ? (sc[i] * A->val[k]) * sc[j] : A->val[k], xj = sv_value(&x, j);
            ref += v * xj;
            const double e = p != MIX_FIXED16 ? value_err(p, v) : j == i ? 0x1p-24 * fabs(v) : 0.5 * h;
            err += e * fabs(xj);
            R += fabs(expected_value(p, v, off, c, j == i) * xj);
        }
        const double bound = err + (double)(m + 4) * 0x1p-23 * R + out_err(&y, i);
        if (!(fabs(sv_value(&y, i) - ref) <= bound)) bad++;
        xax += sv_value(&x, i) * ref;
        xy_bound += fabs(sv_value(&x, i)) * (err + (double)(m + 4) * 0x1p-23 * R) + 0x1p-52 * fabs(sv_value(&x, i) * ref);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(fabs(xy - xax) <= xy_bound + 1e-300);
    f->sp->csr_destroy(f->ctx->state, S);
    sv_del(&x);
    sv_del(&y);
    sv_del(&y2);
    free(xh);
}

static double *jacobi_like(int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    for (int i = 0; s && i < n; i++) s[i] = 1.0 / (1.0 + (i % 7) * 0.25);
    return s;
}

/* Round trips of every format, with and without a symmetric scale; on the escape matrix the
 * escapes are there: the slices of rows with an entry beyond int16 of the diagonal, of the
 * 1100-entry rows' neighbours... (expected_escapes: the slices mixk_sell_layout must escape). */
static void roundtrips(const mixm_csr *A, long expected_escapes)
{
    sf_fix f;
    CU_ASSERT_FATAL(sf_open(&f, A));
    double *sc = jacobi_like(A->nrows);
    CU_ASSERT_FATAL(sc != NULL);
    for (int k = 0; k < SF_NPREC; k++) {
        for (int scaled = 0; scaled < 2; scaled++) {
            mixi_spmat *S = NULL;
            CU_ASSERT_FATAL(!f.sp->csr_convert(f.ctx->state, f.A64, sf_precs[k], scaled ? sc : NULL, &S));
            const mixk_sell *C = mixi_cpu_spmat_sell(S);
            CU_ASSERT_FATAL(C != NULL);
            const roundtrip rt = check_roundtrip(sf_precs[k], C, A, scaled ? sc : NULL);
            CU_ASSERT_EQUAL(rt.bad_cols, 0);
            CU_ASSERT_EQUAL(rt.bad_vals, 0);
            CU_ASSERT_EQUAL(rt.bad_pad, 0);
            CU_ASSERT_EQUAL(rt.esc_slices, expected_escapes);
            f.sp->csr_destroy(f.ctx->state, S);
        }
    }
    free(sc);
    sf_close(&f);
}

/* The slices of A that must be escaped: a far entry, or padding beyond twice the entries plus 64. */
static long escapes_of(const mixm_csr *A)
{
    long e = 0;
    for (int s0 = 0; s0 < A->nrows; s0 += MIXK_SELL_C) {
        long w = 0, m = 0, far = 0;
        for (int i = s0; i < A->nrows && i < s0 + MIXK_SELL_C; i++) {
            long c = 0;
            for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                c += A->colind[q] != i;
                far |= abs(A->colind[q] - i) > 32767;
            }
            w = c > w ? c : w;
            m += c;
        }
        e += far || MIXK_SELL_C * w > 2 * m + 64;
    }
    return e;
}

static void test_roundtrip_stencil(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(13, &A)); /* n = 2197: not a multiple of 32 */
    CU_ASSERT_EQUAL(escapes_of(&A), 0);
    roundtrips(&A, 0);
    mixm_csr_free(&A);
}

static void test_roundtrip_escapes(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(sf_escape_matrix(&A));
    const long e = escapes_of(&A);
    CU_ASSERT(e >= 30); /* the far rows' slices, the long rows' */
    roundtrips(&A, e);
    mixm_csr_free(&A);
}

static void spmv_all(const mixm_csr *A)
{
    sf_fix f;
    CU_ASSERT_FATAL(sf_open(&f, A));
    double *sc = jacobi_like(A->nrows);
    CU_ASSERT_FATAL(sc != NULL);
    for (int k = 0; k < SF_NPREC; k++) {
        check_spmv(&f, sf_precs[k], A, NULL);
        check_spmv(&f, sf_precs[k], A, sc);
    }
    free(sc);
    sf_close(&f);
}

static void test_spmv_stencil(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(13, &A));
    spmv_all(&A);
    mixm_csr_free(&A);
}

static void test_spmv_escapes(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(sf_escape_matrix(&A));
    spmv_all(&A);
    mixm_csr_free(&A);
}

/* The byte counts the backend reports (bench/bench_cg's byte model): 3D Poisson 20^3 at most 4.5
 * bytes per nonzero in FIXED16 (4.2 at 150^3), 3.9 in FP16/BF16; FP64 plain CSR 12 per nonzero +
 * 8 per row. */
static void test_bytes(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(20, &A));
    sf_fix f;
    CU_ASSERT_FATAL(sf_open(&f, &A));
    const double nnz = (double)A.rowptr[A.nrows];
    int64_t b = 0;
    CU_ASSERT(!f.sp->csr_bytes(f.ctx->state, f.A64, &b));
    CU_ASSERT_EQUAL(b, 12 * A.rowptr[A.nrows] + 8 * (A.nrows + 1));
    const double most[SF_NPREC] = {6.0, 3.9, 3.9, 4.5};
    for (int k = 0; k < SF_NPREC; k++) {
        mixi_spmat *S = NULL;
        CU_ASSERT_FATAL(!f.sp->csr_convert(f.ctx->state, f.A64, sf_precs[k], NULL, &S));
        CU_ASSERT(!f.sp->csr_bytes(f.ctx->state, S, &b));
        CU_ASSERT(b > 0 && b <= most[k] * nnz);
        f.sp->csr_destroy(f.ctx->state, S);
    }
    sf_close(&f);
    mixm_csr_free(&A);
}

/* FP16 overflow refused; a failed allocation at any point of a SELL conversion gives
 * MIX_ERR_ALLOC and leaves nothing allocated. */
static void test_convert_errors(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(sf_escape_matrix(&A));
    sf_fix f;
    CU_ASSERT_FATAL(sf_open(&f, &A));
    double *big = malloc((size_t)A.nrows * sizeof *big);
    CU_ASSERT_FATAL(big != NULL);
    for (int i = 0; i < A.nrows; i++) big[i] = i == 40 ? 1e3 : 1.0; /* a_40,40 * 1e6 > 65504 */
    mixi_spmat *S = NULL;
    CU_ASSERT_EQUAL(f.sp->csr_convert(f.ctx->state, f.A64, MIX_FP16, big, &S), MIX_ERR_OVERFLOW);
    CU_ASSERT(S == NULL);
    CU_ASSERT_EQUAL(f.sp->csr_convert(f.ctx->state, f.A64, MIX_FIXED16, big, &S), MIX_SUCCESS);
    f.sp->csr_destroy(f.ctx->state, S);
    long live = mixi_alloc_live();
    int st = MIX_ERR_ALLOC, k;
    for (k = 0; k < 30 && st == MIX_ERR_ALLOC; k++) {
        S = NULL;
        mixi_alloc_fail_after(k);
        st = f.sp->csr_convert(f.ctx->state, f.A64, k % 2 ? MIX_FIXED16 : MIX_FP16, NULL, &S);
        mixi_alloc_fail_after(-1);
        CU_ASSERT(st == MIX_SUCCESS || st == MIX_ERR_ALLOC);
        CU_ASSERT((st == MIX_SUCCESS) == (S != NULL));
        f.sp->csr_destroy(f.ctx->state, S);
        CU_ASSERT_EQUAL(mixi_alloc_live(), live);
    }
    CU_ASSERT_EQUAL(st, MIX_SUCCESS);
    CU_ASSERT(k > 5);
    free(big);
    sf_close(&f);
    mixm_csr_free(&A);
}

/* A matrix over the caller's host arrays (csr_borrow_host, the multigrid store's levels)
 * converts to the same stored bits as one over csr_create's copy, and destroying it frees none
 * of the caller's arrays nor leaves anything allocated. */
static void test_borrow_host(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(sf_escape_matrix(&A));
    sf_fix f;
    CU_ASSERT_FATAL(sf_open(&f, &A));
    CU_ASSERT_FATAL(f.sp->csr_borrow_host != NULL);
    const int n = A.nrows;
    const int64_t nnz = A.rowptr[n];
    double *xh = malloc((size_t)n * sizeof *xh);
    CU_ASSERT_FATAL(xh != NULL);
    sf_vector(n, 7, xh);
    const long live = mixi_alloc_live();
    for (int k = 0; k < SF_NPREC; k++) {
        const mix_prec p = sf_precs[k];
        mixi_spmat *B = NULL, *S = NULL, *T = NULL;
        mixi_svec x, y, y2;
        CU_ASSERT_FATAL(sv_new(p, n, &x) && sv_new(p, n, &y) && sv_new(p, n, &y2));
        CU_ASSERT_FATAL(!f.sp->vec_from64(f.ctx->state, xh, NULL, 1.0, &x, NULL));
        CU_ASSERT_FATAL(!f.sp->csr_borrow_host(f.ctx->state, n, A.rowptr, A.colind, A.val, &B));
        CU_ASSERT_FATAL(!f.sp->csr_convert(f.ctx->state, B, p, NULL, &S));
        CU_ASSERT_FATAL(!f.sp->csr_convert(f.ctx->state, f.A64, p, NULL, &T));
        double xy = 0.0, xy2 = 0.0;
        CU_ASSERT(!f.sp->spmv(f.ctx->state, S, &x, &y, &xy));
        CU_ASSERT(!f.sp->spmv(f.ctx->state, T, &x, &y2, &xy2));
        size_t vb = 0, nb = 0;
        CU_ASSERT_FATAL(!mixi_svec_bytes(p, n, &vb, &nb));
        CU_ASSERT(!memcmp(y.val, y2.val, vb - 16));
        CU_ASSERT(!memcmp(&xy, &xy2, sizeof xy));
        f.sp->csr_destroy(f.ctx->state, S);
        f.sp->csr_destroy(f.ctx->state, B);
        f.sp->csr_destroy(f.ctx->state, T);
        sv_del(&x), sv_del(&y), sv_del(&y2);
    }
    CU_ASSERT_EQUAL(mixi_alloc_live(), live);
    /* The caller's arrays are whole: the same matrix is created from them again. */
    CU_ASSERT_EQUAL(A.rowptr[n], nnz);
    mixi_spmat *C = NULL;
    CU_ASSERT(!f.sp->csr_create(f.ctx->state, n, A.rowptr, A.colind, A.val, &C));
    f.sp->csr_destroy(f.ctx->state, C);
    mixi_spmat *bad = NULL;
    CU_ASSERT_EQUAL(f.sp->csr_borrow_host(f.ctx->state, 0, A.rowptr, A.colind, A.val, &bad), MIX_ERR_INVALID_ARG);
    CU_ASSERT(bad == NULL);
    free(xh);
    sf_close(&f);
    mixm_csr_free(&A);
}

/* spmv_axpby = spmv then axpby, bit for bit, for every storage format (vectors in the
 * accumulator), portable and vector kernels, z distinct from y, z = y and z = x, on a matrix
 * with escaped slices; a narrow vector is refused. */
static void fused_one(sf_fix *f, mix_prec p, const mixm_csr *A, double a, double b, int alias, int rect)
{
    const int n = A->nrows;
    const mix_prec vp = mixk_prec_acc(p);
    double *xh = malloc((size_t)n * sizeof *xh), *zh = malloc((size_t)n * sizeof *zh), xy;
    mixi_svec x, z, y, t;
    CU_ASSERT_FATAL(xh && zh && sv_new(vp, n, &x) && sv_new(vp, n, &z) && sv_new(vp, n, &y) && sv_new(vp, n, &t));
    sf_vector(n, 11, xh);
    sf_vector(n, 12, zh);
    CU_ASSERT_FATAL(!f->sp->vec_from64(f->ctx->state, xh, NULL, 1.0, &x, NULL));
    CU_ASSERT_FATAL(!f->sp->vec_from64(f->ctx->state, zh, NULL, 1.0, &z, NULL));
    mixi_spmat *S = NULL;
    CU_ASSERT_FATAL(!(rect ? f->sp->csr_convert_rect : f->sp->csr_convert)(f->ctx->state, f->A64, p, NULL, &S));
    size_t vb = 0, nb = 0;
    CU_ASSERT_FATAL(!mixi_svec_bytes(vp, n, &vb, &nb));
    for (int portable = 0; portable < 2; portable++) {
        mixi_cpu_sparse_force_portable(portable);
        CU_ASSERT(!f->sp->spmv(f->ctx->state, S, &x, &t, &xy));
        memcpy(y.val, z.val, vb);
        CU_ASSERT(!f->sp->axpby(f->ctx->state, a, &t, b, &y)); /* the reference: y = a t + b z */
        memcpy(t.val, z.val, vb);
        CU_ASSERT(!f->sp->spmv_axpby(f->ctx->state, S, &x, a, alias ? &t : &z, b, &t));
        CU_ASSERT(!memcmp(t.val, y.val, vb - 16));
    }
    mixi_cpu_sparse_force_portable(0);
    /* z = x (both only read: multigrid's r - w A r): the same bits; y = x refused. */
    CU_ASSERT(!f->sp->spmv(f->ctx->state, S, &x, &t, &xy));
    memcpy(y.val, x.val, vb);
    CU_ASSERT(!f->sp->axpby(f->ctx->state, a, &t, b, &y));
    CU_ASSERT(!f->sp->spmv_axpby(f->ctx->state, S, &x, a, &x, b, &t));
    CU_ASSERT(!memcmp(t.val, y.val, vb - 16));
    CU_ASSERT_EQUAL(f->sp->spmv_axpby(f->ctx->state, S, &x, a, &z, b, &x), MIX_ERR_UNSUPPORTED);
    f->sp->csr_destroy(f->ctx->state, S);
    sv_del(&x), sv_del(&z), sv_del(&y), sv_del(&t);
    free(xh), free(zh);
}

/* A prolongator-like matrix held square: n rows, 3 entries near column i nc / n (nc = n / 16),
 * so that its slices take column shifts (csr_convert_rect). */
static int sf_rect_matrix(mixm_csr *A)
{
    const int n = 80000, nc = n / 16;
    if (mixm_csr_alloc(A, n, n, 3 * (int64_t)n)) return 0;
    int64_t e = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = e;
        const int c = (int)((int64_t)i * nc / n);
        for (int d = -1; d <= 1; d++)
            if (c + d >= 0 && c + d < nc) A->colind[e] = c + d, A->val[e++] = 1.0 / (2.0 + d + i % 7);
    }
    A->rowptr[n] = A->nnz = e;
    return 1;
}

static void fused_all(int rect)
{
    mixm_csr A;
    CU_ASSERT_FATAL(rect ? sf_rect_matrix(&A) : sf_escape_matrix(&A));
    sf_fix f;
    CU_ASSERT_FATAL(sf_open(&f, &A));
    CU_ASSERT_FATAL(f.sp->spmv_axpby != NULL && f.sp->csr_convert_rect != NULL);
    for (int k = 0; k <= SF_NPREC; k++) /* and FP64 storage over FP64 vectors */
        for (int alias = 0; alias < 2; alias++) {
            const mix_prec p = k < SF_NPREC ? sf_precs[k] : MIX_FP64;
            fused_one(&f, p, &A, -1.0, 1.0, alias, rect);
            fused_one(&f, p, &A, 0.75, -2.5, alias, rect);
        }
    sf_close(&f);
    mixm_csr_free(&A);
}

static void test_spmv_axpby(void)
{
    fused_all(0);
    fused_all(1);
}

/* cheb_update = axpby(a, r, b, d) then axpby(1, d, c, x), bit for bit, for vectors of every
 * precision, portable and vector kernels; aliased vectors are refused. */
static void test_cheb_update(void)
{
    const int n = 1000; /* 31 full blocks and a partial one */
    mix_context *ctx;
    CU_ASSERT_FATAL(!mix_context_create(&ctx, MIX_BACKEND_CPU));
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    CU_ASSERT_FATAL(sp->cheb_update != NULL);
    const mix_prec precs[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};
    double *h = malloc((size_t)n * sizeof *h);
    CU_ASSERT_FATAL(h != NULL);
    for (size_t k = 0; k < sizeof precs / sizeof precs[0]; k++) {
        mixi_svec r, d, x, d2, x2;
        const mix_prec p = precs[k];
        CU_ASSERT_FATAL(sv_new(p, n, &r) && sv_new(p, n, &d) && sv_new(p, n, &x) && sv_new(p, n, &d2) &&
                        sv_new(p, n, &x2));
        size_t vb = 0, nb = 0;
        CU_ASSERT_FATAL(!mixi_svec_bytes(p, n, &vb, &nb));
        for (int portable = 0; portable < 2; portable++) {
            mixi_cpu_sparse_force_portable(portable);
            mixi_svec *v[3] = {&r, &d, &x};
            for (int q = 0; q < 3; q++) {
                sf_vector(n, 21 + (uint64_t)q, h);
                CU_ASSERT_FATAL(!sp->vec_from64(ctx->state, h, NULL, 1.0, v[q], NULL));
            }
            memcpy(d2.val, d.val, vb), memcpy(x2.val, x.val, vb);
            if (nb) memcpy(d2.norm, d.norm, nb), memcpy(x2.norm, x.norm, nb);
            CU_ASSERT(!sp->axpby(ctx->state, 0.3, &r, -1.7, &d2));
            CU_ASSERT(!sp->axpby(ctx->state, 1.0, &d2, 0.9, &x2));
            CU_ASSERT(!sp->cheb_update(ctx->state, 0.3, &r, -1.7, &d, 0.9, &x));
            CU_ASSERT(!memcmp(d.val, d2.val, vb - 16) && !memcmp(x.val, x2.val, vb - 16));
            CU_ASSERT(!nb || (!memcmp(d.norm, d2.norm, nb) && !memcmp(x.norm, x2.norm, nb)));
        }
        mixi_cpu_sparse_force_portable(0);
        CU_ASSERT_EQUAL(sp->cheb_update(ctx->state, 0.3, &r, -1.7, &d, 0.9, &d), MIX_ERR_UNSUPPORTED);
        sv_del(&r), sv_del(&d), sv_del(&x), sv_del(&d2), sv_del(&x2);
    }
    free(h);
    mix_context_destroy(ctx);
}

static const mixt_test sparse_format_tests[] = {
    {"SELL round trip, 3D Poisson (no escape), every format, scaled or not", test_roundtrip_stencil},
    {"SELL round trip with far entries, long rows, empty rows, n % 32 != 0", test_roundtrip_escapes},
    {"SpMV of every format against the FP64 product, portable = AVX2, stencil", test_spmv_stencil},
    {"SpMV of every format against the FP64 product, portable = AVX2, escapes", test_spmv_escapes},
    {"bytes per nonzero: FIXED16 <= 4.5 on 3D Poisson", test_bytes},
    {"conversion: overflow refused, allocation failure at every point", test_convert_errors},
    {"a matrix over the caller's host arrays: same bits, nothing of theirs freed", test_borrow_host},
    {"spmv_axpby = spmv then axpby, bit for bit, every format, z = y, x or apart, shifted P", test_spmv_axpby},
    {"cheb_update = two axpby, bit for bit, vectors of every precision", test_cheb_update},
    {NULL, NULL},
};

void mixt_register_sparse_format(void)
{
    /* The CPU backend's stored layout is host memory (the device backends' SpMV is checked
     * against it in test_kernels_sparse.c). */
    mixt_add_suite("sparse-format", sparse_format_tests);
}
