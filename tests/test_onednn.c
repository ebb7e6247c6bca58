/* test_onednn.c: the CPU backend's oneDNN GEMM engine against OpenBLAS (FP32, BF16, rounded TF32) and in full LU-IR solves. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#include "kernels/backend_dense.h"
#include "kernels/cpu/convert_cpu.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/onednn_gemm.h"
#include "solvers/dense/lu_profile.h"
#include "matrices/generators.h"

#ifdef MIX_HAVE_ONEDNN

/* The gemm_f32 op of the CPU backend under `engine` (C copied from c0 first). */
static int op_gemm(int engine, mix_prec p, int m, int n, int k, float alpha, const float *a,
                   int lda, const float *b, int ldb, float beta, const float *c0, float *c,
                   int ldc, size_t *ovf)
{
    const mixi_dense_ops *d = mixi_backend_lookup(MIX_BACKEND_CPU)->dense;
    float *work = malloc(((size_t)m * k + (size_t)k * n + 1) * sizeof *work);
    memcpy(c, c0, (size_t)ldc * n * sizeof *c);
    mixi_cpu_gemm_force_engine(engine);
    int rc = d->gemm_f32(NULL, p, MIXK_NOTRANS, MIXK_NOTRANS, m, n, k, alpha, a, lda, b, ldb, beta,
                         c, ldc, work, ovf);
    mixi_cpu_gemm_force_engine(-1);
    free(work);
    return rc;
}

/* Both results accumulate exact products in FP32 in some order: each is within (k+1) u of
 * alpha (A~ B~) + beta C0 in |alpha| |A~| |B~| + |beta| |C0| (A~, B~ the rounded inputs), so
 * they differ by at most twice that, plus the rounding of beta C0. */
static int agree(mix_prec p, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, const float *c0, const float *c1,
                 const float *c2, int ldc)
{
    float *ra = malloc((size_t)lda * (k ? k : 1) * sizeof *ra);
    float *rb = malloc((size_t)ldb * n * sizeof *rb);
    mixi_cpu_round_f32(p, (size_t)lda * k, a, ra);
    mixi_cpu_round_f32(p, (size_t)ldb * n, b, rb);
    int ok = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double mag = 0.0;
            for (int l = 0; l < k; l++)
                mag += fabs((double)ra[i + (size_t)l * lda] * rb[l + (size_t)j * ldb]);
            size_t ic = i + (size_t)j * ldc;
            double bound = (2.0 * k + 4.0) * ldexp(1.0, -24) *
                           (fabs(alpha) * mag + fabs(beta) * fabs(c0[ic]));
            ok &= fabs((double)c1[ic] - c2[ic]) <= bound;
        }
    free(ra);
    free(rb);
    return ok;
}

static const int dims[] = {1, 17, 64, 255};

/* Shape t of 8 (m, n, k from dims), leading dimensions padded by pa, pb, pc; A, B, C0 random
 * (seeds *s, *s + 1, *s + 2), C1 and C2 scratch. */
typedef struct {
    int m, n, k, lda, ldb, ldc;
    float *a, *b, *c0, *c1, *c2;
} gemm_case;

static void case_open(gemm_case *g, int t, int pa, int pb, int pc, uint64_t *s)
{
    g->m = dims[t % 4], g->n = dims[(t + 1 + t / 4) % 4], g->k = dims[(t + 2) % 4];
    g->lda = g->m + pa, g->ldb = g->k + pb, g->ldc = g->m + pc;
    g->a = mixt_rand32((size_t)g->lda * g->k, (*s)++);
    g->b = mixt_rand32((size_t)g->ldb * g->n, (*s)++);
    g->c0 = mixt_rand32((size_t)g->ldc * g->n, (*s)++);
    g->c1 = malloc((size_t)g->ldc * g->n * sizeof *g->c1);
    g->c2 = malloc((size_t)g->ldc * g->n * sizeof *g->c2);
}

