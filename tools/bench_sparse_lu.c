/* bench_sparse_lu.c: the main job's sparse LU rows: UMFPACK's FP64 solve against mix_dgesv_sparse (FP32, AUTO), factor memory FP32 vs FP64. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "tools/bench_sparse_lu.h"
#if HAVE_UMFPACK
#include <umfpack.h>
#endif

/* One UMFPACK solve of A x = b (symbolic, numeric, solve; A's CSR is the CSC of A^T, solved with
 * UMFPACK_At); 0 or UMFPACK's status, *mib its numeric object's size. */
static int umfpack_solve(const mixm_csr *A, const double *b, double *x, double *mib)
{
#if HAVE_UMFPACK
    const int n = A->nrows;
    int *ap = malloc(((size_t)n + 1) * sizeof *ap);
    int *ai = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *ai);
    if (!ap || !ai || A->nnz > INT32_MAX) {
        free(ap);
        free(ai);
        return UMFPACK_ERROR_out_of_memory;
    }
    for (int i = 0; i <= n; i++) ap[i] = (int)A->rowptr[i];
    for (int64_t k = 0; k < A->nnz; k++) ai[k] = A->colind[k];
    void *sym = NULL, *num = NULL;
    double info[UMFPACK_INFO];
    int st = umfpack_di_symbolic(n, n, ap, ai, A->val, &sym, NULL, info);
    if (st == UMFPACK_OK) st = umfpack_di_numeric(ap, ai, A->val, sym, &num, NULL, info);
    *mib = info[UMFPACK_NUMERIC_SIZE] * info[UMFPACK_SIZE_OF_UNIT] / 1048576.0;
    if (st == UMFPACK_OK) st = umfpack_di_solve(UMFPACK_At, ap, ai, A->val, x, b, num, NULL, info);
    umfpack_di_free_symbolic(&sym);
    umfpack_di_free_numeric(&num);
    free(ap);
    free(ai);
    return st;
#else
    (void)A, (void)b, (void)x, (void)mib;
    return -1;
#endif
}

/* One timed solve of the row's kind; 0 or its status. */
static int solve_once(const mixm_csr *A, mix_context *ctx, mix_sparse *S, bench_result *res,
                      const double *b, double *x, mix_gesv_info *info, double *mib)
{
    if (res->prec == MIX_FP64) return umfpack_solve(A, b, x, mib);
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = res->prec;
    return mix_dgesv_sparse(ctx, &p, S, 1, b, A->nrows, x, A->nrows, info);
}

/* The note: the outcome's words and the factor memory of both precisions (MUMPS; KLU's FP64). */
static void memory_note(mix_context *ctx, mix_sparse *S, bench_result *res, double umf_mib)
{
    char what[64] = "";
    if (res->prec == MIX_FP64) {
        snprintf(res->note, sizeof res->note, "UMFPACK; factors %.1f MiB", umf_mib);
        return;
    }
    if (res->fell_back && res->reason != MIX_REASON_DIRECT)
        snprintf(what, sizeof what, "fallback (reason %d); ", res->reason);
    else if (res->prec == MIX_PREC_AUTO)
        snprintf(what, sizeof what, "auto took %s; ", mix_prec_name(res->used));
    int64_t f32 = 0, f64 = 0, peak = 0;
    if (!mix_sparse_lu_memory(ctx, S, MIX_FP32, &f32, &peak) &&
        !mix_sparse_lu_memory(ctx, S, MIX_FP64, &f64, &peak) && f64 > 0)
        snprintf(res->note, sizeof res->note, "%sfactors fp32 %.1f MiB, fp64 %.1f MiB (%.2fx)", what,
                 f32 / 1048576.0, f64 / 1048576.0, (double)f32 / (double)f64);
    else
        snprintf(res->note, sizeof res->note, "%sfactor memory not measured", what);
}

static void judge(bench_result *res, int st, double thr)
{
    if (st) {
        res->outcome = BENCH_FAILED;
        snprintf(res->note, sizeof res->note, "%s", res->prec == MIX_FP64 ? "UMFPACK failed"
                                                                          : mix_strerror(st));
    } else if (!(res->check <= thr)) {
        res->outcome = BENCH_SILENT;
        snprintf(res->note, sizeof res->note, "reported success, backward error %.2e > %.2e",
                 res->check, thr);
    } else {
        res->outcome = res->fell_back && res->reason != MIX_REASON_DIRECT ? BENCH_FALLBACK : BENCH_OK;
    }
}

void bench_sparse_lu_run(const mixm_csr *A, mix_context *ctx, double min_time, int max_reps,
                         double thr, const double *b, double *x, bench_result *res)
{
    mix_sparse *S = NULL;
    int st = mix_sparse_create_csr(ctx, A->nrows, A->rowptr, A->colind, A->val, &S);
    double best = INFINITY, spent = 0.0, umf_mib = 0.0;
    mix_gesv_info info;
    memset(&info, 0, sizeof info);
    for (int rep = 0; !st && rep < max_reps && (rep == 0 || spent < min_time); rep++) {
        double t0 = mixm_wtime();
        st = solve_once(A, ctx, S, res, b, x, &info, &umf_mib);
        double t = mixm_wtime() - t0;
        spent += t;
        best = fmin(best, t);
    }
    res->status = st;
    res->time = isfinite(best) ? best : 0.0;
    res->iter = info.iter;
    res->inner_iter = info.inner_iter;
    res->fell_back = info.fell_back;
    res->reason = info.reason;
    res->used = res->prec == MIX_FP64 ? MIX_FP64 : info.factor_prec_used;
    res->solver_check = info.backward_error;
    res->check = res->fwd_err = INFINITY;
    if (!st && !mixm_csr_recheck(A, b, x, &res->check, NULL)) {
        double f = 0.0;
        for (int i = 0; i < A->nrows; i++) f = fmax(f, fabs(x[i] - 1.0));
        res->fwd_err = f;
    }
    if (!st) memory_note(ctx, S, res, umf_mib);
    judge(res, st, thr);
    mix_sparse_destroy(S);
}
