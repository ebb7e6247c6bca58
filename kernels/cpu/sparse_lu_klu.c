/* sparse_lu_klu.c: FP64 sparse LU by KLU (SuiteSparse), the CPU backend's factors for matrices whose analysis predicts little fill. */
#include <klu.h>
#include "lib/core/core.h"
#include "kernels/cpu/sparse_lu_klu.h"

/* KLU reads compressed columns: the CSR arrays of A are those of A^T, which KLU factors; A's
 * solves are then KLU's transposed ones (klu_tsolve).  A^T's analysis predicts A's work. */
struct mixi_klu {
    int *ptr;            /* KLU's int column pointers (rowptr narrowed) */
    const int32_t *ind;  /* colind, the caller's */
    klu_common common;
    klu_symbolic *symbolic;
    klu_numeric *numeric;
};

void mixi_klu_free(mixi_klu *lu)
{
    if (!lu) return;
    if (lu->numeric) klu_free_numeric(&lu->numeric, &lu->common);
    if (lu->symbolic) klu_free_symbolic(&lu->symbolic, &lu->common);
    mixi_free(lu->ptr);
    mixi_free(lu);
}

int mixi_klu_analyze(int n, const int64_t *rowptr, const int32_t *colind, mixi_klu **out,
                     int *structural_rank)
{
    *out = NULL;
    *structural_rank = n;
    mixi_klu *lu = mixi_calloc(1, sizeof *lu);
    if (!lu || !(lu->ptr = mixi_malloc_n((size_t)n + 1, sizeof *lu->ptr))) {
        mixi_klu_free(lu);
        return MIX_ERR_ALLOC;
    }
    for (int i = 0; i <= n; i++) lu->ptr[i] = (int)rowptr[i];
    lu->ind = colind;
    /* KLU's defaults, those of the circuit matrices it was made for: block triangular form,
     * AMD; a zero pivot stops the factorization at once (halt_if_singular). */
    klu_defaults(&lu->common);
    lu->symbolic = klu_analyze(n, lu->ptr, (int *)colind, &lu->common);
    if (!lu->symbolic) {
        mixi_klu_free(lu);
        return MIX_SUCCESS;
    }
    if (lu->common.structural_rank >= 0 && lu->common.structural_rank < n)
        *structural_rank = lu->common.structural_rank;
    *out = lu;
    return MIX_SUCCESS;
}

/* A value and a row index per entry of the factors. */
#define BYTES_PER_ENTRY (sizeof(double) + sizeof(int))

void mixi_klu_estimate(const mixi_klu *lu, double *flops, double *entries, double *bytes)
{
    *flops = lu->symbolic->est_flops;
    *entries = lu->symbolic->lnz + lu->symbolic->unz;
    *bytes = *entries * (double)BYTES_PER_ENTRY;
}

int mixi_klu_factor(mixi_klu *lu, const double *val)
{
    if (lu->numeric) return 1;
    lu->numeric = klu_factor(lu->ptr, (int *)lu->ind, (double *)val, lu->symbolic, &lu->common);
    if (lu->numeric && lu->common.status == KLU_OK) return 1;
    if (lu->numeric) klu_free_numeric(&lu->numeric, &lu->common);
    return 0;
}

int mixi_klu_factored(const mixi_klu *lu) { return lu && lu->numeric; }

int mixi_klu_solve(mixi_klu *lu, int k, double *c, int ldc)
{
    if (k <= 0) return MIX_SUCCESS;
    return klu_tsolve(lu->symbolic, lu->numeric, ldc, k, c, &lu->common) ? MIX_SUCCESS
                                                                        : MIX_ERR_INTERNAL;
}

void mixi_klu_bytes(const mixi_klu *lu, int64_t *factors, int64_t *peak)
{
    const klu_numeric *f = lu->numeric;
    /* L, U and the off-diagonal blocks. */
    const int64_t entries = (int64_t)f->lnz + f->unz + f->nzoff;
    *factors = entries * (int64_t)BYTES_PER_ENTRY;
    *peak = (int64_t)lu->common.mempeak;
    if (*peak < *factors) *peak = *factors;
}