static void case_close(gemm_case *g)
{
    free(g->a); free(g->b); free(g->c0); free(g->c1); free(g->c2);
}

/* C1 and C2 := -A B + beta C0 in prec through the op forced to oneDNN and to OpenBLAS, with the
 * overflow counts. */
static void both_engines(const gemm_case *g, mix_prec prec, float beta, size_t *o1, size_t *o2)
{
    CU_ASSERT_EQUAL(op_gemm(MIXI_GEMM_ONEDNN, prec, g->m, g->n, g->k, -1.0f, g->a, g->lda, g->b,
                            g->ldb, beta, g->c0, g->c1, g->ldc, o1), MIX_SUCCESS);
    CU_ASSERT_EQUAL(op_gemm(MIXI_GEMM_OPENBLAS, prec, g->m, g->n, g->k, -1.0f, g->a, g->lda, g->b,
                            g->ldb, beta, g->c0, g->c2, g->ldc, o2), MIX_SUCCESS);
}

/* agree() on the case's C1 (oneDNN) and C2 (the reference) of -A B + beta C0. */
static int case_agree(const gemm_case *g, mix_prec prec, float beta)
{
    return agree(prec, g->m, g->n, g->k, -1.0f, g->a, g->lda, g->b, g->ldb, beta, g->c0, g->c1,
                 g->c2, g->ldc);
}

/* FP32 and TF32 (rounded inputs, oneDNN's FP32 matmul) against OpenBLAS on awkward shapes with
 * padded leading dimensions, alpha = -1 and beta = 1 / 0; C's padding left untouched. */
static void test_f32_vs_openblas(void)
{
    uint64_t s = 12345;
    const mix_prec precs[] = {MIX_FP32, MIX_TF32};
    for (int t = 0; t < 8; t++) {
        gemm_case g;
        case_open(&g, t, 3, 5, 2, &s);
        for (int pi = 0; pi < 2; pi++)
            for (int bi = 0; bi < 2; bi++) {
                float beta = bi ? 0.0f : 1.0f;
                size_t o1 = 9, o2 = 9;
                both_engines(&g, precs[pi], beta, &o1, &o2);
                CU_ASSERT(o1 == 0 && o2 == 0);
                CU_ASSERT(case_agree(&g, precs[pi], beta));
                if (precs[pi] == MIX_FP32) { /* the op did not fall back: oneDNN serves it */
                    memcpy(g.c2, g.c0, (size_t)g.ldc * g.n * sizeof *g.c2);
                    CU_ASSERT_EQUAL(mixi_onednn_gemm_f32(MIX_FP32, 0, 0, g.m, g.n, g.k, -1.0f, g.a,
                                                         g.lda, g.b, g.ldb, beta, g.c2, g.ldc, NULL,
                                                         NULL),
                                    MIX_SUCCESS);
                    CU_ASSERT(memcmp(g.c1, g.c2, (size_t)g.ldc * g.n * sizeof *g.c1) == 0);
                }
                for (int j = 0; j < g.n; j++)
                    for (int i = g.m; i < g.ldc; i++)
                        CU_ASSERT_EQUAL(g.c1[i + (size_t)j * g.ldc], g.c0[i + (size_t)j * g.ldc]);
            }
        case_close(&g);
    }
}

/* The oneDNN engine called directly, FP32: the same as through the op, and k = 0 / alpha = 0
 * give beta C (beta = 0: zeros even over a NaN), as in BLAS. */
