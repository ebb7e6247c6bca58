/* sparse_cpu.c: the CPU backend's sparse operations: the matrix object, CSR copies and conversion,
 * the kernels of an ISA chosen at run time (sparse_portable.c, sparse_avx2.c), the operations table. */
#include <math.h>
#include <string.h>
#include "lib/core/clock.h"
#include "kernels/common/sell_plan.h"
#include "kernels/cpu/cpu_mem.h"
#include "kernels/cpu/tent_cpu.h"
#include "kernels/cpu/sparse_cpu_impl.h"
#include "kernels/cpu/sparse_cpu.h"
#include "kernels/cpu/vec_cpu.h"

const mixk_sell *mixi_cpu_spmat_sell(const mixi_spmat *A)
{
    return A && mixk_sell_used(A->prec) ? &A->sell : NULL;
}

int mixi_cpu_spmat_csr(const mixi_spmat *A, int *n, const int64_t **rowptr,
                       const int32_t **colind, const double **val)
{
    if (!A || A->prec != MIX_FP64) return MIX_ERR_INVALID_ARG;
    *n = A->n;
    *rowptr = A->rowptr;
    *colind = A->colind;
    *val = A->val;
    return MIX_SUCCESS;
}

static const cpu_svec_kernels *kernels_for(mix_prec p)
{
    if (!mixk_prec_storage(p)) return NULL;
#ifdef MIX_SPARSE_AVX2
    /* Asked each time (probed once per process under pthread_once): a lazily filled static
     * here was a data race between threads solving at once (ThreadSanitizer, tests/threads). */
    if (mixi_cpu_has_f16c() && !mixi_cpu_sparse_portable_forced()) return mixi_cpu_avx2_kernels[p];
#endif
    return mixi_cpu_portable_kernels[p];
}

static void tuner_init(mixi_spmv_tuner *T, mix_prec prec)
{
#ifdef MIX_SPARSE_AVX2
    const int avx2 = mixi_cpu_has_f16c() && !mixi_cpu_sparse_portable_forced();
    mixi_spmv_tuner_init(T, prec, avx2, avx2 && mixi_cpu_has_avx512f());
#else
    mixi_spmv_tuner_init(T, prec, 0, 0);
#endif
}

static void spmat_free(mixi_spmat *A)
{
    if (!A) return;
    if (A->owns_pattern && !A->borrowed) {
        mixi_free(A->rowptr);
        mixi_free(A->colind);
    }
    if (!A->borrowed) mixi_free(A->val);
    mixi_free(A->slice);
    mixi_free(A->eslice);
    mixi_free(A->erp);
    mixi_free(A->col);
    mixi_free(A->ecol);
    mixi_free(A->eval);
    mixi_free(A->diag);
    mixi_free(A->rexp);
    mixi_free(A->smask);
    mixi_free(A->tune);
    mixi_free(A->soff);
    mixi_free(A->shift);
    mixi_free(A->xf);
    mixi_free(A->tacc);
    mixi_free(A);
}

static void cpu_csr_destroy(void *state, mixi_spmat *A)
{
    (void)state;
    spmat_free(A);
}

static int cpu_csr_host_view(void *state, const mixi_spmat *A, const int64_t **rowptr,
                             const int32_t **colind, const double **val)
{
    (void)state;
    if (A->prec != MIX_FP64) return MIX_ERR_INVALID_ARG;
    *rowptr = A->rowptr, *colind = A->colind, *val = A->val;
    return MIX_SUCCESS;
}

static int cpu_csr_export(void *state, const mixi_spmat *A, int64_t *nnz, int64_t *rowptr,
                          int32_t *colind, double *val)
{
    (void)state;
    if (A->prec != MIX_FP64) return MIX_ERR_INVALID_ARG;
    *nnz = A->nnz;
    if (!rowptr) return MIX_SUCCESS;
    memcpy(rowptr, A->rowptr, ((size_t)A->n + 1) * sizeof *rowptr);
    if (A->nnz > 0) {
        memcpy(colind, A->colind, (size_t)A->nnz * sizeof *colind);
        memcpy(val, A->val, (size_t)A->nnz * sizeof(double));
    }
    return MIX_SUCCESS;
}

/* The caller's host arrays as an FP64 matrix, not copied: the multigrid store converts its
 * host-built levels this way (3-D Poisson 150^3: 250 MB of transient copies and their first
 * touch fewer, about 1 s of a cold set-up on the KVM guest). */
