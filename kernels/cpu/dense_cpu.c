/* dense_cpu.c: the CPU backend's dense operations (OpenBLAS/LAPACKE plus OpenMP loops). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "lib/core/core.h"
#include "kernels/backend_dense.h"
#include "kernels/common/prec_traits.h"
#include "kernels/cpu/chol_cpu.h"
#include "kernels/cpu/convert_cpu.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dense_tiny.h"
#include "kernels/cpu/dense_loops.h"
#include "kernels/cpu/onednn_gemm.h"
#include "kernels/cpu/resid_dd_cpu.h"

/* Rows per task of the row-sum loop (a few KiB of sums, kept in L1). */
#define ROW_CHUNK 1024

static int cpu_lacpy_f64(void *state, int trans, int m, int n, const double *src, int lds,
                         double *dst, int ldd)
{
    (void)state;
    if (!trans) {
        for (int j = 0; j < n; j++)
            memmove(dst + IDX(0, j, ldd), src + IDX(0, j, lds), (size_t)m * sizeof(double));
        return MIX_SUCCESS;
    }
    /* dst (n x m) = src^T, in 32 x 32 tiles so both sides stay in cache. */
    const int T = 32;
    for (int jb = 0; jb < n; jb += T)
        for (int ib = 0; ib < m; ib += T) {
            int je = jb + T < n ? jb + T : n, ie = ib + T < m ? ib + T : m;
            for (int i = ib; i < ie; i++)
                for (int j = jb; j < je; j++) dst[IDX(j, i, ldd)] = src[IDX(i, j, lds)];
        }
    return MIX_SUCCESS;
}

static int cpu_count_nonfinite_f64(void *state, int m, int n, const double *a, int lda,
                                   size_t *count)
{
    (void)state;
    size_t c = 0;
    for (int j = 0; j < n; j++) {
        const double *col = a + IDX(0, j, lda);
        MIXI_OMP(omp simd reduction(+ : c))
        for (int i = 0; i < m; i++) c += !(fabs(col[i]) <= DBL_MAX);
    }
    *count = c;
    return MIX_SUCCESS;
}

/* sum[i0..i1) = the absolute row sums of rows i0..i1 of A, each in column order (vectorized
 * over rows: the same sums as a scalar loop). */
static void row_sums(int i0, int i1, int n, const double *a, int lda, double *sum)
{
    for (int i = i0; i < i1; i++) sum[i] = 0.0;
    int j = 0;
    /* Four columns per pass over the sums (a quarter of their loads and stores: the pass is
     * most of a small direct solve's overhead), added in column order, so bit for bit the
     * column-by-column sums. */
    for (; j + 4 <= n; j += 4) {
        const double *c0 = a + IDX(0, j, lda), *c1 = c0 + lda, *c2 = c1 + lda, *c3 = c2 + lda;
        MIXI_OMP(omp simd)
        for (int i = i0; i < i1; i++)
            sum[i] = sum[i] + fabs(c0[i]) + fabs(c1[i]) + fabs(c2[i]) + fabs(c3[i]);
    }
    for (; j < n; j++) {
        const double *col = a + IDX(0, j, lda);
        MIXI_OMP(omp simd)
        for (int i = i0; i < i1; i++) sum[i] += fabs(col[i]);
    }
}

static int cpu_norm_inf_f64(void *state, int m, int n, const double *a, int lda, double *norm)
{
    (void)state;
    *norm = 0.0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    /* One chunk of rows: its sums on the stack (no allocation, as LAPACK's dlange). */
    double one[ROW_CHUNK], *sum = m <= ROW_CHUNK ? one : mixi_malloc_n((size_t)m, sizeof *sum);
    if (!sum) return MIX_ERR_ALLOC;
    /* Each thread owns a range of rows and sweeps every column over it; below the team's
     * threshold no parallel region at all (entering one costs a futex call). */
    const int nchunk = (m + ROW_CHUNK - 1) / ROW_CHUNK;
    if (!mixi_cpu_par_entries((size_t)m * (size_t)n)) {
        for (int c = 0; c < nchunk; c++)
            row_sums(c * ROW_CHUNK, c + 1 < nchunk ? (c + 1) * ROW_CHUNK : m, n, a, lda, sum);
    } else {
        MIXI_OMP(omp parallel for schedule(static))
        for (int c = 0; c < nchunk; c++)
            row_sums(c * ROW_CHUNK, c + 1 < nchunk ? (c + 1) * ROW_CHUNK : m, n, a, lda, sum);
    }
    double best = 0.0;
    for (int i = 0; i < m; i++) best = nanmax(best, sum[i]);
    if (sum != one) mixi_free(sum);
    *norm = best;
    return MIX_SUCCESS;
}

/* One loop of col_absmax below over v = value: the largest |v| and whether a NaN was seen, as
 * reductions that vectorize (nanmax's branch per entry did not: at n = 20 the refinement's
 * norms of r and x were 5% of a mix_dsgesv call, issue 32 round 4).  The same maximum. */
#define ABSMAX_LOOP(value)                                                                        \
    MIXI_OMP(omp simd reduction(max : best) reduction(| : nan))                                   \
    for (int i = 0; i < m; i++) {                                                                 \
        const double v = fabs(value);                                                             \
        best = v > best ? v : best;                                                               \
        nan |= v != v;                                                                            \
    }

static int cpu_col_absmax_scaled_f64(void *state, int m, int n, const double *a, int lda,
                                     const double *r, double *colmax)
{
    (void)state;
    for (int j = 0; j < n; j++) {
        double best = 0.0;
        int nan = 0;
        const double *col = a + IDX(0, j, lda);
        if (r) ABSMAX_LOOP(r[i] * col[i])
        else ABSMAX_LOOP(col[i])
        colmax[j] = nan ? NAN : best;
    }
    return MIX_SUCCESS;
}

/* max_i |s r_i b_i| (r NULL: |s b_i|), NaN where one is: the correction solve's column scale. */
static double scaled_absmax(int m, const double *r, double s, const double *b)
{
    double best = 0.0;
    int nan = 0;
    if (r) ABSMAX_LOOP(s * r[i] * b[i])
    else ABSMAX_LOOP(s * b[i])
    return nan ? NAN : best;
}
#undef ABSMAX_LOOP

