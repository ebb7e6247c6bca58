/* test_sell_shift.c: SELL's layout of a rectangular matrix held square (kernels/common/sell.h, csr_convert_rect: per-slice column shifts, no diagonal apart): the layout, SpMV and A^T x over it, bit for bit and against FP64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#include "solvers/amg/amg.h"
#include "kernels/backend_sparse.h"
#include "kernels/common/spmv_row.h"
#include "kernels/cpu/sparse_cpu.h"
#include "kernels/cpu/spmv_tune.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"

/* A prolongator-like matrix held square (SS_N x SS_N, every column < SS_M, as multigrid's P):
 *  - rows near i SS_M / SS_N (j - i ~ -i / 2: beyond int16 from row 65536 on), 1 to 5 random
 *    entries within 12000 of it, and j = i where i < SS_M and i % 9 != 0 (no diagonal apart: an
 *    entry at offset -shift where the row's others lie far; magnitudes at most 2^2, so that
 *    the largest |a_ij| is another entry's);
 *  - rows 80000 .. 99999 a far band j = i - 45000 + {0, 2, 5} (contiguous slot rows: x read by
 *    vector loads, not gathers), from row 90000 on moved by 3 every other 16 rows (contiguous
 *    over 16 rows, not 32);
 *  - every 4999th row also columns 0 and SS_M - 1 (69999 apart: its slice escapes, shift or
 *    not), row 120001 300 entries (escaped for its padding), rows 7 and 100003 empty.
 * Values: both signs, magnitudes 2^-4 .. 2^4. */
#define SS_N 140000
#define SS_M 70000
static void ss_row_cols(mixm_rng *g, int i, unsigned char *mark, int *lo, int *hi)
{
    const int c = (int)((int64_t)i * SS_M / SS_N);
    *lo = SS_M, *hi = -1;
#define SS_MARK(j) (mark[j] = 1, *lo = (j) < *lo ? (j) : *lo, *hi = (j) > *hi ? (j) : *hi)
    if (i == 7 || i == 100003) return;
    if (i >= 80000 && i < 100000) {
        const int b = i - 45000 - (i >= 90000 && (i / 16) % 2 ? 3 : 0);
        SS_MARK(b), SS_MARK(b + 2), SS_MARK(b + 5);
    } else {
        const int len = i == 120001 ? 300 : 1 + (int)(mixm_rng_next(g) % 5);
        for (int t = 0; t < len; t++) {
            const int j = c - 12000 + (int)(mixm_rng_next(g) % 24001);
            if (j >= 0 && j < SS_M) SS_MARK(j);
        }
    }
    if (i < SS_M && i % 9) SS_MARK(i);
    if (i % 4999 == 0) SS_MARK(0), SS_MARK(SS_M - 1);
#undef SS_MARK
}

static int ss_matrix(mixm_csr *A)
{
    mixm_rng g;
    mixm_rng_seed(&g, 4242);
    unsigned char *mark = calloc(SS_M, 1);
    int st = mark ? mixm_csr_alloc(A, SS_N, SS_N, (int64_t)8 * SS_N + 300) : MIX_ERR_ALLOC;
    int64_t k = 0;
    for (int i = 0; i < SS_N && !st; i++) {
        int lo, hi;
        A->rowptr[i] = k;
        ss_row_cols(&g, i, mark, &lo, &hi);
        for (int j = lo; j <= hi; j++)
            if (mark[j]) {
                mark[j] = 0;
                A->colind[k] = j;
                const int e = (int)(mixm_rng_next(&g) % (j == i ? 7 : 9)) - 4;
                A->val[k++] = (2.0 * mixm_rng_uniform(&g) - 1.0) * ldexp(1.0, e);
            }
    }
    if (!st) A->rowptr[SS_N] = A->nnz = k;
    free(mark);
    return st;
}

/* The slices the rectangular layout must escape (their j - i, j = i included, spanning more
 * than int16 holds, or padding beyond twice the entries plus 64), and those it must shift (an
 * entry beyond int16 of its row, the span within it). */