static void test_f32_direct_and_degenerate(void)
{
    uint64_t s = 777;
    int m = 17, n = 64, k = 255, lda = 20, ldb = 256, ldc = 19;
    float *a = mixt_rand32((size_t)lda * k, s++), *b = mixt_rand32((size_t)ldb * n, s++);
    float *c0 = mixt_rand32((size_t)ldc * n, s++), *c1 = malloc((size_t)ldc * n * sizeof *c1);
    float *c2 = malloc((size_t)ldc * n * sizeof *c2);
    memcpy(c1, c0, (size_t)ldc * n * sizeof *c1);
    size_t ovf = 5;
    CU_ASSERT_EQUAL(mixi_onednn_gemm_f32(MIX_FP32, 0, 0, m, n, k, 0.5f, a, lda, b, ldb, 2.0f, c1,
                                         ldc, NULL, &ovf), MIX_SUCCESS);
    CU_ASSERT_EQUAL(ovf, 0);
    memcpy(c2, c0, (size_t)ldc * n * sizeof *c2);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 0.5f, a, lda, b, ldb, 2.0f, c2,
                ldc);
    CU_ASSERT(agree(MIX_FP32, m, n, k, 0.5f, a, lda, b, ldb, 2.0f, c0, c1, c2, ldc));
    c1[0] = NAN;
    CU_ASSERT_EQUAL(mixi_onednn_gemm_f32(MIX_FP32, 0, 0, m, n, 0, 1.0f, a, lda, b, ldb, 0.0f, c1,
                                         ldc, NULL, NULL), MIX_SUCCESS);
    int zero = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float v = c1[i + (size_t)j * ldc];
            zero &= v == 0.0f && !signbit(v);
        }
    CU_ASSERT(zero);
    memcpy(c1, c0, (size_t)ldc * n * sizeof *c1);
    CU_ASSERT_EQUAL(mixi_onednn_gemm_f32(MIX_FP32, 0, 0, m, n, k, 0.0f, a, lda, b, ldb, -2.0f, c1,
                                         ldc, NULL, NULL), MIX_SUCCESS);
    int scaled = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            scaled &= c1[i + (size_t)j * ldc] == -2.0f * c0[i + (size_t)j * ldc];
    CU_ASSERT(scaled);
    CU_ASSERT_EQUAL(mixi_onednn_gemm_f32(MIX_FP16, 0, 0, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c1,
                                         ldc, NULL, NULL), MIX_ERR_UNSUPPORTED);
    free(a); free(b); free(c0); free(c1); free(c2);
}

/* BF16: where oneDNN has a BF16 matmul (AVX-512) it agrees with the emulation within the
 * accumulation-order bound and counts the same overflows; where it has none the engine
 * answers UNSUPPORTED with C untouched and the op, forced to oneDNN, gives the emulated result
 * bit for bit. */
static void test_bf16(void)
{
    uint64_t s = 4242;
    int have = mixi_onednn_supports(MIX_BF16);
    for (int t = 0; t < 8; t++) {
        gemm_case g;
        case_open(&g, t, 1, 7, 4, &s);
        if (t == 3) g.a[0] = FLT_MAX; /* above BF16's largest finite value: one overflow */
        for (int bi = 0; bi < 2; bi++) {
            float beta = bi ? 0.0f : 1.0f;
            size_t o1 = 9, o2 = 9;
            both_engines(&g, MIX_BF16, beta, &o1, &o2);
            CU_ASSERT_EQUAL(o1, o2);
            CU_ASSERT_EQUAL(o2, t == 3 ? 1u : 0u);
            if (t == 3) continue; /* the Inf makes the product meaningless */
            if (have) {
                CU_ASSERT(case_agree(&g, MIX_BF16, beta));
            } else {
                CU_ASSERT(memcmp(g.c1, g.c2, (size_t)g.ldc * g.n * sizeof *g.c1) == 0);
            }
        }
        if (!have) {
            void *work = malloc(((size_t)g.m * g.k + (size_t)g.k * g.n + 1) * sizeof(float));
            memcpy(g.c1, g.c0, (size_t)g.ldc * g.n * sizeof *g.c1);
            CU_ASSERT_EQUAL(mixi_onednn_gemm_f32(MIX_BF16, 0, 0, g.m, g.n, g.k, -1.0f, g.a, g.lda,
                                                 g.b, g.ldb, 1.0f, g.c1, g.ldc, work, NULL),
                            MIX_ERR_UNSUPPORTED);
            CU_ASSERT(memcmp(g.c1, g.c0, (size_t)g.ldc * g.n * sizeof *g.c1) == 0);
            free(work);
        }
        case_close(&g);
    }
}

