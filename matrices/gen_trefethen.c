/* gen_trefethen.c: Trefethen_N (primes on the diagonal, ones at power-of-two offsets), exactly. */
#include <math.h>
#include <stdlib.h>
#include "matrices/generators.h"

/* The first n primes by a sieve sized with the bound p_n < n (ln n + ln ln n) for n >= 6. */
static int first_primes(int n, int64_t *p)
{
    double x = n < 6 ? 15.0 : (double)n * (log((double)n) + log(log((double)n)));
    size_t lim = (size_t)x + 2;
    unsigned char *composite = calloc(lim + 1, 1);
    if (!composite) return MIX_ERR_ALLOC;
    int k = 0;
    for (size_t i = 2; i <= lim && k < n; i++) {
        if (composite[i]) continue;
        p[k++] = (int64_t)i;
        for (size_t j = i * i; j <= lim; j += i) composite[j] = 1;
    }
    free(composite);
    return k == n ? MIX_SUCCESS : MIX_ERR_INVALID_ARG;
}

int mixm_gen_trefethen(int n, mixm_csr *A)
{
    if (!A) return MIX_ERR_INVALID_ARG;
    if (n < 1 || n > (1 << 26)) return MIX_ERR_INVALID_ARG;
    int64_t nnz = n; /* diagonal, then both off-diagonals for every power of two below n */
    for (int64_t d = 1; d < n; d *= 2) nnz += 2 * (n - d);
    int64_t *primes = malloc((size_t)n * sizeof *primes);
    if (!primes) return MIX_ERR_ALLOC;
    int st = first_primes(n, primes);
    if (!st) st = mixm_csr_alloc(A, n, n, nnz);
    if (st) {
        free(primes);
        return st;
    }
    int64_t w = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = w;
        int64_t d = 1; /* columns i - 2^k (descending powers), then i, then i + 2^k ascending */
        while (2 * d <= i) d *= 2;
        for (; d >= 1; d /= 2)
            if (d <= i) {
                A->colind[w] = (int32_t)(i - d);
                A->val[w++] = 1.0;
            }
        A->colind[w] = i;
        A->val[w++] = (double)primes[i];
        for (d = 1; i + d < n; d *= 2) {
            A->colind[w] = (int32_t)(i + d);
            A->val[w++] = 1.0;
        }
    }
    A->rowptr[n] = w;
    free(primes);
    return MIX_SUCCESS;
}
