/* sparse_cpu_t.h: the CPU sloppy-loop kernels, included once per storage format and ISA by sparse_cpu.c. */
/* Expects SUF (fp64, fp32, fp16, bf16, fixed16), NAME(x) (the instance's name for x), ACC (the
 * arithmetic type), IS_FIXED (0/1), LD1(v, norm, i) / ST(v, i, x) (load / store one element,
 * non-FIXED16), ST64(v, i, x) (store one double with one rounding), optionally LDB8 / STB8 (eight
 * elements at once, FP16 with F16C), FIXED16_STB (a whole FIXED16 block, vectorised), ROW (the per-row SpMV body); BLK and PAR_MIN from
 * sparse_cpu.c.  Work goes by blocks of BLK rows (the FIXED16 vector block); reductions are FP64
 * and see the stored (rounded) values. */
#define NBLK(n) (((n) + BLK - 1) / BLK)
#define CNT(n, b) ((int)((n) - (b) * BLK < BLK ? (n) - (b) * BLK : BLK))

/* Block b of v into x[0..cnt): FIXED16 decodes with the block's step computed once. */
static MIXI_INLINE void NAME(load_block)(const mix_svec *v, int64_t b, int cnt, ACC *x)
{
#if IS_FIXED
    const float step = mixk_fixed16_step(v->norm[b]);
    const int16_t *q = (const int16_t *)v->val + b * BLK;
    for (int t = 0; t < cnt; t++) x[t] = mixk_fixed16_decode(q[t], step);
#else
    int t = 0;
#ifdef LDB8
    for (; t + 8 <= cnt; t += 8) LDB8(v->val, b * BLK + t, x + t);
#endif
    for (; t < cnt; t++) x[t] = LD1(v->val, v->norm, b * BLK + t);
#endif
}

static MIXI_INLINE void NAME(store_block)(mix_svec *v, int64_t b, const ACC *x, int cnt)
{
#if IS_FIXED && defined(FIXED16_STB)
    if (cnt == BLK) FIXED16_STB((int16_t *)v->val + b * BLK, v->norm + b, x);
    else mixk_svec_st_block_fixed16(v->val, v->norm, b, x, cnt);
#elif IS_FIXED
    mixk_svec_st_block_fixed16(v->val, v->norm, b, x, cnt);
#else
    int t = 0;
#ifdef STB8
    for (; t + 8 <= cnt; t += 8) STB8(v->val, b * BLK + t, x + t);
#endif
    for (; t < cnt; t++) ST(v->val, b * BLK + t, x[t]);
#endif
}

static MIXI_INLINE void NAME(store_block64)(mix_svec *v, int64_t b, const double *x, int cnt)
{
#if IS_FIXED
    mixk_svec_st_block_fixed16_f64(v->val, v->norm, b, x, cnt);
#else
    for (int t = 0; t < cnt; t++) ST64(v->val, b * BLK + t, x[t]);
#endif
}

/* y = A x, rounded into y; *xy = <x, A x> from the unrounded products.  16-bit formats first
 * decode x into the matrix's float scratch (once per entry, not once per nonzero: ROWF). */
static MIXI_INLINE double NAME(spmv_block)(const mix_spmat *A, const mix_svec *x, mix_svec *y,
                                            const float *xf, int64_t b, int cnt)
{
    ACC v[BLK], xb[BLK];
    double s[4] = {0, 0, 0, 0};
    for (int t = 0; t < cnt; t++) {
#ifdef ROWF
        v[t] = ROWF(A->rowptr, A->colind, A->val, A->rowscale, xf, b * BLK + t);
#else
        (void)xf;
        v[t] = ROW(A->rowptr, A->colind, A->val, A->rowscale, x->val, x->norm, b * BLK + t);
#endif
    }
    NAME(load_block)(x, b, cnt, xb);
    for (int t = 0; t < cnt; t++) s[t & 3] += (double)xb[t] * (double)v[t];
    NAME(store_block)(y, b, v, cnt);
    return (s[0] + s[1]) + (s[2] + s[3]);
}

static void NAME(spmv)(const mix_spmat *A, const mix_svec *x, mix_svec *y, double *xy)
{
    const int64_t n = A->n;
    double acc = 0.0;
    float *xf = A->xf;
#pragma omp parallel if (n > PAR_MIN)
    {
#ifdef ROWF
#pragma omp for schedule(static)
        for (int64_t b = 0; b < NBLK(n); b++) {
            const int cnt = CNT(n, b);
            if (cnt == BLK) NAME(load_block)(x, b, BLK, xf + b * BLK);
            else NAME(load_block)(x, b, cnt, xf + b * BLK);
        }
#endif
#pragma omp for reduction(+ : acc) schedule(static)
        for (int64_t b = 0; b < NBLK(n); b++) {
            const int cnt = CNT(n, b);
            acc += cnt == BLK ? NAME(spmv_block)(A, x, y, xf, b, BLK)
                              : NAME(spmv_block)(A, x, y, xf, b, cnt);
        }
    }
    *xy = acc;
}

/* x += alpha p; r -= alpha ap; *rr = ||r_new||^2, *rd = <r_new, r_old>; x may be FP32 for a
 * 16-bit instance (kernels/backend_sparse.h), read and written as plain floats.  The block body is
 * inlined twice, for full blocks (constant trip count: vectorised) and for the last one; the FP64
 * sums run in four interleaved partial sums, the same order in every instance. */