static void ss_expect(const mixm_csr *A, long *escaped, long *shifted)
{
    *escaped = *shifted = 0;
    for (int i0 = 0; i0 < A->nrows; i0 += MIXK_SELL_C) {
        long w = 0, m = 0, dmin = 0, dmax = 0, far = 0, any = 0;
        for (int i = i0; i < A->nrows && i < i0 + MIXK_SELL_C; i++) {
            long c = 0;
            for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                const long d = (long)A->colind[q] - i;
                c++;
                dmin = any && dmin < d ? dmin : d;
                dmax = any && dmax > d ? dmax : d;
                any = 1;
                far |= d < -32768 || d > 32767;
            }
            w = c > w ? c : w;
            m += c;
        }
        const int pad = MIXK_SELL_C * w > 2 * m + 64;
        *escaped += (far && dmax - dmin > 65535) || pad;
        *shifted += far && dmax - dmin <= 65535 && !pad;
    }
}

/* ---- the layout (CPU: its arrays are host memory) ------------------------------------------------ */

/* a, in format p, as the rectangular copy stores it (FIXED16: q h on the step of the row's
 * largest magnitude rmax, the matrix's mantissa c), as a double. */
static double ss_stored(mix_prec p, double a, double rmax, float c)
{
    switch (p) {
    case MIX_FP32: return (double)(float)a;
    case MIX_FP16: return (double)mixk_f16_to_f32(mixk_f64_to_f16(a));
    case MIX_BF16: return (double)mixk_bf16_to_f32(mixk_f64_to_bf16(a));
    case MIX_FIXED16: {
        const double h = mixk_fixed16_row_step(mixk_fixed16_row_exp(rmax, c), c);
        return h > 0.0 ? mixk_fixed16_encode_f64(a / h, 1.0) * h : 0.0;
    }
    default: return a;
    }
}

/* The largest |a_ij| of row i, j = i included, and FIXED16's mantissa from the whole matrix's. */
static double ss_rowmax(const mixm_csr *A, int i) { return mixk_fixed16_row_absmax(A->rowptr, A->colind, A->val, NULL, i, -1); }
static float ss_mant(const mixm_csr *A)
{
    double g = 0.0;
    for (int i = 0; i < A->nrows; i++) g = fmax(g, ss_rowmax(A, i));
    return mixk_fixed16_mant(g);
}

typedef struct {
    long escaped, shifted, bad_cols, bad_vals, bad_pad;
} ss_walk;

static void ss_count(const mixk_sell *C, int64_t n, ss_walk *r)
{
    for (int64_t s = 0; s < mixk_sell_nslice(n); s++) {
        r->escaped += (C->slice[s] & MIXK_SELL_ESC) != 0;
        r->shifted += !(C->slice[s] & MIXK_SELL_ESC) && mixk_sell_shift(C, s) != 0;
    }
}

/* Every row of the rectangular copy C decoded (column i + offset + shift) against A: all its
 * entries, j = i too, in column order, each value the format's rounding of the FP64 one (FIXED16
 * on the step of the row's largest magnitude); no diagonal apart; padding slots value 0, offset
 * 0, their column i + shift one of the matrix's. */
static ss_walk ss_walk_rows(mix_prec p, const mixk_sell *C, const mixm_csr *A)
{
    ss_walk r = {0, 0, 0, 0, 0};
    const float c = ss_mant(A);
    ss_count(C, A->nrows, &r);
    r.bad_vals += C->diag != NULL || (p == MIX_FIXED16 && C->fmant != c);
    for (int i = 0; i < A->nrows; i++) {
        const int64_t s = i / MIXK_SELL_C;
        const int esc = (C->slice[s] & MIXK_SELL_ESC) != 0;
        const double rmax = ss_rowmax(A, i);
        int64_t q = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int e2;
            const int64_t at = mixk_sell_place(C, i, q++, &e2);
            const int64_t j = esc ? C->ecol[at] : i + C->col[at] + mixk_sell_shift(C, s);
            if (e2 != esc || j != A->colind[k]) r.bad_cols++;
            else if (mixk_sell_value(p, C, i, at, esc) != ss_stored(p, A->val[k], rmax, c)) r.bad_vals++;
        }
        if (esc && C->erp[C->eslice[s] + i % MIXK_SELL_C + 1] - C->erp[C->eslice[s] + i % MIXK_SELL_C] != q) r.bad_cols++;
        for (; !esc && q < mixk_sell_width(C, s); q++) {
            int e2;
            const int64_t at = mixk_sell_place(C, i, q, &e2), j = i + mixk_sell_shift(C, s);
            if (C->col[at] != 0 || mixk_sell_value(p, C, i, at, 0) != 0.0 || j < 0 || j >= A->nrows) r.bad_pad++;
        }
        if (p == MIX_FIXED16 && C->rexp[i] != mixk_fixed16_row_exp(rmax, c)) r.bad_vals++;
    }
    return r;
}

