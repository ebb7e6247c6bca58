/* gen_convdiff.c: 3-D convection-diffusion with first-order upwind convection (the general sparse benchmark problem). */
#include <math.h>
#include <stdint.h>
#include "matrices/generators.h"

int mixm_gen_convdiff3d(int nx, double bx, double by, double bz, mixm_csr *A)
{
    if (nx <= 0 || !isfinite(bx) || !isfinite(by) || !isfinite(bz)) return MIX_ERR_INVALID_ARG;
    const int64_t n = (int64_t)nx * nx * nx;
    if (n > INT32_MAX) return MIX_ERR_INVALID_ARG;
    int st = mixm_csr_alloc(A, (int)n, (int)n, 7 * n - (int64_t)6 * nx * nx);
    if (st) return st;
    const double h = 1.0 / (nx + 1), b[3] = {bx, by, bz};
    const int64_t stride[3] = {1, nx, (int64_t)nx * nx};
    /* Scaled by h^2: diffusion -1 to each neighbour and 6 on the diagonal; convection b h
     * |b_d| on the diagonal and -|b_d| h to the upwind neighbour (the lower one for b_d > 0). */
    double diag = 6.0, lo[3], up[3];
    for (int d = 0; d < 3; d++) {
        diag += h * fabs(b[d]);
        lo[d] = -1.0 - (b[d] > 0 ? h * b[d] : 0.0);
        up[d] = -1.0 + (b[d] < 0 ? h * b[d] : 0.0);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t c[3] = {i % nx, (i / nx) % nx, i / ((int64_t)nx * nx)};
        A->rowptr[i] = k;
        for (int d = 2; d >= 0; d--)
            if (c[d] > 0) { A->colind[k] = (int32_t)(i - stride[d]); A->val[k++] = lo[d]; }
        A->colind[k] = (int32_t)i;
        A->val[k++] = diag;
        for (int d = 0; d < 3; d++)
            if (c[d] < nx - 1) { A->colind[k] = (int32_t)(i + stride[d]); A->val[k++] = up[d]; }
    }
    A->rowptr[n] = k;
    return MIX_SUCCESS;
}