static int cpu_col_absmax_f64(void *state, int m, int n, const double *a, int lda, double *colmax)
{
    return cpu_col_absmax_scaled_f64(state, m, n, a, lda, NULL, colmax);
}

static int cpu_row_absmax_scaled_f64(void *state, int m, int n, const double *a, int lda,
                                     const double *c, double *rowmax)
{
    (void)state;
    for (int i = 0; i < m; i++) rowmax[i] = 0.0;
    for (int j = 0; j < n; j++) {
        double cj = c ? c[j] : 1.0;
        const double *col = a + IDX(0, j, lda);
        for (int i = 0; i < m; i++) rowmax[i] = nanmax(rowmax[i], fabs(col[i] * cj));
    }
    return MIX_SUCCESS;
}

/* One case of convert_column below, a whole loop statement: o[i] = (float)(value). */
#define CONVERT_LOOP(value)                                                                       \
    MIXI_OMP(omp simd reduction(+ : bad))                                                         \
    for (int i = 0; i < m; i++) {                                                                 \
        const float v = (float)(value);                                                           \
        o[i] = v;                                                                                 \
        bad += !(fabsf(v) < limit);                                                               \
    }
/* One column of convert_f64_to_f32: o = (float)((r_i a_i) cj), and the count of values that do
 * not round below `limit`.  Each case a branch-free loop that vectorizes, the common one (FP32
 * of an unscaled A, x * 1.0 == x) a bare conversion: a scalar loop testing r per entry cost 1.55x
 * the instructions of LAPACK's dlag2s. */
static size_t convert_column(int m, const double *col, const double *r, double cj, float limit,
                             float *o)
{
    size_t bad = 0;
    if (r) CONVERT_LOOP(r[i] * col[i] * cj)
    else if (cj != 1.0) CONVERT_LOOP(col[i] * cj)
    else CONVERT_LOOP(col[i])
    return bad;
}
#undef CONVERT_LOOP

static int cpu_convert_f64_to_f32(void *state, mix_prec target, int m, int n, const double *a,
                                  int lda, const double *r, const double *c, double s, float *out,
                                  int ldo, size_t *overflow)
{
    (void)state;
    /* Largest magnitude that survives rounding to the target (smaller rounds to a finite value). */
    const float limit = (float)mixk_prec_overflow_limit(target); /* FP32: Inf */
    size_t bad = 0;
    if (!mixi_cpu_par_entries((size_t)m * (size_t)n)) { /* no team to start */
        for (int j = 0; j < n; j++)
            bad += convert_column(m, a + IDX(0, j, lda), r, (c ? c[j] : 1.0) * s, limit,
                                  out + IDX(0, j, ldo));
    } else {
        MIXI_OMP(omp parallel for reduction(+ : bad) schedule(static))
        for (int j = 0; j < n; j++)
            bad += convert_column(m, a + IDX(0, j, lda), r, (c ? c[j] : 1.0) * s, limit,
                                  out + IDX(0, j, ldo));
    }
    if (overflow) *overflow = bad;
    return MIX_SUCCESS;
}

static int cpu_getrf_panel_f32_worksize(void *state, int m, int n, size_t *bytes)
{
    (void)state; (void)m; (void)n;
    *bytes = 0;
    return MIX_SUCCESS;
}

static int cpu_getrf_panel_f32(void *state, int m, int n, float *a, int lda, int *ipiv,
                               int ipiv_offset, void *work, int *info)
{
    (void)state; (void)work;
    *info = 0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    lapack_int st = LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
    if (st < 0) return MIX_ERR_INTERNAL;
    for (int i = 0; i < n; i++) ipiv[i] += ipiv_offset;
    *info = (int)st;
    for (int j = 0; j < n; j++)
        if (mixi_cpu_nonfinite_f32(m, a + IDX(0, j, lda))) {
            *info = -1;
            return MIX_SUCCESS;
        }
    return MIX_SUCCESS;
}

static int cpu_getrf_f32(void *state, int n, float *a, int lda, int *ipiv, void *work, int *info)
{
    return cpu_getrf_panel_f32(state, n, n, a, lda, ipiv, 0, work, info);
}

/* OpenBLAS's sgetrf and spotrf run its own kernels: where those are older than the CPU's
 * (mixi_cpu_blas_below_isa) the blocked driver with oneDNN's FP32 updates is faster.  Xeon model
 * 207 with Debian's OpenBLAS on "Prescott" kernels, mix_dsgesv at n = 4096: 0.39-0.43 s against
 * 0.89-1.37 s by sgetrf (0.67 s with oneDNN only from m n k = 2^31); on OpenBLAS's SkylakeX
 * kernels the two are even (0.35-0.43 s against 0.35-0.39 s), so sgetrf keeps it there. */
static int cpu_whole_f32_pays(void *state, int n)
{
    (void)state, (void)n;
    return !(mixi_cpu_blas_below_isa() && mixi_cpu_gemm_engine(MIX_FP32) == MIXI_GEMM_ONEDNN);
}

static int cpu_laswp_f32(void *state, int n, float *a, int lda, int k1, int k2, const int *ipiv)
{
    (void)state;
    if (n == 0 || k2 < k1) return MIX_SUCCESS;
    /* slaswp reads ipiv(k1..k2) as a Fortran array indexed from 1. */
    return LAPACKE_slaswp_work(LAPACK_COL_MAJOR, n, a, lda, k1, k2, ipiv, 1) ? MIX_ERR_INTERNAL
                                                                           : MIX_SUCCESS;
}

static int cpu_trsm_f32(void *state, int side, int uplo, int trans, int diag, int m, int n,
                        const float *a, int lda, float *b, int ldb)
{
    (void)state;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    cblas_strsm(CblasColMajor, side == MIXK_RIGHT ? CblasRight : CblasLeft,
                uplo == MIXK_UPPER ? CblasUpper : CblasLower,
                trans == MIXK_TRANS ? CblasTrans : CblasNoTrans,
                diag == MIXK_UNIT ? CblasUnit : CblasNonUnit, m, n, 1.0f, a, lda, b, ldb);
    return MIX_SUCCESS;
}

