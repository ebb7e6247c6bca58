/* policy.c: the dense drivers' decisions in one place: AUTO's factor precision, the cost model
 * of the FP64 solve that refinement competes with, the worst-case bound every low-precision
 * attempt keeps, and the block size of the factorizations. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "solvers/dense/dense.h"

int mixi_lu_block_size(int n)
{
    /* Measured on the CPU backend (doc/benchmarks.md): 256 is best from n ~ 1000 up; small
     * matrices take one smaller panel step so the GEMM still does most of the work. */
    if (n <= 256) return n < 64 ? (n > 0 ? n : 1) : 64;
    if (n <= 1024) return 128;
    return 256;
}

/* MIXSOLVE_LU_NB: a positive decimal block size (a device run sweeps it); 0 when unset or
 * malformed (ignored, as every MIXSOLVE_ variable). */
static int env_block_size(void)
{
    const char *e = getenv("MIXSOLVE_LU_NB");
    char *end = NULL;
    if (!e || *e < '0' || *e > '9') return 0;
    errno = 0;
    const long v = strtol(e, &end, 10);
    return errno == 0 && *end == '\0' && v > 0 && v <= MIXI_LU_NB_MAX ? (int)v : 0;
}

int mixi_factor_block_size(const mix_context *ctx, int n)
{
    const int forced = env_block_size();
    const mixi_dense_ops *d = ctx->ops->dense;
    if (forced) return forced < n ? forced : (n > 0 ? n : 1);
    const int own = d->lu_block_size ? d->lu_block_size(n) : 0;
    return own > 0 ? own : mixi_lu_block_size(n);
}

int mixi_whole_f32(const mix_context *ctx, int n)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    return !d->whole_f32_pays || d->whole_f32_pays(ctx->state, n);
}

/* A 16-bit or TF32 factor must refine longer than FP32's (measured on randsvd kappa = 1e2: 3
 * rounds for FP32, 50-60 GMRES steps for BF16; each round streams A in FP64 and the factors).
 * With calibrated rates it is taken only where its GEMM is this much faster than FP32's and the
 * O(n^3) factorization outweighs the longer O(n^2) refinement. */
#define AUTO_LOWPREC_MIN_GAIN 4.0
#define AUTO_LOWPREC_MIN_N 12288
/* AUTO takes a low precision where its predicted time (factorization + AUTO_REFINE_ROUNDS
 * rounds of refinement) beats the predicted FP64 solve by this factor: the prediction's error
 * (the calibrated GEMM rates against the factorizations' own, doc/benchmarks.md) stays on the
 * side of FP64. */
#define AUTO_MIN_GAIN 1.1
/* FP32 LU-IR at LAPACK's tolerance: the first solve and 2 corrections on well-conditioned
 * matrices (doc/benchmarks.md). */
#define AUTO_REFINE_ROUNDS 3.0
/* A refinement round streams A in FP64 and the factors in FP32: 12 bytes per entry for LU (a
 * dgemv and the L and U solves), 8 for Cholesky (a dsymv and the two solves read one triangle
 * each).  Its rate is the backend's calibration (round_rate) but never below this figure, the
 * rate without one or with pinned GEMM rates (the 2-core Xeon's DRAM: 12-13 GB/s at
 * n = 3000-4096; in its last-level cache, n = 300-2000, 25-33 GB/s; a lower figure makes AUTO
 * choose FP64 sooner, never later). */
#define ROUND_BYTES_PER_S 12e9
#define ROUND_BYTES_LU 12.0
#define ROUND_BYTES_CHOL 8.0
/* The worst-case bound (doc/man3/mix_dgesv_ir.3): an attempt that fails, fallback included,
 * costs at most (1 + T_low/T64 + BOUND_SLACK) T64.  The passes before the refinement (the
 * norm, the conversion) and the refinement until it shows a converging rate share FAIL_SHARE of
 * T64; the rest of the slack is the passes after it (the x copies, the fallback's NaN scan) and
 * the prediction's error. */
