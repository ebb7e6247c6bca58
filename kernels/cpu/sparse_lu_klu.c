/* sparse_lu_klu.c: FP64 sparse LU by KLU (SuiteSparse), the CPU backend's factors for matrices whose analysis predicts little fill. */
#include <klu.h>
#include "lib/core/core.h"
#include "kernels/cpu/sparse_lu_klu.h"

/* KLU reads compressed columns: the CSR arrays of A are those of A^T, which KLU factors; A's
 * solves are then KLU's transposed ones (klu_tsolve). */
struct mixi_klu {
    int n;
    klu_common common;
    klu_symbolic *symbolic;
    klu_numeric *numeric;
};

void mixi_klu_free(mixi_klu *lu)
{
    if (!lu) return;
    if (lu->numeric) klu_free_numeric(&lu->numeric, &lu->common);
    if (lu->symbolic) klu_free_symbolic(&lu->symbolic, &lu->common);
    mixi_free(lu);
}

int mixi_klu_factor(int n, const int64_t *rowptr, const int32_t *colind, const double *val,
                    mixi_klu **out)
{
    *out = NULL;
    mixi_klu *lu = mixi_calloc(1, sizeof *lu);
    int *ptr = mixi_malloc_n((size_t)n + 1, sizeof *ptr); /* KLU's int column pointers */
    if (!lu || !ptr) {
        mixi_free(lu);
        mixi_free(ptr);
        return MIX_ERR_ALLOC;
    }
    for (int i = 0; i <= n; i++) ptr[i] = (int)rowptr[i];
    lu->n = n;
    klu_defaults(&lu->common);
    /* KLU's own AMD ordering after its block triangular form (its defaults: the circuit
     * matrices it was made for); a zero pivot stops it at once (halt_if_singular). */
    lu->symbolic = klu_analyze(n, ptr, (int *)colind, &lu->common);
    if (lu->symbolic)
        lu->numeric = klu_factor(ptr, (int *)colind, (double *)val, lu->symbolic, &lu->common);
    mixi_free(ptr);
    if (!lu->numeric || lu->common.status != KLU_OK) {
        mixi_klu_free(lu);
        return MIX_SUCCESS;
    }
    *out = lu;
    return MIX_SUCCESS;
}

int mixi_klu_solve(mixi_klu *lu, int k, double *c, int ldc)
{
    if (k <= 0) return MIX_SUCCESS;
    return klu_tsolve(lu->symbolic, lu->numeric, ldc, k, c, &lu->common) ? MIX_SUCCESS
                                                                        : MIX_ERR_INTERNAL;
}

void mixi_klu_bytes(const mixi_klu *lu, int64_t *factors, int64_t *peak)
{
    const klu_numeric *f = lu->numeric;
    /* L, U and the off-diagonal blocks: a value and a row index per entry. */
    const int64_t entries = (int64_t)f->lnz + f->unz + f->nzoff;
    *factors = entries * (int64_t)(sizeof(double) + sizeof(int));
    *peak = (int64_t)lu->common.mempeak;
}