/* The test matrix and its FP64 copy in the test backend (A64), for the tests below. */
static void ss_open(mix_context *c, mixm_csr *A, mixi_spmat **A64)
{
    CU_ASSERT_FATAL(!ss_matrix(A));
    *A64 = NULL;
    CU_ASSERT_FATAL(!c->ops->sparse->csr_create(c->state, A->nrows, A->rowptr, A->colind, A->val, A64));
    CU_ASSERT_FATAL(c->ops->sparse->csr_convert_rect != NULL);
}

/* The rectangular copy of every SELL format: the slices escaped and shifted as ss_expect says
 * (csr_convert's copy escapes every far slice), each entry at its column with its format's
 * value, fewer bytes; FP64 the same CSR as csr_convert's. */
static void test_shift_layout(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    mix_context *c = mixt_context();
    const mixi_sparse_ops *o = c->ops->sparse;
    mixm_csr A;
    mixi_spmat *A64;
    ss_open(c, &A, &A64);
    long want_esc, want_shift;
    ss_expect(&A, &want_esc, &want_shift);
    CU_ASSERT(want_shift > 1000 && want_esc >= 14); /* the matrix has both */
    const mixt_prec_set ps = mixt_precs(MIX_ROLE_STORAGE, 0);
    for (int k = 0; k < ps.n; k++) {
        mixi_spmat *S = NULL, *U = NULL;
        int64_t bs = 0, bu = 0;
        CU_ASSERT_FATAL(!o->csr_convert_rect(c->state, A64, ps.p[k], NULL, &S));
        CU_ASSERT_FATAL(!o->csr_convert(c->state, A64, ps.p[k], NULL, &U));
        CU_ASSERT(!o->csr_bytes(c->state, S, &bs) && !o->csr_bytes(c->state, U, &bu));
        if (!mixk_sell_used(ps.p[k])) {
            CU_ASSERT_EQUAL(bs, bu); /* FP64: plain CSR either way */
        } else {
            const ss_walk w = ss_walk_rows(ps.p[k], mixi_cpu_spmat_sell(S), &A);
            ss_walk wu = {0, 0, 0, 0, 0};
            ss_count(mixi_cpu_spmat_sell(U), A.nrows, &wu);
            CU_ASSERT_EQUAL(w.escaped, want_esc);
            CU_ASSERT_EQUAL(w.shifted, want_shift);
            CU_ASSERT(w.bad_cols == 0 && w.bad_vals == 0 && w.bad_pad == 0);
            CU_ASSERT(wu.escaped >= want_esc + want_shift && wu.shifted == 0);
            CU_ASSERT(mixi_cpu_spmat_sell(U)->shift == NULL && mixi_cpu_spmat_sell(U)->diag != NULL);
            CU_ASSERT(bs < bu);
            if (w.bad_cols || w.bad_vals || w.bad_pad || w.escaped != want_esc || w.shifted != want_shift)
                printf("\n    %s: escaped %ld (want %ld), shifted %ld (want %ld), bad %ld %ld %ld",
                       mixk_prec_name(ps.p[k]), w.escaped, want_esc, w.shifted, want_shift, w.bad_cols,
                       w.bad_vals, w.bad_pad);
        }
        o->csr_destroy(c->state, S);
        o->csr_destroy(c->state, U);
    }
    /* A square stencil's copy keeps no shift array: nothing of it lies beyond int16. */
    mixm_csr L;
    mixi_spmat *L64 = NULL, *LS = NULL;
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(34, &L)); /* 39304 rows */
    CU_ASSERT_FATAL(!o->csr_create(c->state, L.nrows, L.rowptr, L.colind, L.val, &L64));
    CU_ASSERT_FATAL(!o->csr_convert_rect(c->state, L64, MIX_FIXED16, NULL, &LS));
    CU_ASSERT(mixi_cpu_spmat_sell(LS)->shift == NULL);
    o->csr_destroy(c->state, LS);
    o->csr_destroy(c->state, L64);
    mixm_csr_free(&L);
    o->csr_destroy(c->state, A64);
    mixm_csr_free(&A);
    mix_context_destroy(c);
}