/* The engine choice and what the capabilities report agree. */
static void test_caps(void)
{
    mix_caps caps;
    mixi_cpu_gemm_force_engine(MIXI_GEMM_ONEDNN);
    CU_ASSERT_EQUAL(mix_backend_caps(MIX_BACKEND_CPU, &caps), MIX_SUCCESS);
    CU_ASSERT(strstr(caps.libraries, "FP32 oneDNN") != NULL);
    CU_ASSERT_EQUAL(mixi_cpu_gemm_engine(MIX_BF16),
                    mixi_onednn_supports(MIX_BF16) ? MIXI_GEMM_ONEDNN : MIXI_GEMM_OPENBLAS);
    CU_ASSERT_EQUAL(caps.gemm[MIX_BF16], mixi_onednn_supports(MIX_BF16) &&
                    mixi_cpu_has_native_bf16_gemm() ? MIX_PREC_NATIVE : MIX_PREC_EMULATED);
    mixi_cpu_gemm_force_engine(MIXI_GEMM_OPENBLAS);
    CU_ASSERT_EQUAL(mix_backend_caps(MIX_BACKEND_CPU, &caps), MIX_SUCCESS);
    CU_ASSERT(strstr(caps.libraries, "FP32 OpenBLAS, BF16 OpenBLAS emulated") != NULL);
    CU_ASSERT_EQUAL(caps.gemm[MIX_BF16], MIX_PREC_EMULATED);
    mixi_cpu_gemm_force_engine(-1);
    CU_ASSERT_EQUAL(mixi_cpu_gemm_engine(MIX_BF16) == MIXI_GEMM_ONEDNN,
                    mixi_cpu_has_native_bf16_gemm());
    /* This file sees MIX_HAVE_ONEDNN: the library must too.  (A kernel file that forgot config.h
     * once compiled the native BF16 engine out, and the checks above still agreed with it.) */
    CU_ASSERT_EQUAL(mixi_cpu_has_native_bf16_gemm(),
                    mixi_cpu_has_avx512_bf16() || mixi_cpu_has_amx_bf16());
    CU_ASSERT_EQUAL(mix_backend_caps(MIX_BACKEND_CPU, &caps), MIX_SUCCESS);
    if (mixi_cpu_has_native_bf16_gemm()) {
        CU_ASSERT_EQUAL(caps.gemm[MIX_BF16], MIX_PREC_NATIVE);
        CU_ASSERT(strstr(caps.libraries, mixi_cpu_has_amx_bf16() ? "BF16 oneDNN AMX-BF16"
                                                                 : "BF16 oneDNN AVX512-BF16") != NULL);
    }
    /* The threading the BLAS reports is the one the library uses for its own loops. */
#ifdef _OPENMP
    CU_ASSERT_EQUAL(mixi_cpu_blas_shares_omp_pool(), openblas_get_parallel() == 2);
#endif
    /* FP32 on oneDNN with AVX-512, or where OpenBLAS's kernels are older than the CPU's. */
    CU_ASSERT_EQUAL(mixi_cpu_gemm_engine(MIX_FP32) == MIXI_GEMM_ONEDNN,
                    mixi_cpu_has_avx512f() || mixi_cpu_blas_below_isa());
    CU_ASSERT(strstr(caps.libraries, mixi_cpu_blas_core()) != NULL);
    /* The core names a level: AVX-512's and AVX2's OpenBLAS cores are never "below" a CPU
     * capped to AVX2 or less, and a generic core is below any AVX2 CPU. */
    const char *core = mixi_cpu_blas_core();
    if (!strcmp(core, "SkylakeX") || !strcmp(core, "Haswell") || !strcmp(core, "Zen"))
        CU_ASSERT(!mixi_cpu_blas_below_isa() || mixi_cpu_has_avx512f());
    if (!strcmp(core, "Prescott") && mixi_cpu_has_f16c()) CU_ASSERT(mixi_cpu_blas_below_isa());
}

