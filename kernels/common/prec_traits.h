/* prec_traits.h: what each precision is (size, bits, range, accumulator, role), one table for host and device. */
#ifndef MIXK_PREC_TRAITS_H
#define MIXK_PREC_TRAITS_H

#include <math.h>
#include "mixsolve.h"
#include "kernels/common/mix_hd.h"

/* The precision list.  Adding a storage precision is one S(...) or B(...) row here plus its functions in
 * kernels/common (doc/HACKING.md): the sparse kernels of every backend, the element sizes, the
 * argument checks and the overflow tests are generated from this list.
 *
 * Rows: S(...) is a sparse storage precision of one value per element (CG's sloppy matrix and
 * vectors), B(...) a block-scaled sparse storage precision (fixed point, one float scale per
 * block of values: vectors carry block norms), G(...) only a dense GEMM input rounding.  Columns:
 *   P      the mix_prec value
 *   SFX    suffix of its kernels/common functions (mixk_svec_ld_SFX, mixk_spmv_row_SFX, ...)
 *   BYTES  bytes per stored element (TF32 is stored in a float)
 *   EBITS  exponent bits; 0 for fixed point (int16 q with one float scale per block)
 *   MBITS  stored mantissa bits (fixed point: magnitude bits of q)
 *   MAXF   largest finite value (fixed point: the float scale's)
 *   OVF    smallest magnitude that rounds to Inf when stored, (2 - 2^-(MBITS+1)) 2^emax: the
 *          tie above MAXF, which rounds up because MAXF's last mantissa bit is odd (HUGE_VAL:
 *          no finite double overflows)
 *   ACC    precision of the arithmetic on stored values and of CG's partial solution: a 16-bit
 *          accumulator loses what small steps add to it (kernels/backend_sparse.h, cg_update)
 *   ROLE   flags for what the solvers do with it, so that no solver names a precision:
 *          MIXK_NARROW_EXP  an exponent narrower than FP32's: the dense solver scales the matrix
 *                           into range before converting, CG renormalises its sloppy residual
 *                           every step and takes ||r||^2 of the stored r;
 *          MIXK_CG_AUTO     a candidate of CG's MIX_PREC_AUTO storage (solvers/cg/cg_auto.c), tried
 *                           from the last row up (FP64 is the baseline)
 *   GEMM   0 if it is not a dense factor precision (mix_gesv_params.factor_prec); otherwise
 *          its place in the order MIX_PREC_AUTO tries the native GEMM precisions (solvers/
 *          policy.c): 1 first, the largest below FP64's is the default, FP64 is never tried */
/* Elements of a block-scaled (B row) vector per shared norm (QUDA's per-site norm, here a block
 * of rows): the one definition, for the tables (kernels/backend_sparse.h) and kernels/common. */
#define MIXK_SVEC_BLOCK 32

#define MIXK_NARROW_EXP 1
#define MIXK_CG_AUTO 2
#define MIXK_PRECISION_ROWS(S, B, G)                                                             \
    S(MIX_FP64, fp64, 8, 11, 52, 0x1.fffffffffffffp+1023, HUGE_VAL, MIX_FP64, MIXK_CG_AUTO, 5)   \
    S(MIX_FP32, fp32, 4, 8, 23, 0x1.fffffep+127, 0x1.ffffffp+127, MIX_FP32, MIXK_CG_AUTO, 4)     \
    G(MIX_TF32, tf32, 4, 8, 10, 0x1.ffcp+127, 0x1.ffep+127, MIX_FP32, 0, 3)                     \
    S(MIX_FP16, fp16, 2, 5, 10, 0x1.ffcp+15, 0x1.ffep+15, MIX_FP32, MIXK_NARROW_EXP, 1)         \
    S(MIX_BF16, bf16, 2, 8, 7, 0x1.fep+127, 0x1.ffp+127, MIX_FP32, 0, 2)                        \
    B(MIX_FIXED16, fixed16, 2, 0, 15, 0x1.fffffep+127, 0x1.ffffffp+127, MIX_FP32, MIXK_CG_AUTO, 0)