/* ---- products ------------------------------------------------------------------------------------ */

/* A vector of the backend, zeroed, and its host copy (values without the kernels' padding, then
 * the FIXED16 norms). */
typedef struct {
    mixi_svec v;
    unsigned char *h;
    size_t vb, nb;
} ss_vec;

static void ss_vec_new(mix_context *c, mix_prec p, int n, ss_vec *x)
{
    memset(x, 0, sizeof *x);
    x->v.prec = p, x->v.n = n;
    CU_ASSERT_FATAL(!mixi_svec_bytes(p, n, &x->vb, &x->nb));
    x->v.val = mixt_put(c, NULL, x->vb);
    x->v.norm = x->nb ? mixt_put(c, NULL, x->nb) : NULL;
    x->h = malloc(x->vb + x->nb);
    CU_ASSERT_FATAL(x->v.val && (!x->nb || x->v.norm) && x->h);
}

static void ss_vec_get(mix_context *c, ss_vec *x)
{
    CU_ASSERT_FATAL(!mixt_get(c, x->h, x->v.val, x->vb - 16));
    if (x->nb) CU_ASSERT_FATAL(!mixt_get(c, x->h + x->vb - 16, x->v.norm, x->nb));
}

static double ss_at(const ss_vec *x, int64_t i)
{
    return mixk_svec_ld(x->v.prec, x->h, x->nb ? (const float *)(const void *)(x->h + x->vb - 16) : NULL, i);
}

static int ss_same(const ss_vec *a, const ss_vec *b)
{
    return !memcmp(a->h, b->h, a->vb - 16 + a->nb);
}

static void ss_vec_free(mix_context *c, ss_vec *x)
{
    mixt_drop(c, x->v.val);
    mixt_drop(c, x->v.norm);
    free(x->h);
}

/* x: magnitudes 2^-6 .. 2^6, both signs (into backend memory: xd). */
static double *ss_x(mix_context *c, int n)
{
    mixm_rng g;
    mixm_rng_seed(&g, 31);
    double *h = malloc((size_t)n * sizeof *h);
    CU_ASSERT_FATAL(h != NULL);
    for (int i = 0; i < n; i++)
        h[i] = (2.0 * mixm_rng_uniform(&g) - 1.0) * ldexp(1.0, (int)(mixm_rng_next(&g) % 13) - 6);
    double *d = mixt_put(c, h, (size_t)n * sizeof *h);
    free(h);
    CU_ASSERT_FATAL(d != NULL);
    return d;
}

/* |y - (A x)| (or A^T x, transposed) per entry within the storage's rounding of A's entries
 * (half a unit of the format; FIXED16's at most rowmax / 32767, the row's largest magnitude j = i
 * included), the FP64 sums and one rounding of y into its vector (vp) of the exact product. */
static long ss_off_reference(mix_prec p, mix_prec vp, const mixm_csr *A, const ss_vec *x, const ss_vec *y,
                             int transposed)
{
    const int m = y->v.n;
    const double u = p == MIX_FP64 ? 0x1p-53 : ldexp(1.0, -mixk_prec_mant_bits(p) - 1);
    double *ref = calloc((size_t)m, sizeof *ref), *bnd = calloc((size_t)m, sizeof *bnd);
    CU_ASSERT_FATAL(ref && bnd);
    for (int i = 0; i < A->nrows; i++) {
        const double rowmax = ss_rowmax(A, i);
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k], r = transposed ? j : i;
            const double xv = ss_at(x, transposed ? i : j), a = A->val[k];
            const double e = p == MIX_FIXED16 ? rowmax / 32767.0 : u * fabs(a);
            ref[r] += a * xv;
            bnd[r] += (e + (p == MIX_FP16 ? 0x1p-25 : 0.0)) * fabs(xv) + 0x1p-50 * fabs(a * xv);
        }
    }
    long bad = 0;
    for (int r = 0; r < m; r++)
        bad += !(fabs(ss_at(y, r) - ref[r]) <= bnd[r] + (vp == MIX_FP64 ? 0x1p-52 : 0x1p-23) * fabs(ref[r]));
    free(ref);
    free(bnd);
    return bad;
}

/* y = A x over x in p's accumulator, as the rectangular layout defines it, computed here from
 * the FP64 matrix: each row's stored values (ss_stored; FIXED16 q) times x_j summed in FP64 in
 * column order, j = i among them, then FIXED16's step, one rounding.  Rows of y that differ. */
