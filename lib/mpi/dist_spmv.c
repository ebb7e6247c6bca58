/* dist_spmv.c: y = A x over the ranks, the halo in flight while the interior rows run. */
#include "lib/mpi/mpi_internal.h"

/* One row in FP64, in column order (the serial CSR product's order: the same bits). */
static double row(const mixi_dist *D, int i, const double *x, const double *g)
{
    double s = 0.0;
    for (int64_t k = D->rp[i]; k < D->rp[i + 1]; k++) {
        const int32_t j = D->cx[k];
        s += D->v[k] * (j < D->n_local ? x[j] : g[j - D->n_local]);
    }
    return s;
}

int mixi_dist_spmv(mixi_dist *D, mix_prec wire, const double *x, double *y)
{
    if (!D || !mixi_wire_valid(wire) || (D->n_local > 0 && (!x || !y))) return MIX_ERR_INVALID_ARG;
    const mixi_comm *c = D->ctx->comm;
    int st = c->ops->halo_begin(c, D->halo, wire, x);
    for (int t = 0; t < D->n_interior; t++) y[D->rows[t]] = row(D, D->rows[t], x, NULL);
    const int st2 = c->ops->halo_end(c, D->halo, D->ghostv);
    st = st ? st : st2;
    for (int t = D->n_interior; t < D->n_local; t++) y[D->rows[t]] = row(D, D->rows[t], x, D->ghostv);
    return st;
}
