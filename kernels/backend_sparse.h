/* backend_sparse.h: the sparse family of the operations table (reliable-update CG needs only these). */
#ifndef MIX_BACKEND_SPARSE_H
#define MIX_BACKEND_SPARSE_H

#include <stdint.h>
#include "kernels/backend.h"
#include "kernels/common/prec_traits.h"

/* A sparse matrix in backend memory, in one storage precision; opaque to solvers.  Each backend
 * defines struct mixi_spmat in its own files (struct tags have no linkage).  Layout:
 *   MIX_FP64: plain CSR, int64_t row pointers, int32_t column indices, double values (the
 *             matrix of the true residuals, and its Jacobi-scaled twin for FP64 storage).
 *   every other storage precision: SELL-32 (kernels/common/sell.h): the diagonal apart (one
 *             value per row, 0 when the row has none); the off-diagonal entries of each slice of
 *             32 rows column-major in w slots per row (w the slice's longest row, padded with
 *             zeros), int16_t column offsets j - i beside the values, one int64_t first slot per
 *             slice; a slice with an entry farther than int16 from its diagonal, or whose padding
 *             would more than double it, keeps its rows in a plain CSR escape part (int32_t
 *             columns), so that every valid CSR converts exactly (csr_convert_rect: with a
 *             column shift per slice, so that far slices stay out of it, and no diagonal
 *             apart).  Values: MIX_FP32 float;
 *             MIX_FP16 / MIX_BF16 uint16_t bit patterns; MIX_FIXED16 int16_t q on a step per
 *             row, a_ij = q c 2^(E_i - 127) with c in [1, 2) one float per matrix (the mantissa
 *             of the largest |a_ij|, i != j, so that rows of equal magnitudes are held exactly)
 *             and the byte E_i the smallest with max_{j!=i} |a_ij| <= 32767 c 2^(E_i - 127),
 *             and the diagonal as a float.  A row scale
 *             taken over the diagonal too would round the off-diagonal entries of a diagonally
 *             dominant row coarsely (3D Poisson: 722 CG iterations, 573 so).
 *   3D Poisson 150^3 (6.96 nonzeros per row): FIXED16 4.2 bytes per nonzero, FP16/BF16 3.8, FP32
 *   5.8, against 8.3, 7.15, 9.15 in CSR (bench/bench_cg prints them: csr_bytes).
 * Rows are sorted without duplicates. */
typedef struct mixi_spmat mixi_spmat;

/* A "sloppy" vector: n values in backend memory in one storage precision (MIX_FP64, MIX_FP32,
 * MIX_FP16, MIX_BF16 or MIX_FIXED16, element types as for mixi_spmat).  FIXED16: v_i =
 * q_i * norm[i / MIXK_SVEC_BLOCK] / 32767 with norm = max |v| of the block (q rounded to
 * nearest, ties to even; norm 0 means the block is zero).  The struct itself lives on the host;
 * val and norm point into backend memory and are allocated by the caller (mixi_svec_bytes). */
typedef struct {
    mix_prec prec;
    int n;
    void *val;   /* n elements */
    float *norm; /* FIXED16: ceil(n / MIXK_SVEC_BLOCK) block norms; NULL otherwise */
} mixi_svec;

/* Smoothed aggregation's tentative prolongator T of n rows and nc columns (multigrid,
 * solvers/amg), one entry a row, held both ways: by aggregates, column a's rows are rows[k] for
 * k in start[a] .. start[a + 1] - 1, ascending, with the values val[k] (the rows in no
 * aggregate follow as a group nc, k from start[nc] to start[nc + 1] = n, values 0), for the
 * restriction's gathers; by rows, row i's aggregate agg[i] (nc: none) and value row_val[i], for
 * the prolongation's stream.  Backend memory; values in prec, FP32 or FP64 (the V-cycle's
 * vectors). */
typedef struct {
    int n, nc;
    mix_prec prec;
    int32_t *start; /* nc + 2 */
    int32_t *rows;  /* n */
    void *val;      /* n, by aggregates */
    int32_t *agg;   /* n */
    void *row_val;  /* n, by rows */
} mixi_tent;

/* Bytes to allocate for the value and norm arrays of an n-vector in `prec`; 0 = MIX_SUCCESS, or
 * MIX_ERR_INVALID_ARG for a precision that is no storage precision. */
