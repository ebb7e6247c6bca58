/* sparse_cpu_t.h: the CPU sloppy-loop kernels of every storage format of one arithmetic type, included once per type by each ISA's file (sparse_portable.c, sparse_avx2.c). */
/* Expects ISA (the instance prefix: generic, avx2), T (double or float) and TACC (MIX_FP64 or
 * MIX_FP32, the accumulator whose formats are generated here: kernels/common/prec_traits.h),
 * BLK, PAR_MIN and MIXI_INLINE from sparse_cpu_impl.h.  For T = float an ISA may define hooks that
 * take over a format, returning 1 when they did (0: the portable body from kernels/common):
 *   ISA_LD_BLOCK(P, v, b, cnt, x), ISA_ST_BLOCK(P, v, b, x, cnt),
 *   ISA_ROW(P, A, x, i, out), ISA_ROWF(P, A, xf, i, out), ISA_SLICE(P, A, xf, b, cnt, v, var)
 *   (the rows of block b, a SELL slice, into v[0..cnt) from the float x xf, by the SpMV
 *   variant var of kernels/cpu/spmv_tune.h);
 * ISA_DECODE_X(P): whether the SpMV decodes x once into floats for P (see NARROW);
 * and ISA_DOT4(x, v): <x, v> over a full block of T, in the four partial sums of spmv_block.
 * ISA_ATTR is the function attribute of the ISA (a target attribute; empty for the baseline), and
 * ISA_BLK_INLINE how the per-block bodies called from the OpenMP regions are inlined.
 * The bodies are written once over a constant precision P (the switches fold away); the
 * MIXK_STORAGE_FORMATS list of prec_traits.h then makes one kernel table per format.  Work goes
 * by blocks of BLK rows (the FIXED16 vector block); reductions are FP64 and see the stored
 * (rounded) values. */
#define NBLK(n) (((n) + BLK - 1) / BLK)
#define CNT(n, b) ((int)((n) - (b) * BLK < BLK ? (n) - (b) * BLK : BLK))
#define FN(x) MIXI_CAT4(ISA, _, T, _##x)

/* The formats of this accumulator: MIXI_THIS_ACC(ACC, code) keeps `code` when ACC == TACC. */
#define MIXI_THIS_ACC(ACC, ...) MIXI_WHEN_SAME(ACC, TACC, __VA_ARGS__)

/* Block b of v into x[0..cnt). */
ISA_ATTR static MIXI_INLINE void FN(load_block)(mix_prec P, const mixi_svec *v, int64_t b, int cnt, T *x)
{
#ifdef ISA_LD_BLOCK
    if (ISA_LD_BLOCK(P, v, b, cnt, x)) return;
#endif
#define MIXI_X(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) \
    MIXI_THIS_ACC(ACC, case PP: mixk_svec_ld_block_##SFX(v->val, v->norm, b, cnt, x); break;)
    switch (P) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: break;
    }
#undef MIXI_X
}

ISA_ATTR static MIXI_INLINE void FN(store_block)(mix_prec P, mixi_svec *v, int64_t b, const T *x, int cnt)
{
#ifdef ISA_ST_BLOCK
    if (ISA_ST_BLOCK(P, v, b, x, cnt)) return;
#endif
#define MIXI_X(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) \
    MIXI_THIS_ACC(ACC, case PP: mixk_svec_st_block_##SFX(v->val, v->norm, b, x, cnt); break;)
    switch (P) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: break;
    }
#undef MIXI_X
}

ISA_ATTR static MIXI_INLINE void FN(store_block64)(mix_prec P, mixi_svec *v, int64_t b, const double *x,
                                          int cnt)
{
#define MIXI_X(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) \
    MIXI_THIS_ACC(ACC, case PP: mixk_svec_st_block64_##SFX(v->val, v->norm, b, x, cnt); break;)
    switch (P) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: break;
    }
#undef MIXI_X
}