/* GEMM engine preference: -1 automatic, else MIXI_GEMM_*.  The environment is read once; the
 * test hook overrides it. */
static _Atomic int gemm_forced = -1;
#ifdef MIX_HAVE_ONEDNN
static pthread_once_t gemm_env_once = PTHREAD_ONCE_INIT;
static int gemm_env_pref = -1;

static void read_gemm_env(void)
{
    const char *v = getenv("MIXSOLVE_CPU_GEMM");
    if (v && strcmp(v, "onednn") == 0) gemm_env_pref = MIXI_GEMM_ONEDNN;
    else if (v && strcmp(v, "openblas") == 0) gemm_env_pref = MIXI_GEMM_OPENBLAS;
}
#endif

void mixi_cpu_gemm_force_engine(int engine) { gemm_forced = engine; }

int mixi_cpu_gemm_engine(mix_prec compute)
{
#ifdef MIX_HAVE_ONEDNN
    if (compute == MIX_FP64) return MIXI_GEMM_OPENBLAS;
    int pref = gemm_forced;
    if (pref < 0) {
        pthread_once(&gemm_env_once, read_gemm_env);
        pref = gemm_env_pref;
    }
    if (pref == MIXI_GEMM_ONEDNN && compute == MIX_BF16 && !mixi_onednn_supports(MIX_BF16))
        return MIXI_GEMM_OPENBLAS; /* forced where oneDNN has no BF16 matmul: the emulation */
    if (pref >= 0) return pref;
    if (compute == MIX_BF16)
        return mixi_cpu_has_native_bf16_gemm() ? MIXI_GEMM_ONEDNN : MIXI_GEMM_OPENBLAS;
    /* FP32, and FP16/TF32 after rounding: oneDNN's AVX-512 kernels; on AVX2 OpenBLAS is as fast,
     * unless its kernels are older than the CPU's (mixi_cpu_blas_below_isa). */
    return mixi_cpu_has_avx512f() || mixi_cpu_blas_below_isa() ? MIXI_GEMM_ONEDNN
                                                                : MIXI_GEMM_OPENBLAS;
#else
    (void)compute;
    return MIXI_GEMM_OPENBLAS;
#endif
}

/* oneDNN JIT-compiles its kernels on the first execution of each kind in a process (measured:
 * 23 ms for the FP32 GEMM, 8 ms for the BF16 one), so below these sizes (m n k) the call stays
 * on OpenBLAS (the BF16 emulation gives the same products and FP32 accumulation) unless an
 * engine is forced: a solve of n ~ 300 would otherwise take 25 ms instead of 1 ms.  BF16 pays
 * earlier because its native rate is several times the emulation's. */
#define ONEDNN_MIN_MNK_FP32 ((double)(1u << 31))
#define ONEDNN_MIN_MNK_BF16 ((double)(1u << 28))

static int gemm_engine_for(mix_prec compute, int m, int n, int k)
{
    int engine = mixi_cpu_gemm_engine(compute);
#ifdef MIX_HAVE_ONEDNN
    /* OpenBLAS on kernels older than the CPU's is as far behind as the BF16 emulation. */
    const int early = compute == MIX_BF16 || mixi_cpu_blas_below_isa();
    if (engine == MIXI_GEMM_ONEDNN && gemm_forced < 0 && gemm_env_pref < 0 &&
        (double)m * n * k < (early ? ONEDNN_MIN_MNK_BF16 : ONEDNN_MIN_MNK_FP32))
        engine = MIXI_GEMM_OPENBLAS;
#else
    (void)m; (void)n; (void)k;
#endif
    return engine;
}

/* gemm_f32 on a given engine (the op below picks it by size). */
static int gemm_f32_on(int engine, mix_prec compute, int transa, int transb, int m, int n, int k,
                       float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                       float *c, int ldc, void *work, size_t *overflow)
{
    if (overflow) *overflow = 0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
#ifdef MIX_HAVE_ONEDNN
    if (engine == MIXI_GEMM_ONEDNN && (compute == MIX_FP32 || compute == MIX_BF16)) {
        int rc = mixi_onednn_gemm_f32(compute, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                      beta, c, ldc, work, overflow);
        if (rc != MIX_ERR_UNSUPPORTED) return rc;
        /* No such primitive on this CPU: the emulation below gives the same semantics. */
        engine = MIXI_GEMM_OPENBLAS;
    }
#endif
    /* Stored shapes: A is rows_a x cols_a, B rows_b x cols_b (transposed when flagged). */
    const int rows_a = transa ? k : m, cols_a = transa ? m : k;
    const int rows_b = transb ? n : k, cols_b = transb ? k : n;
    size_t bad = 0;
    if (compute != MIX_FP32 && k > 0) {
        /* Tensor Core semantics emulated exactly: inputs rounded to `compute`; products of two
         * 11-bit (FP16, TF32) or 8-bit (BF16) mantissas fit FP32's 24 bits, so FP32 GEMM on the
         * rounded copies multiplies exactly and accumulates in FP32.  The copies keep the
         * stored orientation; the transposition is the GEMM's. */
        float *ra = work, *rb = (float *)work + (size_t)m * k;
        bad += mixi_cpu_round_f32_matrix(compute, rows_a, cols_a, a, lda, ra, rows_a);
        bad += mixi_cpu_round_f32_matrix(compute, rows_b, cols_b, b, ldb, rb, rows_b);
        if (overflow) *overflow = bad;
        a = ra; lda = rows_a;
        b = rb; ldb = rows_b;
    }
#ifdef MIX_HAVE_ONEDNN
    if (engine == MIXI_GEMM_ONEDNN) { /* FP16, TF32: oneDNN's FP32 GEMM on the rounded copies */
        int rc = mixi_onednn_gemm_f32(MIX_FP32, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                      beta, c, ldc, NULL, NULL);
        if (rc != MIX_ERR_UNSUPPORTED) return rc;
    }
#else
    (void)engine;
#endif
    cblas_sgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda > 0 ? lda : 1, b,
                ldb > 0 ? ldb : 1, beta, c, ldc);
    return MIX_SUCCESS;
}

