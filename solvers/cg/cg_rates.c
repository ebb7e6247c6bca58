/* cg_rates.c: what one SpMV of a matrix costs in each AUTO candidate storage, as MIX_PREC_AUTO
 * weighs it (solvers/cg/cg_auto.c): measured on the matrix itself, once per process and size of
 * matrix, or forced by MIXSOLVE_SPMV_RATES.  Bytes alone mislead: on an AVX2 Zen 3 the 16-bit
 * decode is compute-bound and FIXED16 CG took 6.05 s against FP32's 5.19 s (3D Poisson 150^3,
 * 623 iterations each) although it reads 0.6x the bytes (issue 37). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "solvers/cg/cg_impl.h"

/* Measured rates per storage and matrix size class (half an octave of nonzeros): nonzeros per
 * second of an SpMV and of a conversion from FP64; 0 until measured.  Per process: the rate is
 * the machine's (its ISA, memory, threads), the size class says whether the matrix sits in a
 * cache.  Last writer wins; a race only measures twice. */
#define RATE_CLASSES 96
static _Atomic double spmv_rate[MIX_NUM_PREC][RATE_CLASSES];
static _Atomic double conv_rate[MIX_NUM_PREC][RATE_CLASSES];

static int size_class(int64_t nnz)
{
    const int c = nnz > 1 ? (int)floor(2.0 * log2((double)nnz)) : 0;
    return c < RATE_CLASSES ? c : RATE_CLASSES - 1;
}

/* MIXSOLVE_SPMV_RATES="fixed16=1.2,fp32=2.5,fp64=1.4": SpMV rates in 10^9 nonzeros per second
 * per storage (a test's or a user's override of the measurement; conversions then count as
 * free).  Returns 1 where the variable names every candidate of mixk_prec_cg_auto with a
 * well-formed value (mixi_env_list_value: "2.5x" is malformed, not 2.5). */
static int forced_rates(double rate[MIX_NUM_PREC])
{
    const char *e = getenv("MIXSOLVE_SPMV_RATES");
    if (!e || !*e) return 0;
    int seen = 0, need = 0;
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        if (!mixk_prec_cg_auto((mix_prec)p)) continue;
        need++;
        const double g = mixi_env_list_value("MIXSOLVE_SPMV_RATES", mixk_prec_name((mix_prec)p));
        if (g > 0.0) rate[p] = g * 1e9, seen++;
    }
    return seen == need;
}

/* The fastest SpMV of each candidate, MEASURE_ROUNDS rounds of them taken in turn (one SpMV each
 * per round) so that a burst of load elsewhere hits every candidate alike, after a warm-up
 * (page faults of fresh vectors, the matrix out of the caches); where the backend can, each
 * round runs every body its tuner would try (spmv_best), since the body a fresh copy starts
 * with is not the one its solve will run.  One round: a first AUTO solve pays the measurement
 * (3D Poisson 150^3 on the 2-core Xeon: FP64's and FIXED16's warm-up and bodies, 0.11 s, under
 * four FP64 iterations' worth). */
#define MEASURE_ROUNDS 1
typedef struct {
    const mixi_spmat *M[MIX_NUM_PREC];
    mixi_svec x[MIX_NUM_PREC], y[MIX_NUM_PREC];
} probe;

static int time_rounds(mix_sparse *A, probe *P, double best[MIX_NUM_PREC])
{
    const mixi_sparse_ops *sp = A->ctx->ops->sparse;
    /* Round 0, the warm-up, only where spmv_best, which warms up itself, is missing. */
    for (int r = sp->spmv_best ? 1 : 0; r <= MEASURE_ROUNDS; r++)
        for (int p = 0; p < MIX_NUM_PREC; p++) {
            if (!P->M[p]) continue;
            double xy, t;
            int st;
            if (sp->spmv_best) {
                st = sp->spmv_best(A->ctx->state, P->M[p], &P->x[p], &P->y[p], 1, &t);
            } else {
                const double t0 = mixi_wtime();
                st = sp->spmv(A->ctx->state, P->M[p], &P->x[p], &P->y[p], &xy);
                t = mixi_wtime() - t0;
            }
            if (st) return st;
            if (r > 0 && t > 0.0 && (best[p] <= 0.0 || t < best[p])) best[p] = t;
        }
    return MIX_SUCCESS;
}

/* A's copy in p (FP64: A itself), the time its conversion took (0: it was cached) and zeroed
 * vectors for it.  *made: whether this call converted it. */