/* (A x)_i: FP64 storage plain CSR, every other format SELL-32 (kernels/backend_sparse.h). */
#define MIXI_ROW_MIX_FP64(SFX) mixk_spmv_row_fp64(A->rowptr, A->colind, A->val, x->val, x->norm, i)
#define MIXI_ROW_MIX_FP32(SFX) mixk_sell_row_##SFX(&A->sell, x->val, x->norm, i)
#define MIXI_ROW_(ACC, SFX) MIXI_ROW_##ACC(SFX)
ISA_ATTR static MIXI_INLINE T FN(row)(mix_prec P, const mixi_spmat *A, const mixi_svec *x, int64_t i)
{
    T out = 0;
#ifdef ISA_ROW
    if (ISA_ROW(P, A, x, i, out)) return out;
#endif
#define MIXI_X(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE)                                         \
    MIXI_THIS_ACC(ACC, case PP: out = MIXI_ROW_(ACC, SFX); break;)
    switch (P) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: break;
    }
#undef MIXI_X
    return out;
}

/* Narrow formats (fewer bytes than T) decode x once into the matrix's float scratch, then run
 * the rows over floats: once per entry rather than once per nonzero.  Block-scaled formats
 * decode per nonzero (as the CUDA backend does) unless the ISA says otherwise: both ways give
 * the same bits (kernels/common/spmv_row.h), which the portable instance lets the tests check. */
#ifdef ISA_DECODE_X
#define NARROW(P) ISA_DECODE_X(P)
#else
#define NARROW(P) (mixk_prec_bytes(P) < (int)sizeof(T) && !mixk_prec_block_scaled(P))
#endif
ISA_ATTR static MIXI_INLINE T FN(rowf)(mix_prec P, const mixi_spmat *A, const float *xf, int64_t i)
{
    T out = 0;
#ifdef ISA_ROWF
    if (ISA_ROWF(P, A, xf, i, out)) return out;
#endif
#define MIXI_X(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE)                                         \
    MIXI_THIS_ACC(ACC, MIXI_WHEN_SAME(ACC, MIX_FP32, case PP: out = mixk_sell_rowf_##SFX(       \
                                                         &A->sell, xf, i);                      \
                                      break;))
    switch (P) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: (void)A; (void)xf; (void)i; break;
    }
#undef MIXI_X
    return out;
}

/* An escaped SELL slice's rows over float x (rows whose columns lie far from them, or long
 * ones: the AMG prolongator's rows all are), the slice's row bounds read once: the sums and the
 * finish of rowf, the same bits, without its per-row slice look-ups (3-D Poisson 120^3, P of
 * the AMG's fine level, one thread: 23-30 ms a product before). */
ISA_ATTR static MIXI_INLINE void FN(escaped_rows)(mix_prec P, const mixi_spmat *A, const float *xf,
                                                  int64_t b, int cnt, T *v)
{
    const mixk_sell *S = &A->sell;
    const int64_t *erp = S->erp + S->eslice[b];
    const int32_t *ecol = S->ecol;
    (void)erp, (void)ecol, (void)xf, (void)cnt, (void)v;
#define MIXI_X(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE)                                         \
    MIXI_THIS_ACC(ACC, MIXI_WHEN_SAME(ACC, MIX_FP32, case PP:                                   \
        for (int t = 0; t < cnt; t++) {                                                        \
            double s = 0;                                                                      \
            for (int64_t k = erp[t]; k < erp[t + 1]; k++)                                      \
                s += (double)mixk_lda_##SFX(S->eval, k) * (double)xf[ecol[k]];                 \
            v[t] = mixk_sell_finish_##SFX(S, b * BLK + t, s, xf[b * BLK + t]);                 \
        }                                                                                      \
        break;))
    switch (P) {
        MIXK_STORAGE_FORMATS(MIXI_X)
    default: break;
    }
#undef MIXI_X
}

/* Per block b of cnt rows, each body inlined twice by its caller below: for full blocks
 * (constant trip count: vectorised) and for the last one. */
#define BOTH(call_full, call_last, cnt) ((cnt) == BLK ? (call_full) : (call_last))

