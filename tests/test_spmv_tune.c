/* test_spmv_tune.c: the CPU SpMV variants (contiguous slots, gathers, AVX2/AVX-512 bodies) give the portable body's bits; the tuner's choice, MIXSOLVE_TUNE=off and the pure pick. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#include "kernels/backend_sparse.h"
#include "kernels/common/sell.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/sparse_cpu.h"
#include "kernels/cpu/spmv_tune.h"
#include "matrices/generators.h"

/* The storage precisions of the library's list but FP64 (the SELL formats). */
#define st_precs (mixt_precs(MIX_ROLE_STORAGE, 1).p)
#define ST_NPREC (mixt_precs(MIX_ROLE_STORAGE, 1).n)

/* ---- test matrices: a band with holes, and random rows ----------------------------------------- */

/* Rows of columns i + d for d in [-hw, hw], dropping the ones where (i + d) % hole == 0 off the
 * diagonal (hole 0: none), or `extra` random columns per row (random != 0). */
static int st_make(int n, int hw, int hole, int extra, uint64_t seed, mixm_csr *A)
{
    if (mixm_csr_alloc(A, n, n, (int64_t)n * (2 * hw + 1 + extra))) return 0;
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    int64_t nz = 0;
    char *mark = calloc((size_t)n, 1);
    if (!mark) return 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = nz;
        for (int d = -hw; d <= hw; d++)
            if (i + d >= 0 && i + d < n && (d == 0 || !hole || (i + d) % hole)) mark[i + d] = 1;
        for (int e = 0; e < extra; e++) mark[(int)(mixm_rng_uniform(&g) * n) % n] = 1;
        mark[i] = 1;
        for (int j = 0; j < n; j++) /* sorted columns; n is small */
            if (mark[j]) {
                A->colind[nz] = j;
                A->val[nz++] = j == i ? 8.0 + mixm_rng_uniform(&g) : mixm_rng_uniform(&g) - 0.5;
                mark[j] = 0;
            }
    }
    A->rowptr[n] = nz;
    A->nnz = nz;
    free(mark);
    return 1;
}

/* ---- one SpMV on the CPU backend ------------------------------------------------------------------ */

typedef struct {
    mix_context *ctx;
    const mixi_sparse_ops *o;
    mixi_spmat *A64;
    int n;
    double *x64;
} st_fix;

typedef struct {
    size_t vb, nb;
    unsigned char *y; /* values then norms */
    double xy;
} st_out;

static void st_open(st_fix *f, const mixm_csr *A)
{
    CU_ASSERT_FATAL(!mix_context_create(&f->ctx, MIX_BACKEND_CPU));
    f->o = f->ctx->ops->sparse;
    f->n = A->nrows;
    CU_ASSERT_FATAL(!f->o->csr_create(f->ctx->state, A->nrows, A->rowptr, A->colind, A->val, &f->A64));
    f->x64 = mixt_rand64((size_t)A->nrows, 77);
    CU_ASSERT_FATAL(f->x64 != NULL);
}

static void st_close(st_fix *f)
{
    f->o->csr_destroy(f->ctx->state, f->A64);
    free(f->x64);
    mix_context_destroy(f->ctx);
}

static void sv_new(const st_fix *f, mix_prec p, mixi_svec *v)
{
    size_t vb = 0, nb = 0;
    CU_ASSERT_FATAL(!mixi_svec_bytes(p, f->n, &vb, &nb));
    *v = (mixi_svec){p, f->n, calloc(1, vb), nb ? calloc(1, nb) : NULL};
    CU_ASSERT_FATAL(v->val && (!nb || v->norm));
}

/* `calls` SpMVs of As on x (the fixture's x in vp); every one's y and xy must equal the first's;
 * the first goes to *out. */
static int st_spmv(const st_fix *f, const mixi_spmat *As, mix_prec vp, int calls, st_out *out)
{
    mixi_svec x, y;
    sv_new(f, vp, &x);
    sv_new(f, vp, &y);
    CU_ASSERT_FATAL(!f->o->vec_from64(f->ctx->state, f->x64, NULL, 1.0, &x, NULL));
    mixi_svec_bytes(vp, f->n, &out->vb, &out->nb);
    out->y = malloc(out->vb + out->nb);
    CU_ASSERT_FATAL(out->y != NULL);
    int same = 1;
    for (int c = 0; c < calls; c++) {
        double xy = 0.0;
        CU_ASSERT_FATAL(!f->o->spmv(f->ctx->state, As, &x, &y, &xy));
        const size_t used = out->vb - 16; /* the padding is never written */
        if (c == 0) {
            memcpy(out->y, y.val, used);
            if (out->nb) memcpy(out->y + out->vb, y.norm, out->nb);
            out->xy = xy;
        } else {
            same &= memcmp(out->y, y.val, used) == 0 && memcmp(&xy, &out->xy, sizeof xy) == 0 &&
                    (!out->nb || memcmp(out->y + out->vb, y.norm, out->nb) == 0);
        }
    }
    free(x.val), free(x.norm), free(y.val), free(y.norm);
    return same;
}