/* Every precision; the sparse storage precisions; those of one value per element; the
 * block-scaled ones. */
#define MIXK_PRECISIONS(X) MIXK_PRECISION_ROWS(X, X, X)
#define MIXK_STORAGE_FORMATS(X) MIXK_PRECISION_ROWS(X, X, MIXK_ROW_SKIP_)
#define MIXK_ELEMENT_FORMATS(X) MIXK_PRECISION_ROWS(X, MIXK_ROW_SKIP_, MIXK_ROW_SKIP_)
#define MIXK_BLOCK_FORMATS(X) MIXK_PRECISION_ROWS(MIXK_ROW_SKIP_, X, MIXK_ROW_SKIP_)
#define MIXK_ROW_SKIP_(...)

/* One accessor per column of the rows of LIST: a switch the compiler folds away for a constant
 * precision.  Precisions outside the list answer NONE: 0 (or MIX_PREC_AUTO for the accumulator). */
#define MIXK_LIST_TRAIT_(NAME, TYPE, LIST, COL, NONE)                                         \
    static inline MIXK_HD TYPE NAME(mix_prec p)                                                 \
    {                                                                                          \
        switch (p) {                                                                           \
            LIST(COL)                                                                          \
        default: return NONE;                                                                  \
        }                                                                                      \
    }
#define MIXK_TRAIT_(NAME, TYPE, COL, NONE) MIXK_LIST_TRAIT_(NAME, TYPE, MIXK_PRECISIONS, COL, NONE)
#define MIXK_COL_VALID_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return 1;
#define MIXK_COL_BYTES_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return B;
#define MIXK_COL_EBITS_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return E;
#define MIXK_COL_MBITS_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return M;
#define MIXK_COL_MAXF_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return MAXF;
#define MIXK_COL_OVF_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return OVF;
#define MIXK_COL_ACC_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return ACC;
#define MIXK_COL_ROLE_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return SC;
#define MIXK_COL_GEMM_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return GE;
#define MIXK_COL_STORAGE_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return 1;
#define MIXK_COL_NAME_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) case P: return #SFX;

MIXK_TRAIT_(mixk_prec_valid, int, MIXK_COL_VALID_, 0)          /* a precision of the list */
MIXK_TRAIT_(mixk_prec_bytes, int, MIXK_COL_BYTES_, 0)
MIXK_TRAIT_(mixk_prec_exp_bits, int, MIXK_COL_EBITS_, 0)
MIXK_TRAIT_(mixk_prec_mant_bits, int, MIXK_COL_MBITS_, 0)
MIXK_TRAIT_(mixk_prec_max_finite, double, MIXK_COL_MAXF_, 0.0)
MIXK_TRAIT_(mixk_prec_overflow_limit, double, MIXK_COL_OVF_, 0.0)
MIXK_TRAIT_(mixk_prec_acc, mix_prec, MIXK_COL_ACC_, MIX_PREC_AUTO)
MIXK_TRAIT_(mixk_prec_role, int, MIXK_COL_ROLE_, 0)            /* MIXK_NARROW_EXP | MIXK_CG_AUTO */
MIXK_TRAIT_(mixk_prec_auto_rank, int, MIXK_COL_GEMM_, 0)       /* AUTO's dense order; 0: none */
MIXK_TRAIT_(mixk_prec_name, const char *, MIXK_COL_NAME_, "?")

/* A dense factor precision (mix_gesv_params.factor_prec). */
static inline MIXK_HD int mixk_prec_gemm(mix_prec p) { return mixk_prec_auto_rank(p) != 0; }

/* An exponent narrower than FP32's: values leave its range where FP32's would not, so the
 * solvers keep them in range (MIXK_NARROW_EXP). */
static inline MIXK_HD int mixk_prec_narrow_exp(mix_prec p)
{
    return (mixk_prec_role(p) & MIXK_NARROW_EXP) != 0;
}

