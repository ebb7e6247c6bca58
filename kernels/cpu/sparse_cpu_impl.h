/* sparse_cpu_impl.h: what the CPU sparse files share: the matrix object (sparse_cpu.c makes it),
 * the kernel table of one storage format and the helpers of the kernel template sparse_cpu_t.h,
 * whose instances are one file per ISA: sparse_portable.c, sparse_avx2.c (with the AVX-512 SELL
 * slices of sparse_avx512.c).  Never installed; kernels/cpu only. */
#ifndef MIX_SPARSE_CPU_IMPL_H
#define MIX_SPARSE_CPU_IMPL_H

#include <math.h>
#include <string.h> /* the template's memcpy */
#include "lib/core/core.h"
#include "kernels/backend_sparse.h"
#include "kernels/common/spmv_row.h"
#include "kernels/cpu/cpu_features.h"
#include "lib/core/det_sum.h"
#include "kernels/cpu/spmv_tune.h"

#define BLK MIXK_SVEC_BLOCK
/* Block bodies are inlined once per trip count (full block / last block) so that the full ones
 * get constant-length, vectorised loops. */
#if defined(__GNUC__)
#define MIXI_INLINE inline __attribute__((always_inline))
#else
#define MIXI_INLINE inline
#endif
#define PAR_MIN 4096 /* below this many rows a parallel region costs more than it saves */
/* The products after which a matrix's streamed arrays move to huge pages (sparse_cpu.c). */
#define MIXI_HUGE_PAGE_PASSES 384
_Static_assert(BLK == 32, "the AVX2 FIXED16 block store (sparse_avx2.c) encodes 32 values");
_Static_assert(MIXK_SELL_C == MIXK_SVEC_BLOCK, "a SELL slice is a block of the kernels");

struct mixi_spmat {
    mix_prec prec;
    int n;
    int64_t nnz;
    int64_t *rowptr;  /* FP64: plain CSR */
    int32_t *colind;
    int owns_pattern; /* converted FP64 copies share the FP64 copy's pattern */
    int borrowed;     /* csr_borrow_host: rowptr, colind and val are the caller's */
    void *val;        /* FP64 values, or the SELL slots' values */
    mixk_sell sell;   /* every other format: the SELL-32 layout (kernels/common/sell.h) ... */
    int64_t *slice, *eslice, *erp; /* ... whose arrays this matrix owns */
    int16_t *col;
    int32_t *ecol;
    void *eval, *diag;
    uint8_t *rexp;    /* FIXED16: the exponent byte of each row's step */
    uint8_t *smask;   /* contiguous slots (kernels/common/sell.h) */
    int16_t *soff;
    int32_t *shift;   /* per-slice column shifts, or NULL (csr_convert_rect) */
    int64_t slot_rows, contig_rows; /* slot rows, and those contiguous over all 32 rows */
    mixi_spmv_tuner *tune; /* its SpMV variant (kernels/cpu/spmv_tune.h); the matrix is const to its users */
    int64_t bytes;    /* what one SpMV reads of the matrix */
    float *xf;        /* 16-bit formats: x decoded once per SpMV (one SpMV at a time) */
    double *tacc;     /* the transposed product's per-thread accumulators (spmv_t_cpu.c) */
    int64_t tacc_len;
    int64_t passes;   /* products so far (sparse_cpu.c: the move to huge pages) */
};

typedef struct {
    void (*spmv)(const mixi_spmat *A, const mixi_svec *x, mixi_svec *y, double *xy, int var);
    /* y = a A x + b z (the backend's spmv_axpby), vectors in the accumulator precision. */
    void (*spmv_axpby)(const mixi_spmat *A, const mixi_svec *x, double a, const mixi_svec *z,
                       double b, mixi_svec *y, int var);
    void (*cg_update)(double alpha, const mixi_svec *p, const mixi_svec *ap, mixi_svec *x,
                      mixi_svec *r, double *rr, double *rd);
    void (*axpby)(double a, const mixi_svec *x, double b, mixi_svec *y);
    void (*cheb)(double a, const mixi_svec *r, double b, mixi_svec *d, double c, mixi_svec *x);
    double (*dot)(const mixi_svec *x, const mixi_svec *y);
    double (*from64)(const double *x, const double *scale, double alpha, mixi_svec *v);
    void (*accum64)(const mixi_svec *v, const double *scale, double alpha, double *y);
} cpu_svec_kernels;

/* FP64 CSR row i's values and column indices MIXI_SPMV_CSR_PF_BYTES(pfd) ahead into L1: the
 * hardware prefetchers stop at 4 KiB page boundaries, and a row of a stencil is ~0.1 KiB.
 * Addresses past the arrays' ends do not fault (computed as integers: no out-of-bounds pointer
 * arithmetic). */
static MIXI_INLINE void csr_prefetch(const mixi_spmat *A, int64_t i, int pfd)
{
#if defined(__GNUC__)
    const uintptr_t k = (uintptr_t)A->rowptr[i], ahead = (uintptr_t)MIXI_SPMV_CSR_PF_BYTES(pfd);
    __builtin_prefetch((const void *)((uintptr_t)A->val + k * sizeof(double) + ahead));
    __builtin_prefetch((const void *)((uintptr_t)A->colind + k * sizeof *A->colind + ahead));
#else
    (void)A, (void)i, (void)pfd;
#endif
}

/* Token helpers of the template (kernels/cpu/sparse_cpu_t.h): pasting after expansion, and
 * MIXI_WHEN_SAME(a, b, code): `code` when the accumulators a and b are the same precision. */
#define MIXI_CAT_(a, b) a##b
#define MIXI_CAT(a, b) MIXI_CAT_(a, b)
#define MIXI_CAT3_(a, b, c) a##b##c
#define MIXI_CAT3(a, b, c) MIXI_CAT3_(a, b, c)
#define MIXI_CAT4_(a, b, c, d) a##b##c##d
#define MIXI_CAT4(a, b, c, d) MIXI_CAT4_(a, b, c, d)
#define MIXI_WHEN_SAME_(a, b, ...) MIXI_WHEN_##a##_##b(__VA_ARGS__)
#define MIXI_WHEN_SAME(a, b, ...) MIXI_WHEN_SAME_(a, b, __VA_ARGS__)
#define MIXI_WHEN_MIX_FP64_MIX_FP64(...) __VA_ARGS__
#define MIXI_WHEN_MIX_FP32_MIX_FP32(...) __VA_ARGS__
#define MIXI_WHEN_MIX_FP64_MIX_FP32(...)
#define MIXI_WHEN_MIX_FP32_MIX_FP64(...)

/* Kernel table entry of each storage format of prec_traits.h for one ISA. */
#define MIXI_TABLE_ENTRY(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) \
    [PP] = &MIXI_CAT3(ISA, _##SFX, _kernels),

/* The x86 ISA instances (run-time chosen): GCC and clang, whose target attributes they use. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define MIX_SPARSE_AVX2 1
#endif

/* y = A^T x (kernels/backend_sparse.h's spmv_t; spmv_t_cpu.c). */
int mixi_cpu_spmv_t(void *state, const mixi_spmat *A, const mixi_svec *x, mixi_svec *y);

/* The kernel tables per storage format: the portable C bodies, and the AVX2 + F16C ones. */
extern const cpu_svec_kernels *const mixi_cpu_portable_kernels[MIX_NUM_PREC];
#ifdef MIX_SPARSE_AVX2
extern const cpu_svec_kernels *const mixi_cpu_avx2_kernels[MIX_NUM_PREC];
#endif

#endif