static long ss_emulated(mix_prec p, const mixm_csr *A, const ss_vec *x, const ss_vec *y)
{
    const float c = ss_mant(A);
    long bad = 0;
    for (int i = 0; i < A->nrows; i++) {
        const double rmax = ss_rowmax(A, i);
        const double h = p == MIX_FIXED16 ? mixk_fixed16_row_step(mixk_fixed16_row_exp(rmax, c), c) : 1.0;
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += ss_stored(p, A->val[k], rmax, c) / h * ss_at(x, A->colind[k]); /* FIXED16: q, exact */
        const double want = p == MIX_FP64 ? s : (double)(float)(s * h);
        bad += memcmp(&want, &(double){ss_at(y, i)}, sizeof want) != 0;
    }
    return bad;
}

/* Whether the 32 rows of block b hold no entry j = i (where the rectangular copy and
 * csr_convert's, which keeps the diagonal apart, store and add the same). */
static int ss_no_diag(const mixm_csr *A, int64_t b)
{
    for (int64_t i = b * MIXK_SELL_C; i < A->nrows && i < (b + 1) * MIXK_SELL_C; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) return 0;
    return 1;
}

/* Blocks of y (values and FIXED16 norms) that differ between two results, over the blocks
 * without a diagonal entry (all where `all`). */
static long ss_blocks_differ(const mixm_csr *A, const ss_vec *a, const ss_vec *b, int all)
{
    const int64_t n = a->v.n, el = (int64_t)mixk_prec_bytes(a->v.prec);
    const float *na = a->nb ? (const float *)(const void *)(a->h + a->vb - 16) : NULL;
    const float *nb = b->nb ? (const float *)(const void *)(b->h + b->vb - 16) : NULL;
    long bad = 0;
    for (int64_t blk = 0; blk * MIXK_SELL_C < n; blk++) {
        if (!all && !ss_no_diag(A, blk)) continue;
        const int64_t cnt = n - blk * MIXK_SELL_C < MIXK_SELL_C ? n - blk * MIXK_SELL_C : MIXK_SELL_C;
        bad += memcmp(a->h + blk * MIXK_SELL_C * el, b->h + blk * MIXK_SELL_C * el, (size_t)(cnt * el)) != 0 ||
               (na && memcmp(na + blk, nb + blk, sizeof *na) != 0);
    }
    return bad;
}

/* One product of M (spmv, or spmv_t into the first SS_M columns) over x into y (host copy
 * taken). */
static void ss_product(mix_context *c, const mixi_spmat *M, int transposed, ss_vec *x, ss_vec *y, double *xy)
{
    const mixi_sparse_ops *o = c->ops->sparse;
    *xy = 0.0;
    CU_ASSERT_FATAL((transposed ? o->spmv_t(c->state, M, &x->v, &y->v) : o->spmv(c->state, M, &x->v, &y->v, xy)) ==
                    MIX_SUCCESS);
    ss_vec_get(c, y);
}

/* The checks of one storage p and vector format vp: the rectangular copy's y (ys) against
 * csr_convert's (yu) and the layout's definition; returns the failures. */
static long ss_check(mix_prec p, mix_prec vp, int transposed, const mixm_csr *A, const ss_vec *x,
                     const ss_vec *ys, const ss_vec *yu)
{
    const int acc = vp == mixk_prec_acc(p);
    long bad = 0;
    if (!transposed) {
        /* Every row as defined (acc vectors); elsewhere the blocks without j = i as csr_convert's. */
        bad += acc ? ss_emulated(p, A, x, ys) : ss_blocks_differ(A, ys, yu, 0);
    } else if (p != MIX_FIXED16 && mixt_backend == MIX_BACKEND_CPU) {
        /* A^T x: the same products into each column in row order (element formats store j = i
         * alike in either copy; CUDA's atomics add in a varying order). */
        bad += ss_blocks_differ(A, ys, yu, 1);
    }
    if (acc) bad += ss_off_reference(p, vp, A, x, ys, transposed);
    return bad;
}

/* What the product tests share: a context, the test matrix, its FP64 copy and an x on the
 * backend. */
typedef struct {
    mix_context *c;
    mixm_csr A;
    mixi_spmat *A64;
    double *xd;
} ss_fixture;

