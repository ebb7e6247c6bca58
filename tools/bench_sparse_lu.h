/* bench_sparse_lu.h: the main job's sparse LU rows (tools/bench_sparse_lu.c). */
#ifndef MIXSOLVE_BENCH_SPARSE_LU_H
#define MIXSOLVE_BENCH_SPARSE_LU_H

#include "tools/bench.h"
#include "matrices/mixmat.h"

/* One BENCH_SPLU row of A x = b (b = A ones): prec MIX_FP64 is UMFPACK's FP64 solve (the
 * baseline), MIX_FP32 and MIX_PREC_AUTO mix_dgesv_sparse on ctx; best of the repetitions (at
 * least one, until min_time is spent or max_reps), judged against the backward error thr, the
 * factor memory of both precisions in the note. */
void bench_sparse_lu_run(const mixm_csr *A, mix_context *ctx, double min_time, int max_reps,
                         double thr, const double *b, double *x, bench_result *res);

#endif
