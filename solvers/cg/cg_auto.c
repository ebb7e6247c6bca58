/* cg_auto.c: MIX_PREC_AUTO's storage, by predicted solve time: per candidate storage the time of
 * one SpMV of the matrix in it (measured: solvers/cg/cg_rates.c), the vectors an iteration
 * streams, the iterations the storage implies, and the conversion a solve would pay for its
 * copy; the byte model (bytes moved per iteration at one common rate) where nothing was
 * measured.  Not a cache test: on the Xeon of doc/benchmarks.md FP32 and FIXED16 CG beat FP64 CG
 * per iteration on matrices of 1-4 MB too (the SELL bodies vectorise, FP64's CSR does not).
 * Not bytes alone either: where the 16-bit decode is compute-bound (AVX2 Zen 3, issue 37) FP32
 * is faster per SpMV than FIXED16, and measured times say so.  Where the kappa found on the way
 * says a sloppy storage would crawl, solvers/cg/cg.c hands over to FP64 (mixi_cg_iter_bound). */
#include <math.h>
#include "solvers/cg/cg_impl.h"

/* FP32 arithmetic costs CG iterations on smooth right-hand sides: 334 against FP64's 278 on 3D
 * Poisson 100^3 with Jacobi, 18-24% on 60^3 (issue 21); a sloppy storage is charged for it (the
 * 16-bit storages run FP32 arithmetic too: 623 iterations for each on 150^3, as FP32). */
#define AUTO_ITER_FACTOR_FP32 1.2
/* Vectors an iteration streams: SpMV p -> Ap (2), r -= alpha Ap (3), x += alpha p and
 * p = r + beta p (5), as solvers/cg/cg.c's fused step does. */
#define AUTO_VECTOR_PASSES 10.0
/* The iterations a conversion is spread over: a solve's count is unknown before it runs, and a
 * copy serves every later solve on the matrix.  The matrices AUTO weighs (n >= 4096) ran 232
 * (bcsstk16, Jacobi) to 623 (3D Poisson 150^3) iterations in doc/benchmarks.md; with 100, a
 * fresh process took FP64 for bcsstk16 (its FP32 copy's 17 ms, under load, against 0.2 ms saved
 * per iteration), whose FP64 solve took 4x FP32's. */
#define AUTO_ITERS 500.0
/* A narrower storage is kept while its predicted time is within this share of the fastest one
 * (less memory; and two measured times this close are noise, which must not flip the choice). */
#define AUTO_TIE 0.05

/* Bytes of a matrix of n rows and nnz nonzeros per SpMV (kernels/backend_sparse.h's layouts;
 * SELL padding ignored): FP64 CSR 12 per nonzero and the row pointers; SELL the off-diagonal
 * values and int16 offsets and the diagonal apart (FIXED16: a float and an exponent byte). */
static double matrix_bytes(double n, double nnz, mix_prec p)
{
    const double off = nnz - n > 0 ? nnz - n : 0.0;
    const double b = mixk_prec_bytes(p);
    if (p == MIX_FP64) return 12.0 * nnz + 8.0 * n;
    return (b + 2.0) * off + (mixk_prec_block_scaled(p) ? 5.0 : b) * n;
}

/* Predicted cost of a solve in p: seconds (bytes for the byte model, measured = 0) of AUTO_ITERS
 * FP64-equivalent iterations plus the conversion.  The vectors stream at the FP64 CSR's measured
 * rate (contiguous arrays, as CSR's are). */
static double solve_cost(double n, double nnz, mix_prec p, const mixi_auto_rates *r, int measured)
{
    const double vb = AUTO_VECTOR_PASSES * n * (p == MIX_FP64 ? 8.0 : 4.0);
    const double it = measured ? r->spmv_s[p] + vb * r->spmv_s[MIX_FP64] / matrix_bytes(n, nnz, MIX_FP64)
                               : matrix_bytes(n, nnz, p) + vb;
    const double conv = measured ? r->convert_s[p] : 0.0;
    return AUTO_ITERS * (p == MIX_FP64 ? it : AUTO_ITER_FACTOR_FP32 * it) + conv;
}

mix_prec mixi_auto_pick(double n, double nnz, const int cand[MIX_NUM_PREC], const mixi_auto_rates *r)
{
    int measured = r != NULL;
    for (int p = 0; p < MIX_NUM_PREC && measured; p++)
        if (cand[p]) measured = r->spmv_s[p] > 0.0;
    /* The candidates from the narrowest (the precision table's last row) up; FP64 last. */
    double t[MIX_NUM_PREC], tmin = 0.0;
    for (int p = 0; p < MIX_NUM_PREC; p++)
        if (cand[p]) {
            t[p] = solve_cost(n, nnz, (mix_prec)p, r, measured);
            if (tmin <= 0.0 || t[p] < tmin) tmin = t[p];
        }
    for (int p = MIX_NUM_PREC - 1; p >= 0; p--)
        if (cand[p] && p != MIX_FP64 && t[p] <= (1.0 + AUTO_TIE) * tmin) return (mix_prec)p;
    return MIX_FP64;
}

