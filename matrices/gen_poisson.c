/* gen_poisson.c: sparse SPD model problems: 2D/3D Poisson and anisotropic 2D diffusion (CSR). */
#include <math.h>
#include <stdint.h>
#include "matrices/generators.h"

/* Finite-difference Laplacian on an nx^d grid with Dirichlet boundaries: diagonal 2 sum(w),
 * -w[axis] to each neighbour; rows come out sorted because neighbours are visited in index order. */
static int gen_stencil(int nx, int dim, const double *w, mixm_csr *A)
{
    if (nx <= 0) return MIX_ERR_INVALID_ARG;
    int64_t n = 1;
    for (int d = 0; d < dim; d++)
        if ((n *= nx) > INT32_MAX) return MIX_ERR_INVALID_ARG; /* per axis: nx^3 may overflow int64 */
    int64_t nnz = n * (1 + 2 * dim) - (int64_t)2 * dim * (n / nx);
    int st = mixm_csr_alloc(A, (int)n, (int)n, nnz);
    if (st) return st;
    double diag = 0.0;
    for (int d = 0; d < dim; d++) diag += 2.0 * w[d];
    int64_t k = 0;
    int64_t stride[3] = {1, nx, (int64_t)nx * nx};
    for (int64_t i = 0; i < n; i++) {
        int64_t c[3] = {i % nx, (i / nx) % nx, i / ((int64_t)nx * nx)};
        A->rowptr[i] = k;
        /* Lower neighbours from the slowest axis down, the diagonal, then upper ones. */
        for (int d = dim - 1; d >= 0; d--)
            if (c[d] > 0) { A->colind[k] = (int32_t)(i - stride[d]); A->val[k++] = -w[d]; }
        A->colind[k] = (int32_t)i;
        A->val[k++] = diag;
        for (int d = 0; d < dim; d++)
            if (c[d] < nx - 1) { A->colind[k] = (int32_t)(i + stride[d]); A->val[k++] = -w[d]; }
    }
    A->rowptr[n] = k;
    return MIX_SUCCESS;
}

int mixm_gen_poisson2d(int nx, mixm_csr *A)
{
    static const double w[2] = {1.0, 1.0};
    return gen_stencil(nx, 2, w, A);
}

int mixm_gen_poisson3d(int nx, mixm_csr *A)
{
    static const double w[3] = {1.0, 1.0, 1.0};
    return gen_stencil(nx, 3, w, A);
}

int mixm_gen_anisotropic2d(int nx, double eps, mixm_csr *A)
{
    if (!(eps > 0.0) || !isfinite(2.0 + 2.0 * eps)) return MIX_ERR_INVALID_ARG; /* the diagonal */
    const double w[2] = {1.0, eps};
    return gen_stencil(nx, 2, w, A);
}
