/* sparse_lu_cpu.c: the CPU backend's sparse direct family over sequential MUMPS (smumps, dmumps), with KLU's FP64 factors where little fill is predicted. */
#include <float.h>
#include <math.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) || defined(__SSE__)
#include <xmmintrin.h>
#define MXCSR_FTZ_DAZ 0x8040u /* flush-to-zero (bit 15) and denormals-are-zero (bit 6) */
#endif
#include <smumps_c.h>
#include <dmumps_c.h>
#include "lib/core/core.h"
#include "kernels/backend_dense.h"
#include "kernels/backend_sparse_lu.h"
#include "kernels/cpu/sparse_cpu.h"
#include "kernels/cpu/sparse_lu_klu.h"

/* MUMPS's C interface and its sequential MPI stub keep process-wide state (instance tables,
 * the Fortran runtime's I/O units): one call into it at a time, whatever the contexts. */
static pthread_mutex_t mumps_lock = PTHREAD_MUTEX_INITIALIZER;

#define ICNTL(s, i) ((s).icntl[(i) - 1])
#define INFOG(s, i) ((s).infog[(i) - 1])
#define MUMPS_USE_COMM_WORLD (-987654) /* the sequential library's only communicator */
/* Workspace relaxation (ICNTL(14), percent over the analysis's estimate) is doubled and the
 * factorization retried when delayed pivots outgrow it (INFO(1) = -8, -9, -14, -15, -17, -20),
 * at most this many times. */
#define MEM_RETRIES 4
/* Problems whose analysis predicts fewer factorization flops than this (a few milliseconds on
 * one core), or, before the analysis, with fewer entries, run MUMPS on one thread. */
#define SERIAL_MAX_FLOPS 2e8
#define SERIAL_MAX_NZ 100000

struct mixi_splu {
    int n;
    int64_t nnz;
    const int64_t *rowptr; /* the FP64 matrix of the sparse family, read in place */
    const int32_t *colind;
    const double *val;
    MUMPS_INT *irn, *jcn; /* A's coordinates, 1-based, for both instances */
    float *val32;         /* A rounded to FP32 */
    double *val64;        /* A's values in coordinate order (MUMPS may not write them; const) */
    SMUMPS_STRUC_C s;
    DMUMPS_STRUC_C d;
    int s_up, d_up;             /* instance initialised (JOB = -1 done) */
    int s_factored, d_factored; /* numerical factors present */
    int s_analyzed, d_analyzed;
    int d_no_transversal;       /* FP64 retried without the maximum transversal (factor_d) */
    int s_colperm, d_colperm;   /* the instance was given A Q (take_order) */
    MUMPS_INT *jcn_q, *q;       /* A Q's column indices, and Q (1-based) */
    int serial;                 /* MUMPS runs on one thread (serial_begin) */
    int order_for_fp32;         /* the ordering is weighed for FP32 factors (estimate, AUTO) */
    int half_exp;               /* half the binary exponent of ||A||inf (round_column) */
    int exponent;               /* the values held are A's times 2^-exponent (range_exponent) */
    double *scaled;             /* those values where exponent != 0 (val then points here) */
    struct mixi_klu *klu;       /* KLU's analysis (small A, or made for its FP64 factors) and,
                                 * once factored, the FP64 factors (factor_klu); else NULL */
};

static _Atomic int klu_wanted = 1; /* mixi_cpu_splu_use_klu */

void mixi_cpu_splu_use_klu(int use) { klu_wanted = use != 0; }

/* The FP64 factors are KLU's. */
static int klu_factored(const mixi_splu *F)
{
#ifdef HAVE_KLU
    return mixi_klu_factored(F->klu);
#else
    (void)F;
    return 0;
#endif
}

/* MUMPS is loaded at run time, its symbols kept local (RTLD_LOCAL, and RTLD_DEEPBIND so that
 * its own references go to its own libraries first): the sequential build's MPI stub
 * (libmpiseq) exports MPI_Init, MPI_Comm_rank, MPI_Finalize and MPI_Wtime, which, linked into
 * libmixsolve, took the place of the real MPI in MPI programs (tests/mpi.sh: "MPI_Comm_size
 * called before MPI_INIT").  The sanitizers' runtime refuses RTLD_DEEPBIND: without it there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MUMPS_DLFLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define MUMPS_DLFLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif
static void (*smumps_fn)(SMUMPS_STRUC_C *);
static void (*dmumps_fn)(DMUMPS_STRUC_C *);
static pthread_once_t mumps_once = PTHREAD_ONCE_INIT;

static void *open_mumps(const char *arith)
{
    char name[64];
    int major = 0, minor = 0;
    sscanf(MUMPS_VERSION, "%d.%d", &major, &minor); /* the soname: lib?mumps_seq-5.5.so */
    snprintf(name, sizeof name, "lib%smumps_seq-%d.%d.so", arith, major, minor);
    void *h = dlopen(name, MUMPS_DLFLAGS);
    if (!h) {
        snprintf(name, sizeof name, "lib%smumps_seq.so", arith);
        h = dlopen(name, MUMPS_DLFLAGS);
    }
    return h;
}

static void load_mumps(void)
{
    void *hs = open_mumps("s"), *hd = open_mumps("d");
    if (!hs || !hd) return;
    *(void **)&smumps_fn = dlsym(hs, "smumps_c");
    *(void **)&dmumps_fn = dlsym(hd, "dmumps_c");
}