static int cpu_csr_borrow_host(void *state, int n, const int64_t *rowptr, const int32_t *colind,
                               const double *val, mixi_spmat **out)
{
    (void)state;
    *out = NULL;
    if (n <= 0 || !rowptr || (rowptr[n] > 0 && (!colind || !val))) return MIX_ERR_INVALID_ARG;
    mixi_spmat *A = mixi_calloc(1, sizeof *A);
    if (!A) return MIX_ERR_ALLOC;
    A->prec = MIX_FP64;
    A->n = n;
    A->nnz = rowptr[n];
    A->borrowed = 1;
    /* Read only here: the struct's pointers are shared with the owned case. */
    A->rowptr = (int64_t *)(uintptr_t)rowptr;
    A->colind = (int32_t *)(uintptr_t)colind;
    A->val = (void *)(uintptr_t)val;
    A->tune = mixi_malloc(sizeof *A->tune);
    if (!A->tune) {
        spmat_free(A);
        return MIX_ERR_ALLOC;
    }
    tuner_init(A->tune, MIX_FP64);
    A->bytes = ((int64_t)n + 1) * 8 + A->nnz * (8 + 4);
    *out = A;
    return MIX_SUCCESS;
}

static int cpu_csr_create(void *state, int n, const int64_t *rowptr, const int32_t *colind,
                          const double *val, mixi_spmat **out)
{
    (void)state;
    *out = NULL;
    if (n <= 0 || !rowptr) return MIX_ERR_INVALID_ARG;
    const int64_t nnz = rowptr[n];
    size_t nz = (size_t)(nnz > 0 ? nnz : 1);
    mixi_spmat *A = mixi_calloc(1, sizeof *A);
    if (!A) return MIX_ERR_ALLOC;
    A->prec = MIX_FP64;
    A->n = n;
    A->nnz = nnz;
    A->owns_pattern = 1;
    A->rowptr = mixi_malloc(((size_t)n + 1) * sizeof *A->rowptr);
    A->colind = mixi_malloc(nz * sizeof *A->colind);
    A->val = mixi_malloc(nz * sizeof(double));
    A->tune = mixi_malloc(sizeof *A->tune); /* unscaled FP64 storage runs on this matrix itself */
    if (A->tune) tuner_init(A->tune, MIX_FP64);
    if (!A->rowptr || !A->colind || !A->val || !A->tune) {
        spmat_free(A);
        return MIX_ERR_ALLOC;
    }
    A->bytes = ((int64_t)n + 1) * 8 + nnz * (8 + 4);
    mixi_cpu_bytes_threaded(A->rowptr, rowptr, ((size_t)n + 1) * sizeof *A->rowptr);
    if (nnz > 0) {
        mixi_cpu_bytes_threaded(A->colind, colind, (size_t)nnz * sizeof *A->colind);
        mixi_cpu_bytes_threaded(A->val, val, (size_t)nnz * sizeof(double));
        mixi_pages_streamed(A->colind, (size_t)nnz * sizeof *A->colind);
        mixi_pages_streamed(A->val, (size_t)nnz * sizeof(double));
    }
    *out = A;
    return MIX_SUCCESS;
}

/* An FP64 copy diag(scale) A64 diag(scale) in plain CSR, sharing A64's pattern. */
static int convert_fp64(const mixi_spmat *A64, const double *scale, mixi_spmat *A)
{
    const int n = A64->n;
    A->rowptr = A64->rowptr;
    A->colind = A64->colind;
    A->bytes = A64->bytes;
    A->val = mixi_malloc((size_t)(A64->nnz > 0 ? A64->nnz : 1) * sizeof(double));
    if (!A->val) return MIX_ERR_ALLOC;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) mixk_csr_row_fp64(A64->rowptr, A64->colind, A64->val, scale, i, A->val);
    mixi_pages_streamed(A->val, (size_t)A64->nnz * sizeof(double));
    return MIX_SUCCESS;
}