/* The dense solver scales the matrix into range before converting to `p`: a narrow exponent. */
static inline MIXK_HD int mixk_prec_range_scaling(mix_prec p) { return mixk_prec_narrow_exp(p); }

/* A candidate of CG's MIX_PREC_AUTO storage (MIXK_CG_AUTO). */
static inline MIXK_HD int mixk_prec_cg_auto(mix_prec p)
{
    return (mixk_prec_role(p) & MIXK_CG_AUTO) != 0;
}

/* The dense factor precision MIX_PREC_AUTO tries at place `rank` (1 first); MIX_PREC_AUTO past
 * the last.  FP64, the highest rank, is the answer when nothing is tried, never a try. */
static inline MIXK_HD mix_prec mixk_prec_auto_nth(int rank)
{
    int top = 0;
    mix_prec found = MIX_PREC_AUTO;
#define MIXK_COL_NTH_(P, SFX, B, E, M, MAXF, OVF, ACC, SC, GE)                                  \
    if (GE > top) top = GE;                                                                    \
    if (GE == rank) found = P;
    MIXK_PRECISIONS(MIXK_COL_NTH_)
#undef MIXK_COL_NTH_
    return rank > 0 && rank < top ? found : MIX_PREC_AUTO;
}

/* A sparse storage precision (S row); a block-scaled one (B row: vectors carry block norms). */
MIXK_LIST_TRAIT_(mixk_prec_storage, int, MIXK_STORAGE_FORMATS, MIXK_COL_STORAGE_, 0)
MIXK_LIST_TRAIT_(mixk_prec_block_scaled, int, MIXK_BLOCK_FORMATS, MIXK_COL_STORAGE_, 0)

/* The block-scaled storage precision of `bytes` bytes per value (FIXED16 for 2); MIX_PREC_AUTO if
 * none: the distributed CG sends a short-float stage's halo in it (solvers/cg/cg_dist.c). */
static inline MIXK_HD mix_prec mixk_prec_block_scaled_of(int bytes)
{
#define MIXK_COL_BLOCK_OF_(P, SFX, B, ...)                                                      \
    if (B == bytes) return P;
    MIXK_BLOCK_FORMATS(MIXK_COL_BLOCK_OF_)
#undef MIXK_COL_BLOCK_OF_
    return MIX_PREC_AUTO;
}

/* The CG AUTO candidate of `bytes` bytes per value (FP64 8, FP32 4, FIXED16 2), FP64 if none:
 * the ranks of a distributed CG agree on the widest storage any of them chose (solvers/cg/cg.c). */
static inline MIXK_HD mix_prec mixk_prec_cg_auto_of(int bytes)
{
    for (int p = 0; p < MIX_NUM_PREC; p++)
        if (mixk_prec_cg_auto((mix_prec)p) && mixk_prec_bytes((mix_prec)p) == bytes)
            return (mix_prec)p;
    return MIX_FP64;
}

/* A storage precision of one float value per element narrower than FP32 (FP16, BF16): CG stores
 * A scaled by a uniform power of two (solvers/cg/cg_matrix.c). */
static inline MIXK_HD int mixk_prec_short_float(mix_prec p)
{
    return mixk_prec_storage(p) && !mixk_prec_block_scaled(p) &&
           mixk_prec_bytes(p) < mixk_prec_bytes(MIX_FP32);
}

/* Whether `a` rounds (to nearest) to +-Inf in `p`: at or above the overflow limit, Inf
 * included; NaN does not overflow. */
static inline MIXK_HD int mixk_prec_overflows(mix_prec p, double a)
{
    return fabs(a) >= mixk_prec_overflow_limit(p);
}

/* Whether `a` is finite once rounded to nearest in `p`: NaN and Inf are not. */
static inline MIXK_HD int mixk_prec_fits(mix_prec p, double a)
{
    return fabs(a) < mixk_prec_overflow_limit(p);
}

#endif
