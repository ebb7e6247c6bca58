/* lu_profile.h: an off-by-default phase profile of the low-precision LU and of its refinement's solves, for benchmarks (bench_gpu_gesv). */
#ifndef MIX_SOLVERS_DENSE_LU_PROFILE_H
#define MIX_SOLVERS_DENSE_LU_PROFILE_H

#include "lib/core/core.h"

/* The phases, in the order a factorization meets them.  GEMM includes the rounding of its inputs
 * (a backend's gemm_f32 does both); SOLVE is one application of the factors in the refinement
 * (getrs_f32_f64: scaling, P, L^{-1}, U^{-1}); the refinement's other work (the FP64 residual,
 * norms, GMRES) is info.t_refine less SOLVE. */
typedef enum {
    MIXI_LU_PH_CONVERT, /* range scaling and the FP64 -> FP32 copy of A */
    MIXI_LU_PH_PANEL,   /* getrf_panel_f32 with its checks (or the whole getrf_f32) */
    MIXI_LU_PH_LASWP,   /* the panel's interchanges left and right of it */
    MIXI_LU_PH_TRSM,    /* U12 */
    MIXI_LU_PH_GEMM,    /* A22 -= L21 U12 with its overflow check */
    MIXI_LU_PH_SOLVE,
    MIXI_LU_NPHASES
} mixi_lu_phase;

typedef struct {
    double seconds[MIXI_LU_NPHASES];
    long calls[MIXI_LU_NPHASES];
    int nb;    /* the largest column block met */
    int steps; /* panel steps, summed over factorizations */
} mixi_lu_profile;

extern const char *const mixi_lu_phase_names[MIXI_LU_NPHASES];

/* Accumulate into *p (zeroed by the caller) from now on; NULL stops.  Each phase is timed between
 * two synchronisations of the backend, so a profiled run is slower than an unprofiled one, with
 * the same results.  Process-wide: for a benchmark or test running one solve at a time. */
void mixi_lu_profile_attach(mixi_lu_profile *p);
/* A panel step of nb columns (the dense family's hook). */
void mixi_lu_profile_step(int nb);
/* The dense family's hooks around one phase: begin synchronises and notes the time in *t0 (0 when
 * no profile is attached); end returns rc unchanged when it is an error or profiling is off,
 * else synchronises and adds the time since t0 to `ph`. */
int mixi_lu_profile_begin(mix_context *ctx, double *t0);
int mixi_lu_profile_end(mix_context *ctx, mixi_lu_phase ph, double t0, int rc);

#endif