/* The block's rows of A x into v. */
ISA_ATTR static MIXI_INLINE void FN(spmv_rows)(mix_prec P, const mixi_spmat *A, const mixi_svec *x,
                                      const float *xf, int64_t b, int cnt, int var, T *v)
{
    /* x and y in the accumulator (FP32 vectors over a 16-bit matrix): the rows run over x itself,
     * as they run over x decoded into xf for narrow 16-bit vectors. */
    const int wide = x->prec != P;
    const float *xrow = wide ? (const float *)x->val : NARROW(P) ? xf : NULL;
    /* FP64 CSR "csr-pf": the row's values and column indices a distance ahead (the same bits). */
    const int csr_pf = P == MIX_FP64 ? mixi_spmv_pfd(var) : 0;
    if (xrow && P != MIX_FP64 && (A->sell.slice[b] & MIXK_SELL_ESC)) FN(escaped_rows)(P, A, xrow, b, cnt, v);
    else
#ifdef ISA_SLICE
    if (!ISA_SLICE(P, A, xrow ? xrow : (const float *)x->val, b, cnt, v, var))
#endif
        for (int t = 0; t < cnt; t++) {
            if (csr_pf) csr_prefetch(A, b * BLK + t, csr_pf);
            v[t] = xrow ? FN(rowf)(P, A, xrow, b * BLK + t) : FN(row)(P, A, x, b * BLK + t);
        }
}

/* y = A x, rounded into y; returns <x, A x> of the block from the unrounded products. */
ISA_ATTR static MIXI_INLINE double FN(spmv_block)(mix_prec P, const mixi_spmat *A, const mixi_svec *x,
                                         mixi_svec *y, const float *xf, int64_t b, int cnt, int var)
{
    T v[BLK], xb[BLK];
    double s[4] = {0, 0, 0, 0};
    const int wide = x->prec != P;
    FN(spmv_rows)(P, A, x, xf, b, cnt, var, v);
    if (wide) memcpy(xb, (const T *)x->val + b * BLK, (size_t)cnt * sizeof(T));
    else FN(load_block)(P, x, b, cnt, xb);
    double dot;
#ifdef ISA_DOT4
    if (cnt == BLK) dot = ISA_DOT4(xb, v);
    else
#endif
    {
        for (int t = 0; t < cnt; t++) s[t & 3] += (double)xb[t] * (double)v[t];
        dot = (s[0] + s[1]) + (s[2] + s[3]);
    }
    if (wide) memcpy((T *)y->val + b * BLK, v, (size_t)cnt * sizeof(T));
    else FN(store_block)(P, y, b, v, cnt);
    return dot;
}
ISA_ATTR static ISA_BLK_INLINE double FN(spmv_blk)(mix_prec P, const mixi_spmat *A, const mixi_svec *x,
                                       mixi_svec *y, const float *xf, int64_t b, int cnt, int var)
{
    return BOTH(FN(spmv_block)(P, A, x, y, xf, b, BLK, var), FN(spmv_block)(P, A, x, y, xf, b, cnt, var),
                cnt);
}
/* y = fa (A x) + fb z over the block, vectors of T (the accumulator): axpby_block's sum. */
ISA_ATTR static MIXI_INLINE void FN(spmv_axpby_block)(mix_prec P, const mixi_spmat *A, const mixi_svec *x,
                                             T fa, const mixi_svec *z, T fb, mixi_svec *y, int64_t b,
                                             int cnt, int var)
{
    T v[BLK];
    FN(spmv_rows)(P, A, x, NULL, b, cnt, var, v);
    const T *zb = (const T *)z->val + b * BLK;
    T *yb = (T *)y->val + b * BLK;
    for (int t = 0; t < cnt; t++) yb[t] = fa * v[t] + fb * zb[t];
}
ISA_ATTR static ISA_BLK_INLINE void FN(spmv_axpby_blk)(mix_prec P, const mixi_spmat *A, const mixi_svec *x,
                                           T fa, const mixi_svec *z, T fb, mixi_svec *y, int64_t b,
                                           int cnt, int var)
{
    if (cnt == BLK) FN(spmv_axpby_block)(P, A, x, fa, z, fb, y, b, BLK, var);
    else FN(spmv_axpby_block)(P, A, x, fa, z, fb, y, b, cnt, var);
}