/* Whether MUMPS could be loaded (once per process). */
static int mumps_available(void)
{
    pthread_once(&mumps_once, load_mumps);
    return smumps_fn && dmumps_fn;
}

/* A small problem's MUMPS calls run on one thread (MUMPS's OpenMP and OpenBLAS's follow this
 * thread's omp_get_max_threads): its fronts are too small to share, and handing them between
 * two threads of a loaded machine cost add32 (n = 4960) 87 ms against 14 ms on one.  Returns
 * the thread count to restore (0: nothing changed). */
static int serial_begin(int serial)
{
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    if (!serial || threads == 1) return 0;
    omp_set_num_threads(1);
    return threads;
#else
    (void)serial;
    return 0;
#endif
}

static void serial_end(int threads)
{
#ifdef _OPENMP
    if (threads > 0) omp_set_num_threads(threads);
#else
    (void)threads;
#endif
}

#ifdef MXCSR_FTZ_DAZ
/* The FTZ and DAZ bits of this thread and of every thread of its OpenMP pool (where OpenBLAS's
 * OpenMP build and MUMPS run their threads) set to `bits`. */
static void set_flush_bits(unsigned bits)
{
    _mm_setcsr((_mm_getcsr() & ~MXCSR_FTZ_DAZ) | bits);
#ifdef _OPENMP
#pragma omp parallel
    _mm_setcsr((_mm_getcsr() & ~MXCSR_FTZ_DAZ) | bits);
#endif
}
#endif

/* The FP32 factorization and solves run with subnormals flushed to zero: the fill of a
 * convection-diffusion LU decays below FLT_MIN, and each subnormal operand costs the x86 FPU a
 * microcode assist (40^3, one thread, AMD ordering: FP32 factors 4.97 s CPU with subnormals,
 * 1.85 s flushed, FP64's 2.94 s).  What is flushed is below 2^-126 against the scaled matrix's
 * entries near 1: no change an FP64 refinement can see (and the refinement checks). */
static void run_s(SMUMPS_STRUC_C *s, int job, int serial)
{
    s->job = job;
    pthread_mutex_lock(&mumps_lock);
    int threads = serial_begin(serial);
#ifdef MXCSR_FTZ_DAZ
    unsigned saved = _mm_getcsr() & MXCSR_FTZ_DAZ;
    if (job >= 2) set_flush_bits(MXCSR_FTZ_DAZ);
#endif
    smumps_fn(s);
#ifdef MXCSR_FTZ_DAZ
    if (job >= 2) set_flush_bits(saved);
#endif
    serial_end(threads);
    pthread_mutex_unlock(&mumps_lock);
}

static void run_d(DMUMPS_STRUC_C *d, int job, int serial)
{
    d->job = job;
    pthread_mutex_lock(&mumps_lock);
    int threads = serial_begin(serial);
    dmumps_fn(d);
    serial_end(threads);
    pthread_mutex_unlock(&mumps_lock);
}

/* The library never prints: MUMPS's message, diagnostic and statistics streams are closed. */
#define QUIET(st)                                                                              \
    do {                                                                                       \
        ICNTL(st, 1) = -1;                                                                     \
        ICNTL(st, 2) = -1;                                                                     \
        ICNTL(st, 3) = -1;                                                                     \
        ICNTL(st, 4) = 0;                                                                      \
    } while (0)

static int memory_short(int info1)
{
    return info1 == -8 || info1 == -9 || info1 == -14 || info1 == -15 || info1 == -17 ||
           info1 == -20;
}

/* A MUMPS error code as our status: out of memory, else a library call that failed
 * unexpectedly (MIX_ERR_INTERNAL).
 * Memory is an allocation that failed (-7 in the analysis, -13), the ICNTL(23) cap (-19), or a
 * workspace still too small after factor_s's retries (memory_short; -11, -12 in the solve):
 * an analysis that ran out of memory was INFO(1) = -7 under a 5 MB RLIMIT_AS margin, and
 * reported as MIX_ERR_BACKEND, "not compiled into this library", as the other codes were. */
int mixi_cpu_mumps_status(int info1)
{
    if (info1 >= 0) return MIX_SUCCESS;
    if (info1 == -7 || info1 == -13 || info1 == -19 || info1 == -11 || info1 == -12 ||
        memory_short(info1))
        return MIX_ERR_ALLOC;
    return MIX_ERR_INTERNAL;
}

static int mumps_status(int info1) { return mixi_cpu_mumps_status(info1); }

static void splu_free(mixi_splu *F)
{
#ifdef HAVE_KLU
    mixi_klu_free(F->klu);
#endif
    if (F->s_up) run_s(&F->s, -2, F->serial);
    if (F->d_up) run_d(&F->d, -2, F->serial);
    mixi_free(F->irn);
    mixi_free(F->jcn);
    mixi_free(F->val32);
    mixi_free(F->val64);
    mixi_free(F->scaled);
    mixi_free(F->jcn_q);
    mixi_free(F->q);
    mixi_free(F);
}

static void cpu_splu_destroy(void *state, mixi_splu *F)
{
    (void)state;
    if (F) splu_free(F);
}