/* Full LU-IR solves with the oneDNN engine forced: randsvd kappa = 1e2, n = 300 (three panel
 * steps, so the trailing updates run through the engine), backward error <= sqrt(n) eps. */
static void test_solve(void)
{
    const int n = 300;
    double *a = malloc((size_t)n * n * sizeof *a), *ac = malloc((size_t)n * n * sizeof *ac);
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd(n, 1e2, 3, 2026, a), 0);
    for (int i = 0; i < n; i++) b[i] = cos(0.3 * i);
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, MIX_BACKEND_CPU), MIX_SUCCESS);
    const mix_prec precs[] = {MIX_BF16, MIX_FP32, MIX_TF32};
    mixi_cpu_gemm_force_engine(MIXI_GEMM_ONEDNN);
    for (int pi = 0; pi < 3; pi++) {
        mix_gesv_params p;
        mix_gesv_params_init(&p);
        p.factor_prec = precs[pi];
        p.fallback = 0;
        mix_gesv_info info;
        memcpy(ac, a, (size_t)n * n * sizeof *ac);
        CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, ac, n, ipiv, b, n, x, n, &info),
                        MIX_SUCCESS);
        CU_ASSERT(info.iter >= 0);
        CU_ASSERT_EQUAL(info.factor_prec_used, precs[pi]);
        /* The backward error recomputed here, in FP64 from the caller's data. */
        CU_ASSERT(mixm_dense_backward_error(n, 1, a, n, b, n, x, n) <= sqrt((double)n) * DBL_EPSILON);
        CU_ASSERT(info.backward_error <= sqrt((double)n) * DBL_EPSILON);
    }
    mixi_cpu_gemm_force_engine(-1);
    mix_context_destroy(ctx);
    free(a); free(ac); free(b); free(x); free(ipiv);
}

/* One FP32 solve, LU (spd 0) or Cholesky (spd 1), checked in FP64; *gemms: the LU's blocked
 * updates (0 where it factored whole). */
static void solve_f32(mix_context *ctx, int spd, int n, const double *a, const double *b,
                      long *gemms)
{
    double *ac = malloc((size_t)n * n * sizeof *ac), *x = malloc((size_t)n * sizeof *x);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = MIX_FP32;
    p.fallback = 0;
    mix_gesv_info info;
    mixi_lu_profile prof;
    memset(&prof, 0, sizeof prof);
    memcpy(ac, a, (size_t)n * n * sizeof *ac);
    mixi_lu_profile_attach(&prof);
    const int rc = spd ? mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, 1, ac, n, b, n, x, n, &info)
                       : mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, ac, n, ipiv, b, n, x, n, &info);
    mixi_lu_profile_attach(NULL);
    CU_ASSERT_EQUAL(rc, MIX_SUCCESS);
    CU_ASSERT(info.iter >= 0);
    CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP32);
    CU_ASSERT(mixm_dense_backward_error(n, 1, a, n, b, n, x, n) <= sqrt((double)n) * DBL_EPSILON);
    *gemms = prof.calls[MIXI_LU_PH_GEMM];
    free(ac), free(x), free(ipiv);
}

/* Where OpenBLAS runs kernels older than the CPU's, FP32 factorizations leave its sgetrf and
 * spotrf for the blocked driver on oneDNN's GEMM; elsewhere they stay whole.  Both give FP64
 * answers. */