/* Alloc of the SELL arrays sized by z (64 bytes of padding: vector loads may read past the end). */
static int sell_alloc(const mixk_sell_sizes *z, mix_prec prec, mixi_spmat *A)
{
    const int fixed = mixk_prec_block_scaled(prec), narrow = mixk_prec_bytes(prec) < 4;
    const size_t el = (size_t)mixk_prec_bytes(prec), del = (size_t)mixk_sell_diag_bytes(prec);
    const size_t n = (size_t)z->n, ns = (size_t)z->nslice, nr = (size_t)mixk_sell_slot_rows(z->nslots);
    A->slice = mixi_malloc((ns + 1) * sizeof *A->slice);
    A->col = mixi_malloc((size_t)z->nslots * sizeof *A->col + 64);
    A->val = mixi_malloc((size_t)z->nslots * el + 64);
    if (!z->rect) A->diag = mixi_malloc(n * del + 64); /* a rectangular matrix has none apart */
    A->smask = mixi_malloc(nr + 64);
    A->soff = mixi_malloc(nr * sizeof *A->soff + 64);
    if (fixed) A->rexp = mixi_malloc(n + 64);
    if (z->nerp) {
        const size_t ne = (size_t)(z->nesc > 0 ? z->nesc : 1);
        A->eslice = mixi_malloc(ns * sizeof *A->eslice);
        A->erp = mixi_malloc((size_t)z->nerp * sizeof *A->erp);
        A->ecol = mixi_malloc(ne * sizeof *A->ecol);
        A->eval = mixi_malloc(ne * el);
    }
    if (narrow) A->xf = mixi_malloc((n + BLK) * sizeof(float)); /* decoded x */
    if (!A->slice || !A->col || !A->val || (!z->rect && !A->diag) || !A->smask || !A->soff || (fixed && !A->rexp) ||
        (z->nerp && (!A->eslice || !A->erp || !A->ecol || !A->eval)) || (narrow && !A->xf))
        return MIX_ERR_ALLOC;
    return MIX_SUCCESS;
}

/* Each row's columns and values (kernels/common/spmv_row.h), then the slot metadata; returns
 * how many rows did not fit the format. */
static long sell_fill(const mixi_spmat *A64, mix_prec prec, const double *scale,
                      const double *rowmax, mixi_spmat *A)
{
    const int n = A64->n;
    const mixk_sell_out o = {A->col, A->val, A->ecol, A->eval, A->diag, A->rexp, rowmax};
    long overflow = 0;
#pragma omp parallel for reduction(+ : overflow) schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) {
#define FILL_ROW(PP, SFX, ...)                                                                    \
    case PP:                                                                                      \
        overflow += mixk_sell_fill_row_##SFX(&A->sell, A64->rowptr, A64->colind, A64->val, scale, \
                                             i, &o);                                              \
        break;
        switch (prec) {
            MIXK_STORAGE_FORMATS(FILL_ROW)
        default: break;
        }
#undef FILL_ROW
    }
    const int64_t ns = mixk_sell_nslice(n);
    int64_t full = 0;
#pragma omp parallel for reduction(+ : full) schedule(static) if (n > PAR_MIN)
    for (int64_t s = 0; s < ns; s++) full += mixk_sell_slot_meta(&A->sell, s, A->smask, A->soff);
    A->contig_rows = full;
    return overflow;
}

/* Whether every stored diagonal value is exactly 1 (kernels/common/sell.h's unit_diag). */
static int sell_unit_diag(const mixi_spmat *A)
{
    const int n = A->n;
    long other = 0;
#pragma omp parallel for reduction(+ : other) schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) other += mixk_sell_value(A->prec, &A->sell, i, -1, 0) != 1.0;
    return A->diag && !other;
}

/* FIXED16: the largest off-diagonal magnitude (rect: the largest magnitude) gives the steps'
 * mantissa (HUGE_VAL for a NaN). */
static double sell_gmax(const mixi_spmat *A64, const double *scale, int rect)
{
    const int n = A64->n;
    double gmax = 0.0;
#pragma omp parallel for reduction(max : gmax) schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) {
        const double m = mixk_fixed16_row_absmax(A64->rowptr, A64->colind, A64->val, scale, i, rect ? -1 : i);
        gmax = m != m ? HUGE_VAL : m > gmax ? m : gmax;
    }
    return gmax;
}

/* Per-slice column shifts (kernels/common/sell_plan.h) into A->shift, kept only where a slice
 * took one. */