static int cpu_gemm_f32(void *state, mix_prec compute, int transa, int transb, int m, int n,
                        int k, float alpha, const float *a, int lda, const float *b, int ldb,
                        float beta, float *c, int ldc, void *work, size_t *overflow)
{
    (void)state;
    return gemm_f32_on(gemm_engine_for(compute, m, n, k), compute, transa, transb, m, n, k, alpha,
                       a, lda, b, ldb, beta, c, ldc, work, overflow);
}

/* The checks into host words (the backend's memory is the host's). */
static int cpu_getrf_panel_f32_chk(void *state, int m, int n, float *a, int lda, int *ipiv,
                                   int ipiv_offset, void *work, int *chk)
{
    int info = 0, rc = cpu_getrf_panel_f32(state, m, n, a, lda, ipiv, ipiv_offset, work, &info);
    if (!rc && info > 0) chk[MIXI_LU_CHK_INFO] = info;
    if (!rc && info < 0) chk[MIXI_LU_CHK_NONFINITE] = 1;
    return rc;
}

static int cpu_gemm_f32_chk(void *state, mix_prec compute, int transa, int transb, int m, int n,
                            int k, float alpha, const float *a, int lda, const float *b, int ldb,
                            float beta, float *c, int ldc, void *work, int *chk)
{
    size_t overflow = 0;
    int rc = cpu_gemm_f32(state, compute, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                          ldc, work, &overflow);
    if (!rc && overflow) chk[MIXI_LU_CHK_OVERFLOW] = 1;
    return rc;
}

/* Column stripes of the SYRK (Cholesky's trailing update): the lower triangle of C in a few
 * GEMMs through gemm_f32 (so the engine and rounding are LU's).  Each stripe also computes the part of its diagonal block
 * above the diagonal: with 4 stripes that is 1/8 more than SYRK's flops, against 2x for one
 * GEMM over all of C, while the few shapes per step keep oneDNN's primitive creation cheap. */
#define SYRK_STRIPES 4
#define SYRK_MIN_STRIPE 256

static int cpu_syrk_f32(void *state, mix_prec compute, int n, int k, float alpha, const float *a,
                        int lda, float beta, float *c, int ldc, void *work, size_t *overflow)
{
    if (overflow) *overflow = 0;
    if (n == 0) return MIX_SUCCESS;
    int w = (n + SYRK_STRIPES - 1) / SYRK_STRIPES;
    w = (w + 63) / 64 * 64; /* aligned stripe starts */
    if (w < SYRK_MIN_STRIPE) w = SYRK_MIN_STRIPE;
    size_t bad = 0;
    for (int j0 = 0; j0 < n; j0 += w) {
        int jw = n - j0 < w ? n - j0 : w;
        size_t ov = 0;
        int rc = cpu_gemm_f32(state, compute, MIXK_NOTRANS, MIXK_TRANS, n - j0, jw, k, alpha,
                              a + j0, lda, a + j0, lda, beta, c + IDX(j0, j0, ldc), ldc, work, &ov);
        if (rc) return rc;
        bad += ov;
    }
    if (overflow) *overflow = bad;
    return MIX_SUCCESS;
}

/* Rows of the diagonal blocks of the one-vector triangular solves below. */
#define TRSV_BLOCK 512

/* The one-vector triangular solves of the refinement (every GMRES or CG-IR step does two).
 * strsm with one column packs the whole triangle first, and strsv runs on one thread: here the
 * off-diagonal blocks go through sgemv, which streams them once on every thread, and only the
 * small diagonal blocks through strsv. */

/* w := L^{-1} w, L the lower triangle of a (unit diagonal when `diag` says so). */
static void trsv_lower_blocked(int n, const float *a, int ld, CBLAS_DIAG diag, float *w)
{
    for (int j = 0; j < n; j += TRSV_BLOCK) {
        int jb = n - j < TRSV_BLOCK ? n - j : TRSV_BLOCK, rest = n - j - jb;
        cblas_strsv(CblasColMajor, CblasLower, CblasNoTrans, diag, jb, a + IDX(j, j, ld), ld,
                    w + j, 1);
        if (rest > 0)
            cblas_sgemv(CblasColMajor, CblasNoTrans, rest, jb, -1.0f, a + IDX(j + jb, j, ld), ld,
                        w + j, 1, 1.0f, w + j + jb, 1);
    }
}

/* w := T^{-1} w, T upper triangular with a non-unit diagonal: the upper triangle of a, or, when
 * lower_trans, the transpose of its lower triangle (the Cholesky factor's L^T). */
static void trsv_upper_blocked(int n, const float *a, int ld, int lower_trans, float *w)
{
    for (int j1 = n; j1 > 0; j1 -= TRSV_BLOCK) {
        int j0 = j1 > TRSV_BLOCK ? j1 - TRSV_BLOCK : 0, jb = j1 - j0;
        cblas_strsv(CblasColMajor, lower_trans ? CblasLower : CblasUpper,
                    lower_trans ? CblasTrans : CblasNoTrans, CblasNonUnit, jb,
                    a + IDX(j0, j0, ld), ld, w + j0, 1);
        if (j0 == 0) continue;
        if (lower_trans) /* w(0:j0) -= L(j0:j1, 0:j0)^T w(j0:j1) */
            cblas_sgemv(CblasColMajor, CblasTrans, jb, j0, -1.0f, a + IDX(j0, 0, ld), ld, w + j0,
                        1, 1.0f, w, 1);
        else /* w(0:j0) -= U(0:j0, j0:j1) w(j0:j1) */
            cblas_sgemv(CblasColMajor, CblasNoTrans, j0, jb, -1.0f, a + IDX(0, j0, ld), ld,
                        w + j0, 1, 1.0f, w, 1);
    }
}

