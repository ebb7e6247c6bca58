/* vec_cpu.c: the CPU backend's fused CG vector passes over FP32 or FP64 vectors, from the
 * element bodies of kernels/common/cg_update.h. */
#include "lib/core/core.h"
#include "kernels/common/cg_update.h"
#include "kernels/cpu/vec_cpu.h"
#include "kernels/cpu/cpu_features.h"

/* As sparse_cpu.c's PAR_MIN: the same rows run serially or in the same static split, so the
 * FP64 reductions add their block sums as the unfused kernels do. */
#define VEC_PAR_MIN 4096
#define NBLK(n) (((n) + MIXK_CG_BLK - 1) / MIXK_CG_BLK)
#define CNT(n, b) ((int)((n) - (b) * MIXK_CG_BLK < MIXK_CG_BLK ? (n) - (b) * MIXK_CG_BLK : MIXK_CG_BLK))

static int one_wide_prec(mix_prec p) { return p == MIX_FP32 || p == MIX_FP64; }

/* The passes over one element type (T, suffix SFX of cg_update.h), instantiated for the baseline
 * ISA and for AVX2 (chosen at run time, as sparse_cpu.c does); no FMA in either, so the same
 * bits.  A full block gets a constant trip count. */
#define VEC_PASSES(ISA, ATTR, T, SFX)                                                             \
    ATTR static void ISA##_rupdate_##SFX(int64_t n, T a, const T *ap, T *r, double *rr, double *rd) \
    {                                                                                             \
        double acc_rr = 0.0, acc_rd = 0.0;                                                        \
        _Pragma("omp parallel for reduction(+ : acc_rr, acc_rd) schedule(static) if (n > VEC_PAR_MIN)") \
        for (int64_t b = 0; b < NBLK(n); b++) {                                                   \
            const int64_t o = b * MIXK_CG_BLK;                                                    \
            double prr, prd;                                                                      \
            if (CNT(n, b) == MIXK_CG_BLK) mixk_cg_rupdate_##SFX(a, ap + o, r + o, MIXK_CG_BLK, &prr, &prd); \
            else mixk_cg_rupdate_##SFX(a, ap + o, r + o, CNT(n, b), &prr, &prd);                  \
            acc_rr += prr;                                                                        \
            acc_rd += prd;                                                                        \
        }                                                                                         \
        *rr = acc_rr;                                                                             \
        *rd = acc_rd;                                                                             \
    }                                                                                             \
    ATTR static void ISA##_xpupdate_##SFX(int64_t n, T a, T bt, T *x, T *p, const T *r)           \
    {                                                                                             \
        _Pragma("omp parallel for schedule(static) if (n > VEC_PAR_MIN)")                         \
        for (int64_t b = 0; b < NBLK(n); b++) {                                                   \
            const int64_t o = b * MIXK_CG_BLK;                                                    \
            if (CNT(n, b) == MIXK_CG_BLK) mixk_cg_xpupdate_##SFX(a, bt, x + o, p + o, r + o, MIXK_CG_BLK); \
            else mixk_cg_xpupdate_##SFX(a, bt, x + o, p + o, r + o, CNT(n, b));                   \
        }                                                                                         \
    }

VEC_PASSES(generic, , float, f32)
VEC_PASSES(generic, , double, f64)
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define VEC_AVX2 1
#define VEC_AVX2_ATTR __attribute__((target("avx2")))
VEC_PASSES(avx2, VEC_AVX2_ATTR, float, f32)
VEC_PASSES(avx2, VEC_AVX2_ATTR, double, f64)
#endif

static int use_avx2(void)
{
#ifdef VEC_AVX2
    return mixi_cpu_has_f16c(); /* AVX2 + F16C: sparse_cpu.c's test */
#else
    return 0;
#endif
}

int mixi_cpu_cg_rupdate(void *state, double alpha, const mix_svec *ap, mix_svec *r, double *rr,
                        double *rr_dot_old)
{
    (void)state;
    if (!one_wide_prec(r->prec) || ap->prec != r->prec) return MIX_ERR_UNSUPPORTED;
    const int64_t n = r->n;
    const int v = use_avx2();
    if (r->prec == MIX_FP32) {
        const float a = (float)alpha;
#ifdef VEC_AVX2
        if (v) { avx2_rupdate_f32(n, a, ap->val, r->val, rr, rr_dot_old); return MIX_SUCCESS; }
#endif
        generic_rupdate_f32(n, a, ap->val, r->val, rr, rr_dot_old);
    } else {
#ifdef VEC_AVX2
        if (v) { avx2_rupdate_f64(n, alpha, ap->val, r->val, rr, rr_dot_old); return MIX_SUCCESS; }
#endif
        generic_rupdate_f64(n, alpha, ap->val, r->val, rr, rr_dot_old);
    }
    (void)v;
    return MIX_SUCCESS;
}

int mixi_cpu_cg_xpupdate(void *state, double alpha, double beta, mix_svec *p, const mix_svec *r,
                         mix_svec *x)
{
    (void)state;
    if (!one_wide_prec(p->prec) || r->prec != p->prec || x->prec != p->prec)
        return MIX_ERR_UNSUPPORTED;
    const int64_t n = p->n;
    const int v = use_avx2();
    if (p->prec == MIX_FP32) {
        const float a = (float)alpha, b = (float)beta;
#ifdef VEC_AVX2
        if (v) { avx2_xpupdate_f32(n, a, b, x->val, p->val, r->val); return MIX_SUCCESS; }
#endif
        generic_xpupdate_f32(n, a, b, x->val, p->val, r->val);
    } else {
#ifdef VEC_AVX2
        if (v) { avx2_xpupdate_f64(n, alpha, beta, x->val, p->val, r->val); return MIX_SUCCESS; }
#endif
        generic_xpupdate_f64(n, alpha, beta, x->val, p->val, r->val);
    }
    (void)v;
    return MIX_SUCCESS;
}