static int st_same(const st_out *a, const st_out *b)
{
    return memcmp(a->y, b->y, a->vb - 16) == 0 && (!a->nb || memcmp(a->y + a->vb, b->y + b->vb, a->nb) == 0) &&
           memcmp(&a->xy, &b->xy, sizeof a->xy) == 0;
}

/* Every variant forced, and the tuner, against the portable body, on every SELL format with its
 * own vectors and (16-bit) FP32 vectors.  Returns the share of contiguous slot rows seen. */
static double st_variants(const mixm_csr *A)
{
    st_fix f;
    st_open(&f, A);
    double contig = 0.0;
    for (int k = 0; k < ST_NPREC; k++)
        for (int wide = 0; wide < 2; wide++) {
            const mix_prec p = st_precs[k], vp = wide ? MIX_FP32 : p;
            if (wide && p == MIX_FP32) continue;
            mixi_spmat *As = NULL;
            st_out ref, got;
            mixi_cpu_sparse_force_portable(1);
            CU_ASSERT_FATAL(!f.o->csr_convert(f.ctx->state, f.A64, p, NULL, &As));
            CU_ASSERT(st_spmv(&f, As, vp, 1, &ref));
            f.o->csr_destroy(f.ctx->state, As);
            mixi_cpu_sparse_force_portable(0);
            for (int v = 0; v <= MIXI_SPMV_PORTABLE; v++) {
                setenv("MIXSOLVE_SPMV_VARIANT", mixi_spmv_variant_name(v), 1);
                CU_ASSERT_FATAL(!f.o->csr_convert(f.ctx->state, f.A64, p, NULL, &As));
                CU_ASSERT(st_spmv(&f, As, vp, 2, &got));
                if (!st_same(&ref, &got))
                    CU_FAIL_FATAL("a forced SpMV variant is not the portable body's bits");
                free(got.y);
                f.o->csr_destroy(f.ctx->state, As);
            }
            unsetenv("MIXSOLVE_SPMV_VARIANT");
            /* The tuner: every timed call (and the ones after) the same bits. */
            CU_ASSERT_FATAL(!f.o->csr_convert(f.ctx->state, f.A64, p, NULL, &As));
            CU_ASSERT(strcmp(mixi_cpu_spmv_variant(As, NULL), "tuning") == 0 ||
                      !mixi_cpu_has_f16c());
            CU_ASSERT(st_spmv(&f, As, vp, MIXI_TUNE_WARMUP + MIXI_TUNE_ROUNDS * (4 + MIXI_SPMV_NPF) + 2, &got));
            CU_ASSERT(st_same(&ref, &got));
            CU_ASSERT(strcmp(mixi_cpu_spmv_variant(As, &contig), "tuning") != 0);
            CU_ASSERT(f.o->spmv_rate(p) > 0.0);
            free(got.y);
            free(ref.y);
            f.o->csr_destroy(f.ctx->state, As);
        }
    st_close(&f);
    return contig;
}

static void test_variants_stencil(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(20, &A));
    CU_ASSERT(st_variants(&A) > 0.25); /* 20-row grid lines: a third of its slot rows (100^3: 77%) */
    mixm_csr_free(&A);
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(17, &A)); /* n % 32 != 0 */
    st_variants(&A);
    mixm_csr_free(&A);
}

static void test_variants_banded(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(st_make(5003, 4, 0, 0, 1, &A));
    CU_ASSERT(st_variants(&A) > 0.9);
    mixm_csr_free(&A);
    CU_ASSERT_FATAL(st_make(4999, 3, 37, 0, 2, &A)); /* holes: some slots gather */
    st_variants(&A);
    mixm_csr_free(&A);
}

static void test_variants_random(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(st_make(4500, 1, 0, 5, 3, &A));
    st_variants(&A);
    mixm_csr_free(&A);
}

/* MIXSOLVE_TUNE=off: the default at once, and it stays. */
static void test_tune_off(void)
{
    mixm_csr A;
    CU_ASSERT_FATAL(!mixm_gen_poisson3d(12, &A));
    st_fix f;
    st_open(&f, &A);
    setenv("MIXSOLVE_TUNE", "off", 1);
    mixi_spmat *As = NULL;
    CU_ASSERT_FATAL(!f.o->csr_convert(f.ctx->state, f.A64, MIX_FP16, NULL, &As));
    mixi_spmv_tuner T;
    mixi_spmv_tuner_init(&T, MIX_FP16, 1, 1);
    CU_ASSERT_STRING_EQUAL(mixi_spmv_tuner_choice(&T), "avx512-gather");
    const char *before = mixi_cpu_spmv_variant(As, NULL);
    CU_ASSERT(strcmp(before, "tuning") != 0);
    st_out o;
    CU_ASSERT(st_spmv(&f, As, MIX_FP16, 20, &o));
    CU_ASSERT_STRING_EQUAL(mixi_cpu_spmv_variant(As, NULL), before);
    free(o.y);
    f.o->csr_destroy(f.ctx->state, As);
    unsetenv("MIXSOLVE_TUNE");
    mixi_spmv_tuner_init(&T, MIX_FP16, 1, 0);
    CU_ASSERT_STRING_EQUAL(mixi_spmv_tuner_choice(&T), "tuning");
    CU_ASSERT_EQUAL(T.ncand, 3); /* no AVX-512: AVX2's three bodies */
    st_close(&f);
    mixm_csr_free(&A);
}