static inline int mixi_svec_bytes(mix_prec prec, int n, size_t *val_bytes, size_t *norm_bytes)
{
    if (!mixk_prec_storage(prec)) return MIX_ERR_INVALID_ARG;
    const size_t el = (size_t)mixk_prec_bytes(prec);
    /* 16 bytes of padding: vector loops may load (never use, never store) past the end. */
    *val_bytes = (size_t)n * el + 16;
    *norm_bytes = mixk_prec_block_scaled(prec)
                      ? ((size_t)n + MIXK_SVEC_BLOCK - 1) / MIXK_SVEC_BLOCK * sizeof(float) : 0;
    return MIX_SUCCESS;
}

/* Every operation returns 0 or a MIX_ERR_* status.  Scalars come back to the host through the
 * double* arguments (host memory); every other pointer is backend memory, except where "host"
 * is said.  Sloppy arithmetic is FP32 (FP64 when the storage is FP64, so that FP64 storage is
 * plain FP64 CG); every reduction (dot, norm) is accumulated in FP64.
 * Vectors passed to one operation have the same n; sloppy vectors passed to one operation have
 * the same precision.  A "scale" argument is an FP64 n-vector in backend memory or NULL (= all
 * ones).  NaN/Inf propagate into the returned scalars; the caller checks them. */
struct mixi_sparse_ops {
    /* Matrices.  FP64 matrix from host CSR arrays (validated, rows sorted, no duplicates). */
    int (*csr_create)(void *state, int n, const int64_t *rowptr, const int32_t *colind,
                      const double *val, mixi_spmat **A);
    /* csr_create over the caller's host arrays without copying them (read only, valid while
     * the matrix lives; destroy frees none of them); NULL where backend memory is not the
     * host's (then csr_create's copy). */
    int (*csr_borrow_host)(void *state, int n, const int64_t *rowptr, const int32_t *colind,
                           const double *val, mixi_spmat **A);
    /* As = diag(scale) A64 diag(scale) stored in `prec` (any storage precision, FP64 included);
     * MIX_ERR_OVERFLOW if a value does not fit FP16 (values rounding to zero are allowed).
     * As may share A64's pattern arrays: destroy As before A64. */
    int (*csr_convert)(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                       mixi_spmat **As);
    /* FIXED16 for a matrix split by columns (a distributed matrix's local and off-process
     * blocks, lib/core/comm.h), so that the blocks hold the whole matrix's bits.  row_offmax:
     * rowmax[i] = max_{j != i} |(diag(scale) A64 diag(scale))_ij| (backend memory, n values;
     * NaN if one is NaN), what a FIXED16 row's step is taken from.  convert_rows: csr_convert,
     * but FIXED16 rows take their steps from rowmax[i] (the whole row's, >= this block's own)
     * and the steps' mantissa from gmax (the whole matrix's largest off-diagonal magnitude, or
     * HUGE_VAL for a NaN) instead of this block's; other storages ignore both. */
    int (*csr_row_offmax)(void *state, const mixi_spmat *A64, const double *scale, double *rowmax);
    int (*csr_convert_rows)(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                            const double *rowmax, double gmax, mixi_spmat **As);
    /* csr_convert for a rectangular matrix held square (multigrid's prolongator: row i's
     * columns near i nc / n, j = i nothing special): SELL's layout for it (kernels/common/sell.h):
     * slices whose entries lie beyond int16 of their rows take a column shift and leave the CSR
     * escape where the entries fit int16 around it, and no diagonal is stored apart (j = i is an
     * entry like the others; a row's sum is rounded once, in column order).  FP64: csr_convert's
     * CSR.  NULL where a backend has none (the caller converts with csr_convert). */
    int (*csr_convert_rect)(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                            mixi_spmat **As);
    void (*csr_destroy)(void *state, mixi_spmat *A); /* NULL allowed */
    /* The FP64 matrix's CSR arrays copied to host arrays of n + 1, nnz and nnz entries (the
     * multigrid set-up of solvers/amg reads the matrix there); *nnz alone when rowptr is NULL.
     * NULL where a backend has none (multigrid is then MIX_ERR_UNSUPPORTED). */
    int (*csr_export)(void *state, const mixi_spmat *A64, int64_t *nnz, int64_t *rowptr,
                      int32_t *colind, double *val);
    /* The FP64 matrix's own CSR arrays where they are host memory (read-only, valid while A64
     * lives), so that the multigrid set-up reads them without csr_export's copy (3-D Poisson
     * 100^3: 0.8 s of a 2.7 s set-up on a loaded machine, fresh pages); NULL where a backend's
     * memory is not the host's. */
    int (*csr_host_view)(void *state, const mixi_spmat *A64, const int64_t **rowptr,
                         const int32_t **colind, const double **val);
    /* Bytes one SpMV reads of A: values and index arrays (the byte model of bench/bench_cg). */
    int (*csr_bytes)(void *state, const mixi_spmat *A, int64_t *bytes);
    /* Jacobi: scale_i = 1/sqrt(a_ii) from the FP64 matrix; MIX_ERR_NOT_SPD if some a_ii <= 0
     * or is missing from the pattern. */
    int (*diag_rsqrt)(void *state, const mixi_spmat *A64, double *scale);