/* A whose largest entry lies beyond lib/core's range (mixi_beyond_range) is held as
 * A 2^-exponent, its largest entry in [1, 2): near FP64's ends MUMPS's FP64 LU and the residuals
 * overflowed (entries of 1.5e308: ||A||inf was Inf, NaN written into x and a well-conditioned A
 * called singular, where mix_dgesv_ir solves it). */
static int range_exponent(const mixi_splu *F)
{
    double amax = 0.0;
    for (int64_t k = 0; k < F->nnz; k++)
        if (fabs(F->val[k]) > amax) amax = fabs(F->val[k]);
    return mixi_beyond_range(amax) ? ilogb(amax) : 0;
}

/* The values held: F->val itself, or its copy times 2^-exponent. */
static int held_values(mixi_splu *F)
{
    if (!(F->exponent = range_exponent(F))) return MIX_SUCCESS;
    F->scaled = mixi_malloc_n((size_t)(F->nnz > 0 ? F->nnz : 1), sizeof *F->scaled);
    if (!F->scaled) return MIX_ERR_ALLOC;
    for (int64_t k = 0; k < F->nnz; k++) F->scaled[k] = ldexp(F->val[k], -F->exponent);
    F->val = F->scaled;
    return MIX_SUCCESS;
}

/* Coordinates (1-based) and the FP64 values held in their order; their ||.||inf. */
static int coordinates(mixi_splu *F, double *anrm)
{
    size_t nz = (size_t)(F->nnz > 0 ? F->nnz : 1);
    F->irn = mixi_malloc_n(nz, sizeof *F->irn);
    F->jcn = mixi_malloc_n(nz, sizeof *F->jcn);
    F->val64 = mixi_malloc_n(nz, sizeof *F->val64);
    if (!F->irn || !F->jcn || !F->val64) return MIX_ERR_ALLOC;
    int st = held_values(F);
    if (st) return st;
    double amax = 0.0;
    for (int i = 0; i < F->n; i++) {
        double row = 0.0;
        for (int64_t k = F->rowptr[i]; k < F->rowptr[i + 1]; k++) {
            F->irn[k] = i + 1;
            F->jcn[k] = F->colind[k] + 1;
            F->val64[k] = F->val[k];
            row += fabs(F->val[k]);
        }
        if (!(row <= amax)) amax = row;
    }
    *anrm = amax;
    if (amax > 0.0) F->half_exp = ilogb(amax) / 2;
    return MIX_SUCCESS;
}

/* Coordinates and ||A||inf, and for a small A KLU's analysis (its structural rank in *srank):
 * MUMPS's analysis runs in the instance that factors or estimates first (analysis), so that an
 * FP64 solve chosen directly pays for one analysis, and the other instance takes its ordering.
 * Structural singularity shows there (MUMPS's INFO(1) = -6) as a singular factorization. */
static int cpu_splu_analyze(void *state, const mixi_spmat *A64, mixi_splu **out, int *srank,
                            double *anrm, int *exponent)
{
    (void)state;
    *out = NULL;
    *exponent = 0;
    if (!mumps_available()) return MIX_ERR_UNSUPPORTED;
    mixi_splu *F = mixi_calloc(1, sizeof *F);
    if (!F) return MIX_ERR_ALLOC;
    int st = mixi_cpu_spmat_csr(A64, &F->n, &F->rowptr, &F->colind, &F->val);
    if (!st && F->rowptr[F->n] > (int64_t)INT32_MAX) st = MIX_ERR_UNSUPPORTED;
    if (!st) {
        F->nnz = F->rowptr[F->n];
        st = coordinates(F, anrm);
    }
    if (st) {
        splu_free(F);
        return st;
    }
    *exponent = F->exponent;
    F->serial = F->nnz < SERIAL_MAX_NZ;
    *srank = F->n;
#ifdef HAVE_KLU
    /* A small A is analysed by KLU, whose analysis costs about 0.6 of MUMPS's and predicts the
     * same flops and entries within 20% (add32, dw8192, convection-diffusion 10^3 and 15^3):
     * MUMPS is then set up only for the factors KLU does not make (factor_klu).  On the bundled
     * general matrices AUTO's speed went from 0.77x to 1.76x UMFPACK's (geometric mean, one
     * thread); the FP64 problems KLU does not factor pay its analysis (dw8192: about 10%). */
    if (klu_wanted && F->serial &&
        (st = mixi_klu_analyze(F->n, F->rowptr, F->colind, &F->klu, srank))) {
        splu_free(F);
        return st;
    }
#endif
    *out = F;
    return MIX_SUCCESS;
}

/* An entry count or size of MUMPS: negative means millions. */
static double mumps_count(MUMPS_INT v)
{
    return v < 0 ? -1e6 * (double)v : (double)v;
}

/* Orderings (ICNTL(7)): given (PERM_IN), AMF, PORD's nested dissection. */
#define ORDER_GIVEN 1
#define ORDER_AMF 2
#define ORDER_PORD 4
/* The analysis starts with AMF (cheap: 0.08 s at 40^3) and tries PORD when AMF's predicted
 * factorization is long enough for nested dissection to pay for its slower analysis
 * (ND_ANALYSIS_S_PER_NZ seconds per entry of A, measured 1.4e-6 to 1.7e-6 from 40^3 to 80^3 on
 * the 2-core Xeon): when ND_SAVING of that time outweighs it.  3-D convection-diffusion, one
 * thread: 40^3 AMF 1.17 s (analysis + FP32 factors), PORD 1.29 s, SCOTCH 2.14 s; 60^3 PORD's
 * flops are 0.44x AMF's.  The factorization's predicted time is its flops at MUMPS_EFFICIENCY
 * of the calibrated GEMM rate (MUMPS reached 0.44 of OpenBLAS's 512 x 512 x 256 SGEMM rate and
 * 0.53 of DGEMM's on 40^3, one thread).  Any ordering is valid: this is only speed. */