#define BOUND_SLACK 0.1
#define FAIL_SHARE 0.07
/* Backends without calibrated rates (CUDA): the refinement may cost this much of the measured
 * low-precision factorization, and never less than UNCALIBRATED_MIN_S (a decision on less time
 * is load noise); no FP64 prediction. */
#define UNCALIBRATED_CAP 0.5
#define UNCALIBRATED_MIN_S 0.1

/* MIX_PREC_AUTO measures the rates it weighs (the backend's calibration_flops) only once the
 * FP64 work of its calls so far, the present one included, is this many times their
 * measurement's: a process's first AUTO call at n = 512 took 3.6x dgesv's time, at n = 256 14x,
 * for a measurement of 22-35 ms on the 2-core Xeon (issue 32).  1 / BOUND_SLACK: the
 * measurement then stays within the bound's slack of the work it serves.  Until then AUTO
 * takes FP64, as it would have without rates. */
#define CAL_AMORTIZE 10.0

/* FP64 flops of the calls AUTO answered in FP64 while the measurement waited. */
static _Atomic double deferred_flops;

/* Test hooks: a positive value replaces the predicted FP64 solve time (seconds), or the
 * calibrated FP64 and FP32 GEMM rates (GFLOP/s), or LU's half-rate order. */
static _Atomic double fp64_seconds_override, rate64_override, rate32_override, lu_half_override;

void mixi_set_fp64_seconds(double seconds) { fp64_seconds_override = seconds; }

void mixi_set_gemm_rates(double fp64_gflops, double fp32_gflops)
{
    rate64_override = fp64_gflops;
    rate32_override = fp32_gflops;
}

void mixi_set_lu_half_order(double order) { lu_half_override = order; }

/* MIXSOLVE_GEMM_RATES="fp64=100,fp32=200,lu_half=2000": the value the variable gives `name` (a
 * precision's GEMM rate in GFLOP/s, or lu_half, LU's half-rate order), from 1e-6 to 1e9,
 * else 0: the quantities the cost model weighs, fixed, so that every process takes the same
 * decisions (tests whose two processes, a predictor and the drop-in, would otherwise each
 * calibrate under load near AUTO's threshold and disagree; a user's override of a calibration
 * that misjudges the machine).  Quantities not named keep their measurement; a malformed value
 * ("2000x", "100 ", "": strtod would read a prefix) is ignored, as mixsolve_lapack(7) says. */
static double env_value(const char *name) { return mixi_env_list_value("MIXSOLVE_GEMM_RATES", name); }

static double env_rate(mix_prec prec) { return env_value(mixk_prec_name(prec)); }

/* The backend's calibrated GEMM rate of prec (GFLOP/s), or 0 when it has none. */
static double gemm_rate(mix_context *ctx, mix_prec prec)
{
    const double forced = prec == MIX_FP64 ? rate64_override : rate32_override;
    if (forced > 0.0 && (prec == MIX_FP64 || prec == MIX_FP32)) return forced;
    const double pinned = env_rate(prec);
    if (pinned > 0.0) return pinned;
    const mixi_dense_ops *d = ctx->ops->dense;
    double rate = 0.0;
    if (!d->gemm_rate || d->gemm_rate(ctx->state, prec, &rate) || !(rate > 0.0)) return 0.0;
    return rate;
}

/* FP64's or FP32's GEMM rate fixed by the test hook or MIXSOLVE_GEMM_RATES. */
static int gemm_rates_pinned(void)
{
    return rate64_override > 0.0 || rate32_override > 0.0 || env_rate(MIX_FP64) > 0.0 ||
           env_rate(MIX_FP32) > 0.0;
}

/* Rates or the FP64 time fixed: nothing for AUTO to measure first. */
static int rates_pinned(void) { return fp64_seconds_override > 0.0 || gemm_rates_pinned(); }

int mixi_calibration_pays(double deferred, double fp64_flops, double calibration_flops)
{
    return !(calibration_flops > 0.0) || deferred + fp64_flops >= CAL_AMORTIZE * calibration_flops;
}

