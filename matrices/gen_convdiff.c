/* gen_convdiff.c: 2-D and 3-D convection-diffusion with first-order upwind convection (the general sparse benchmark problems). */
#include <math.h>
#include <stdint.h>
#include "matrices/generators.h"

/* -lap u + b . grad u on the unit square (dim 2) or cube (dim 3), nx^dim interior points,
 * Dirichlet boundary, scaled by h^2 (h = 1/(nx+1)): diffusion 2 dim on the diagonal and -1 to
 * each neighbour; convection h |b_d| on the diagonal and -h |b_d| to the upwind neighbour (the
 * lower one for b_d > 0).  Upwinding keeps every off-diagonal negative and every row diagonally
 * dominant (strictly at the boundary): an M-matrix for any b.  With b = 0 the values are
 * gen_poisson.c's bit for bit (2 dim + 0, -1 - 0).  Rows sorted: x is the fastest axis. */
static int gen_convdiff(int nx, int dim, const double *b, mixm_csr *A)
{
    if (nx <= 0) return MIX_ERR_INVALID_ARG;
    int64_t n = 1;
    for (int d = 0; d < dim; d++) {
        if (!isfinite(b[d])) return MIX_ERR_INVALID_ARG;
        n *= nx;
        if (n > INT32_MAX) return MIX_ERR_INVALID_ARG; /* checked per axis: nx^3 may overflow int64 */
    }
    const double h = 1.0 / (nx + 1.0);
    double diag = 2.0 * dim, lo[3], up[3];
    for (int d = 0; d < dim; d++) {
        diag += h * fabs(b[d]);
        lo[d] = -1.0 - (b[d] > 0 ? h * b[d] : 0.0);
        up[d] = -1.0 + (b[d] < 0 ? h * b[d] : 0.0);
    }
    if (!isfinite(diag)) return MIX_ERR_INVALID_ARG; /* |b| near DBL_MAX on a coarse grid */
    int st = mixm_csr_alloc(A, (int)n, (int)n, n * (1 + 2 * dim) - (int64_t)2 * dim * (n / nx));
    if (st) return st;
    const int64_t stride[3] = {1, nx, (int64_t)nx * nx};
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c[3] = {i % nx, (i / nx) % nx, i / ((int64_t)nx * nx)};
        A->rowptr[i] = k;
        for (int d = dim - 1; d >= 0; d--)
            if (c[d] > 0) { A->colind[k] = (int32_t)(i - stride[d]); A->val[k++] = lo[d]; }
        A->colind[k] = (int32_t)i;
        A->val[k++] = diag;
        for (int d = 0; d < dim; d++)
            if (c[d] < nx - 1) { A->colind[k] = (int32_t)(i + stride[d]); A->val[k++] = up[d]; }
    }
    A->rowptr[n] = k;
    return MIX_SUCCESS;
}

int mixm_gen_convdiff2d(int nx, double bx, double by, mixm_csr *A)
{
    const double b[2] = {bx, by};
    return gen_convdiff(nx, 2, b, A);
}

int mixm_gen_convdiff3d(int nx, double bx, double by, double bz, mixm_csr *A)
{
    const double b[3] = {bx, by, bz};
    return gen_convdiff(nx, 3, b, A);
}