static int sell_shift(const mixi_spmat *A64, const int64_t *cnt, unsigned char *far,
                      mixk_sell_sizes *z, mixi_spmat *A)
{
    A->shift = mixi_malloc((size_t)z->nslice * sizeof *A->shift);
    if (!A->shift) return MIX_ERR_ALLOC;
    if (!mixk_sell_plan_shift(A64->rowptr, A64->colind, cnt, far, A->shift, z)) {
        mixi_free(A->shift);
        A->shift = NULL;
    }
    return MIX_SUCCESS;
}

/* A SELL-32 copy (kernels/common/sell.h) in `prec`: the layout planned by
 * kernels/common/sell_plan.h (rect: a rectangular matrix's, column shifts and no diagonal
 * apart), then each row's columns and values (FIXED16: the row scales rowmax and gmax where
 * rowmax is given, cpu_csr_convert_rows). */
static int convert_sell(const mixi_spmat *A64, mix_prec prec, const double *scale,
                        const double *rowmax, double gmax, int rect, mixi_spmat *A)
{
    const int n = A64->n;
    const int fixed = mixk_prec_block_scaled(prec);
    int64_t *cnt = mixi_malloc((size_t)n * sizeof *cnt);
    unsigned char *far = mixi_malloc((size_t)n);
    mixk_sell_sizes z;
    int st = cnt && far ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st) mixk_sell_plan_count(n, A64->rowptr, A64->colind, rect, cnt, far, &z);
    if (!st && rect) st = sell_shift(A64, cnt, far, &z, A);
    if (!st) st = sell_alloc(&z, prec, A);
    if (!st) {
        mixk_sell_plan_layout(cnt, far, &z, A->slice, A->eslice, A->erp);
        if (fixed && !rowmax) gmax = sell_gmax(A64, scale, rect);
        A->sell = (mixk_sell){.n = n, .slice = A->slice, .col = A->col, .val = A->val,
                              .diag = A->diag, .rexp = A->rexp, .fmant = mixk_fixed16_mant(gmax),
                              .eslice = A->eslice, .erp = A->erp, .ecol = A->ecol, .eval = A->eval,
                              .smask = A->smask, .soff = A->soff, .shift = A->shift};
        A->bytes = mixk_sell_plan_bytes(&z, prec);
        A->slot_rows = mixk_sell_slot_rows(z.nslots);
        if (sell_fill(A64, prec, scale, fixed ? rowmax : NULL, A)) st = MIX_ERR_OVERFLOW;
        /* A unit diagonal is not read (its bytes leave the SpMV's). */
        if (!st && (A->sell.unit_diag = sell_unit_diag(A)))
            A->bytes -= (int64_t)n * mixk_sell_diag_bytes(prec);
        mixi_pages_streamed(A->col, (size_t)z.nslots * sizeof *A->col);
        mixi_pages_streamed(A->val, (size_t)z.nslots * (size_t)mixk_prec_bytes(prec));
    }
    mixi_free(cnt);
    mixi_free(far);
    return st;
}

/* The conversions' one body: csr_convert_rows's, a rectangular matrix's layout where `rect`. */
static int convert_any(const mixi_spmat *A64, mix_prec prec, const double *scale,
                       const double *rowmax, double gmax, int rect, mixi_spmat **out)
{
    *out = NULL;
    if (!mixk_prec_storage(prec)) return MIX_ERR_INVALID_ARG;
    mixi_spmat *A = mixi_calloc(1, sizeof *A);
    if (!A) return MIX_ERR_ALLOC;
    A->prec = prec;
    A->n = A64->n;
    A->nnz = A64->nnz;
    A->tune = mixi_malloc(sizeof *A->tune);
    int st = !A->tune ? MIX_ERR_ALLOC
             : mixk_sell_used(prec) ? convert_sell(A64, prec, scale, rowmax, gmax, rect, A)
                                    : convert_fp64(A64, scale, A);
    if (A->tune) tuner_init(A->tune, prec);
    if (st) {
        spmat_free(A);
        return st;
    }
    *out = A;
    return MIX_SUCCESS;
}

static int cpu_csr_convert_rows(void *state, const mixi_spmat *A64, mix_prec prec,
                                const double *scale, const double *rowmax, double gmax,
                                mixi_spmat **out)
{
    (void)state;
    return convert_any(A64, prec, scale, rowmax, gmax, 0, out);
}

static int cpu_csr_convert(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                           mixi_spmat **out)
{
    (void)state;
    return convert_any(A64, prec, scale, NULL, 0.0, 0, out);
}