/* Narrow formats: block b of x decoded into the float scratch (T is float for them). */
ISA_ATTR static ISA_BLK_INLINE void FN(decode_blk)(mix_prec P, const mixi_svec *x, float *xf, int64_t b, int cnt)
{
    T *d = (T *)(void *)(xf + b * BLK);
    if (cnt == BLK) FN(load_block)(P, x, b, BLK, d);
    else FN(load_block)(P, x, b, cnt, d);
}

/* x += alpha p; r -= alpha ap; *prr = ||r_new||^2, *prd = <r_new, r_old> over the block; x may
 * be in p's accumulator precision instead of p's (kernels/backend_sparse.h), read and written as
 * T.  The FP64 sums run in four interleaved partial sums, the same order in every instance. */
ISA_ATTR static MIXI_INLINE void FN(cg_update_block)(mix_prec P, T a, const mixi_svec *p, const mixi_svec *ap,
                                            mixi_svec *x, mixi_svec *r, int64_t b, int cnt,
                                            double *prr, double *prd)
{
    T xb[BLK], pb[BLK], apb[BLK], ro[BLK], rn[BLK];
    double s[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};
    T *xacc = x->prec != P ? (T *)x->val + b * BLK : NULL;
    if (xacc) for (int t = 0; t < cnt; t++) xb[t] = xacc[t];
    else FN(load_block)(P, x, b, cnt, xb);
    FN(load_block)(P, p, b, cnt, pb);
    FN(load_block)(P, ap, b, cnt, apb);
    FN(load_block)(P, r, b, cnt, ro);
    for (int t = 0; t < cnt; t++) {
        xb[t] = xb[t] + a * pb[t];
        rn[t] = ro[t] - a * apb[t];
    }
    if (xacc) for (int t = 0; t < cnt; t++) xacc[t] = xb[t];
    else FN(store_block)(P, x, b, xb, cnt);
    FN(store_block)(P, r, b, rn, cnt);
    FN(load_block)(P, r, b, cnt, rn); /* what the next step will read */
    for (int t = 0; t < cnt; t++) {
        s[t & 3] += (double)rn[t] * (double)rn[t];
        d[t & 3] += (double)rn[t] * (double)ro[t];
    }
    *prr = (s[0] + s[1]) + (s[2] + s[3]);
    *prd = (d[0] + d[1]) + (d[2] + d[3]);
}
ISA_ATTR static ISA_BLK_INLINE void FN(cg_update_blk)(mix_prec P, T a, const mixi_svec *p, const mixi_svec *ap,
                                          mixi_svec *x, mixi_svec *r, int64_t b, int cnt,
                                          double *prr, double *prd)
{
    if (cnt == BLK) FN(cg_update_block)(P, a, p, ap, x, r, b, BLK, prr, prd);
    else FN(cg_update_block)(P, a, p, ap, x, r, b, cnt, prr, prd);
}

/* y = a x + b y. */
ISA_ATTR static MIXI_INLINE void FN(axpby_block)(mix_prec P, T fa, const mixi_svec *x, T fb, mixi_svec *y,
                                        int64_t b, int cnt)
{
    T xb[BLK], yb[BLK];
    FN(load_block)(P, x, b, cnt, xb);
    FN(load_block)(P, y, b, cnt, yb);
    for (int t = 0; t < cnt; t++) yb[t] = fa * xb[t] + fb * yb[t];
    FN(store_block)(P, y, b, yb, cnt);
}
ISA_ATTR static ISA_BLK_INLINE void FN(axpby_blk)(mix_prec P, T fa, const mixi_svec *x, T fb, mixi_svec *y,
                                      int64_t b, int cnt)
{
    if (cnt == BLK) FN(axpby_block)(P, fa, x, fb, y, b, BLK);
    else FN(axpby_block)(P, fa, x, fb, y, b, cnt);
}

/* d = fa r + fb d, then x = 1 d + fc x over the block: axpby_block twice, the second reading d as
 * stored (rounded to a narrow format as axpby would find it). */