#define ND_ANALYSIS_S_PER_NZ 1.6e-6
#define ND_SAVING 0.3
#define MUMPS_EFFICIENCY 0.5

extern const mixi_dense_ops mixi_cpu_dense_ops; /* dense_cpu.c: the calibrated GEMM rates */

/* The fields of one MUMPS instance (smumps or dmumps) that the analysis reads and sets. */
typedef struct {
    MUMPS_INT *icntl, *infog;
    MUMPS_INT **perm_in, **jcn, **sym_perm, **uns_perm;
    int *analyzed, *colperm;
} instance;

static instance instance_of(mixi_splu *F, mix_prec prec)
{
    if (prec == MIX_FP32)
        return (instance){F->s.icntl, F->s.infog, &F->s.perm_in, &F->s.jcn, &F->s.sym_perm,
                          &F->s.uns_perm, &F->s_analyzed, &F->s_colperm};
    return (instance){F->d.icntl, F->d.infog, &F->d.perm_in, &F->d.jcn, &F->d.sym_perm,
                      &F->d.uns_perm, &F->d_analyzed, &F->d_colperm};
}

static void run(mixi_splu *F, mix_prec prec, int job)
{
    if (prec == MIX_FP32) run_s(&F->s, job, F->serial);
    else run_d(&F->d, job, F->serial);
}

/* The analysis's estimate of the factorization's flops (RINFOG(1)). */
static double estimated_flops(const mixi_splu *F, mix_prec prec)
{
    return prec == MIX_FP32 ? (double)F->s.rinfog[0] : F->d.rinfog[0];
}

/* Initialisation (JOB = -1) of prec's instance, quiet, on A's coordinates and values (the
 * maximum transversal and scaling of the analysis read values). */
static int init_instance(mixi_splu *F, mix_prec prec)
{
    if (prec == MIX_FP32) {
        F->s.par = 1;
        F->s.sym = 0;
        F->s.comm_fortran = MUMPS_USE_COMM_WORLD;
        run_s(&F->s, -1, F->serial);
        if (INFOG(F->s, 1) < 0) return mumps_status(INFOG(F->s, 1));
        F->s_up = 1;
        QUIET(F->s);
        ICNTL(F->s, 24) = 1; /* null pivot detection: see outcome_of */
        F->s.n = F->n;
        F->s.nnz = F->nnz;
        F->s.irn = F->irn;
        F->s.jcn = F->jcn;
        F->s.a = F->val32;
        return MIX_SUCCESS;
    }
    F->d.par = 1;
    F->d.sym = 0;
    F->d.comm_fortran = MUMPS_USE_COMM_WORLD;
    run_d(&F->d, -1, F->serial);
    if (INFOG(F->d, 1) < 0) return mumps_status(INFOG(F->d, 1));
    F->d_up = 1;
    QUIET(F->d);
    if (F->d_no_transversal) ICNTL(F->d, 6) = 0;
    F->d.n = F->n;
    F->d.nnz = F->nnz;
    F->d.irn = F->irn;
    F->d.jcn = F->jcn;
    F->d.a = F->val64;
    return MIX_SUCCESS;
}

static _Atomic double nd_cost_s = 0.0; /* mixi_cpu_splu_nd_cost */

void mixi_cpu_splu_nd_cost(double seconds) { nd_cost_s = seconds; }

double mixi_cpu_splu_nd_saving_s(double flops, double gflops)
{
    return ND_SAVING * flops / (MUMPS_EFFICIENCY * gflops * 1e9);
}

/* Whether nested dissection may pay after an AMF analysis predicting `flops` (see ND_SAVING),
 * weighed at the rate of the factorization the ordering is for: prec's, or FP32's for AUTO's
 * FP64 analysis (order_for_fp32), whose large problems, the only ones ND may pay on, take FP32
 * factors.  Weighed at FP64's rate, AUTO tried PORD on 3-D convection-diffusion 40^3 and paid
 * 0.7 s of analysis to save 0.4 s of FP32 factorization (Zen 3, one thread). */
static int nd_may_pay(const mixi_splu *F, mix_prec prec, double flops)
{
    const double analysis_s = nd_cost_s > 0.0 ? nd_cost_s : ND_ANALYSIS_S_PER_NZ * (double)F->nnz;
    if (flops < 1e4 * (double)F->nnz) return 0; /* no realistic rate lets it pay: no calibration */
    double gflops = 0.0;
    if (F->order_for_fp32) prec = MIX_FP32;
    if (mixi_cpu_dense_ops.gemm_rate(NULL, prec, &gflops) || !(gflops > 0.0)) return 0;
    return mixi_cpu_splu_nd_saving_s(flops, gflops) > analysis_s;
}

