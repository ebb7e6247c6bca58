/* mixmat.h: matrix containers (CSR, dense) of libmixmat, used by the tool, benchmarks and tests. */
#ifndef MIXMAT_H
#define MIXMAT_H

#include <stdint.h>
#include <stddef.h>
#include "mixsolve.h"
#include "lib/core/clock.h"

/* Compressed sparse row, 0-based, FP64 values; the layout mix_sparse_create_csr takes. */
typedef struct {
    int nrows, ncols;
    int64_t nnz;
    int64_t *rowptr; /* nrows + 1 */
    int32_t *colind; /* nnz */
    double *val;     /* nnz */
} mixm_csr;

/* Dense, column-major, leading dimension nrows. */
typedef struct {
    int nrows, ncols;
    double *a;
} mixm_dense;

void mixm_csr_free(mixm_csr *A);     /* frees the arrays, zeroes the struct; NULL allowed */
void mixm_dense_free(mixm_dense *A);
/* Allocates the arrays of an nrows x ncols CSR with nnz entries: 0 or MIX_ERR_ALLOC/INVALID_ARG. */
int mixm_csr_alloc(mixm_csr *A, int nrows, int ncols, int64_t nnz);
/* Dense copy of a CSR (column-major); MIX_ERR_ALLOC when it would not fit. */
int mixm_csr_to_dense(const mixm_csr *A, mixm_dense *D);
/* ||A||inf = max row sum of |a_ij|. */
double mixm_csr_norm_inf(const mixm_csr *A);
/* y = A x in FP64. */
void mixm_csr_matvec(const mixm_csr *A, const double *x, double *y);
/* 1 if A is numerically symmetric (pattern and values), else 0. */
int mixm_csr_is_symmetric(const mixm_csr *A);
/* The first row (*row) or else column (*col) without a stored entry, -1 when none: 0 or
 * MIX_ERR_ALLOC. */
int mixm_csr_empty_line(const mixm_csr *A, int *row, int *col);

/* Range-safe norms (safe_norm.c): no overflow or underflow for any finite data, NaN never hidden. */
double mixm_amax(int n, const double *x); /* max |x_i|; NaN if an entry is NaN */
double mixm_nrm2(int n, const double *x); /* ||x||_2, dnrm2-style scaling; NaN/Inf propagate */
/* The FP64 re-check of a solution, computed scaled by a power of two: *berr = ||b - A x||inf /
 * (||A||inf ||x||inf + ||b||inf) and *rel2 = ||b - A x||_2 / ||b||_2 (either pointer may be
 * NULL).  0, MIX_ERR_NAN (a NaN/Inf in A, b or x; both results NaN) or MIX_ERR_ALLOC. */
int mixm_csr_recheck(const mixm_csr *A, const double *b, const double *x, double *berr, double *rel2);
/* The normwise backward error of a dense solution: max over the nrhs columns of
 * ||b - A x||inf / (||A||inf ||x||inf + ||b||inf), A n x n column-major (both triangles of a
 * symmetric A).  FP64 dgemv; data near the overflow or underflow thresholds go through
 * mixm_csr_recheck's scaling.  NaN when A, x or b hold a NaN/Inf, or memory runs out. */
double mixm_dense_backward_error(int n, int nrhs, const double *a, int lda, const double *b, int ldb,
                                 const double *x, int ldx);

/* Wall clock in seconds: the library's one clock (lib/core/clock.h), for the tool's and the benchmarks'
 * timings. */
static inline double mixm_wtime(void) { return mixi_wtime(); }

/* Small reproducible random numbers (xoshiro256**) for generators and tests. */
typedef struct { uint64_t s[4]; } mixm_rng;
static inline uint64_t mixm_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline void mixm_rng_seed(mixm_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 fills the state */
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}
static inline uint64_t mixm_rng_next(mixm_rng *r)
{
    uint64_t *s = r->s, result = mixm_rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = mixm_rng_rotl(s[3], 45);
    return result;
}
/* Uniform in [0, 1). */
static inline double mixm_rng_uniform(mixm_rng *r) { return (double)(mixm_rng_next(r) >> 11) * 0x1.0p-53; }

#endif
