/* spmv_tune.h: the CPU SpMV variants and the per-matrix kernel tuner that picks one (spmv_tune.c). */
#ifndef MIX_SPMV_TUNE_H
#define MIX_SPMV_TUNE_H

#include <stdint.h>
#include "lib/mixsolve.h"

/* Bodies of a full SELL slice; all give the bits of the portable row body (same products, same
 * slot order per row), so the tuner may pick any.  CONTIG: contiguous slots load x with one
 * vector load (kernels/common/sell.h), the others gather; AVX512: 16 rows per vector, AVX2: 8.
 * AVX2_LOADS: AVX2_CONTIG with eight scalar loads where it would gather (vpgatherdps is
 * microcoded on AMD Zen 3: a coarse AMG level of 3-D Poisson 150^3, FIXED16, 2 threads, 3.3-4.2
 * ms an SpMV against 4.0-4.8 gathering; the tuner times it beside the others).  PORTABLE: kernels/common's row bodies only (forced, never tuned).  FP64 storage (plain CSR)
 * has one body, MIXI_SPMV_CSR (kernels/common's row), with or without software prefetch. */
enum {
    MIXI_SPMV_AVX512_CONTIG,
    MIXI_SPMV_AVX512_GATHER,
    MIXI_SPMV_AVX2_CONTIG,
    MIXI_SPMV_AVX2_GATHER,
    MIXI_SPMV_AVX2_LOADS,
    MIXI_SPMV_PORTABLE,
    MIXI_SPMV_CSR,
    MIXI_SPMV_NVAR
};

/* A variant code: the body above, plus a software prefetch distance (in SELL slot rows, 0: none)
 * in the bits from MIXI_SPMV_PF_SHIFT.  Prefetching does not touch the arithmetic: the same bits.
 * The vector bodies and CSR come with two distances: MIXI_SPMV_PF_DIST ("-pf" in the name:
 * "avx512-gather-pf", "csr-pf") and MIXI_SPMV_PF_FAR ("-pf-far"); CSR reads a distance d as d x 32
 * bytes ahead in its values and in its column indices.  Which pays depends on the machine's
 * memory latency and bandwidth: on the KVM Xeon (3D Poisson 150^3, 2 threads, matrix from DRAM)
 * 32 slot rows gave FIXED16 4.2 ms and FP64 CSR 11.2 ms, 128 gave 3.9-4.0 and 9.7-10.1, 512 3.9
 * and 10.7-10.8; the tuner's prefetch stage times none, near and far. */
#define MIXI_SPMV_PF_SHIFT 8
#define MIXI_SPMV_PF_DIST 32 /* 2 KiB of 16-bit values ahead (a 150^3 stencil slice: ~5 slices) */
#define MIXI_SPMV_PF_FAR 128 /* 8 KiB of 16-bit values, 4 KiB of FP64 CSR values and indices */
#define MIXI_SPMV_CSR_PF_BYTES(pfd) ((pfd) * 32)
static inline int mixi_spmv_body(int code) { return code & ((1 << MIXI_SPMV_PF_SHIFT) - 1); }
static inline int mixi_spmv_pfd(int code) { return code >> MIXI_SPMV_PF_SHIFT; }
/* Whether body `var` has a prefetching form (the vector bodies of the SELL formats, and CSR). */
static inline int mixi_spmv_has_pf(int var)
{
    return (var >= MIXI_SPMV_AVX512_CONTIG && var <= MIXI_SPMV_AVX2_LOADS) || var == MIXI_SPMV_CSR;
}

const char *mixi_spmv_variant_name(int var);
/* The variant named `name` (as mixi_spmv_variant_name gives it), or -1. */
int mixi_spmv_variant_parse(const char *name);

/* The choice from a timing table: t[v] the best time of variant v (<= 0, NaN or Inf: not
 * timed); the fastest, except that the default `dflt` is kept while within 2% of it (noise
 * must not move the choice off the default for nothing); ties go to the lower index.  -1 if
 * no variant was timed.  A pure function: the same table gives the same choice. */
int mixi_spmv_tune_pick(const double *t, int nvar, int dflt);

/* The per-matrix tuner.  The first MIXI_TUNE_WARMUP SpMVs of a matrix run the default body,
 * untimed: they are not the solve's steady state (KVM Xeon, FIXED16 3D Poisson 150^3: the first
 * call, faulting in a fresh vector's pages, 25-27 ms; calls 2-12, after the setup's FP64
 * residual streamed the FP64 matrix through the last-level cache, 5-5.6 ms; from then on
 * 4.2-4.5 ms; the round robin gave the first candidate the cold call).  Each of the next
 * MIXI_TUNE_ROUNDS x (number of candidates) SpMVs runs the next candidate round robin and is
 * timed (a real SpMV: its result is used);
 * then mixi_spmv_tune_pick fixes the body.  A vector body then runs 3 x MIXI_TUNE_ROUNDS more
 * timed SpMVs, without software prefetch, with the near and with the far distance in turn, and
 * the pick among the three (the default: without) fixes the variant for the matrix's lifetime.  A matrix serves one SpMV
 * at a time (its decode scratch), so its tuner needs no lock. */
#define MIXI_TUNE_WARMUP 12
#define MIXI_SPMV_NPF 3 /* the prefetch stage's distances: none, MIXI_SPMV_PF_DIST, MIXI_SPMV_PF_FAR */
#define MIXI_TUNE_ROUNDS 4
typedef struct {
    int warm;                 /* warm-up SpMVs run so far */
    int cand[MIXI_SPMV_NVAR]; /* the candidates, in order */
    int ncand, dflt;          /* dflt: an index into cand */
    int calls;                /* SpMVs timed so far */
    int chosen;               /* the variant once fixed, else -1 */
    double best[MIXI_SPMV_NVAR]; /* per candidate index: best time */
    int pfcalls;              /* prefetch stage: -1 none or done, else its SpMVs timed so far */
    double pfbest[MIXI_SPMV_NPF]; /* its best times: no prefetch, near, far */
} mixi_spmv_tuner;

/* Candidates for a storage format on this CPU (has_avx2: AVX2 + F16C; has_avx512: AVX-512F),
 * and the environment: MIXSOLVE_SPMV_VARIANT=<name> forces a variant (where it applies),
 * MIXSOLVE_TUNE=off pins the default (the widest ISA's gather body, as before the tuner; FP64:
 * CSR without prefetch). */
void mixi_spmv_tuner_init(mixi_spmv_tuner *T, mix_prec storage, int has_avx2, int has_avx512);
/* The variant code the next SpMV runs. */
int mixi_spmv_tuner_next(const mixi_spmv_tuner *T);
/* Whether the next SpMV is to be timed and reported to mixi_spmv_tuner_done. */
int mixi_spmv_tuner_timing(const mixi_spmv_tuner *T);
/* Records that SpMV's time (seconds) of `var`; bytes: what it moved (for mixi_spmv_rate). */
void mixi_spmv_tuner_done(mixi_spmv_tuner *T, mix_prec storage, int var, double seconds,
                          double bytes);
/* "tuning" while it times, else the chosen variant's name. */
const char *mixi_spmv_tuner_choice(const mixi_spmv_tuner *T);

/* Effective bytes/s (matrix + x + y over the best time of the chosen variant) of the matrix the
 * tuners of this process timed last in `storage`, 0 if none yet (kernels/backend_sparse.h). */
double mixi_spmv_rate(mix_prec storage);

#endif