static int cpu_csr_convert_rect(void *state, const mixi_spmat *A64, mix_prec prec,
                                const double *scale, mixi_spmat **out)
{
    (void)state;
    return convert_any(A64, prec, scale, NULL, 0.0, 1, out);
}

static int cpu_csr_row_offmax(void *state, const mixi_spmat *A64, const double *scale, double *rowmax)
{
    (void)state;
    const int n = A64->n;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++)
        rowmax[i] = mixk_fixed16_row_offmax(A64->rowptr, A64->colind, A64->val, scale, i);
    return MIX_SUCCESS;
}

/* Bytes one SpMV reads of the matrix: values, diagonal and every index array (FIXED16:
 * exponent bytes too). */
static int cpu_csr_bytes(void *state, const mixi_spmat *A, int64_t *bytes)
{
    (void)state;
    *bytes = A->bytes;
    return MIX_SUCCESS;
}

static int cpu_diag_rsqrt(void *state, const mixi_spmat *A, double *scale)
{
    (void)state;
    const double *a = A->val;
    int bad = 0;
#pragma omp parallel for reduction(| : bad) schedule(static) if (A->n > PAR_MIN)
    for (int i = 0; i < A->n; i++) {
        double d = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) d = a[k];
        if (d > 0.0) scale[i] = 1.0 / sqrt(d);
        else {
            scale[i] = 1.0;
            bad = 1;
        }
    }
    return bad ? MIX_ERR_NOT_SPD : MIX_SUCCESS;
}

static int cpu_residual64(void *state, const mixi_spmat *A, const double *b, const double *x,
                          double *r, double *rr)
{
    (void)state;
    double part[MIXI_SUM_CHUNKS];
#pragma omp parallel for schedule(static) if (A->n > PAR_MIN)
    for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {
        double acc = 0.0;
        MIXI_CHUNK_FOR(i, A->n, c) {
            r[i] = b[i] - mixk_spmv_row_fp64(A->rowptr, A->colind, A->val, x, NULL, i);
            acc += r[i] * r[i];
        }
        part[c] = acc;
    }
    *rr = mixi_chunks_total(part);
    return MIX_SUCCESS;
}

static int cpu_nrm2sq64(void *state, int n, const double *x, double *xx)
{
    (void)state;
    double part[MIXI_SUM_CHUNKS];
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {
        double acc = 0.0;
        MIXI_CHUNK_FOR(i, n, c) acc += x[i] * x[i];
        part[c] = acc;
    }
    *xx = mixi_chunks_total(part);
    return MIX_SUCCESS;
}

static int cpu_vec_from64(void *state, const double *x, const double *scale, double alpha,
                          mixi_svec *v, double *vv)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(v->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    double s = k->from64(x, scale, alpha, v);
    if (vv) *vv = s;
    return MIX_SUCCESS;
}

static int cpu_vec_accum64(void *state, const mixi_svec *v, const double *scale, double alpha,
                           double *y)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(v->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    k->accum64(v, scale, alpha, y);
    return MIX_SUCCESS;
}

static int cpu_vec_zero(void *state, mixi_svec *v)
{
    (void)state;
    size_t vb, nb;
    int st = mixi_svec_bytes(v->prec, v->n, &vb, &nb);
    if (st) return st;
    memset(v->val, 0, vb);
    if (nb) memset(v->norm, 0, nb);
    return MIX_SUCCESS;
}

/* A matrix streamed MIXI_HUGE_PAGE_PASSES times (sparse_cpu_impl.h) is moved to huge pages (its
 * values and column indices: what the products stream).  Its arrays were first touched on the
 * system's default pages (lib/core/alloc.c); the move costs what a fresh huge page's first touch
 * does, 0.3 ms a MB where the system has them at hand and 3.4 on the lazily backed KVM guest, and
 * pays ~0.01 ms a MB back on each product there (3-D Poisson 150^3 FIXED16, the hot SpMV
 * 3.5-3.6 ms on huge pages against 5.4-6.0 on 4 KiB ones): ~340 products to break even on that
 * guest, a few dozen elsewhere.  A multigrid solve streams its fine operator ~90 times (the
 * move comes in its fifth solve); CG with Jacobi once an iteration. */
