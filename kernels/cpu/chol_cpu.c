/* chol_cpu.c: the CPU backend's operations for symmetric positive definite systems (Cholesky pieces). */
#include <math.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "lib/core/core.h"
#include "kernels/backend_dense.h"
#include "kernels/common/prec_traits.h"
#include "kernels/cpu/chol_cpu.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dense_tiny.h"
#include "kernels/cpu/dense_loops.h"

/* Half the square: the stored triangle's entries. */
static int par_loop(int n) { return mixi_cpu_par_entries((size_t)n * (size_t)n / 2); }

/* Entry (i, j), i >= j, of the symmetric A stored in its uplo triangle. */
static inline double sym_lower(int uplo, const double *a, int lda, int i, int j)
{
    return uplo == MIXK_LOWER ? a[IDX(i, j, lda)] : a[IDX(j, i, lda)];
}

#define SYM_NORM_STACK_N 128

int mixi_cpu_norm_inf_sym_f64(void *state, int uplo, int n, const double *a, int lda,
                              double *norm)
{
    (void)state;
    *norm = 0.0;
    if (n == 0) return MIX_SUCCESS;
    /* The row sums on the stack for a small matrix: its allocation and free were a tenth of
     * AUTO's instructions beyond LAPACKE_dposv at n = 20 (issue 32). */
    double small[SYM_NORM_STACK_N];
    double *sum = n <= SYM_NORM_STACK_N ? small : mixi_malloc_n((size_t)n, sizeof *sum);
    if (!sum) return MIX_ERR_ALLOC;
    memset(sum, 0, (size_t)n * sizeof *sum);
    /* Each stored off-diagonal entry counts in its row and in its column; the column's own sum
     * in any order (all terms >= 0), so that the loop runs in vector lanes. */
    for (int j = 0; j < n; j++) {
        const double *col = a + IDX(0, j, lda);
        const int lo = uplo == MIXK_LOWER ? j + 1 : 0, hi = uplo == MIXK_LOWER ? n : j;
        double cs = 0.0;
        MIXI_OMP(omp simd reduction(+ : cs))
        for (int i = lo; i < hi; i++) {
            const double v = fabs(col[i]);
            sum[i] += v;
            cs += v;
        }
        sum[j] += cs + fabs(col[j]);
    }
    double best = 0.0;
    for (int i = 0; i < n; i++) best = nanmax(best, sum[i]);
    if (sum != small) mixi_free(sum);
    *norm = best;
    return MIX_SUCCESS;
}

/* Where symm_f64 takes one dsymv per column instead of dsymm (below). */
#define SYMM_BY_SYMV_MIN_N 64
#define SYMM_BY_SYMV_MAX_COLS 8

