/* sparse_cpu_t.h: the CPU sloppy-loop kernels, included once per storage format by sparse_cpu.c. */
/* Expects SUF (fp64, fp32, fp16, bf16, fixed16), ACC (arithmetic type), IS_FIXED (0/1),
 * ST(v, i, x) (store one ACC, non-FIXED16) and ST64(v, i, x) (store one double, one rounding);
 * BLK and PAR_MIN from sparse_cpu.c.  Reductions are FP64 and see the stored (rounded) values. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define LD(v, i) CAT(mixk_svec_ld_, SUF)((v)->val, (v)->norm, i)
#define NBLK(n) (((n) + BLK - 1) / BLK)
#define CNT(n, b) ((int)((n) - (b) * BLK < BLK ? (n) - (b) * BLK : BLK))

static inline void CAT(store_block_, SUF)(mix_svec *v, int64_t blk, const ACC *x, int cnt)
{
#if IS_FIXED
    mixk_svec_st_block_fixed16(v->val, v->norm, blk, x, cnt);
#else
    for (int t = 0; t < cnt; t++) ST(v->val, blk * BLK + t, x[t]);
#endif
}

static inline void CAT(store_block64_, SUF)(mix_svec *v, int64_t blk, const double *x, int cnt)
{
#if IS_FIXED
    mixk_svec_st_block_fixed16_f64(v->val, v->norm, blk, x, cnt);
#else
    for (int t = 0; t < cnt; t++) ST64(v->val, blk * BLK + t, x[t]);
#endif
}

/* y = A x, rounded into y; *xy = <x, A x> from the unrounded products. */
static void CAT(spmv_, SUF)(const mix_spmat *A, const mix_svec *x, mix_svec *y, double *xy)
{
    const int64_t n = A->n;
    const void *xv = x->val;
    const float *xn = x->norm;
    double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        ACC v[BLK];
        double part = 0.0;
        for (int t = 0; t < cnt; t++) {
            const int64_t i = b * BLK + t;
            v[t] = CAT(mixk_spmv_row_, SUF)(A->rowptr, A->colind, A->val, A->rowscale, xv, xn, i);
            part += (double)CAT(mixk_svec_ld_, SUF)(xv, xn, i) * (double)v[t];
        }
        CAT(store_block_, SUF)(y, b, v, cnt);
        acc += part;
    }
    *xy = acc;
}

/* x += alpha p; r -= alpha ap; *rr = ||r_new||^2, *rd = <r_new, r_old>. */
static void CAT(cg_update_, SUF)(double alpha, const mix_svec *p, const mix_svec *ap, mix_svec *x,
                                 mix_svec *r, double *rr, double *rd)
{
    const int64_t n = p->n;
    const ACC a = (ACC)alpha;
    double acc_rr = 0.0, acc_rd = 0.0;
#pragma omp parallel for reduction(+ : acc_rr, acc_rd) schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        ACC xn[BLK], rn[BLK], ro[BLK];
        double prr = 0.0, prd = 0.0;
        for (int t = 0; t < cnt; t++) {
            const int64_t i = b * BLK + t;
            ro[t] = LD(r, i);
            xn[t] = LD(x, i) + a * LD(p, i);
            rn[t] = ro[t] - a * LD(ap, i);
        }
        CAT(store_block_, SUF)(x, b, xn, cnt);
        CAT(store_block_, SUF)(r, b, rn, cnt);
        for (int t = 0; t < cnt; t++) {
            const double s = (double)LD(r, b * BLK + t);
            prr += s * s;
            prd += s * (double)ro[t];
        }
        acc_rr += prr;
        acc_rd += prd;
    }
    *rr = acc_rr;
    *rd = acc_rd;
}

/* y = a x + b y. */
static void CAT(axpby_, SUF)(double a, const mix_svec *x, double b_, mix_svec *y)
{
    const int64_t n = x->n;
    const ACC fa = (ACC)a, fb = (ACC)b_;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        ACC v[BLK];
        for (int t = 0; t < cnt; t++) v[t] = fa * LD(x, b * BLK + t) + fb * LD(y, b * BLK + t);
        CAT(store_block_, SUF)(y, b, v, cnt);
    }
}

static double CAT(dot_, SUF)(const mix_svec *x, const mix_svec *y)
{
    const int64_t n = x->n;
    double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static) if (n > PAR_MIN)
    for (int64_t i = 0; i < n; i++) acc += (double)LD(x, i) * (double)LD(y, i);
    return acc;
}

/* v = round(alpha scale .* x); returns ||alpha scale .* x||^2 of the FP64 values. */
static double CAT(from64_, SUF)(const double *x, const double *scale, double alpha, mix_svec *v)
{
    const int64_t n = v->n;
    double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        double w[BLK], part = 0.0;
        for (int t = 0; t < cnt; t++) {
            const int64_t i = b * BLK + t;
            w[t] = alpha * (scale ? scale[i] : 1.0) * x[i];
            part += w[t] * w[t];
        }
        CAT(store_block64_, SUF)(v, b, w, cnt);
        acc += part;
    }
    return acc;
}

/* y += alpha scale .* v in FP64. */
static void CAT(accum64_, SUF)(const mix_svec *v, const double *scale, double alpha, double *y)
{
    const int64_t n = v->n;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int64_t i = 0; i < n; i++) y[i] += alpha * (scale ? scale[i] : 1.0) * (double)LD(v, i);
}

static const cpu_svec_kernels CAT(kernels_, SUF) = {
    CAT(spmv_, SUF), CAT(cg_update_, SUF), CAT(axpby_, SUF),
    CAT(dot_, SUF),  CAT(from64_, SUF),    CAT(accum64_, SUF),
};

#undef LD
#undef NBLK
#undef CNT
#undef SUF
#undef ACC
#undef IS_FIXED
#undef ST
#undef ST64