void mixi_auto_bound(double n, double nnz, const int cand[MIX_NUM_PREC], mixi_auto_rates *r,
                     int bounded[MIX_NUM_PREC])
{
    double bw = 0.0;
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        bounded[p] = 0;
        if (cand[p] && r->spmv_s[p] > 0.0) bw = fmax(bw, matrix_bytes(n, nnz, (mix_prec)p) / r->spmv_s[p]);
    }
    for (int p = 0; p < MIX_NUM_PREC && bw > 0.0; p++)
        if (cand[p] && !(r->spmv_s[p] > 0.0)) {
            r->spmv_s[p] = matrix_bytes(n, nnz, (mix_prec)p) / (MIXI_AUTO_BW_HEADROOM * bw);
            r->convert_s[p] = 0.0;
            bounded[p] = 1;
        }
}

mix_prec mixi_cg_auto_choose(const mix_sparse *A, const mixi_auto_rates *r)
{
    /* The whole matrix's order: a rank's block of a large distributed matrix is not small. */
    if (mixi_cg_n(A) < MIXI_CG_AUTO_MIN_N) return MIX_FP64;
    int cand[MIX_NUM_PREC];
    mixi_cg_auto_candidates(A, cand);
    return mixi_auto_pick(A->n, (double)A->nnz, cand, r);
}

void mixi_cg_auto_candidates(const mix_sparse *A, int cand[MIX_NUM_PREC])
{
    /* The precision table's (MIXK_CG_AUTO: FIXED16, FP32, FP64); FP16 and BF16 are never
     * cheaper than FIXED16 (same bytes, fewer bits).  A block-scaled one only where its row
     * scale keeps the entries (mixi_sparse_new counts the tiny ones). */
    const int block_ok = A->fixed16_tiny * 100 <= A->nnz;
    for (int p = 0; p < MIX_NUM_PREC; p++)
        cand[p] = mixk_prec_cg_auto((mix_prec)p) && (!mixk_prec_block_scaled((mix_prec)p) || block_ok);
}

/* The rates of the candidates cand[]: FP64 (A itself, nothing to convert) and the narrowest
 * candidate, which mixi_auto_pick prefers, first; a wider one only where its least possible
 * time could still win (mixi_auto_bound).  On the 2-core Xeon FIXED16 streams at the triad and
 * FP32 cannot win: a first AMG solve of 3-D Poisson 150^3 skips FP32's copy, 0.16 s. */
static int lazy_rates(mix_sparse *A, int jacobi, const int cand[MIX_NUM_PREC], mixi_auto_rates *r,
                      int made[MIX_NUM_PREC])
{
    int first[MIX_NUM_PREC] = {0}, rest[MIX_NUM_PREC], usable[MIX_NUM_PREC], bounded[MIX_NUM_PREC];
    for (int p = MIX_NUM_PREC - 1, narrowest = 1; p >= 0; p--) {
        first[p] = cand[p] && (p == MIX_FP64 || narrowest);
        if (cand[p] && p != MIX_FP64) narrowest = 0;
    }
    int st = mixi_cg_rates(A, jacobi, first, r, made);
    if (st || r->forced) return st;
    /* A first candidate left unmeasured (its copy overflowed) is not bounded: with its time
     * unknown the choice falls to the byte model. */
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        usable[p] = cand[p] && (!first[p] || r->spmv_s[p] > 0.0);
        rest[p] = cand[p] && !first[p];
    }
    mixi_auto_bound(A->n, (double)A->nnz, usable, r, bounded);
    const mix_prec pick = mixi_cg_auto_choose(A, r);
    if (pick < 0 || pick >= MIX_NUM_PREC || !bounded[pick]) return MIX_SUCCESS;
    return mixi_cg_rates(A, jacobi, rest, r, made);
}

mix_prec mixi_cg_auto_storage(mix_sparse *A, int jacobi)
{
    if (mixi_cg_n(A) < MIXI_CG_AUTO_MIN_N) return MIX_FP64;
    int cand[MIX_NUM_PREC], made[MIX_NUM_PREC] = {0};
    mixi_auto_rates r = {{0}, {0}, 0};
    mixi_cg_auto_candidates(A, cand);
    /* A failed measurement (memory) leaves the byte model: AUTO never fails a solve itself. */
    const int st = lazy_rates(A, jacobi, cand, &r, made);
    const mix_prec p = mixi_cg_auto_choose(A, st ? NULL : &r);
    mixi_cg_rates_release(A, jacobi, made, p);
    return p;
}

mix_prec mixi_cg_auto_prec(mix_sparse *A) { return mixi_cg_auto_storage(A, 1); }
