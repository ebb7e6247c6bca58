/* vec_cpu.c: the CPU backend's fused CG vector passes over FP32 or FP64 vectors, from the
 * element bodies of kernels/common/cg_update.h. */
#include "lib/core/core.h"
#include "kernels/common/cg_update.h"
#include "kernels/cpu/vec_cpu.h"

/* As sparse_cpu.c's PAR_MIN: the same rows run serially or in the same static split, so the
 * FP64 reductions add their block sums as the unfused kernels do. */
#define VEC_PAR_MIN 4096
#define NBLK(n) (((n) + MIXK_CG_BLK - 1) / MIXK_CG_BLK)
#define CNT(n, b) ((int)((n) - (b) * MIXK_CG_BLK < MIXK_CG_BLK ? (n) - (b) * MIXK_CG_BLK : MIXK_CG_BLK))

static int one_wide_prec(mix_prec p) { return p == MIX_FP32 || p == MIX_FP64; }

/* One pass per precision: T, its suffix; a full block gets a constant trip count. */
#define RUPDATE(T, SFX)                                                                           \
    {                                                                                             \
        const T a = (T)alpha;                                                                     \
        const T *apv = (const T *)ap->val;                                                        \
        T *rv = (T *)r->val;                                                                      \
        _Pragma("omp parallel for reduction(+ : acc_rr, acc_rd) schedule(static) if (n > VEC_PAR_MIN)") \
        for (int64_t b = 0; b < NBLK(n); b++) {                                                   \
            double prr, prd;                                                                      \
            if (CNT(n, b) == MIXK_CG_BLK)                                                         \
                mixk_cg_rupdate_##SFX(a, apv + b * MIXK_CG_BLK, rv + b * MIXK_CG_BLK, MIXK_CG_BLK, &prr, &prd); \
            else                                                                                  \
                mixk_cg_rupdate_##SFX(a, apv + b * MIXK_CG_BLK, rv + b * MIXK_CG_BLK, CNT(n, b), &prr, &prd); \
            acc_rr += prr;                                                                        \
            acc_rd += prd;                                                                        \
        }                                                                                         \
    }

int mixi_cpu_cg_rupdate(void *state, double alpha, const mix_svec *ap, mix_svec *r, double *rr,
                        double *rr_dot_old)
{
    (void)state;
    if (!one_wide_prec(r->prec) || ap->prec != r->prec) return MIX_ERR_UNSUPPORTED;
    const int64_t n = r->n;
    double acc_rr = 0.0, acc_rd = 0.0;
    if (r->prec == MIX_FP32) RUPDATE(float, f32)
    else RUPDATE(double, f64)
    *rr = acc_rr;
    *rr_dot_old = acc_rd;
    return MIX_SUCCESS;
}

#define XPUPDATE(T, SFX)                                                                          \
    {                                                                                             \
        const T a = (T)alpha, bt = (T)beta;                                                       \
        T *xv = (T *)x->val, *pv = (T *)p->val;                                                   \
        const T *rv = (const T *)r->val;                                                          \
        _Pragma("omp parallel for schedule(static) if (n > VEC_PAR_MIN)")                         \
        for (int64_t b = 0; b < NBLK(n); b++) {                                                   \
            const int64_t o = b * MIXK_CG_BLK;                                                    \
            if (CNT(n, b) == MIXK_CG_BLK)                                                         \
                mixk_cg_xpupdate_##SFX(a, bt, xv + o, pv + o, rv + o, MIXK_CG_BLK);               \
            else                                                                                  \
                mixk_cg_xpupdate_##SFX(a, bt, xv + o, pv + o, rv + o, CNT(n, b));                 \
        }                                                                                         \
    }

int mixi_cpu_cg_xpupdate(void *state, double alpha, double beta, mix_svec *p, const mix_svec *r,
                         mix_svec *x)
{
    (void)state;
    if (!one_wide_prec(p->prec) || r->prec != p->prec || x->prec != p->prec)
        return MIX_ERR_UNSUPPORTED;
    const int64_t n = p->n;
    if (p->prec == MIX_FP32) XPUPDATE(float, f32)
    else XPUPDATE(double, f64)
    return MIX_SUCCESS;
}

/* No measured rate on the CPU yet (a kernel tuner may supply one): MIX_PREC_AUTO then uses
 * its byte model. */
double mixi_cpu_spmv_rate(mix_prec storage)
{
    (void)storage;
    return 0.0;
}