static int probe_add(mix_sparse *A, int jacobi, mix_prec p, probe *P, double *conv, int *made)
{
    mix_context *ctx = A->ctx;
    const double *S;
    const int j = p == MIX_FP64 ? 0 : jacobi;
    *made = p != MIX_FP64 && !A->sloppy[j][p];
    const double t0 = mixi_wtime();
    int st = p == MIX_FP64 ? (P->M[p] = A->a64, MIX_SUCCESS) : mixi_sparse_sloppy(A, p, j, &P->M[p], &S);
    *conv = *made ? mixi_wtime() - t0 : 0.0;
    const mix_prec vp = mixi_cg_vector_prec(ctx, 0, p);
    if (!st) st = mixi_cg_svec_alloc(ctx, vp, A->n, &P->x[p]);
    if (!st) st = mixi_cg_svec_alloc(ctx, vp, A->n, &P->y[p]);
    if (!st) st = ctx->ops->sparse->vec_zero(ctx->state, &P->x[p]);
    if (st) P->M[p] = NULL;
    return st;
}

/* Measures the candidates `want` (1 per storage) on A and notes their rates.  A copy made only
 * for this that AUTO then leaves unused is released by mixi_cg_rates_release. */
static int measure(mix_sparse *A, int jacobi, const int want[MIX_NUM_PREC], int made[MIX_NUM_PREC])
{
    probe P;
    memset(&P, 0, sizeof P);
    double best[MIX_NUM_PREC] = {0}, conv[MIX_NUM_PREC] = {0};
    int st = MIX_SUCCESS;
    for (int p = 0; p < MIX_NUM_PREC && !st; p++)
        if (want[p]) {
            st = probe_add(A, jacobi, (mix_prec)p, &P, &conv[p], &made[p]);
            if (st == MIX_ERR_OVERFLOW || st == MIX_ERR_NOT_SPD) st = MIX_SUCCESS; /* not a candidate */
        }
    if (!st) st = time_rounds(A, &P, best);
    const int c = size_class(A->nnz);
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        mixi_cg_svec_free(A->ctx, &P.x[p]);
        mixi_cg_svec_free(A->ctx, &P.y[p]);
        if (st || !(best[p] > 0.0)) continue;
        atomic_store(&spmv_rate[p][c], (double)A->nnz / best[p]);
        if (conv[p] > 0.0) atomic_store(&conv_rate[p][c], (double)A->nnz / conv[p]);
    }
    return st;
}

int mixi_cg_rates(mix_sparse *A, int jacobi, const int want[MIX_NUM_PREC], mixi_auto_rates *r,
                  int made[MIX_NUM_PREC])
{
    double forced[MIX_NUM_PREC] = {0};
    const double nnz = (double)A->nnz;
    if (forced_rates(forced)) {
        for (int p = 0; p < MIX_NUM_PREC; p++)
            if (forced[p] > 0.0) r->spmv_s[p] = nnz / forced[p];
        r->forced = 1;
        return MIX_SUCCESS;
    }
    const int c = size_class(A->nnz);
    int missing[MIX_NUM_PREC] = {0}, fresh[MIX_NUM_PREC] = {0}, any = 0;
    for (int p = 0; p < MIX_NUM_PREC; p++)
        if (want[p] && !(atomic_load(&spmv_rate[p][c]) > 0.0)) missing[p] = any = 1;
    int st = any && A->ctx->ops->sparse->vec_zero ? measure(A, jacobi, missing, fresh) : MIX_SUCCESS;
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        made[p] |= fresh[p];
        if (!want[p]) continue;
        const double sr = atomic_load(&spmv_rate[p][c]), cr = atomic_load(&conv_rate[p][c]);
        r->spmv_s[p] = sr > 0.0 ? nnz / sr : 0.0;
        const int cached = p == MIX_FP64 || (A->sloppy[jacobi ? 1 : 0][p] && !made[p]);
        r->convert_s[p] = !cached && cr > 0.0 ? nnz / cr : 0.0;
    }
    return st;
}

void mixi_cg_rates_release(mix_sparse *A, int jacobi, const int made[MIX_NUM_PREC], mix_prec keep)
{
    /* A distributed A's copies are remade with the halo's scales (solvers/cg/cg_dist.c): left. */
    if (A->dist) return;
    const int j = jacobi ? 1 : 0;
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        if (!made[p] || p == (int)keep || p == MIX_FP64 || !A->sloppy[j][p]) continue;
        A->ctx->ops->sparse->csr_destroy(A->ctx->state, A->sloppy[j][p]);
        A->sloppy[j][p] = NULL;
        A->eta_known[j][p] = 0;
    }
}