/* 1: AUTO answers this call in FP64 without measuring; a call about to run (commit) adds its
 * work to what the measurement waits for, a prediction (mix_gesv_auto_prec) does not. */
static int calibration_deferred(mix_context *ctx, double fp64_flops, int commit)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (!d->calibration_flops || rates_pinned() ||
        mixi_calibration_pays(deferred_flops, fp64_flops, d->calibration_flops(ctx->state)))
        return 0;
    /* A compare-and-swap: `+=` on an atomic double would need libatomic. */
    double seen = atomic_load(&deferred_flops);
    while (commit && !atomic_compare_exchange_weak(&deferred_flops, &seen, seen + fp64_flops)) {
    }
    return 1;
}

double mixi_fp64_seconds(mix_context *ctx, double flops)
{
    double forced = fp64_seconds_override;
    if (forced > 0.0) return forced;
    const double rate = gemm_rate(ctx, MIX_FP64);
    return rate > 0.0 ? flops / (rate * 1e9) : 0.0;
}

int mixi_refine_outweighs(int n, int nrhs, double fp64_flops)
{
    /* The first solve and two corrections: an FP32 solve with the factors and an FP64 residual
     * per column and round, 2 n^2 flops each.  Below 100 everything is microseconds and LAPACK's
     * dsgesv, which always tries FP32, is the reference. */
    return n >= 100 && 10.0 * (double)n * n * nrhs > fp64_flops;
}

/* The bytes a second of a refinement round: MIXSOLVE_GEMM_RATES's round= (GB/s), else the
 * backend's calibration, never below ROUND_BYTES_PER_S (a calibration on a loaded machine read
 * 0.4-29 GB/s on the 2-core Xeon: the figure before the calibration stays the floor), which
 * is also the figure without one or with pinned GEMM rates (the pinned model stays what it
 * was). */
static double round_bytes_per_s(mix_context *ctx)
{
    const double pinned = env_value("round");
    if (pinned > 0.0) return pinned * 1e9;
    if (rates_pinned()) return ROUND_BYTES_PER_S;
    const mixi_dense_ops *d = ctx->ops->dense;
    double rate = 0.0;
    if (!d->round_rate || d->round_rate(ctx->state, &rate) || !(rate > ROUND_BYTES_PER_S))
        return ROUND_BYTES_PER_S;
    return rate;
}

/* Predicted seconds of one refinement round: the larger of its flops (an FP64 residual and an
 * FP32 solve per column) at the GEMM rates and its bytes at the round's rate. */
static double round_seconds(mix_context *ctx, int sym, double n, double nrhs, double r64, double r32)
{
    const double flops = 2.0 * n * n * nrhs;
    const double bytes = (sym ? ROUND_BYTES_CHOL : ROUND_BYTES_LU) * n * n + 16.0 * n * nrhs;
    return fmax(flops / (r64 * 1e9) + flops / (r32 * 1e9), bytes / round_bytes_per_s(ctx));
}

/* Predicted seconds of a factorization of `flops` in prec: at its calibrated rate, never faster
 * than FP32's (0: no rates). */
static double lowprec_seconds(mix_context *ctx, mix_prec prec, double flops)
{
    const double r32 = gemm_rate(ctx, MIX_FP32);
    double rate = prec == MIX_FP32 ? r32 : gemm_rate(ctx, prec);
    if (rate > r32) rate = r32;
    return rate > 0.0 ? flops / (rate * 1e9) : 0.0;
}

/* LU's half-rate order h: a factorization of order n runs at about n / (n + h) of its GEMM
 * rate, in FP64 and FP32 alike (the panels and row swaps, memory-bound, against the O(n^3)
 * update).  OpenBLAS on the 2-core Ice Lake Xeon: h 1600-3100 from dgetrf and sgetrf at
 * n = 128 to 2000 (doc/benchmarks.md), so that at n = 500 both run at a fifth of their GEMM
 * rate, and the O(n^2) refinement weighs four times less against the factorization than the
 * rates alone say.  From the backend's dgetrf rate at its calibration order; 0 (the rates
 * alone) where the backend has none, or where the GEMM rates are pinned (the hook, or
 * MIXSOLVE_GEMM_RATES) and h is not: the pinned model stays what it was. */