/* w := U^{-1} L^{-1} w with the packed LU factors. */
static void lu_solve_vector_f32(int n, const float *lu, int ld, float *w)
{
    trsv_lower_blocked(n, lu, ld, CblasUnit, w);
    trsv_upper_blocked(n, lu, ld, 0, w);
}

/* w := L^{-T} L^{-1} w with the lower Cholesky factor. */
static void chol_solve_vector_f32(int n, const float *l, int ld, float *w)
{
    trsv_lower_blocked(n, l, ld, CblasNonUnit, w);
    trsv_upper_blocked(n, l, ld, 1, w);
}

/* The row interchanges of ipiv (1-based, as LAPACK's) on the n x k block w: slaswp's, here
 * because OpenBLAS's slaswp wakes its thread pool whatever the size (measured: 9 futex calls
 * per mix_dsgesv at n = 50, each refinement step's correction solve one or more). */
static void swap_rows_f32(int n, int k, float *w, int ld, const int *ipiv)
{
    for (int j = 0; j < k; j++) {
        float *col = w + IDX(0, j, ld);
        for (int i = 0; i < n; i++) {
            const int p = ipiv[i] - 1;
            if (p != i) {
                const float t = col[i];
                col[i] = col[p];
                col[p] = t;
            }
        }
    }
}

/* Columns per pass of the correction solve: their power-of-two factors live on the stack, so
 * nothing is allocated in the refinement loop whatever nrhs is. */
#define GETRS_CHUNK 64

/* The correction solve of getrs_f32_f64 (ipiv given: P^T L U factors) and potrs_f32_f64 (ipiv
 * NULL: the lower Cholesky factor, r = c = d): same column scaling, different triangles. */
static int solve_f32_f64(int n, int nrhs, const float *lu, int ldlu, const int *ipiv,
                         const double *r, const double *c, double s, const double *b, int ldb,
                         double *x, int ldx, float *work)
{
    if (n == 0 || nrhs == 0) return MIX_SUCCESS;
    double cs[GETRS_CHUNK];
    for (int j0 = 0; j0 < nrhs; j0 += GETRS_CHUNK) {
        int k = nrhs - j0 < GETRS_CHUNK ? nrhs - j0 : GETRS_CHUNK;
        /* The loops split on r and c (the same products, in the same order): with the test
         * inside, they did not vectorize, 5% of mix_dsgesv at n = 20 (issue 32). */
        for (int j = 0; j < k; j++) {
            const double *bj = b + IDX(0, j0 + j, ldb);
            const double mx = scaled_absmax(n, r, s, bj);
            /* A power of two bringing the column's max near 1 keeps small residuals out of
             * FP32's underflow range and is undone exactly. */
            int e = 0;
            if (mx > 0.0 && isfinite(mx)) frexp(mx, &e);
            const double fs = ldexp(1.0, -e) * s;
            cs[j] = ldexp(1.0, e);
            float *wj = work + IDX(0, j, n);
            if (r)
                for (int i = 0; i < n; i++) wj[i] = (float)(fs * r[i] * bj[i]);
            else
                for (int i = 0; i < n; i++) wj[i] = (float)(fs * bj[i]);
        }
        if (ipiv) swap_rows_f32(n, k, work, n, ipiv);
        if (k == 1 && ipiv) {
            lu_solve_vector_f32(n, lu, ldlu, work);
        } else if (k == 1) {
            chol_solve_vector_f32(n, lu, ldlu, work);
        } else { /* L (unit for LU), then U (LU) or L^T (Cholesky) */
            cblas_strsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans,
                        ipiv ? CblasUnit : CblasNonUnit, n, k, 1.0f, lu, ldlu, work, n);
            cblas_strsm(CblasColMajor, CblasLeft, ipiv ? CblasUpper : CblasLower,
                        ipiv ? CblasNoTrans : CblasTrans, CblasNonUnit, n, k, 1.0f, lu, ldlu,
                        work, n);
        }
        for (int j = 0; j < k; j++) {
            const float *wj = work + IDX(0, j, n);
            double *xj = x + IDX(0, j0 + j, ldx);
            if (c)
                for (int i = 0; i < n; i++) xj[i] = c[i] * ((double)wj[i] * cs[j]);
            else
                for (int i = 0; i < n; i++) xj[i] = (double)wj[i] * cs[j];
        }
    }
    return MIX_SUCCESS;
}

static int cpu_getrs_f32_f64(void *state, int n, int nrhs, const float *lu, int ldlu,
                             const int *ipiv, const double *r, const double *c, double s,
                             const double *b, int ldb, double *x, int ldx, float *work)
{
    (void)state;
    return solve_f32_f64(n, nrhs, lu, ldlu, ipiv, r, c, s, b, ldb, x, ldx, work);
}

static int cpu_potrs_f32_f64(void *state, int n, int nrhs, const float *l, int ldl,
                             const double *d, double s, const double *b, int ldb, double *x,
                             int ldx, float *work)
{
    (void)state;
    return solve_f32_f64(n, nrhs, l, ldl, NULL, d, d, s, b, ldb, x, ldx, work);
}

static int cpu_gemm_f64(void *state, int transa, int transb, int m, int n, int k, double alpha,
                        const double *a, int lda, const double *b, int ldb, double beta, double *c,
                        int ldc)
{
    (void)state;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    if (n == 1 && !transb && k > 0) {
        /* One column (the refinement's residual): dgemv streams A once; dgemm would first pack
         * all of A into its panel buffers. */
        cblas_dgemv(CblasColMajor, transa ? CblasTrans : CblasNoTrans, transa ? k : m,
                    transa ? m : k, alpha, a, lda, b, 1, beta, c, 1);
        return MIX_SUCCESS;
    }
    cblas_dgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda > 0 ? lda : 1, b,
                ldb > 0 ? ldb : 1, beta, c, ldc);
    return MIX_SUCCESS;
}

static int cpu_gemv_f64(void *state, int trans, int m, int n, double alpha, const double *a,
                        int lda, const double *x, double beta, double *y)
{
    (void)state;
    if (m == 0 && n == 0) return MIX_SUCCESS;
    if ((trans ? n : m) == 0) return MIX_SUCCESS;
    if ((trans ? m : n) == 0) { /* y := beta y */
        cblas_dscal(trans ? n : m, beta, y, 1);
        return MIX_SUCCESS;
    }
    cblas_dgemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x, 1, beta,
                y, 1);
    return MIX_SUCCESS;
}