static void collapse_if_streamed(const mixi_spmat *A)
{
    mixi_spmat *W = (mixi_spmat *)A; /* bookkeeping only: the matrix's values are not changed */
    if (++W->passes != MIXI_HUGE_PAGE_PASSES || A->borrowed) return;
    if (A->prec == MIX_FP64 && A->colind) { /* CSR; a converted copy shares the pattern */
        if (A->owns_pattern) (void)mixi_pages_collapse(A->colind, (size_t)A->nnz * sizeof *A->colind);
        (void)mixi_pages_collapse(A->val, (size_t)A->nnz * sizeof(double));
    } else if (A->col) {
        const size_t slots = (size_t)(A->slice[mixk_sell_nslice(A->n)] & MIXK_SELL_SLOT_MASK);
        (void)mixi_pages_collapse(A->col, slots * sizeof *A->col);
        (void)mixi_pages_collapse(A->val, slots * (size_t)mixk_prec_bytes(A->prec));
    }
}

/* y = A x (z NULL: spmv, *xy = <x, A x>) or y = a A x + b z (spmv_axpby) in the variant the
 * tuner gives; while it tunes, the product is timed as one of its table's (the result is the
 * caller's), its bytes those of the matrix and the vectors it moves (2, or 3 with z): a
 * multigrid level's matrices may see no plain SpMV. */
static void tuned_product(const cpu_svec_kernels *k, const mixi_spmat *A, mix_prec vp,
                          const mixi_svec *x, double a, const mixi_svec *z, double b, mixi_svec *y,
                          double *xy)
{
    mixi_spmv_tuner *T = A->tune;
    collapse_if_streamed(A);
    const int var = T ? mixi_spmv_tuner_next(T) : MIXI_SPMV_PORTABLE;
    if (var == MIXI_SPMV_PORTABLE) k = mixi_cpu_portable_kernels[A->prec];
    const int timed = T && mixi_spmv_tuner_timing(T);
    const double t0 = timed ? mixi_wtime() : 0.0;
    if (z) k->spmv_axpby(A, x, a, z, b, y, var);
    else k->spmv(A, x, y, xy, var);
    if (!timed) return;
    size_t vb = 16, nb = 0;
    mixi_svec_bytes(vp, A->n, &vb, &nb);
    mixi_spmv_tuner_done(T, A->prec, var, mixi_wtime() - t0,
                         (double)A->bytes + (z ? 3.0 : 2.0) * (double)(vb - 16 + nb));
}

static int cpu_spmv(void *state, const mixi_spmat *A, const mixi_svec *x, mixi_svec *y, double *xy)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(A->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    const mix_prec vp = x->prec == A->prec ? A->prec : mixk_prec_acc(A->prec);
    if (x->prec != vp || y->prec != vp) return MIX_ERR_UNSUPPORTED;
    tuned_product(k, A, vp, x, 0.0, NULL, 0.0, y, xy);
    return MIX_SUCCESS;
}

static int cpu_spmv_axpby(void *state, const mixi_spmat *A, const mixi_svec *x, double a,
                          const mixi_svec *z, double b, mixi_svec *y)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(A->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    const mix_prec vp = mixk_prec_acc(A->prec);
    if (x->prec != vp || y->prec != vp || z->prec != vp || z->n != y->n || x == y ||
        (x->n > 0 && x->val == y->val))
        return MIX_ERR_UNSUPPORTED;
    tuned_product(k, A, vp, x, a, z, b, y, NULL);
    return MIX_SUCCESS;
}

static double cpu_spmv_rate(mix_prec storage) { return mixi_spmv_rate(storage); }

static int cpu_spmv_best(void *state, const mixi_spmat *A, const mixi_svec *x, mixi_svec *y, int rounds,
                         double *seconds)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(A->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    const mix_prec vp = x->prec == A->prec ? A->prec : mixk_prec_acc(A->prec);
    if (x->prec != vp || y->prec != vp) return MIX_ERR_UNSUPPORTED;
    const mixi_spmv_tuner *T = A->tune;
    int var[MIXI_SPMV_NVAR], nvar = 0;
    if (!T) var[nvar++] = MIXI_SPMV_PORTABLE;
    else if (T->chosen >= 0) var[nvar++] = T->chosen;
    else
        for (int c = 0; c < T->ncand; c++) var[nvar++] = T->cand[c];
    double xy, best = 0.0;
    for (int r = -1; r < rounds; r++) /* round -1: the warm-up */
        for (int c = 0; c < (r < 0 ? 1 : nvar); c++) {
            const cpu_svec_kernels *kv = var[c] == MIXI_SPMV_PORTABLE ? mixi_cpu_portable_kernels[A->prec] : k;
            const double t0 = mixi_wtime();
            kv->spmv(A, x, y, &xy, var[c]);
            const double t = mixi_wtime() - t0;
            if (r >= 0 && (best <= 0.0 || t < best)) best = t;
        }
    *seconds = best;
    return MIX_SUCCESS;
}