ISA_ATTR static MIXI_INLINE void FN(cheb_block)(mix_prec P, T fa, const mixi_svec *r, T fb, mixi_svec *d,
                                       T fc, mixi_svec *x, int64_t b, int cnt)
{
    T rb[BLK], db[BLK], xb[BLK];
    const T one = 1;
    FN(load_block)(P, r, b, cnt, rb);
    FN(load_block)(P, d, b, cnt, db);
    for (int t = 0; t < cnt; t++) db[t] = fa * rb[t] + fb * db[t];
    FN(store_block)(P, d, b, db, cnt);
    FN(load_block)(P, d, b, cnt, db);
    FN(load_block)(P, x, b, cnt, xb);
    for (int t = 0; t < cnt; t++) xb[t] = one * db[t] + fc * xb[t];
    FN(store_block)(P, x, b, xb, cnt);
}
ISA_ATTR static ISA_BLK_INLINE void FN(cheb_blk)(mix_prec P, T fa, const mixi_svec *r, T fb, mixi_svec *d,
                                     T fc, mixi_svec *x, int64_t b, int cnt)
{
    if (cnt == BLK) FN(cheb_block)(P, fa, r, fb, d, fc, x, b, BLK);
    else FN(cheb_block)(P, fa, r, fb, d, fc, x, b, cnt);
}

ISA_ATTR static MIXI_INLINE double FN(dot_block)(mix_prec P, const mixi_svec *x, const mixi_svec *y,
                                        int64_t b, int cnt)
{
    T xb[BLK], yb[BLK];
    double s[4] = {0, 0, 0, 0};
    FN(load_block)(P, x, b, cnt, xb);
    FN(load_block)(P, y, b, cnt, yb);
    for (int t = 0; t < cnt; t++) s[t & 3] += (double)xb[t] * (double)yb[t];
    return (s[0] + s[1]) + (s[2] + s[3]);
}
ISA_ATTR static ISA_BLK_INLINE double FN(dot_blk)(mix_prec P, const mixi_svec *x, const mixi_svec *y, int64_t b,
                                      int cnt)
{
    return BOTH(FN(dot_block)(P, x, y, b, BLK), FN(dot_block)(P, x, y, b, cnt), cnt);
}

/* v = round(alpha scale .* x) over the block; returns ||alpha scale .* x||^2 of its FP64 values. */
ISA_ATTR static ISA_BLK_INLINE double FN(from64_blk)(mix_prec P, const double *x, const double *scale,
                                         double alpha, mixi_svec *v, int64_t b, int cnt)
{
    double w[BLK], part = 0.0;
    for (int t = 0; t < cnt; t++) {
        const int64_t i = b * BLK + t;
        w[t] = alpha * (scale ? scale[i] : 1.0) * x[i];
        part += w[t] * w[t];
    }
    FN(store_block64)(P, v, b, w, cnt);
    return part;
}

/* y += alpha scale .* v in FP64 over the block. */
ISA_ATTR static ISA_BLK_INLINE void FN(accum64_blk)(mix_prec P, const mixi_svec *v, const double *scale,
                                        double alpha, double *y, int64_t b, int cnt)
{
    T vb[BLK];
    FN(load_block)(P, v, b, cnt, vb);
    for (int t = 0; t < cnt; t++) {
        const int64_t i = b * BLK + t;
        y[i] += alpha * (scale ? scale[i] : 1.0) * (double)vb[t];
    }
}

/* The kernel table of one format, its parallel loops over blocks written here so that each
 * format's OpenMP regions are its own functions, P a constant inside them.  The products go by
 * the sum's 64 fixed chunks handed out dynamically (the same bits: each chunk's sum is made
 * alike whichever thread makes it): rows differ in work where halves of blocks did not, e.g.
 * the AMG's restriction R, whose rows past the coarse order are empty (all its work in the
 * first thread's half), and the Galerkin levels.  3-D Poisson 150^3, 2 threads, FIXED16: the
 * second thread spun 7% of a repeated AMG solve at the barriers, 2.5% now; repeated AMG solve
 * 1.95-2.00 s -> 1.73-1.86 s, Jacobi CG 6.98-7.05 -> 6.08-6.28 s (alternated runs). */