static int cpu_axpy_f64(void *state, int n, double alpha, const double *x, double *y)
{
    (void)state;
    if (n > 0) cblas_daxpy(n, alpha, x, 1, y, 1);
    return MIX_SUCCESS;
}

static int cpu_scal_f64(void *state, int n, double alpha, double *x)
{
    (void)state;
    if (n > 0) cblas_dscal(n, alpha, x, 1);
    return MIX_SUCCESS;
}

static int cpu_dot_f64(void *state, int n, const double *x, const double *y, double *result)
{
    (void)state;
    *result = n > 0 ? cblas_ddot(n, x, 1, y, 1) : 0.0;
    return MIX_SUCCESS;
}

static int cpu_nrm2_f64(void *state, int n, const double *x, double *result)
{
    (void)state;
    *result = n > 0 ? cblas_dnrm2(n, x, 1) : 0.0;
    return MIX_SUCCESS;
}

static int cpu_getrf_f64_worksize(void *state, int n, size_t *bytes)
{
    (void)state; (void)n;
    *bytes = 0;
    return MIX_SUCCESS;
}

static int cpu_getrf_f64(void *state, int n, double *a, int lda, int *ipiv, void *work, int *info)
{
    (void)state; (void)work;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    lapack_int st = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, lda, ipiv);
    if (st < 0) return MIX_ERR_INTERNAL;
    *info = (int)st;
    return MIX_SUCCESS;
}

static int cpu_getrs_f64(void *state, int n, int nrhs, const double *a, int lda, const int *ipiv,
                         double *b, int ldb)
{
    (void)state;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS;
    return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, a, lda, ipiv, b, ldb)
               ? MIX_ERR_INTERNAL
               : MIX_SUCCESS;
}

static int cpu_gesv_f64(void *state, int n, int nrhs, double *a, int lda, int *ipiv, double *b,
                        int ldb, int *info)
{
    (void)state;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    if (n <= MIXI_TINY_LU_MAX_N)
        return *info = mixi_tiny_dgesv(n, nrhs, a, lda, ipiv, b, ldb), MIX_SUCCESS;
    lapack_int st = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb);
    if (st < 0) return MIX_ERR_INTERNAL;
    *info = (int)st;
    return MIX_SUCCESS;
}

/* ---- Cost model: GEMM rates measured once per process ---------------------------------------- */

/* Calibration shape: a trailing update of a mid-size LU (m = n = 512, k = 256; 134 MFLOP, about
 * 1.3 ms in FP64 on 2 cores), large enough that OpenBLAS and oneDNN run at their sustained rate,
 * small enough to cost little next to the solves that ask (n >= 512).  The operands are written
 * before the clock starts and one untimed call goes first: calloc'd pages faulting in and
 * OpenBLAS starting its threads made the FP64 rate read 29 GF/s where dgesv runs at 100-120
 * (Xeon, 2 cores), so the cost model overestimated an FP64 solve 3-4x. */
#define CAL_MN 512
#define CAL_K 256
#define CAL_REPS 3
#define FP32_OVER_FP64_MAX 2.2
/* Below this FP32/FP64 ratio on OpenBLAS's kernels the FP32 repetitions met load (the same FMA
 * units at twice the lanes: 1.8-2.0 on the Xeons and EPYCs seen): one process in 16 read 1.38
 * on the 2-core Ice Lake Xeon and AUTO took FP64 at mid n.  The pair is measured again, at most
 * CAL_ROUNDS times in all, each rate the best of every round (3-5 ms a round). */
#define FP32_OVER_FP64_MIN 1.6
#define CAL_ROUNDS 3

static double rates[MIX_CAPS_PREC_SLOTS];
static pthread_mutex_t rate_lock = PTHREAD_MUTEX_INITIALIZER;

/* One calibration GEMM (C -= A B) in precision p on the engine its factorization uses: OpenBLAS
 * for FP64 and for FP32 where its sgetrf factors whole (cpu_whole_f32_pays: no oneDNN kernel
 * generation to pay), the chosen engine for the others.  Nonzero on failure. */
static int cal_gemm(mix_prec p, double *a64, float *a32, float *w)
{
    const size_t na = (size_t)CAL_MN * CAL_K;
    size_t ovf;
    if (p == MIX_FP64) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, CAL_MN, CAL_MN, CAL_K, -1.0, a64,
                    CAL_MN, a64 + na, CAL_K, 1.0, a64 + 2 * na, CAL_MN);
        return 0;
    }
    if (p == MIX_FP32 && cpu_whole_f32_pays(NULL, CAL_MN)) {
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, CAL_MN, CAL_MN, CAL_K, -1.0f, a32,
                    CAL_MN, a32 + na, CAL_K, 1.0f, a32 + 2 * na, CAL_MN);
        return 0;
    }
    /* The engine the large updates use (the rate AUTO weighs), not the one a shape this small
     * would get; the untimed first call pays oneDNN's JIT. */
    return gemm_f32_on(mixi_cpu_gemm_engine(p), p, 0, 0, CAL_MN, CAL_MN, CAL_K, -1.0f, a32,
                       CAL_MN, a32 + na, CAL_K, 1.0f, a32 + 2 * na, CAL_MN, w, &ovf);
}

/* rates[] of the k precisions in ps, their repetitions interleaved: FP64's and FP32's are
 * weighed against each other (solvers/dense/policy.c), and a burst of other processes' load during
 * one calibration alone skewed their ratio (AUTO then took FP32 on one matrix of a main-job run
 * and FP64 on the others).  Each rate is the best repetition's. */