    /* FP64 (true residual, accumulated solution). */
    /* r = b - A x and *rr = ||r||_2^2 in one pass (FP64 matrix). */
    int (*residual64)(void *state, const mixi_spmat *A64, const double *b, const double *x,
                      double *r, double *rr);
    int (*nrm2sq64)(void *state, int n, const double *x, double *xx); /* *xx = ||x||_2^2 */

    /* Between FP64 and sloppy storage.  v = round_to_storage(alpha * scale .* x);
     * *vv = ||alpha * scale .* x||_2^2 (of the FP64 values, before rounding; vv may be NULL). */
    int (*vec_from64)(void *state, const double *x, const double *scale, double alpha,
                      mixi_svec *v, double *vv);
    /* y += alpha * scale .* v, in FP64 (the reliable update's y += x_sloppy). */
    int (*vec_accum64)(void *state, const mixi_svec *v, const double *scale, double alpha,
                       double *y);
    int (*vec_zero)(void *state, mixi_svec *v); /* v = 0 (values and, for FIXED16, norms) */

    /* Sloppy loop.  y = As x, each row's sum accumulated in FP64 from the stored values (the
     * products of FP32 or narrower operands are exact there) and rounded once into y's storage;
     * *xy = <x, A x> (p.Ap of CG, from the unrounded products before y is rounded).  x and y
     * have the precision As was converted to, or, where spmv_acc_vectors is set, both its
     * accumulator mixk_prec_acc (FP32 vectors over a 16-bit matrix); MIX_ERR_UNSUPPORTED
     * otherwise.  Without the FP64 row sums, the cancellation in A p for a smooth p (6 p_i -
     * sum of 6 neighbours on 3D Poisson) left FP32 CG 28% above FP64 CG's iterations. */
    int (*spmv)(void *state, const mixi_spmat *As, const mixi_svec *x, mixi_svec *y, double *xy);
    /* y = As^T x over As's first y->n columns (As has no entry in a column >= y->n: multigrid's
     * restriction by the fine level's prolongator it holds square, solvers/amg, no R stored);
     * x has As's n values, x and y the precisions spmv takes; each sum of y accumulated in FP64
     * from the stored values and rounded once.  CPU: FP64 accumulators of y->n for fixed
     * chunks of rows, added in chunk order (the same bits on any number of threads); CUDA:
     * FP64 atomics (the order of a sum, so its last bit, may vary from run to run).  NULL where
     * a backend has none. */
    int (*spmv_t)(void *state, const mixi_spmat *As, const mixi_svec *x, mixi_svec *y);
    /* The transfers of a tentative prolongator T (multigrid with P = (I - w A) T, solvers/amg:
     * no P stored; P^T r = T^T (r - w A r)).  tent_restrict: y = T^T x (y of nc values), each
     * sum over a column's rows in order, in FP64, rounded once.  tent_prolong: u = T y (n
     * values, each product rounded once into u's precision), then, where x is not NULL,
     * x += u (axpby(1, u, 1, x)'s bits) in the same pass.  Vectors in T's precision
     * (MIX_ERR_UNSUPPORTED otherwise); NULL where a backend has none (multigrid then stores P). */
    int (*tent_restrict)(void *state, const mixi_tent *T, const mixi_svec *x, mixi_svec *y);
    int (*tent_prolong)(void *state, const mixi_tent *T, const mixi_svec *y, mixi_svec *u,
                        mixi_svec *x);
    /* y = a (As x) + b z, the product rounded as spmv rounds it and the sum as axpby's: the
     * bits of spmv into a scratch t then axpby(a, t, b, z) into y, without t's write and read
     * (multigrid's smoother and transfers: r -= A d, t = b - A x, x += P xc, r - w A r).  z may
     * be y or x (both only read); x is not y (other rows read x while y is written).  All
     * vectors in spmv's accumulator precision (spmv_acc_vectors) or FP64 over FP64;
     * MIX_ERR_UNSUPPORTED otherwise, and NULL where a backend has none: the caller then takes
     * spmv and axpby. */
    int (*spmv_axpby)(void *state, const mixi_spmat *As, const mixi_svec *x, double a,
                      const mixi_svec *z, double b, mixi_svec *y);
    /* The fused CG step, one pass: x += alpha p; r -= alpha Ap; *rr = ||r_new||^2 and
     * *rr_dot_old = <r_new, r_old> (Polak-Ribiere numerator is *rr - *rr_dot_old).  x (the
     * partial solution) has p's precision or p's accumulator, mixk_prec_acc(p) (FP32 for the
     * 16-bit formats): a 16-bit accumulator loses what small steps add to it, and CG then needs
     * more iterations. */
    int (*cg_update)(void *state, double alpha, const mixi_svec *p, const mixi_svec *Ap,
                     mixi_svec *x, mixi_svec *r, double *rr, double *rr_dot_old);
    /* y = a x + b y (p = r + beta p; re-projection; rescaling). */
    int (*axpby)(void *state, double a, const mixi_svec *x, double b, mixi_svec *y);
    int (*dot)(void *state, const mixi_svec *x, const mixi_svec *y, double *xy); /* <x, y> */
    /* d = a r + b d, then x = d + c x: a Chebyshev smoothing step's updates, the bits of
     * axpby(a, r, b, d) then axpby(1, d, c, x) in one pass (d read once).  r, d, x distinct and
     * of one precision; NULL where a backend has none (the caller then takes axpby twice). */
    int (*cheb_update)(void *state, double a, const mixi_svec *r, double b, mixi_svec *d, double c,
                       mixi_svec *x);
    /* The same step in two fused passes (kernels/cpu/vec_cpu.c; NULL where a backend has none,
     * and MIX_ERR_UNSUPPORTED unless all vectors are FP32 or all FP64: the solver then takes
     * cg_update and axpby, which give the same bits).  cg_rupdate: r -= alpha Ap with *rr and
     * *rr_dot_old as cg_update's; cg_xpupdate, once beta is known: x += alpha p, then
     * p = r + beta p, in one pass that reads p once (5 vector reads per step instead of 6). */
    int (*cg_rupdate)(void *state, double alpha, const mixi_svec *Ap, mixi_svec *r, double *rr,
                      double *rr_dot_old);
    int (*cg_xpupdate)(void *state, double alpha, double beta, mixi_svec *p, const mixi_svec *r,
                       mixi_svec *x);

    /* Capabilities.  1: spmv takes x and y in the accumulator precision of a 16-bit matrix. */
    int spmv_acc_vectors;

    /* SpMV tuner (kernels/cpu/spmv_tune.h; NULL where a backend has none).  spmv_rate: the
     * effective bytes/s (matrix + x + y over the chosen body's best time) of the last matrix
     * this process's tuners timed in `storage`, 0 if none yet (CG AUTO measures its own: spmv_best).  spmv_variant: the body chosen
     * for As ("tuning" while its first SpMVs time the candidates). */
    double (*spmv_rate)(mix_prec storage);
    const char *(*spmv_variant)(void *state, const mixi_spmat *As);
    /* *seconds = the fastest of `rounds` SpMVs y = As x of each body the tuner would try on As
     * (its chosen one once fixed), after one untimed warm-up; the tuner's own state untouched.
     * What CG AUTO weighs a storage by (solvers/cg/cg_rates.c): the first SpMVs of a fresh copy
     * run the default body, up to 20% slower than the tuned one (doc/benchmarks.md).  NULL: the
     * caller times spmv itself. */
    int (*spmv_best)(void *state, const mixi_spmat *As, const mixi_svec *x, mixi_svec *y, int rounds,
                     double *seconds);
};

#endif