int mixi_cpu_symm_f64(void *state, int uplo, int n, int k, double alpha, const double *a, int lda,
                      const double *b, int ldb, double beta, double *c, int ldc)
{
    (void)state;
    if (n == 0 || k == 0) return MIX_SUCCESS;
    CBLAS_UPLO u = uplo == MIXK_UPPER ? CblasUpper : CblasLower;
    /* dsymm for small n: a residual at rounding level read by dsymv and by dsymm differs by up
     * to 3x at n = 2, and LAPACK's dsposv reads it by dsymm (Reference-LAPACK's xlintstds,
     * OpenBLAS HASWELL kernels).  Above, dsymv per column where OpenBLAS's dsymm, which packs
     * the whole matrix at each call, is the slower (2 threads, Ice Lake: n = 3600, one column
     * 17.6 ms against 2.2; n = 2000, 8 columns 5.1 ms against 3.5, 16 columns 5.8 against 7.2). */
    if (n >= SYMM_BY_SYMV_MIN_N && k <= SYMM_BY_SYMV_MAX_COLS) {
        for (int j = 0; j < k; j++)
            cblas_dsymv(CblasColMajor, u, n, alpha, a, lda, b + (size_t)j * ldb, 1, beta,
                        c + (size_t)j * ldc, 1);
        return MIX_SUCCESS;
    }
    cblas_dsymm(CblasColMajor, CblasLeft, u, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return MIX_SUCCESS;
}

int mixi_cpu_symv_f64(void *state, int uplo, int n, double alpha, const double *a, int lda,
                      const double *x, double beta, double *y)
{
    (void)state;
    if (n == 0) return MIX_SUCCESS;
    cblas_dsymv(CblasColMajor, uplo == MIXK_UPPER ? CblasUpper : CblasLower, n, alpha, a, lda, x,
                1, beta, y, 1);
    return MIX_SUCCESS;
}

/* Tile side of the symmetric conversion: 32 x 32 tiles of the lower triangle, so an upper source
 * (read transposed) stays in cache. */
#define SYM_TILE 32

/* Tile column t of convert_sym_f64_to_f32 (columns t T .. t T + T - 1, from the diagonal down);
 * returns its count of values that do not round below limit.  Product order (d_i a_ij)(d_j s),
 * as the CUDA kernel. */
static size_t convert_sym_tiles(int t, int uplo, int n, const double *a, int lda, const double *d,
                                double s, float limit, float *out, int ldo)
{
    const int T = SYM_TILE, jb = t * T, je = jb + T < n ? jb + T : n;
    size_t bad = 0;
    for (int ib = jb; ib < n; ib += T) {
        int ie = ib + T < n ? ib + T : n;
        for (int j = jb; j < je; j++) {
            double dj = (d ? d[j] : 1.0) * s;
            float *o = out + IDX(0, j, ldo);
            for (int i = ib > j ? ib : j; i < ie; i++) {
                float v = (float)((d ? d[i] : 1.0) * sym_lower(uplo, a, lda, i, j) * dj);
                o[i] = v;
                bad += !(fabsf(v) < limit);
            }
        }
    }
    return bad;
}

int mixi_cpu_convert_sym_f64_to_f32(void *state, mix_prec target, int uplo, int n,
                                    const double *a, int lda, const double *d, double s,
                                    float *out, int ldo, size_t *overflow)
{
    (void)state;
    const float limit = (float)mixk_prec_overflow_limit(target); /* FP32: Inf */
    const int ntiles = (n + SYM_TILE - 1) / SYM_TILE;
    size_t bad = 0;
    if (!par_loop(n)) { /* no parallel region: entering one costs a futex call */
        for (int t = 0; t < ntiles; t++)
            bad += convert_sym_tiles(t, uplo, n, a, lda, d, s, limit, out, ldo);
    } else {
        /* Tile columns hold less work further right: dynamic scheduling balances the triangle. */
        MIXI_OMP(omp parallel for reduction(+ : bad) schedule(dynamic, 4))
        for (int t = 0; t < ntiles; t++)
            bad += convert_sym_tiles(t, uplo, n, a, lda, d, s, limit, out, ldo);
    }
    if (overflow) *overflow = bad;
    return MIX_SUCCESS;
}

int mixi_cpu_potrf_f32_worksize(void *state, int n, size_t *bytes)
{
    (void)state; (void)n;
    *bytes = 0;
    return MIX_SUCCESS;
}

int mixi_cpu_potrf_f32(void *state, int n, float *a, int lda, void *work, int *info)
{
    (void)state; (void)work;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    lapack_int st = LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda);
    if (st < 0) return MIX_ERR_INTERNAL;
    if (st > 0) {
        *info = (int)st;
        return MIX_SUCCESS;
    }
    /* An Inf in L (overflow of a sum of squares) would poison every later step silently. */
    size_t bad = 0;
    if (!par_loop(n)) {
        for (int j = 0; j < n && !bad; j++) bad = mixi_cpu_nonfinite_f32(n - j, a + IDX(j, j, lda));
    } else {
        MIXI_OMP(omp parallel for reduction(+ : bad) schedule(dynamic, 64))
        for (int j = 0; j < n; j++) bad += mixi_cpu_nonfinite_f32(n - j, a + IDX(j, j, lda));
    }
    if (bad) *info = -1;
    return MIX_SUCCESS;
}

int mixi_cpu_shift_diag_f32(void *state, int n, float *a, int lda, float shift)
{
    (void)state;
    for (int i = 0; i < n; i++) a[IDX(i, i, lda)] += shift;
    return MIX_SUCCESS;
}

int mixi_cpu_potrf_f64_worksize(void *state, int n, size_t *bytes)
{
    (void)state; (void)n;
    *bytes = 0;
    return MIX_SUCCESS;
}

int mixi_cpu_potrf_f64(void *state, int uplo, int n, double *a, int lda, void *work, int *info)
{
    (void)state; (void)work;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    char u = uplo == MIXK_UPPER ? 'U' : 'L';
    lapack_int st = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, u, n, a, lda);
    if (st < 0) return MIX_ERR_INTERNAL;
    *info = (int)st;
    return MIX_SUCCESS;
}

int mixi_cpu_posv_f64(void *state, int uplo, int n, int nrhs, double *a, int lda, double *b,
                      int ldb, int *info)
{
    (void)state;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    if (n <= MIXI_TINY_CHOL_MAX_N)
        return *info = mixi_tiny_dposv(uplo == MIXK_UPPER, n, nrhs, a, lda, b, ldb), MIX_SUCCESS;
    lapack_int st = LAPACKE_dposv_work(LAPACK_COL_MAJOR, uplo == MIXK_UPPER ? 'U' : 'L', n, nrhs,
                                       a, lda, b, ldb);
    if (st < 0) return MIX_ERR_INTERNAL;
    *info = (int)st;
    return MIX_SUCCESS;
}

int mixi_cpu_potrs_f64(void *state, int uplo, int n, int nrhs, const double *a, int lda,
                       double *b, int ldb)
{
    (void)state;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS;
    return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, uplo == MIXK_UPPER ? 'U' : 'L', n, nrhs, a, lda,
                               b, ldb)
               ? MIX_ERR_INTERNAL
               : MIX_SUCCESS;
}