static double lu_half_order(mix_context *ctx, double r64)
{
    if (lu_half_override > 0.0) return lu_half_override;
    const double pinned = env_value("lu_half");
    if (pinned > 0.0) return pinned;
    if (gemm_rates_pinned()) return 0.0;
    const mixi_dense_ops *d = ctx->ops->dense;
    int n_cal = 0;
    double g = 0.0;
    if (!d->getrf_rate || d->getrf_rate(ctx->state, &n_cal, &g) || !(g > 0.0) || n_cal <= 0)
        return 0.0;
    /* Load during the calibration lowers g: the bound keeps one slow measurement from making
     * every factorization look slow (h at most 8 times the calibration order). */
    return fmin(fmax((double)n_cal * (r64 / g - 1.0), 0.0), 8.0 * n_cal);
}

double mixi_lowprec_gain(mix_context *ctx, mix_prec prec, int sym, int n, int nrhs,
                         double fp64_flops, double factor_flops, double half_order)
{
    const double t64 = mixi_fp64_seconds(ctx, fp64_flops), r64 = gemm_rate(ctx, MIX_FP64);
    const double r32 = gemm_rate(ctx, MIX_FP32), t_factor = lowprec_seconds(ctx, prec, factor_flops);
    if (!(t64 > 0.0) || !(r64 > 0.0) || !(r32 > 0.0) || !(t_factor > 0.0) || n <= 0) return 0.0;
    /* Both factorizations slowed alike; the FP64 solve's own O(n^2) part with them (small). */
    const double slow = 1.0 + fmax(half_order, 0.0) / n;
    return t64 * slow /
           (t_factor * slow + AUTO_REFINE_ROUNDS * round_seconds(ctx, sym, n, nrhs, r64, r32));
}

void mixi_refine_budget(mix_context *ctx, mix_prec prec, double fp64_flops, double factor_flops,
                        double t_factor, double t_passes, int asked, double *fail_s,
                        double *succeed_s)
{
    double t64 = mixi_fp64_seconds(ctx, fp64_flops);
    if (!(t_passes > 0.0)) t_passes = 0.0;
    const double t_spent = t_factor + t_passes;
    if (t64 <= 0.0) {
        *fail_s = *succeed_s = fmax(UNCALIBRATED_CAP * t_spent, UNCALIBRATED_MIN_S);
        return;
    }
    /* The FP64 solve as it would run now: the measured factorization against its prediction
     * says how much slower than calibrated the machine runs (other processes' load; the rates'
     * own error, 1.15-2.2x short on the 2-core Xeon), and the bound is in that solve's units. */
    const double t_low = lowprec_seconds(ctx, prec, factor_flops);
    if (t_low > 0.0 && t_factor > t_low) t64 *= t_factor / t_low;
    /* The passes already made (the norm, the conversion and its fresh pages: 0.05 T64 at
     * n = 4096 on one thread of the 2-core Xeon, twice that share on two, where T64 halves and
     * the bandwidth does not) were paid from the same slack (issue 32 round 4). */
    *fail_s = fmax(FAIL_SHARE * t64 - t_passes, 0.0);
    /* A refinement converging at a steady rate: AUTO's must still beat the FP64 solve; a
     * precision the caller asked for may use the bound beside its factorization. */
    *succeed_s = asked ? fmax((1.0 + FAIL_SHARE) * t64 - t_passes, *fail_s)
                       : fmax(t64 - t_spent, *fail_s);
}