static void measure_rates(const mix_prec *ps, int k)
{
    const size_t na = (size_t)CAL_MN * CAL_K, nc = (size_t)CAL_MN * CAL_MN, len = 2 * na + nc;
    const double flops = 2.0 * CAL_MN * CAL_MN * CAL_K;
    double best[2] = {0.0, 0.0}, *a64 = mixi_malloc_n(len, sizeof *a64);
    float *a32 = mixi_malloc_n(len, sizeof *a32), *w = mixi_malloc_n(2 * na, sizeof *w);
    int ok[2] = {0, 0};
    if (!a64 || !a32 || !w) goto out;
    /* Small values (the products never overflow any precision), every page touched. */
    for (size_t i = 0; i < len; i++) {
        a64[i] = 1e-3 * (double)(i % 7);
        a32[i] = (float)a64[i];
    }
    memset(w, 0, 2 * na * sizeof *w);
    for (int q = 0; q < k; q++) ok[q] = !cal_gemm(ps[q], a64, a32, w);
    for (int r = 0; r < CAL_REPS; r++)
        for (int q = 0; q < k; q++) {
            if (!ok[q]) continue;
            double t0 = mixi_wtime();
            if (cal_gemm(ps[q], a64, a32, w)) {
                ok[q] = 0;
                continue;
            }
            double el = mixi_wtime() - t0;
            if (el > 0.0 && flops / el > best[q]) best[q] = flops / el;
        }
out: /* a round repeated keeps each precision's best of all */
    for (int q = 0; q < k; q++) rates[ps[q]] = fmax(rates[ps[q]], best[q] * 1e-9);
    mixi_free(a64);
    mixi_free(a32);
    mixi_free(w);
}

static int cpu_gemm_rate(void *state, mix_prec p, double *gflops)
{
    (void)state;
    *gflops = 0.0;
    if ((unsigned)p >= MIX_CAPS_PREC_SLOTS || !mixk_prec_gemm(p)) return MIX_SUCCESS;
    static const mix_prec pair[2] = {MIX_FP64, MIX_FP32};
    pthread_mutex_lock(&rate_lock);
    if (rates[p] <= 0.0) {
        if (p == MIX_FP64 || p == MIX_FP32) {
            const int openblas_pair = cpu_whole_f32_pays(NULL, CAL_MN);
            measure_rates(pair, 2);
            for (int round = 1; round < CAL_ROUNDS && openblas_pair &&
                                rates[MIX_FP32] < FP32_OVER_FP64_MIN * rates[MIX_FP64];
                 round++)
                measure_rates(pair, 2);
            /* An FP32 FMA lane is half an FP64 one on every x86 vector unit: a ratio beyond
             * FP32_OVER_FP64_MAX is load on the FP64 repetitions, not the machine (measured up
             * to 7x under a load of 10 on 2 cores, where dgesv/sgetrf is 2.0-2.1x), where both
             * run OpenBLAS's kernels; oneDNN's FP32 beside OpenBLAS's older ones may be more. */
            if (openblas_pair && rates[MIX_FP32] > FP32_OVER_FP64_MAX * rates[MIX_FP64])
                rates[MIX_FP32] = FP32_OVER_FP64_MAX * rates[MIX_FP64];
        } else {
            measure_rates(&p, 1);
        }
    }
    *gflops = rates[p];
    pthread_mutex_unlock(&rate_lock);
    return MIX_SUCCESS;
}

/* count uniform entries in [-0.5, 0.5) from an LCG: the same calibration matrix on every run. */
static void fill_uniform(size_t count, double *a)
{
    uint32_t x = 12345u;
    for (size_t i = 0; i < count; i++) {
        x = x * 1664525u + 1013904223u;
        a[i] = (double)(x >> 8) / 16777216.0 - 0.5;
    }
}

/* The FP64 LU's calibration: LAPACK dgetrf at order 256 (11 MFLOP, about 0.9 ms on 2 cores),
 * best of CAL_REPS after an untimed call, on a matrix of uniform entries (its row swaps are a
 * general matrix's).  The order is where MIX_PREC_AUTO's choice starts (solvers/dense/dense.h). */
#define CAL_LU_N 256

static double getrf_gflops;

static void measure_getrf(void)
{
    const int n = CAL_LU_N;
    const size_t nn = (size_t)n * n;
    double *a0 = mixi_malloc_n(2 * nn, sizeof *a0), best = 0.0;
    lapack_int *ipiv = mixi_malloc_n((size_t)n, sizeof *ipiv);
    if (!a0 || !ipiv) goto out;
    double *a = a0 + nn;
    const double flops = 2.0 / 3.0 * (double)nn * n;
    fill_uniform(nn, a0);
    for (int r = 0; r <= CAL_REPS; r++) {
        memcpy(a, a0, nn * sizeof *a);
        const double t0 = mixi_wtime();
        if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv) < 0) break;
        const double el = mixi_wtime() - t0;
        if (r > 0 && el > 0.0 && flops / el > best) best = flops / el;
    }
out:
    getrf_gflops = best * 1e-9;
    mixi_free(a0);
    mixi_free(ipiv);
}

static int cpu_getrf_rate(void *state, int *n, double *gflops)
{
    (void)state;
    pthread_mutex_lock(&rate_lock);
    if (getrf_gflops <= 0.0) measure_getrf();
    *n = CAL_LU_N;
    *gflops = getrf_gflops;
    pthread_mutex_unlock(&rate_lock);
    return MIX_SUCCESS;
}

/* One refinement round's rate at order 512: 3 MB of matrix and factors, beyond most L2 caches
 * and within the last level's, where AUTO's choice turns (n = 256-1000, 0.8-12 MB); best of
 * CAL_ROUND_REPS after an untimed round (0.1 ms each), on the kernels an LU-IR round runs
 * (cblas_dgemv and solve_f32_f64).  2-core Ice Lake Xeon: 25-33 GB/s from n = 300 to 2000,
 * 10-12 GB/s from 3000 (DRAM), where the factorization outweighs the rounds anyway. */
#define CAL_ROUND_N 512
#define CAL_ROUND_REPS 10

static double round_bytes_per_s;