static void ss_begin(ss_fixture *f)
{
    f->c = mixt_context();
    ss_open(f->c, &f->A, &f->A64);
    f->xd = ss_x(f->c, f->A.nrows);
}

static void ss_end(ss_fixture *f)
{
    mixt_drop(f->c, f->xd);
    f->c->ops->sparse->csr_destroy(f->c->state, f->A64);
    mixm_csr_free(&f->A);
    mix_context_destroy(f->c);
}

/* Every storage format, its own vectors and (16-bit) FP32 ones: y = A x of the rectangular
 * copy is the layout's definition computed from the FP64 matrix, bit for bit, and csr_convert's
 * copy's bits where a block has no j = i; A^T x the latter's bits (element formats, CPU); both
 * within the storage's rounding of the FP64 product. */
static void ss_products(int transposed)
{
    ss_fixture f;
    ss_begin(&f);
    mix_context *c = f.c;
    const mixi_sparse_ops *o = c->ops->sparse;
    const mixt_prec_set ps = mixt_precs(MIX_ROLE_STORAGE, 0);
    for (int k = 0; k < ps.n; k++)
        for (int wide = 0; wide < 2; wide++) {
            const mix_prec p = ps.p[k], vp = wide ? mixk_prec_acc(p) : p;
            if (wide && vp == p) continue;
            if (!wide && transposed && p != mixk_prec_acc(p)) continue; /* spmv_t: acc vectors */
            mixi_spmat *S = NULL, *U = NULL;
            ss_vec x, ys, yu;
            double xys, xyu;
            CU_ASSERT_FATAL(!o->csr_convert_rect(c->state, f.A64, p, NULL, &S));
            CU_ASSERT_FATAL(!o->csr_convert(c->state, f.A64, p, NULL, &U));
            ss_vec_new(c, vp, f.A.nrows, &x);
            ss_vec_new(c, vp, transposed ? SS_M : f.A.nrows, &ys);
            ss_vec_new(c, vp, transposed ? SS_M : f.A.nrows, &yu);
            CU_ASSERT_FATAL(!o->vec_from64(c->state, f.xd, NULL, 1.0, &x.v, NULL));
            ss_vec_get(c, &x);
            ss_product(c, S, transposed, &x, &ys, &xys);
            ss_product(c, U, transposed, &x, &yu, &xyu);
            const long bad = ss_check(p, vp, transposed, &f.A, &x, &ys, &yu);
            CU_ASSERT_EQUAL(bad, 0);
            if (bad)
                printf("\n    %s over %s%s: %ld failures", mixk_prec_name(p), mixk_prec_name(vp),
                       transposed ? ", A^T x" : "", bad);
            ss_vec_free(c, &x);
            ss_vec_free(c, &ys);
            ss_vec_free(c, &yu);
            o->csr_destroy(c->state, S);
            o->csr_destroy(c->state, U);
        }
    ss_end(&f);
}

static void test_shift_spmv(void) { ss_products(0); }
static void test_shift_spmv_t(void) { ss_products(1); }

/* The CPU's SpMV bodies on the rectangular copy (forced by MIXSOLVE_SPMV_VARIANT, which the copy's
 * tuner reads when made; the AVX-512 ones run AVX2's where the CPU or MIXSOLVE_CPU_ISA has no
 * AVX-512): the portable body's bits, every SELL format, its own and FP32 vectors. */