#define MIXI_BLOCKS(n) for (int64_t b = 0; b < NBLK(n); b++)
/* A sum's loops (lib/core/det_sum.h): the fixed chunks of the blocks, then chunk c's blocks. */
#define MIXI_CHUNKS for (int c = 0; c < MIXI_SUM_CHUNKS; c++)
#define MIXI_CHUNK_BLOCKS(n, c) MIXI_CHUNK_FOR(b, NBLK(n), c)
#define MIXI_INSTANCE(PP, PFX)                                                                    \
    ISA_ATTR static void MIXI_CAT(PFX, spmv)(const mixi_spmat *A, const mixi_svec *x, mixi_svec *y,           \
                                    double *xy, int var)                                          \
    {                                                                                             \
        const int64_t n = A->n;                                                                   \
        double part[MIXI_SUM_CHUNKS];                                                             \
        float *xf = A->xf;                                                                        \
        _Pragma("omp parallel if (n > PAR_MIN)")                                                  \
        {                                                                                         \
            if (NARROW(PP) && x->prec == PP) {                                                    \
                _Pragma("omp for schedule(static)")                                               \
                MIXI_BLOCKS(n) FN(decode_blk)(PP, x, xf, b, CNT(n, b));                           \
            }                                                                                     \
            _Pragma("omp for schedule(dynamic, 1)")                                               \
            MIXI_CHUNKS {                                                                      \
                double s = 0.0;                                                                   \
                MIXI_CHUNK_BLOCKS(n, c) s += FN(spmv_blk)(PP, A, x, y, xf, b, CNT(n, b), var);    \
                part[c] = s;                                                                      \
            }                                                                                     \
        }                                                                                         \
        *xy = mixi_chunks_total(part);                                                            \
    }                                                                                             \
    ISA_ATTR static void MIXI_CAT(PFX, spmv_axpby)(const mixi_spmat *A, const mixi_svec *x, double a,         \
                                          const mixi_svec *z, double b_, mixi_svec *y, int var)   \
    {                                                                                             \
        const int64_t n = A->n;                                                                   \
        const T fa = (T)a, fb = (T)b_;                                                            \
        _Pragma("omp parallel for schedule(dynamic, 1) if (n > PAR_MIN)")                         \
        MIXI_CHUNKS MIXI_CHUNK_BLOCKS(n, c) FN(spmv_axpby_blk)(PP, A, x, fa, z, fb, y, b, CNT(n, b), var); \
    }                                                                                             \
    ISA_ATTR static void MIXI_CAT(PFX, cg_update)(double alpha, const mixi_svec *p, const mixi_svec *ap,     \
                                         mixi_svec *x, mixi_svec *r, double *rr, double *rd)        \
    {                                                                                             \
        const int64_t n = p->n;                                                                   \
        const T a = (T)alpha;                                                                     \
        double part_rr[MIXI_SUM_CHUNKS], part_rd[MIXI_SUM_CHUNKS];                                \
        _Pragma("omp parallel for schedule(static) if (n > PAR_MIN)")                             \
        MIXI_CHUNKS {                                                                          \
            double acc_rr = 0.0, acc_rd = 0.0;                                                    \
            MIXI_CHUNK_BLOCKS(n, c) {                                                             \
                double prr, prd;                                                                  \
                FN(cg_update_blk)(PP, a, p, ap, x, r, b, CNT(n, b), &prr, &prd);                  \
                acc_rr += prr;                                                                    \
                acc_rd += prd;                                                                    \
            }                                                                                     \
            part_rr[c] = acc_rr, part_rd[c] = acc_rd;                                             \
        }                                                                                         \
        *rr = mixi_chunks_total(part_rr);                                                         \
        *rd = mixi_chunks_total(part_rd);                                                         \
    }                                                                                             \
    ISA_ATTR static void MIXI_CAT(PFX, axpby)(double a, const mixi_svec *x, double b_, mixi_svec *y)         \
    {                                                                                             \
        const int64_t n = x->n;                                                                   \
        const T fa = (T)a, fb = (T)b_;                                                            \
        _Pragma("omp parallel for schedule(static) if (n > PAR_MIN)")                             \
        MIXI_BLOCKS(n) FN(axpby_blk)(PP, fa, x, fb, y, b, CNT(n, b));                             \
    }                                                                                             \
    ISA_ATTR static void MIXI_CAT(PFX, cheb)(double a, const mixi_svec *r, double b_, mixi_svec *d,          \
                                    double c, mixi_svec *x)                                       \
    {                                                                                             \
        const int64_t n = r->n;                                                                   \
        const T fa = (T)a, fb = (T)b_, fc = (T)c;                                                 \
        _Pragma("omp parallel for schedule(static) if (n > PAR_MIN)")                             \
        MIXI_BLOCKS(n) FN(cheb_blk)(PP, fa, r, fb, d, fc, x, b, CNT(n, b));                       \
    }                                                                                             \
    ISA_ATTR static double MIXI_CAT(PFX, dot)(const mixi_svec *x, const mixi_svec *y)                        \
    {                                                                                             \
        const int64_t n = x->n;                                                                   \
        double part[MIXI_SUM_CHUNKS];                                                             \
        _Pragma("omp parallel for schedule(static) if (n > PAR_MIN)")                             \
        MIXI_CHUNKS {                                                                          \
            double s = 0.0;                                                                       \
            MIXI_CHUNK_BLOCKS(n, c) s += FN(dot_blk)(PP, x, y, b, CNT(n, b));                     \
            part[c] = s;                                                                          \
        }                                                                                         \
        return mixi_chunks_total(part);                                                           \
    }                                                                                             \
    ISA_ATTR static double MIXI_CAT(PFX, from64)(const double *x, const double *scale, double alpha,       \
                                        mixi_svec *v)                                              \
    {                                                                                             \
        const int64_t n = v->n;                                                                   \
        double part[MIXI_SUM_CHUNKS];                                                             \
        _Pragma("omp parallel for schedule(static) if (n > PAR_MIN)")                             \
        MIXI_CHUNKS {                                                                          \
            double s = 0.0;                                                                       \
            MIXI_CHUNK_BLOCKS(n, c) s += FN(from64_blk)(PP, x, scale, alpha, v, b, CNT(n, b));    \
            part[c] = s;                                                                          \
        }                                                                                         \
        return mixi_chunks_total(part);                                                           \
    }                                                                                             \
    ISA_ATTR static void MIXI_CAT(PFX, accum64)(const mixi_svec *v, const double *scale, double alpha,      \
                                       double *y)                                                 \
    {                                                                                             \
        const int64_t n = v->n;                                                                   \
        _Pragma("omp parallel for schedule(static) if (n > PAR_MIN)")                             \
        MIXI_BLOCKS(n) FN(accum64_blk)(PP, v, scale, alpha, y, b, CNT(n, b));                     \
    }                                                                                             \
    static const cpu_svec_kernels MIXI_CAT(PFX, kernels) = {                                      \
        MIXI_CAT(PFX, spmv), MIXI_CAT(PFX, spmv_axpby), MIXI_CAT(PFX, cg_update), MIXI_CAT(PFX, axpby), \
        MIXI_CAT(PFX, cheb),                                                                      \
        MIXI_CAT(PFX, dot),  MIXI_CAT(PFX, from64),    MIXI_CAT(PFX, accum64)};

/* One kernel table per format of this accumulator: ISA_SFX_kernels. */
#define MIXI_X(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) \
    MIXI_THIS_ACC(ACC, MIXI_INSTANCE(PP, MIXI_CAT3(ISA, _##SFX, _)))
MIXK_STORAGE_FORMATS(MIXI_X)
#undef MIXI_X
#undef MIXI_INSTANCE
#undef MIXI_BLOCKS
#undef BOTH

#undef NBLK
#undef CNT
#undef FN
#undef NARROW
#undef MIXI_THIS_ACC
#undef MIXI_ROW_MIX_FP64
#undef MIXI_ROW_MIX_FP32
#undef MIXI_ROW_
#undef T
#undef TACC