/* A row or column of A with more entries than this (AMD's dense test, max(16, 10 sqrt(n))) makes
 * the first ordering QAMD, which sets quasi-dense rows aside, instead of AMF, whose time grows
 * with the square of such a row's length: an arrowhead matrix (diagonal n + 1, first row and
 * column ones), one thread, the analysis and FP32 factors: n = 3 10^4 0.06 s, 6 10^4 2.3-3.9 s,
 * 10^5 6.5-8.3 s in mumps_hamf4 (UMFPACK's own analysis as slow); QAMD: 0.08 s at 6 10^4. */
#define ORDER_QAMD 6

static int has_dense_line(const mixi_splu *F)
{
    const int64_t dense = (int64_t)fmax(16.0, 10.0 * sqrt((double)F->n));
    int64_t *cols = mixi_calloc((size_t)F->n + 1, sizeof *cols);
    int found = 0;
    for (int i = 0; i < F->n && !found; i++) found = F->rowptr[i + 1] - F->rowptr[i] > dense;
    for (int64_t k = 0; cols && !found && k < F->nnz; k++) found = ++cols[F->colind[k]] > dense;
    mixi_free(cols);
    return found; /* out of memory: AMF, as before */
}

/* An analysis computing its own ordering: AMF (QAMD where a line is dense), then PORD where it
 * may pay, the one predicting fewer flops kept. */
static void own_order(mixi_splu *F, mix_prec prec, instance I)
{
    const int first = has_dense_line(F) ? ORDER_QAMD : ORDER_AMF;
    I.icntl[6] = first;
    run(F, prec, 1);
    const double amf = estimated_flops(F, prec);
    if (I.infog[0] < 0 || !nd_may_pay(F, prec, amf)) return;
    I.icntl[6] = ORDER_PORD;
    run(F, prec, 1);
    if (I.infog[0] >= 0 && estimated_flops(F, prec) <= amf) return;
    I.icntl[6] = first;
    run(F, prec, 1);
}

/* F->jcn_q: A's columns renumbered as in A Q, where column j of A Q is column q[j] of A (q the
 * other instance's column permutation, 1-based); q kept for the solves. */
static int permuted_columns(mixi_splu *F, const MUMPS_INT *q)
{
    const size_t n = (size_t)F->n, nz = (size_t)(F->nnz > 0 ? F->nnz : 1);
    MUMPS_INT *qinv = mixi_malloc_n(n, sizeof *qinv);
    if (!F->q) F->q = mixi_malloc_n(n, sizeof *F->q);
    if (!F->jcn_q) F->jcn_q = mixi_malloc_n(nz, sizeof *F->jcn_q);
    int ok = qinv && F->q && F->jcn_q;
    for (size_t j = 0; ok && j < n; j++) {
        F->q[j] = q[j];
        qinv[q[j] - 1] = (MUMPS_INT)j + 1;
    }
    for (int64_t k = 0; ok && k < F->nnz; k++) F->jcn_q[k] = qinv[F->jcn[k] - 1];
    mixi_free(qinv);
    return ok ? MIX_SUCCESS : MIX_ERR_ALLOC;
}

/* An analysis taking the other instance's ordering (ICNTL(7) = 1, PERM_IN = its SYM_PERM), so
 * that only the symbolic step is repeated (0.1 s at 40^3 against AMF's 0.08 s and PORD's
 * 0.6 s).  After a maximum transversal (INFOG(23) != 0) that order belongs to A Q, Q the
 * transversal's column permutation: this instance is given A Q itself, with no transversal of
 * its own (given to A, the order cost west0479 30x its FP64 factorization), and its solves
 * return x = Q y. */
static int take_order(mixi_splu *F, mix_prec prec, instance I, instance O)
{
    if (O.infog[22] != 0) {
        if (!*O.uns_perm) {
            own_order(F, prec, I);
            return MIX_SUCCESS;
        }
        int st = permuted_columns(F, *O.uns_perm);
        if (st) return st;
        *I.jcn = F->jcn_q;
        I.icntl[5] = 0;
        *I.colperm = 1;
    }
    I.icntl[6] = ORDER_GIVEN;
    *I.perm_in = *O.sym_perm;
    run(F, prec, 1);
    return MIX_SUCCESS;
}

/* Initialisation and analysis (JOB = 1) of prec's instance, once: the other instance's ordering
 * when it has one (not after FP64's retry without the transversal), its own otherwise.  0 or a
 * status (a structurally singular A is INFOG(1) = -6, left for the factorization to report). */
static int analysis(mixi_splu *F, mix_prec prec)
{
    instance I = instance_of(F, prec), O = instance_of(F, prec == MIX_FP32 ? MIX_FP64 : MIX_FP32);
    if (*I.analyzed) return MIX_SUCCESS;
    int st = init_instance(F, prec);
    if (st) return st;
    int reuse = *O.analyzed && *O.sym_perm && O.infog[0] >= 0 &&
                !(prec == MIX_FP64 && F->d_no_transversal);
    if (reuse) st = take_order(F, prec, I, O);
    else own_order(F, prec, I);
    if (st) return st;
    if (I.infog[0] < 0 && I.infog[0] != -6) return mumps_status(I.infog[0]);
    *I.analyzed = 1;
    if (I.infog[0] >= 0) F->serial = estimated_flops(F, prec) < SERIAL_MAX_FLOPS;
    return MIX_SUCCESS;
}