static void measure_round(void)
{
    const int n = CAL_ROUND_N;
    const size_t nn = (size_t)n * n;
    double *a = mixi_malloc_n(nn + 2 * (size_t)n, sizeof *a), best = 0.0;
    float *lu = mixi_malloc_n(nn + (size_t)n, sizeof *lu);
    int *ipiv = mixi_malloc_n((size_t)n, sizeof *ipiv);
    if (!a || !lu || !ipiv) goto out;
    double *x = a + nn, *r = x + n;
    fill_uniform(nn, a);
    for (size_t i = 0; i < nn; i++) lu[i] = (float)(1e-3 * a[i]); /* the solves stay bounded */
    for (int i = 0; i < n; i++) {
        lu[(size_t)i * n + i] = 1.0f;
        ipiv[i] = i + 1;
        x[i] = 1.0;
    }
    for (int rep = 0; rep <= CAL_ROUND_REPS; rep++) {
        const double t0 = mixi_wtime();
        memcpy(r, x, (size_t)n * sizeof *r);
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1e-3, a, n, x, 1, 1.0, r, 1);
        if (solve_f32_f64(n, 1, lu, n, ipiv, NULL, NULL, 1.0, r, n, x, n, lu + nn)) break;
        const double el = mixi_wtime() - t0;
        if (rep > 0 && el > 0.0 && 12.0 * (double)nn / el > best) best = 12.0 * (double)nn / el;
    }
out:
    round_bytes_per_s = best;
    mixi_free(a);
    mixi_free(lu);
    mixi_free(ipiv);
}

static int cpu_round_rate(void *state, double *bytes_per_s)
{
    (void)state;
    pthread_mutex_lock(&rate_lock);
    if (round_bytes_per_s <= 0.0) measure_round();
    *bytes_per_s = round_bytes_per_s;
    pthread_mutex_unlock(&rate_lock);
    return MIX_SUCCESS;
}

/* The calibrations' GEMMs and LUs (each CAL_REPS timed after an untimed first call) took
 * 22-35 ms in a fresh process on the 2-core Xeon, twice their flops' time at the rates they
 * measured: the fresh pages of their operands, the thread pool's first wake-up. */
#define CAL_FIXED_COSTS 2.0

static double cpu_calibration_flops(void *state)
{
    (void)state;
    pthread_mutex_lock(&rate_lock);
    const int done = rates[MIX_FP64] > 0.0 && rates[MIX_FP32] > 0.0 && getrf_gflops > 0.0 &&
                     round_bytes_per_s > 0.0;
    pthread_mutex_unlock(&rate_lock);
    if (done) return 0.0;
    const double gemm = 2.0 * CAL_MN * CAL_MN * CAL_K, lu = 2.0 / 3.0 * CAL_LU_N * CAL_LU_N * CAL_LU_N;
    /* The rounds counted as the FP64 flops of their time, 50 n^2 each (11 rounds at n = 512 took
     * 2.4-3.4 ms, fresh pages included, on the 2-core Xeon: 220-300 MFLOP at its FP64 rate);
     * FP32's GEMM as FP64's, which it runs about twice as fast: on the safe side. */
    const double round = 50.0 * CAL_ROUND_N * CAL_ROUND_N * (1 + CAL_ROUND_REPS);
    return CAL_FIXED_COSTS * ((1 + CAL_REPS) * (2.0 * gemm + lu) + round);
}

const mixi_dense_ops mixi_cpu_dense_ops = {
    .lacpy_f64 = cpu_lacpy_f64,
    .count_nonfinite_f64 = cpu_count_nonfinite_f64,
    .norm_inf_f64 = cpu_norm_inf_f64,
    .col_absmax_f64 = cpu_col_absmax_f64,
    .row_absmax_scaled_f64 = cpu_row_absmax_scaled_f64,
    .col_absmax_scaled_f64 = cpu_col_absmax_scaled_f64,
    .convert_f64_to_f32 = cpu_convert_f64_to_f32,
    .getrf_panel_f32_worksize = cpu_getrf_panel_f32_worksize,
    .getrf_panel_f32 = cpu_getrf_panel_f32,
    .getrf_f32 = cpu_getrf_f32,
    .laswp_f32 = cpu_laswp_f32,
    .trsm_f32 = cpu_trsm_f32,
    .gemm_f32 = cpu_gemm_f32,
    .getrf_panel_f32_chk = cpu_getrf_panel_f32_chk,
    .gemm_f32_chk = cpu_gemm_f32_chk,
    .getrs_f32_f64 = cpu_getrs_f32_f64,
    .gemm_f64 = cpu_gemm_f64,
    .gemv_f64 = cpu_gemv_f64,
    .axpy_f64 = cpu_axpy_f64,
    .scal_f64 = cpu_scal_f64,
    .dot_f64 = cpu_dot_f64,
    .nrm2_f64 = cpu_nrm2_f64,
    .getrf_f64_worksize = cpu_getrf_f64_worksize,
    .getrf_f64 = cpu_getrf_f64,
    .getrs_f64 = cpu_getrs_f64,
    .gesv_f64 = cpu_gesv_f64,
    .norm_inf_sym_f64 = mixi_cpu_norm_inf_sym_f64,
    .symm_f64 = mixi_cpu_symm_f64,
    .symv_f64 = mixi_cpu_symv_f64,
    .convert_sym_f64_to_f32 = mixi_cpu_convert_sym_f64_to_f32,
    .potrf_f32_worksize = mixi_cpu_potrf_f32_worksize,
    .potrf_f32 = mixi_cpu_potrf_f32,
    .syrk_f32 = cpu_syrk_f32,
    .shift_diag_f32 = mixi_cpu_shift_diag_f32,
    .potrs_f32_f64 = cpu_potrs_f32_f64,
    .potrf_f64_worksize = mixi_cpu_potrf_f64_worksize,
    .potrf_f64 = mixi_cpu_potrf_f64,
    .potrs_f64 = mixi_cpu_potrs_f64,
    .posv_f64 = mixi_cpu_posv_f64,
    .gemm_rate = cpu_gemm_rate,
    .getrf_rate = cpu_getrf_rate,
    .round_rate = cpu_round_rate,
    .calibration_flops = cpu_calibration_flops,
    .whole_f32_pays = cpu_whole_f32_pays,
    .resid_dd_f64 = mixi_cpu_resid_dd_f64,
};
