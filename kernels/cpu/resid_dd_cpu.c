/* resid_dd_cpu.c: the CPU backend's accurate residual R = B - A X (kernels/common/resid_dd.h's
 * arithmetic over row blocks, vectorised with hardware FMA, threaded where BLAS shares OpenMP). */
#include "lib/core/core.h"
#include "kernels/backend_dense.h"
#include "kernels/common/resid_dd.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/dense_loops.h"
#include "kernels/cpu/resid_dd_cpu.h"

/* Rows per task: their two accumulators (4 KiB) stay in L1 while every column streams past. */
#define RESID_ROWS 256

/* One block of rows, accumulated in the stack and rounded once into r. */
static inline MIXK_ALWAYS_INLINE void rows_block(int sym, int upper, int i0, int i1, int n,
                                                 const double *a, int lda, const double *x,
                                                 const double *b, double *r)
{
    double s[RESID_ROWS], c[RESID_ROWS];
    for (int i = i0; i < i1; i++) {
        s[i - i0] = b[i];
        c[i - i0] = 0.0;
    }
    mixk_resid_dd_rows(sym, upper, i0, i1, n, a, lda, x, s, c);
    for (int i = i0; i < i1; i++) r[i] = mixk_dd_round(s[i - i0], c[i - i0]);
}

/* fma() is one instruction only where the compiler may use FMA: the same body built for
 * AVX-512 (8 lanes), for AVX2 + FMA (4 lanes) and for any x86-64 (fma() a library call:
 * correct, slower). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_FMA_CLONE 1
__attribute__((target("avx512f,avx2,fma"))) static void rows_avx512(int sym, int upper, int i0,
                                                                    int i1, int n,
                                                                    const double *a, int lda,
                                                                    const double *x,
                                                                    const double *b, double *r)
{
    rows_block(sym, upper, i0, i1, n, a, lda, x, b, r);
}
__attribute__((target("avx2,fma"))) static void rows_fma(int sym, int upper, int i0, int i1,
                                                         int n, const double *a, int lda,
                                                         const double *x, const double *b,
                                                         double *r)
{
    rows_block(sym, upper, i0, i1, n, a, lda, x, b, r);
}
#endif

static void rows_any(int sym, int upper, int i0, int i1, int n, const double *a, int lda,
                     const double *x, const double *b, double *r)
{
    rows_block(sym, upper, i0, i1, n, a, lda, x, b, r);
}

typedef void rows_fn(int, int, int, int, int, const double *, int, const double *,
                     const double *, double *);

static rows_fn *pick_rows(void)
{
#ifdef HAVE_FMA_CLONE
    if (mixi_cpu_has_avx512f() && mixi_cpu_has_f16c()) return rows_avx512;
    if (mixi_cpu_has_f16c()) return rows_fma; /* F16C's check includes AVX2 and FMA */
#endif
    return rows_any;
}

int mixi_cpu_resid_dd_f64(void *state, int sym, int uplo, int n, int k, const double *a, int lda,
                          const double *x, int ldx, const double *b, int ldb, double *r, int ldr)
{
    (void)state;
    rows_fn *rows = pick_rows();
    const int upper = uplo == MIXK_UPPER, nblk = (n + RESID_ROWS - 1) / RESID_ROWS;
    const int par = mixi_cpu_par_entries((size_t)n * (size_t)n);
    for (int j = 0; j < k; j++) {
        const double *xj = x + IDX(0, j, ldx), *bj = b + IDX(0, j, ldb);
        double *rj = r + IDX(0, j, ldr);
        MIXI_OMP(omp parallel for schedule(static) if (par))
        for (int t = 0; t < nblk; t++) {
            const int i0 = t * RESID_ROWS, i1 = i0 + RESID_ROWS < n ? i0 + RESID_ROWS : n;
            rows(sym, upper, i0, i1, n, a, lda, xj, bj, rj);
        }
    }
    return MIX_SUCCESS;
}