/* A's values rounded to FP32; 0, or 1 when one does not fit (overflow). */
static int round_values(mixi_splu *F)
{
    if (!F->val32) F->val32 = mixi_malloc_n((size_t)(F->nnz > 0 ? F->nnz : 1), sizeof(float));
    if (!F->val32) return -1;
    for (int64_t k = 0; k < F->nnz; k++) {
        if (ldexp(fabs(F->val64[k]), F->exponent) > FLT_MAX) return 1; /* A's, not the held */
        F->val32[k] = (float)F->val64[k];
    }
    return 0;
}

/* Singular: a zero pivot (INFO(1) = -10, -6), or, FP32 only, a pivot that null pivot detection
 * (ICNTL(24), default threshold) counted as zero (INFOG(28) > 0), so that the FP32 attempt
 * hands a nearly singular matrix to FP64 at once.  FP64 declares only exact zero pivots, as
 * LAPACK's dgetrf: a relative threshold also caught gent113 (bundled, badly scaled, solved to a
 * backward error of 1e-16). */
static mixi_splu_outcome outcome_of(int info1, int null_pivots)
{
    return info1 == -10 || info1 == -6 || null_pivots > 0 ? MIXI_SPLU_SINGULAR : MIXI_SPLU_OK;
}

static int factor_s(mixi_splu *F, mixi_splu_outcome *outcome)
{
    int r = round_values(F);
    if (r < 0) return MIX_ERR_ALLOC;
    if (r > 0) {
        *outcome = MIXI_SPLU_OVERFLOW;
        return MIX_SUCCESS;
    }
    int st = analysis(F, MIX_FP32);
    if (st) return st;
    if (INFOG(F->s, 1) == -6) {
        *outcome = MIXI_SPLU_SINGULAR;
        return MIX_SUCCESS;
    }
    F->s.a = F->val32;
    for (int t = 0;; t++) {
        run_s(&F->s, 2, F->serial);
        if (!memory_short(INFOG(F->s, 1)) || t == MEM_RETRIES) break;
        ICNTL(F->s, 14) = 2 * (ICNTL(F->s, 14) > 0 ? ICNTL(F->s, 14) : 20);
    }
    *outcome = outcome_of(INFOG(F->s, 1), INFOG(F->s, 28));
    if (*outcome == MIXI_SPLU_OK && INFOG(F->s, 1) < 0) return mumps_status(INFOG(F->s, 1));
    F->s_factored = *outcome == MIXI_SPLU_OK;
    return MIX_SUCCESS;
}

static int factor_d_once(mixi_splu *F, mixi_splu_outcome *outcome)
{
    int st = analysis(F, MIX_FP64);
    if (st) return st;
    if (INFOG(F->d, 1) == -6) {
        *outcome = MIXI_SPLU_SINGULAR;
        return MIX_SUCCESS;
    }
    F->d.a = F->val64;
    for (int t = 0;; t++) {
        run_d(&F->d, 2, F->serial);
        if (!memory_short(INFOG(F->d, 1)) || t == MEM_RETRIES) break;
        ICNTL(F->d, 14) = 2 * (ICNTL(F->d, 14) > 0 ? ICNTL(F->d, 14) : 20);
    }
    *outcome = outcome_of(INFOG(F->d, 1), INFOG(F->d, 28));
    if (*outcome == MIXI_SPLU_OK && INFOG(F->d, 1) < 0) return mumps_status(INFOG(F->d, 1));
    F->d_factored = *outcome == MIXI_SPLU_OK;
    return MIX_SUCCESS;
}

/* FP64 factors; a zero pivot after a maximum transversal (its own, INFOG(23) != 0, or the FP32
 * instance's, given as A Q) gets a second analysis without it before A is called singular: MUMPS's transversal and scaling (ICNTL(6)
 * = 7's choice, 5) left gent113 (bundled, badly scaled; UMFPACK and LAPACK solve it to 1e-16)
 * with a zero pivot, and without the transversal it factors. */
static int factor_d(mixi_splu *F, mixi_splu_outcome *outcome)
{
    int st = factor_d_once(F, outcome);
    if (st || *outcome != MIXI_SPLU_SINGULAR || F->d_no_transversal ||
        (INFOG(F->d, 23) == 0 && !F->d_colperm))
        return st;
    run_d(&F->d, -2, F->serial);
    F->d_up = F->d_analyzed = F->d_colperm = 0;
    F->d_no_transversal = 1;
    return factor_d_once(F, outcome);
}

#ifdef HAVE_KLU
/* Where the FP64 analysis predicts at most this many flops per factor entry (little fill),
 * KLU's left-looking LU, with its own ordering, factors and solves faster than MUMPS's
 * multifrontal one, whose per-front overhead dominates there.  Measured on one thread, after
 * MUMPS's analysis (a large A): KLU's analysis, factors and one solve against MUMPS's factors
 * and one solve, faster on every bundled general matrix up to 43 flops per entry (1.8-19x;
 * add32 2.4 ms against 15.8 ms), slower on cage8 (136), dw8192 (90) and convection-diffusion
 * 10^3 (70).  After KLU's own analysis (a small A; its estimate per entry): KLU's factors and
 * solve against MUMPS's analysis, factors and solve, 1.2x at 10^3 (71) and 1.7x on sherman5
 * (76), even on dw8192 (87), 0.85x at 12^3 (111), 0.7x on cage8 (134). */