/* The choice is a pure function of the timing table. */
static void test_tune_pick(void)
{
    const double t1[] = {1.0, 0.9, 1.1, 0.95};
    CU_ASSERT_EQUAL(mixi_spmv_tune_pick(t1, 4, 0), 1);
    CU_ASSERT_EQUAL(mixi_spmv_tune_pick(t1, 4, 0), 1); /* again: the same */
    const double t2[] = {1.01, 1.0, 1.2, 1.3};         /* the default within 2%: kept */
    CU_ASSERT_EQUAL(mixi_spmv_tune_pick(t2, 4, 0), 0);
    CU_ASSERT_EQUAL(mixi_spmv_tune_pick(t2, 4, 3), 1);
    const double t3[] = {0.0, NAN, 2.0, 2.0}; /* untimed entries skipped; ties: the lower index */
    CU_ASSERT_EQUAL(mixi_spmv_tune_pick(t3, 4, 0), 2);
    const double t4[] = {0.0, -1.0, INFINITY};
    CU_ASSERT_EQUAL(mixi_spmv_tune_pick(t4, 3, 0), -1);
    /* A tuner fed a synthetic table through its calls keeps the fastest. */
    mixi_spmv_tuner T;
    mixi_spmv_tuner_init(&T, MIX_BF16, 1, 1);
    const double ms[] = {3.0, 2.0, 1.0, 1.5, 1.2}; /* per candidate: avx2-contig fastest */
    CU_ASSERT_EQUAL(T.ncand, 5);
    CU_ASSERT_EQUAL(T.cand[T.dflt], MIXI_SPMV_AVX512_GATHER);
    /* The warm-up runs the default, and its times (here the fastest of all) are not counted. */
    for (int c = 0; c < MIXI_TUNE_WARMUP; c++) {
        CU_ASSERT_EQUAL(mixi_spmv_tuner_next(&T), MIXI_SPMV_AVX512_GATHER);
        CU_ASSERT(mixi_spmv_tuner_timing(&T));
        mixi_spmv_tuner_done(&T, MIX_BF16, MIXI_SPMV_AVX512_GATHER, 1e-6, 1e6);
    }
    CU_ASSERT_STRING_EQUAL(mixi_spmv_tuner_choice(&T), "tuning");
    for (int c = 0; c < MIXI_TUNE_ROUNDS * T.ncand; c++) {
        const int v = mixi_spmv_tuner_next(&T);
        int idx = 0;
        while (T.cand[idx] != v) idx++;
        mixi_spmv_tuner_done(&T, MIX_BF16, v, 1e-3 * ms[idx] * (1.0 + 0.01 * (c % 3)), 1e6);
    }
    CU_ASSERT_STRING_EQUAL(mixi_spmv_tuner_choice(&T), "avx2-contig");
    CU_ASSERT_EQUAL(mixi_spmv_tuner_next(&T), MIXI_SPMV_AVX2_CONTIG);
    CU_ASSERT(fabs(mixi_spmv_rate(MIX_BF16) - 1e6 / 1e-3) <= 1.0); /* the fastest candidate's */
    CU_ASSERT_EQUAL(mixi_spmv_variant_parse("avx2-gather"), MIXI_SPMV_AVX2_GATHER);
    CU_ASSERT_EQUAL(mixi_spmv_variant_parse("avx2-loads-pf"),
                    MIXI_SPMV_AVX2_LOADS | MIXI_SPMV_PF_DIST << MIXI_SPMV_PF_SHIFT);
    CU_ASSERT_EQUAL(mixi_spmv_variant_parse("nope"), -1);
}

static const mixt_test spmv_tune_tests[] = {
    {"SpMV variants = portable bits, 3D Poisson, every SELL format", test_variants_stencil},
    {"SpMV variants = portable bits, banded (with holes)", test_variants_banded},
    {"SpMV variants = portable bits, random rows", test_variants_random},
    {"MIXSOLVE_TUNE=off pins the default", test_tune_off},
    {"tuner: the choice is a pure function of the timings", test_tune_pick},
    {NULL, NULL},
};

void mixt_register_spmv_tune(void) { mixt_add_suite("spmv-tune", spmv_tune_tests); }
