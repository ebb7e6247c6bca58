/* tent_cpu.c: the CPU's transfers of a tentative prolongator (kernels/common/tent.h), the
 * aggregates (restriction) or the rows (prolongation) split among the threads: each sum is one
 * aggregate's, each row written once, so neither direction needs private accumulators or a
 * reduction. */
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
    const int64_t n = T->n, nc = T->nc;
    /* One loop per case, so that x's test is not made per row. */
    if (T->prec == MIX_FP32 && x) {
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
        for (int64_t i = 0; i < n; i++) mixk_tent_row_f32(T->agg, T->row_val, y->val, nc, i, u->val, x->val);
    } else if (T->prec == MIX_FP32) {
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
        for (int64_t i = 0; i < n; i++) mixk_tent_row_f32(T->agg, T->row_val, y->val, nc, i, u->val, NULL);
    } else {
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
        for (int64_t i = 0; i < n; i++)
            mixk_tent_row_f64(T->agg, T->row_val, y->val, nc, i, u->val, x ? x->val : NULL);
    }
    return MIX_SUCCESS;
}