#define KLU_MAX_FLOPS_PER_ENTRY 50.0
#define KLU_MAX_FLOPS_PER_ENTRY_ANALYSED 80.0

/* FP64 factors by KLU where the analysis predicts they pay: KLU's own (small A), else MUMPS's
 * FP64 one, KLU's analysis made then.  F->klu unfactored (MUMPS factors) where they do not pay,
 * or where KLU could not factor A: MUMPS's verdict on a singular A stands. */
static int factor_klu(mixi_splu *F, mixi_splu_outcome *outcome)
{
    double flops = 0.0, entries = 0.0, bytes;
    int st = MIX_SUCCESS, srank;
    double most = KLU_MAX_FLOPS_PER_ENTRY_ANALYSED;
    if (!klu_wanted) return MIX_SUCCESS;
    if (F->klu) {
        mixi_klu_estimate(F->klu, &flops, &entries, &bytes);
    } else {
        if ((st = analysis(F, MIX_FP64)) || INFOG(F->d, 1) < 0) return st;
        flops = estimated_flops(F, MIX_FP64);
        entries = mumps_count(INFOG(F->d, 20));
        most = KLU_MAX_FLOPS_PER_ENTRY;
    }
    if (!(entries > 0.0) || !(flops <= most * entries)) return MIX_SUCCESS;
    if (!F->klu && ((st = mixi_klu_analyze(F->n, F->rowptr, F->colind, &F->klu, &srank)) ||
                    !F->klu))
        return st;
    if (mixi_klu_factor(F->klu, F->val)) *outcome = MIXI_SPLU_OK;
    return MIX_SUCCESS;
}
#endif

static int cpu_splu_factor(void *state, mixi_splu *F, mix_prec prec, mixi_splu_outcome *outcome)
{
    (void)state;
    *outcome = MIXI_SPLU_OK;
    if (prec == MIX_FP32) return factor_s(F, outcome);
    if (prec != MIX_FP64) return MIX_ERR_UNSUPPORTED;
#ifdef HAVE_KLU
    int st = factor_klu(F, outcome);
    if (st || klu_factored(F)) return st;
#endif
    return factor_d(F, outcome);
}

/* Column r (n entries) times 2^-e into w, FP32, where 2^e brings its largest magnitude near
 * 2^half_exp, the square root of ||A||'s (e = 0 for a zero column or one holding Inf; NaN and
 * Inf reach w, for the refinement to see); returns e.  The solution then lies near
 * 2^-half_exp: both well inside FP32's range.  Unscaled, a residual below about 1e-38 (b of
 * 1e-25, or A of 1e30 with b of 1) was flushed to zero and one above FLT_MAX (b of 1e40) became
 * Inf: the refinement stalled or met NaN and fell back to FP64 where the FP32 factors solve
 * (mix_dgesv_ir's correction solve scales each column too). */
static int round_column(size_t n, const double *r, int half_exp, float *w)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(r[i]) > m) m = fabs(r[i]); /* a NaN entry stays NaN in w */
    int e = 0;
    if (m > 0.0 && isfinite(m)) e = ilogb(m) - half_exp;
    for (size_t i = 0; i < n; i++) w[i] = (float)ldexp(r[i], -e);
    return e;
}

/* FP32 solve of one block: r rounded column by column (round_column) into a float block,
 * solved, widened into c and scaled back. */
static int solve_s(mixi_splu *F, int k, const double *r, int ldr, double *c, int ldc)
{
    const size_t n = (size_t)F->n;
    float *w = mixi_malloc_n(n * (size_t)k, sizeof(float));
    int *e = mixi_malloc_n((size_t)k, sizeof(int));
    if (!w || !e) {
        mixi_free(w);
        mixi_free(e);
        return MIX_ERR_ALLOC;
    }
    for (int j = 0; j < k; j++)
        e[j] = round_column(n, r + (size_t)j * ldr, F->half_exp, w + (size_t)j * n);
    F->s.rhs = w;
    F->s.nrhs = k;
    F->s.lrhs = F->n;
    run_s(&F->s, 3, F->serial);
    int st = mumps_status(INFOG(F->s, 1));
    for (int j = 0; !st && j < k; j++)
        for (size_t i = 0; i < n; i++)
            c[(size_t)j * ldc + (F->s_colperm ? (size_t)F->q[i] - 1 : i)] =
                ldexp(w[(size_t)j * n + i], e[j]);
    mixi_free(w);
    mixi_free(e);
    return st;
}

static int solve_d(mixi_splu *F, int k, const double *r, int ldr, double *c, int ldc)
{
    for (int j = 0; j < k && c != r; j++)
        memmove(c + (size_t)j * ldc, r + (size_t)j * ldr, (size_t)F->n * sizeof(double));
#ifdef HAVE_KLU
    if (klu_factored(F)) return mixi_klu_solve(F->klu, k, c, ldc);
#endif
    F->d.rhs = c;
    F->d.nrhs = k;
    F->d.lrhs = ldc;
    run_d(&F->d, 3, F->serial);
    int st = mumps_status(INFOG(F->d, 1));
    if (st || !F->d_colperm) return st;
    double *y = mixi_malloc_n((size_t)F->n, sizeof *y); /* A Q y = r: x = Q y */
    if (!y) return MIX_ERR_ALLOC;
    for (int j = 0; j < k; j++) {
        double *cj = c + (size_t)j * ldc;
        memcpy(y, cj, (size_t)F->n * sizeof *y);
        for (int i = 0; i < F->n; i++) cj[F->q[i] - 1] = y[i];
    }
    mixi_free(y);
    return MIX_SUCCESS;
}