/* MIX_PREC_AUTO on a large matrix.  Backends with calibrated GEMM rates (the CPU): FP32, unless
 * a native lower precision is far faster at a size where its factorization dominates, and
 * either only where predicted to beat the FP64 solve by AUTO_MIN_GAIN (2-core AVX-512 Xeon:
 * FP32 LU 1.5-2x FP64's, so FP32 LU-IR 1.3-1.5x dgesv from n ~ 256 with LU's half-rate order,
 * from n ~ 1000 on the rates alone).  Others (CUDA, where
 * Tensor Cores make the factorization dominate at every size that reaches here): the fastest
 * native GEMM precision, preferring more mantissa bits among equally fast ones (FP16 over
 * BF16; TF32 over FP32). */
static mix_prec auto_precision(mix_context *ctx, int sym, int n, int nrhs, double fp64_flops,
                               double factor_flops, int commit)
{
    /* The order and the default (the last of it) are the precision table's (GEMM column). */
    int last = 1;
    while (mixk_prec_auto_nth(last + 1) != MIX_PREC_AUTO) last++;
    const mix_prec dflt = mixk_prec_auto_nth(last);
    mix_caps caps = {0};
    if (ctx->ops->caps(&caps)) return dflt;
    if (!ctx->ops->dense->gemm_rate) {
        for (int i = 1; i <= last; i++)
            if (caps.gemm[mixk_prec_auto_nth(i)] == MIX_PREC_NATIVE) return mixk_prec_auto_nth(i);
        return dflt;
    }
    if (mixi_refine_outweighs(n, nrhs, fp64_flops) ||
        calibration_deferred(ctx, fp64_flops, commit))
        return MIX_FP64;
    /* The 16-bit rates only from a size where they may win: measuring them pays oneDNN's
     * one-time kernel generation, which only a factorization this large amortises.  FP32's
     * and FP64's are OpenBLAS's, a few milliseconds. */
    mix_prec pick = dflt;
    const double r32 = gemm_rate(ctx, dflt);
    if (n >= AUTO_LOWPREC_MIN_N && r32 > 0.0)
        for (int i = 1; i < last; i++) {
            const mix_prec p = mixk_prec_auto_nth(i);
            if (caps.gemm[p] == MIX_PREC_NATIVE && gemm_rate(ctx, p) >= AUTO_LOWPREC_MIN_GAIN * r32) {
                pick = p;
                break;
            }
        }
    /* Cholesky with LU's half-rate order too: dpotrf runs as far below the GEMM rate at these
     * orders (2-core Ice Lake Xeon, n = 1000: dposv 27 GFLOP/s, h ~ 2300), and its rounds read
     * two thirds of LU's bytes: FP32 Cholesky-IR beats dposv from n = 300 (1.2x; 1.3-1.4x at
     * 500-700, 1.5-1.6x at n = 1000-2000; doc/benchmarks.md, sessions 15 and 16). */
    const double h = lu_half_order(ctx, gemm_rate(ctx, MIX_FP64));
    return mixi_lowprec_gain(ctx, pick, sym, n, nrhs, fp64_flops, factor_flops, h) >= AUTO_MIN_GAIN
               ? pick
               : MIX_FP64;
}

mix_prec mixi_gesv_auto_choice(mix_context *ctx, int n, int nrhs, int commit)
{
    if (n < MIXI_GESV_AUTO_MIN_N) return MIX_FP64;
    const double cube = (double)n * n * n, solve = 2.0 * (double)n * n * nrhs;
    return auto_precision(ctx, 0, n, nrhs, 2.0 / 3.0 * cube + solve, 2.0 / 3.0 * cube, commit);
}

mix_prec mixi_posv_auto_choice(mix_context *ctx, int n, int nrhs, int commit)
{
    /* Cholesky's flops: half of LU's factorization, the same solves and rounds. */
    if (n < MIXI_POSV_AUTO_MIN_N) return MIX_FP64;
    const double cube = (double)n * n * n, solve = 2.0 * (double)n * n * nrhs;
    return auto_precision(ctx, 1, n, nrhs, cube / 3.0 + solve, cube / 3.0, commit);
}