static void test_f32_blocked_where_blas_lags(void)
{
    const int n = 300;
    const mixi_dense_ops *d = mixi_backend_lookup(MIX_BACKEND_CPU)->dense;
    double *a = malloc((size_t)n * n * sizeof *a), *s = malloc((size_t)n * n * sizeof *s);
    double *b = malloc((size_t)n * sizeof *b);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd(n, 1e2, 3, 2026, a), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd_spd(n, 1e2, 3, 2027, s), 0);
    for (int i = 0; i < n; i++) b[i] = cos(0.3 * i);
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, MIX_BACKEND_CPU), MIX_SUCCESS);
    long gemms = -1;
    mixi_cpu_blas_force_below_isa(0);
    CU_ASSERT_EQUAL(d->whole_f32_pays(NULL, n), 1);
    solve_f32(ctx, 0, n, a, b, &gemms);
    CU_ASSERT_EQUAL(gemms, 0);
    solve_f32(ctx, 1, n, s, b, &gemms);
    mixi_cpu_blas_force_below_isa(1);
    CU_ASSERT_EQUAL(mixi_cpu_gemm_engine(MIX_FP32), MIXI_GEMM_ONEDNN);
    CU_ASSERT_EQUAL(d->whole_f32_pays(NULL, n), 0);
    mixi_cpu_gemm_force_engine(MIXI_GEMM_ONEDNN); /* every update on oneDNN, small as they are */
    solve_f32(ctx, 0, n, a, b, &gemms);
    CU_ASSERT(gemms > 0);
    solve_f32(ctx, 1, n, s, b, &gemms);
    mixi_cpu_gemm_force_engine(MIXI_GEMM_OPENBLAS); /* MIXSOLVE_CPU_GEMM=openblas: whole again */
    CU_ASSERT_EQUAL(d->whole_f32_pays(NULL, n), 1);
    mixi_cpu_gemm_force_engine(-1);
    mixi_cpu_blas_force_below_isa(-1);
    mix_context_destroy(ctx);
    free(a), free(s), free(b);
}

void mixt_register_onednn(void)
{
    static const mixt_test tests[] = {
        {"FP32/TF32 oneDNN GEMM vs OpenBLAS, awkward shapes", test_f32_vs_openblas},
        {"FP32 oneDNN engine direct, k = 0, alpha = 0", test_f32_direct_and_degenerate},
        {"BF16 oneDNN GEMM vs emulation, or the fallback", test_bf16},
        {"engine choice and capabilities", test_caps},
        {"LU-IR BF16/FP32/TF32 solves under oneDNN", test_solve},
        {"FP32 LU and Cholesky blocked where OpenBLAS lags the CPU", test_f32_blocked_where_blas_lags},
        {NULL, NULL}};
    mixt_add_suite("cpu/onednn", tests);
}

#else

/* Without oneDNN every GEMM is OpenBLAS's, and the capabilities say so. */
static void test_openblas_only(void)
{
    mix_caps caps;
    mixi_cpu_gemm_force_engine(MIXI_GEMM_ONEDNN);
    CU_ASSERT_EQUAL(mixi_cpu_gemm_engine(MIX_FP32), MIXI_GEMM_OPENBLAS);
    CU_ASSERT_EQUAL(mixi_cpu_gemm_engine(MIX_BF16), MIXI_GEMM_OPENBLAS);
    CU_ASSERT_EQUAL(mix_backend_caps(MIX_BACKEND_CPU, &caps), MIX_SUCCESS);
    mixi_cpu_gemm_force_engine(-1);
    CU_ASSERT(strstr(caps.libraries, "FP32 OpenBLAS, BF16 OpenBLAS emulated") != NULL);
    CU_ASSERT(strstr(caps.libraries, "oneDNN") == NULL);
    CU_ASSERT_EQUAL(caps.gemm[MIX_BF16], MIX_PREC_EMULATED);
}

void mixt_register_onednn(void)
{
    static const mixt_test tests[] = {
        {"without oneDNN the GEMM engine is OpenBLAS", test_openblas_only}, {NULL, NULL}};
    mixt_add_suite("cpu/onednn", tests);
}

#endif