static int cpu_splu_solve(void *state, mixi_splu *F, mix_prec prec, int k, const double *r,
                          int ldr, double *c, int ldc)
{
    (void)state;
    if (k <= 0) return MIX_SUCCESS;
    if (prec == MIX_FP32 && F->s_factored) return solve_s(F, k, r, ldr, c, ldc);
    if (prec == MIX_FP64 && (F->d_factored || klu_factored(F)))
        return solve_d(F, k, r, ldr, c, ldc);
    return MIX_ERR_INVALID_ARG;
}

static int cpu_splu_apply(void *state, const mixi_splu *F, int k, double alpha, const double *x,
                          int ldx, double beta, double *y, int ldy)
{
    (void)state;
    for (int j = 0; j < k; j++) {
        const double *xj = x + (size_t)j * ldx;
        double *yj = y + (size_t)j * ldy;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (F->nnz > 100000)
#endif
        for (int i = 0; i < F->n; i++) {
            double s = 0.0;
            for (int64_t t = F->rowptr[i]; t < F->rowptr[i + 1]; t++)
                s += F->val[t] * xj[F->colind[t]];
            yj[i] = beta == 0.0 ? alpha * s : alpha * s + beta * yj[i];
        }
    }
    return MIX_SUCCESS;
}

static int cpu_splu_estimate(void *state, mixi_splu *F, mix_prec prec, mixi_splu_estimate *e)
{
    (void)state;
    *e = (mixi_splu_estimate){0};
    if (prec == MIX_PREC_AUTO) {
        F->order_for_fp32 = 1;
        prec = MIX_FP64;
    }
    if (prec != MIX_FP32 && prec != MIX_FP64) return MIX_ERR_UNSUPPORTED;
    if (prec == MIX_FP32) {
        int r = round_values(F);
        if (r < 0) return MIX_ERR_ALLOC;
        if (r > 0) return MIX_SUCCESS; /* FP32 cannot hold A: nothing to estimate */
    }
#ifdef HAVE_KLU
    if (prec == MIX_FP64 && F->klu && !F->d_analyzed) { /* KLU's analysis (analyze) */
        mixi_klu_estimate(F->klu, &e->flops, &e->entries, &e->bytes);
        e->ordering = 0; /* AMD, MUMPS's code for it */
        return MIX_SUCCESS;
    }
#endif
    int st = analysis(F, prec);
    instance I = instance_of(F, prec);
    if (st || I.infog[0] < 0) return st;
    e->flops = estimated_flops(F, prec);
    e->entries = mumps_count(I.infog[19]);  /* INFOG(20) */
    e->bytes = 1e6 * (double)I.infog[16]; /* INFOG(17): MB, in core, all processes */
    e->ordering = I.infog[6];               /* INFOG(7) */
    e->column_permuted = I.infog[22] != 0 || *I.colperm;
    return MIX_SUCCESS;
}

/* Factor storage after the factorization: INFOG(29) entries of the precision's size, plus the
 * integers of the factors' structure (INFOG(10), in MUMPS_INT); peak: INFOG(22), megabytes of
 * everything MUMPS held during the factorization. */
static int cpu_splu_factor_bytes(void *state, const mixi_splu *F, mix_prec prec, int64_t *factors,
                                 int64_t *peak)
{
    (void)state;
    *factors = *peak = 0;
#ifdef HAVE_KLU
    if (prec == MIX_FP64 && klu_factored(F)) {
        mixi_klu_bytes(F->klu, factors, peak);
        return MIX_SUCCESS;
    }
#endif
    const MUMPS_INT *infog = prec == MIX_FP32 ? F->s.infog : F->d.infog;
    int ok = prec == MIX_FP32 ? F->s_factored : F->d_factored;
    if (!ok) return MIX_SUCCESS;
    int64_t entries = infog[28], ints = infog[9];
    /* MUMPS gives sizes over 2^31 as negative millions. */
    if (entries < 0) entries = -entries * 1000000;
    if (ints < 0) ints = -ints * 1000000;
    *factors = entries * (prec == MIX_FP32 ? 4 : 8) + ints * (int64_t)sizeof(MUMPS_INT);
    /* INFOG(22) counts whole megabytes (0 below one): never less than the factors it held. */
    *peak = (int64_t)infog[21] * 1000000;
    if (*peak < *factors) *peak = *factors;
    return MIX_SUCCESS;
}

const mixi_sparse_lu_ops mixi_cpu_sparse_lu_ops = {
    .analyze = cpu_splu_analyze,
    .estimate = cpu_splu_estimate,
    .factor = cpu_splu_factor,
    .solve = cpu_splu_solve,
    .apply = cpu_splu_apply,
    .factor_bytes = cpu_splu_factor_bytes,
    .destroy = cpu_splu_destroy,
#ifdef HAVE_KLU
    .library = "MUMPS " MUMPS_VERSION " (sequential), KLU",
#else
    .library = "MUMPS " MUMPS_VERSION " (sequential)",
#endif
};
