/* tent_cpu.c: the CPU's transfers of a tentative prolongator (kernels/common/tent.h), the
 * aggregates split among the threads: each aggregate's rows are its own, so neither direction
 * needs private accumulators or a reduction. */
#include "kernels/cpu/tent_cpu.h"
#include "kernels/common/tent.h"
#include "kernels/cpu/sparse_cpu_impl.h"

/* The vectors of a transfer: T's precision (FP32 or FP64), y of nc values, the others of n. */
static int check(const mixi_tent *T, const mixi_svec *fine, const mixi_svec *coarse, const mixi_svec *x)
{
    if (!T || !fine || !coarse || fine->n != T->n || coarse->n != T->nc || (x && x->n != T->n))
        return MIX_ERR_INVALID_ARG;
    if (T->prec != MIX_FP32 && T->prec != MIX_FP64) return MIX_ERR_UNSUPPORTED;
    if (fine->prec != T->prec || coarse->prec != T->prec || (x && x->prec != T->prec))
        return MIX_ERR_UNSUPPORTED;
    return MIX_SUCCESS;
}

int mixi_cpu_tent_restrict(void *state, const mixi_tent *T, const mixi_svec *x, mixi_svec *y)
{
    (void)state;
    const int st = check(T, x, y, NULL);
    if (st) return st;
    const int64_t nc = T->nc;
    if (T->prec == MIX_FP32) {
        float *yv = y->val;
#pragma omp parallel for schedule(static) if (T->n > PAR_MIN)
        for (int64_t a = 0; a < nc; a++)
            yv[a] = (float)mixk_tent_col_f32(T->start, T->rows, T->val, x->val, a);
    } else {
        double *yv = y->val;
#pragma omp parallel for schedule(static) if (T->n > PAR_MIN)
        for (int64_t a = 0; a < nc; a++) yv[a] = mixk_tent_col_f64(T->start, T->rows, T->val, x->val, a);
    }
    return MIX_SUCCESS;
}

int mixi_cpu_tent_prolong(void *state, const mixi_tent *T, const mixi_svec *y, mixi_svec *u,
                          mixi_svec *x)
{
    (void)state;
    const int st = check(T, u, y, x);
    if (st) return st;
    const int64_t nc = T->nc;
    /* a == nc: the rows in no aggregate (u = 0 there). */
    if (T->prec == MIX_FP32) {
        const float *yv = y->val;
#pragma omp parallel for schedule(static) if (T->n > PAR_MIN)
        for (int64_t a = 0; a <= nc; a++)
            mixk_tent_spread_f32(T->start, T->rows, T->val, a < nc ? yv[a] : 0.0f, a, u->val,
                                 x ? x->val : NULL);
    } else {
        const double *yv = y->val;
#pragma omp parallel for schedule(static) if (T->n > PAR_MIN)
        for (int64_t a = 0; a <= nc; a++)
            mixk_tent_spread_f64(T->start, T->rows, T->val, a < nc ? yv[a] : 0.0, a, u->val,
                                 x ? x->val : NULL);
    }
    return MIX_SUCCESS;
}