static MIXI_INLINE void NAME(cg_update_block)(ACC a, const mix_svec *p, const mix_svec *ap,
                                               mix_svec *x, mix_svec *r, int64_t b, int cnt,
                                               double *prr, double *prd)
{
    ACC xb[BLK], pb[BLK], apb[BLK], ro[BLK], rn[BLK];
    double s[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};
    float *x32 = x->prec == MIX_FP32 ? (float *)x->val + b * BLK : NULL;
    if (x32) for (int t = 0; t < cnt; t++) xb[t] = (ACC)x32[t];
    else NAME(load_block)(x, b, cnt, xb);
    NAME(load_block)(p, b, cnt, pb);
    NAME(load_block)(ap, b, cnt, apb);
    NAME(load_block)(r, b, cnt, ro);
    for (int t = 0; t < cnt; t++) {
        xb[t] = xb[t] + a * pb[t];
        rn[t] = ro[t] - a * apb[t];
    }
    if (x32) for (int t = 0; t < cnt; t++) x32[t] = (float)xb[t];
    else NAME(store_block)(x, b, xb, cnt);
    NAME(store_block)(r, b, rn, cnt);
    NAME(load_block)(r, b, cnt, rn); /* what the next step will read */
    for (int t = 0; t < cnt; t++) {
        s[t & 3] += (double)rn[t] * (double)rn[t];
        d[t & 3] += (double)rn[t] * (double)ro[t];
    }
    *prr = (s[0] + s[1]) + (s[2] + s[3]);
    *prd = (d[0] + d[1]) + (d[2] + d[3]);
}

static void NAME(cg_update)(double alpha, const mix_svec *p, const mix_svec *ap, mix_svec *x,
                            mix_svec *r, double *rr, double *rd)
{
    const int64_t n = p->n;
    const ACC a = (ACC)alpha;
    double acc_rr = 0.0, acc_rd = 0.0;
#pragma omp parallel for reduction(+ : acc_rr, acc_rd) schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        double prr, prd;
        if (cnt == BLK) NAME(cg_update_block)(a, p, ap, x, r, b, BLK, &prr, &prd);
        else NAME(cg_update_block)(a, p, ap, x, r, b, cnt, &prr, &prd);
        acc_rr += prr;
        acc_rd += prd;
    }
    *rr = acc_rr;
    *rd = acc_rd;
}

/* y = a x + b y. */
static MIXI_INLINE void NAME(axpby_block)(ACC fa, const mix_svec *x, ACC fb, mix_svec *y,
                                           int64_t b, int cnt)
{
    ACC xb[BLK], yb[BLK];
    NAME(load_block)(x, b, cnt, xb);
    NAME(load_block)(y, b, cnt, yb);
    for (int t = 0; t < cnt; t++) yb[t] = fa * xb[t] + fb * yb[t];
    NAME(store_block)(y, b, yb, cnt);
}

static void NAME(axpby)(double a, const mix_svec *x, double b_, mix_svec *y)
{
    const int64_t n = x->n;
    const ACC fa = (ACC)a, fb = (ACC)b_;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        if (cnt == BLK) NAME(axpby_block)(fa, x, fb, y, b, BLK);
        else NAME(axpby_block)(fa, x, fb, y, b, cnt);
    }
}

static MIXI_INLINE double NAME(dot_block)(const mix_svec *x, const mix_svec *y, int64_t b, int cnt)
{
    ACC xb[BLK], yb[BLK];
    double s[4] = {0, 0, 0, 0};
    NAME(load_block)(x, b, cnt, xb);
    NAME(load_block)(y, b, cnt, yb);
    for (int t = 0; t < cnt; t++) s[t & 3] += (double)xb[t] * (double)yb[t];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

static double NAME(dot)(const mix_svec *x, const mix_svec *y)
{
    const int64_t n = x->n;
    double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        acc += cnt == BLK ? NAME(dot_block)(x, y, b, BLK) : NAME(dot_block)(x, y, b, cnt);
    }
    return acc;
}

/* v = round(alpha scale .* x); returns ||alpha scale .* x||^2 of the FP64 values. */
static double NAME(from64)(const double *x, const double *scale, double alpha, mix_svec *v)
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
        NAME(store_block64)(v, b, w, cnt);
        acc += part;
    }
    return acc;
}

/* y += alpha scale .* v in FP64. */
static void NAME(accum64)(const mix_svec *v, const double *scale, double alpha, double *y)
{
    const int64_t n = v->n;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int64_t b = 0; b < NBLK(n); b++) {
        const int cnt = CNT(n, b);
        ACC vb[BLK];
        NAME(load_block)(v, b, cnt, vb);
        for (int t = 0; t < cnt; t++) {
            const int64_t i = b * BLK + t;
            y[i] += alpha * (scale ? scale[i] : 1.0) * (double)vb[t];
        }
    }
}

static const cpu_svec_kernels NAME(kernels) = {
    NAME(spmv), NAME(cg_update), NAME(axpby), NAME(dot), NAME(from64), NAME(accum64),
};

#undef NBLK
#undef CNT
#undef NAME
#undef ACC
#undef IS_FIXED
#undef LD1
#undef ST
#undef ST64
#undef LDB8
#undef STB8
#undef ROW
#undef ROWF
#undef FIXED16_STB