static const char *cpu_spmv_variant(void *state, const mixi_spmat *A)
{
    (void)state;
    return A && A->tune ? mixi_spmv_tuner_choice(A->tune) : NULL;
}

const char *mixi_cpu_spmv_variant(const mixi_spmat *A, double *contig)
{
    if (contig) *contig = A && A->slot_rows ? (double)A->contig_rows / (double)A->slot_rows : 0.0;
    return cpu_spmv_variant(NULL, A);
}

static int cpu_cg_update(void *state, double alpha, const mixi_svec *p, const mixi_svec *ap,
                         mixi_svec *x, mixi_svec *r, double *rr, double *rd)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(p->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    if (ap->prec != p->prec || (x->prec != p->prec && x->prec != mixk_prec_acc(p->prec)) ||
        r->prec != p->prec)
        return MIX_ERR_UNSUPPORTED;
    k->cg_update(alpha, p, ap, x, r, rr, rd);
    return MIX_SUCCESS;
}

static int cpu_cheb_update(void *state, double a, const mixi_svec *r, double b, mixi_svec *d,
                           double c, mixi_svec *x)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(r->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    if (d->prec != r->prec || x->prec != r->prec || d->n != r->n || x->n != r->n) return MIX_ERR_UNSUPPORTED;
    if (r == d || r == x || d == x) return MIX_ERR_UNSUPPORTED;
    k->cheb(a, r, b, d, c, x);
    return MIX_SUCCESS;
}

static int cpu_axpby(void *state, double a, const mixi_svec *x, double b, mixi_svec *y)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(x->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    if (y->prec != x->prec) return MIX_ERR_UNSUPPORTED;
    k->axpby(a, x, b, y);
    return MIX_SUCCESS;
}

static int cpu_dot(void *state, const mixi_svec *x, const mixi_svec *y, double *xy)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(x->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    if (y->prec != x->prec) return MIX_ERR_UNSUPPORTED;
    *xy = k->dot(x, y);
    return MIX_SUCCESS;
}

const mixi_sparse_ops mixi_cpu_sparse_ops = {
    .csr_create = cpu_csr_create,
    .csr_borrow_host = cpu_csr_borrow_host,
    .csr_convert = cpu_csr_convert,
    .csr_row_offmax = cpu_csr_row_offmax,
    .csr_convert_rows = cpu_csr_convert_rows,
    .csr_convert_rect = cpu_csr_convert_rect,
    .csr_destroy = cpu_csr_destroy,
    .csr_export = cpu_csr_export,
    .csr_host_view = cpu_csr_host_view,
    .csr_bytes = cpu_csr_bytes,
    .diag_rsqrt = cpu_diag_rsqrt,
    .residual64 = cpu_residual64,
    .nrm2sq64 = cpu_nrm2sq64,
    .vec_from64 = cpu_vec_from64,
    .vec_accum64 = cpu_vec_accum64,
    .vec_zero = cpu_vec_zero,
    .spmv = cpu_spmv,
    .spmv_t = mixi_cpu_spmv_t,
    .tent_restrict = mixi_cpu_tent_restrict,
    .tent_prolong = mixi_cpu_tent_prolong,
    .spmv_axpby = cpu_spmv_axpby,
    .cheb_update = cpu_cheb_update,
    .cg_update = cpu_cg_update,
    .axpby = cpu_axpby,
    .dot = cpu_dot,
    .spmv_acc_vectors = 1,
    .spmv_rate = cpu_spmv_rate,
    .spmv_best = cpu_spmv_best,
    .spmv_variant = cpu_spmv_variant,
    .cg_rupdate = mixi_cpu_cg_rupdate,
    .cg_xpupdate = mixi_cpu_cg_xpupdate,
};