static void test_shift_spmv_bodies(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    ss_fixture f;
    ss_begin(&f);
    mix_context *c = f.c;
    const mixi_sparse_ops *o = c->ops->sparse;
    const mixt_prec_set ps = mixt_precs(MIX_ROLE_STORAGE, 1);
    for (int k = 0; k < ps.n; k++)
        for (int wide = 0; wide < 2; wide++) {
            const mix_prec p = ps.p[k], vp = wide ? MIX_FP32 : p;
            if (wide && p == MIX_FP32) continue;
            ss_vec x, ref;
            double xr = 0.0;
            ss_vec_new(c, vp, f.A.nrows, &x);
            ss_vec_new(c, vp, f.A.nrows, &ref);
            CU_ASSERT_FATAL(!o->vec_from64(c->state, f.xd, NULL, 1.0, &x.v, NULL));
            for (int v = -1; v <= MIXI_SPMV_AVX2_LOADS; v++) { /* -1: the portable body */
                mixi_spmat *S = NULL;
                ss_vec y;
                double xy = 0.0;
                if (v >= 0) setenv("MIXSOLVE_SPMV_VARIANT", mixi_spmv_variant_name(v), 1);
                mixi_cpu_sparse_force_portable(v < 0);
                CU_ASSERT_FATAL(!o->csr_convert_rect(c->state, f.A64, p, NULL, &S));
                unsetenv("MIXSOLVE_SPMV_VARIANT");
                ss_vec_new(c, vp, f.A.nrows, &y);
                ss_product(c, S, 0, &x, v < 0 ? &ref : &y, v < 0 ? &xr : &xy);
                mixi_cpu_sparse_force_portable(0);
                if (v >= 0 && (!ss_same(&y, &ref) || memcmp(&xy, &xr, sizeof xy))) {
                    CU_FAIL("a vector SpMV body of the rectangular copy is not the portable body's bits");
                    printf("\n    %s over %s, %s", mixk_prec_name(p), mixk_prec_name(vp), mixi_spmv_variant_name(v));
                }
                ss_vec_free(c, &y);
                o->csr_destroy(c->state, S);
            }
            ss_vec_free(c, &x);
            ss_vec_free(c, &ref);
        }
    ss_end(&f);
}

/* Multigrid stores its prolongators in the rectangular layout: a 2-D anisotropic operator of
 * 102400 rows (coupling 1e-3: its fine level's smoothing filters the weak couplings, so its P is
 * stored, not implicit), FIXED16 AMG-PCG converges, and the fine level's P has shifted slices
 * (its columns near i / 3 lie beyond int16 of row i from row ~49000 on), none escaped, and no
 * diagonal apart. */
static void test_shift_amg(void)
{
    if (mixt_backend != MIX_BACKEND_CPU) return;
    mixm_csr A;
    CU_ASSERT_FATAL(!mixm_gen_anisotropic2d(320, 1e-3, &A));
    mix_context *c = mixt_context();
    mix_sparse *S = NULL;
    CU_ASSERT_FATAL(!mix_sparse_create_csr(c, A.nrows, A.rowptr, A.colind, A.val, &S));
    double *b = mixt_dalloc((size_t)A.nrows), *x = mixt_dalloc((size_t)A.nrows);
    for (int i = 0; i < A.nrows; i++) b[i] = 1.0 + (double)(i % 7);
    mix_cg_params p;
    mix_cg_params_init(&p);
    p.sloppy_prec = MIX_FIXED16;
    p.precond = MIX_PRECOND_AMG;
    mix_cg_info info;
    CU_ASSERT_EQUAL(mix_dcg(c, &p, S, b, x, &info), MIX_SUCCESS);
    CU_ASSERT(info.converged && info.iter <= 25);
    CU_ASSERT(mixt_cg_true_rel(&A, b, x) <= 1e-9);
    const mixi_amg *H = S->amg;
    CU_ASSERT_FATAL(H != NULL && H->stored[MIX_FIXED16] != NULL && H->nlev > 1);
    CU_ASSERT(!H->lev[0].implicit);
    const mixk_sell *P = mixi_cpu_spmat_sell(H->stored[MIX_FIXED16][0].P);
    CU_ASSERT_FATAL(P != NULL);
    long esc = 0, shifted = 0;
    for (int64_t s = 0; s < mixk_sell_nslice(P->n); s++) {
        esc += (P->slice[s] & MIXK_SELL_ESC) != 0;
        shifted += mixk_sell_shift(P, s) != 0;
    }
    CU_ASSERT_EQUAL(esc, 0);
    CU_ASSERT(shifted > 500 && P->diag == NULL);
    free(b);
    free(x);
    mix_sparse_destroy(S);
    mix_context_destroy(c);
    mixm_csr_free(&A);
}

static const mixt_test sell_shift_tests[] = {
    {"rect layout: escapes, shifts, columns, values", test_shift_layout},
    {"rect spmv: the layout's bits, FP64 bound", test_shift_spmv},
    {"rect spmv_t: csr_convert's bits (CPU), FP64 bound", test_shift_spmv_t},
    {"rect spmv: every CPU body = portable bits", test_shift_spmv_bodies},
    {"AMG stores P rectangular, out of the escape", test_shift_amg},
    {NULL, NULL},
};

void mixt_register_sell_shift(mix_backend b) { mixt_add_backend_suite(b, "sell-shift", sell_shift_tests); }
