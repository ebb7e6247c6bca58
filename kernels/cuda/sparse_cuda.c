/* sparse_cuda.c: the CUDA backend's sparse operations (CSR matrices on the device, sloppy-vector kernels, FP64 reductions). */
#include <math.h>
#include <string.h>
#include "lib/core/core.h"
#include "kernels/backend_sparse.h"
#include "kernels/common/spmv_row.h"
#include "kernels/common/sell_plan.h"
#include "kernels/cuda/cuda_internal.h"
#include "kernels/cuda/cuda_sparse.h"


/* A matrix on the device: FP64 plain CSR, every other format SELL-32 (kernels/backend_sparse.h).
 * Converted FP64 copies share the FP64 copy's row pointers and column indices (owns_pattern =
 * 0); mix_sparse destroys the FP64 copy last. */
struct mixi_spmat {
    mixi_cuda_csr d;       /* what the kernels see */
    int64_t *rowptr;       /* device arrays, owned as said */
    int32_t *colind;
    void *val;
    int64_t *slice, *eslice, *erp; /* SELL */
    int16_t *col;
    int32_t *ecol;
    void *eval, *diag;
    uint8_t *rexp;         /* FIXED16 */
    uint8_t *smask;        /* contiguous slots (kernels/common/sell.h) */
    int16_t *soff;
    int32_t *shift;        /* per-slice column shifts, or NULL (csr_convert_rect) */
    int64_t bytes;         /* what one SpMV reads of the matrix */
    int owns_pattern;
    double *tacc;          /* spmv_t's FP64 accumulators (made on first use) */
    int64_t tacc_len;
};

static int dalloc(void *state, void **p, size_t bytes)
{
    return mixi_cuda_alloc(state, p, bytes);
}

static int launched(cudaError_t e)
{
    return mixi_cuda_status(e);
}

/* Host-to-device copy through the backend's staged upload, finished before returning. */
static int h2d(mixi_cuda_state *s, void *dst, const void *src, size_t bytes)
{
    return mixi_cuda_upload(s, dst, src, bytes);
}

/* The reduction workspace of this context, made and zeroed on first use (it lives as long as
 * the context: cuda_fini frees it). */
static int workspace(mixi_cuda_state *s, double **ws)
{
    if (!s->sp_ws) {
        double *d = NULL, *h = NULL;
        int st = dalloc(s, (void **)&d, MIXI_CUDA_RED_WS * sizeof(double));
        if (st) return st;
        if (cudaMallocHost((void **)&h, MIXI_CUDA_RED_SLOTS * sizeof(double)) != cudaSuccess) {
            (void)cudaGetLastError();
            cudaFree(d);
            return MIX_ERR_ALLOC;
        }
        st = mixi_cuda_status(cudaMemsetAsync(d, 0, MIXI_CUDA_RED_WS * sizeof(double), s->stream));
        if (st) {
            cudaFree(d);
            cudaFreeHost(h);
            return st;
        }
        s->sp_ws = d;
        s->sp_host = h;
    }
    *ws = s->sp_ws;
    return MIX_SUCCESS;
}

/* The only host traffic of an iteration: k reduced scalars, one copy and one stream sync. */
static int fetch(mixi_cuda_state *s, int k, double *a, double *b)
{
    int st = mixi_cuda_status(cudaMemcpyAsync(s->sp_host, s->sp_ws + MIXI_CUDA_RED_RESULT,
                                              (size_t)k * sizeof(double), cudaMemcpyDeviceToHost,
                                              s->stream));
    if (!st) st = mixi_cuda_status(cudaStreamSynchronize(s->stream));
    if (st) return st;
    if (a) *a = s->sp_host[0];
    if (b) *b = s->sp_host[1];
    return MIX_SUCCESS;
}

/* Reads and clears nothing: returns the device flag after the queued work (zeroed before it). */
static int read_flag(mixi_cuda_state *s, int *flag)
{
    int st = mixi_cuda_status(cudaMemcpyAsync(flag, s->d_flag, sizeof(int), cudaMemcpyDeviceToHost,
                                              s->stream));
    return st ? st : mixi_cuda_status(cudaStreamSynchronize(s->stream));
}

static mixi_cuda_vec dvec(const mixi_svec *v)
{
    mixi_cuda_vec d;
    d.val = v->val;
    d.norm = v->norm;
    return d;
}

static void sp_destroy(void *state, mixi_spmat *A)
{
    if (!A) return;
    if (A->owns_pattern) {
        mixi_cuda_free(state, A->rowptr);
        mixi_cuda_free(state, A->colind);
    }
    void *const bufs[] = {A->val,  A->slice, A->eslice, A->erp,   A->col, A->ecol,
                          A->eval, A->diag,  A->rexp,   A->smask, A->soff, A->shift, A->tacc};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) mixi_cuda_free(state, bufs[i]);
    mixi_free(A);
}

static int sp_create(void *state, int n, const int64_t *rowptr, const int32_t *colind,
                     const double *val, mixi_spmat **out)
{
    mixi_cuda_state *s = state;
    if (!out) return MIX_ERR_INVALID_ARG;
    *out = NULL;
    if (n <= 0 || !rowptr || rowptr[0] != 0 || rowptr[n] < 0) return MIX_ERR_INVALID_ARG;
    const int64_t nnz = rowptr[n];
    if (nnz > 0 && (!colind || !val)) return MIX_ERR_INVALID_ARG;
    size_t rp_bytes, ci_bytes, v_bytes;
    if (mixi_mul_size((size_t)n + 1, sizeof(int64_t), &rp_bytes) ||
        mixi_mul_size((size_t)nnz, sizeof(int32_t), &ci_bytes) ||
        mixi_mul_size((size_t)nnz, sizeof(double), &v_bytes))
        return MIX_ERR_ALLOC;
    mixi_spmat *A = mixi_calloc(1, sizeof *A);
    if (!A) return MIX_ERR_ALLOC;
    A->owns_pattern = 1;
    int st;
    if ((st = dalloc(s, (void **)&A->rowptr, rp_bytes))) goto out;
    if ((st = dalloc(s, (void **)&A->colind, ci_bytes))) goto out;
    if ((st = dalloc(s, &A->val, v_bytes))) goto out;
    if ((st = h2d(s, A->rowptr, rowptr, rp_bytes))) goto out;
    if ((st = h2d(s, A->colind, colind, ci_bytes))) goto out;
    if ((st = h2d(s, A->val, val, v_bytes))) goto out;
    A->d.n = n;
    A->d.nnz = nnz;
    A->d.prec = MIX_FP64;
    A->d.rowptr = A->rowptr;
    A->d.colind = A->colind;
    A->d.val = A->val;
    A->bytes = ((int64_t)n + 1) * 8 + nnz * (8 + 4);
    A->d.lanes = mixi_cuda_spmv_lanes((double)nnz / n);
out:
    if (st) {
        sp_destroy(s, A);
        return st;
    }
    *out = A;
    return MIX_SUCCESS;
}

/* The contiguous-slot metadata (kernels/common/sell_plan.h), made on the host from the filled
 * offsets as the CPU backend makes it: a warp's rows then read one offset per contiguous slot. */
static int sell_meta(mixi_cuda_state *s, mixi_spmat *A, const mixk_sell_sizes *z, const int64_t *hslice)
{
    const int64_t nr = mixk_sell_slot_rows(z->nslots);
    if (nr == 0) return MIX_SUCCESS;
    int16_t *hcol = mixi_malloc((size_t)z->nslots * sizeof *hcol), *hoff = mixi_malloc((size_t)nr * sizeof *hoff);
    uint8_t *hmask = mixi_malloc((size_t)nr);
    int st = hcol && hoff && hmask ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st) st = mixi_cuda_download(s, hcol, A->col, (size_t)z->nslots * sizeof *hcol);
    if (!st) st = dalloc(s, (void **)&A->smask, (size_t)nr);
    if (!st) st = dalloc(s, (void **)&A->soff, (size_t)nr * sizeof *hoff);
    if (!st) {
        const mixk_sell h = {.n = z->n, .slice = hslice, .col = hcol};
        for (int64_t sl = 0; sl < z->nslice; sl++) mixk_sell_slot_meta(&h, sl, hmask, hoff);
        st = h2d(s, A->smask, hmask, (size_t)nr);
    }
    if (!st) st = h2d(s, A->soff, hoff, (size_t)nr * sizeof *hoff);
    if (!st) {
        A->d.sell.smask = A->smask;
        A->d.sell.soff = A->soff;
    }
    mixi_free(hcol);
    mixi_free(hoff);
    mixi_free(hmask);
    return st;
}

/* Device arrays of the SELL copy sized by z, the layout's uploaded. */
static int sell_alloc(mixi_cuda_state *s, mix_prec prec, const mixk_sell_sizes *z, const int64_t *hslice,
                      const int64_t *heslice, const int64_t *herp, mixi_spmat *A)
{
    const int fixed = mixk_prec_block_scaled(prec);
    const size_t el = (size_t)mixk_prec_bytes(prec), del = (size_t)mixk_sell_diag_bytes(prec);
    const size_t ns = (size_t)z->nslice, sb = (ns + 1) * sizeof *hslice, nesc = (size_t)(z->nesc > 0 ? z->nesc : 1);
    const size_t nslots = (size_t)(z->nslots > 0 ? z->nslots : 1), nerp = (size_t)z->nerp;
    int st = dalloc(s, (void **)&A->slice, sb);
    if (!st) st = dalloc(s, (void **)&A->col, nslots * sizeof(int16_t));
    if (!st) st = dalloc(s, &A->val, nslots * el);
    if (!st && !z->rect) st = dalloc(s, &A->diag, (size_t)z->n * del); /* none apart: rect */
    if (!st && fixed) st = dalloc(s, (void **)&A->rexp, (size_t)z->n);
    if (!st && nerp) st = dalloc(s, (void **)&A->eslice, ns * sizeof *heslice);
    if (!st && nerp) st = dalloc(s, (void **)&A->erp, nerp * sizeof *herp);
    if (!st && nerp) st = dalloc(s, (void **)&A->ecol, nesc * sizeof(int32_t));
    if (!st && nerp) st = dalloc(s, &A->eval, nesc * el);
    if (!st) st = h2d(s, A->slice, hslice, sb);
    if (!st && nerp) st = h2d(s, A->eslice, heslice, ns * sizeof *heslice);
    if (!st && nerp) st = h2d(s, A->erp, herp, nerp * sizeof *herp);
    return st;
}

/* The per-slice column shifts (kernels/common/sell_plan.h) planned on the host into hshift
 * (nslice values) and, where a slice took one, uploaded to A->shift. */
static int sell_shift(mixi_cuda_state *s, const int64_t *rp, const int32_t *ci, const int64_t *cnt,
                      unsigned char *far, int32_t *hshift, mixk_sell_sizes *z, mixi_spmat *A)
{
    if (!mixk_sell_plan_shift(rp, ci, cnt, far, hshift, z)) return MIX_SUCCESS;
    const size_t bytes = (size_t)z->nslice * sizeof *hshift;
    int st = dalloc(s, (void **)&A->shift, bytes);
    return st ? st : h2d(s, A->shift, hshift, bytes);
}

/* FIXED16: the largest off-diagonal magnitude (rect: the largest of all) gives the steps'
 * mantissa (on the host, from the FP64 copy's values and the scale, with the shared row code);
 * also each row's (rowmax, host, where not NULL). */
static int sell_gmax(mixi_cuda_state *s, const mixi_spmat *A64, const int64_t *rp, const int32_t *ci,
                     const double *scale, int rect, double *gmax, double *rowmax)
{
    const int n = A64->d.n;
    const int64_t nnz = A64->d.nnz;
    double *hval = mixi_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *hval);
    double *hsc = scale ? mixi_malloc((size_t)n * sizeof *hsc) : NULL;
    int st = hval && (!scale || hsc) ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st && nnz > 0) st = mixi_cuda_download(s, hval, A64->val, (size_t)nnz * sizeof *hval);
    if (!st && scale) st = mixi_cuda_download(s, hsc, scale, (size_t)n * sizeof *hsc);
    *gmax = 0.0;
    for (int i = 0; !st && i < n; i++) {
        const double m = mixk_fixed16_row_absmax(rp, ci, hval, hsc, i, rect ? -1 : i);
        *gmax = m != m ? HUGE_VAL : m > *gmax ? m : *gmax;
        if (rowmax) rowmax[i] = m;
    }
    mixi_free(hval);
    mixi_free(hsc);
    return st;
}

/* kernels/common/sell.h's unit_diag: the diagonal read back once (4 bytes a row, at conversion)
 * and checked on the host with the shared accessor; the SpMVs then skip it as the CPU's do. */
static int sell_unit_diag(mixi_cuda_state *s, mix_prec prec, mixi_spmat *A)
{
    const int64_t n = A->d.sell.n;
    const size_t del = (size_t)mixk_sell_diag_bytes(prec);
    void *h = mixi_malloc((size_t)(n > 0 ? n : 1) * del);
    int st = h ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st && n > 0) st = mixi_cuda_download(s, h, A->diag, (size_t)n * del);
    mixk_sell H = A->d.sell;
    H.diag = h;
    int64_t i = 0;
    while (!st && i < n && mixk_sell_value(prec, &H, i, -1, 0) == 1.0) i++;
    mixi_free(h);
    if (!st && i == n) {
        A->d.sell.unit_diag = 1;
        A->bytes -= n * (int64_t)del;
    }
    return st;
}

/* The SELL copy: the layout planned on the host from the FP64 copy's pattern (the shared
 * kernels/common/sell_plan.h, as the CPU backend plans it; a rectangular matrix's where `rect`),
 * the rows' columns and values on the device, then the contiguous-slot metadata. */
static int convert_sell(mixi_cuda_state *s, const mixi_spmat *A64, mix_prec prec,
                        const double *scale, const double *rowmax, double gmax, int rect,
                        mixi_spmat *A)
{
    const int n = A64->d.n;
    const int64_t nnz = A64->d.nnz, ns = mixk_sell_nslice(n);
    int64_t *rp = mixi_malloc(((size_t)n + 1) * sizeof *rp), *cnt = mixi_malloc((size_t)n * sizeof *cnt);
    int32_t *ci = mixi_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ci);
    unsigned char *far = mixi_malloc((size_t)n);
    int64_t *hslice = NULL, *heslice = NULL, *herp = NULL;
    int32_t *hshift = NULL;
    int flag = 0, st = rp && cnt && ci && far ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st) st = mixi_cuda_download(s, rp, A64->rowptr, ((size_t)n + 1) * sizeof *rp);
    if (!st && nnz > 0) st = mixi_cuda_download(s, ci, A64->colind, (size_t)nnz * sizeof *ci);
    mixk_sell_sizes z = {0};
    if (!st) mixk_sell_plan_count(n, rp, ci, rect, cnt, far, &z);
    if (!st && rect) st = (hshift = mixi_malloc((size_t)ns * sizeof *hshift)) ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st && rect) st = sell_shift(s, rp, ci, cnt, far, hshift, &z, A);
    if (!st) {
        hslice = mixi_malloc((size_t)(ns + 1) * sizeof *hslice);
        heslice = mixi_malloc((size_t)ns * sizeof *heslice);
        herp = mixi_malloc((size_t)(z.nerp > 0 ? z.nerp : 1) * sizeof *herp);
        if (!hslice || !heslice || !herp) st = MIX_ERR_ALLOC;
    }
    if (!st) {
        mixk_sell_plan_layout(cnt, far, &z, hslice, heslice, herp);
        st = sell_alloc(s, prec, &z, hslice, heslice, herp, A);
    }
    const int fixed = mixk_prec_block_scaled(prec);
    if (!st && fixed && !rowmax) st = sell_gmax(s, A64, rp, ci, scale, rect, &gmax, NULL);
    if (!st) {
        A->d.sell = (mixk_sell){.n = n, .slice = A->slice, .col = A->col, .val = A->val,
                                .diag = A->diag, .rexp = A->rexp, .fmant = mixk_fixed16_mant(gmax),
                                .eslice = A->eslice, .erp = A->erp, .ecol = A->ecol, .eval = A->eval,
                                .shift = A->shift};
        A->bytes = mixk_sell_plan_bytes(&z, prec);
        st = mixi_cuda_status(cudaMemsetAsync(s->d_flag, 0, sizeof(int), s->stream));
    }
    const mixk_sell_out o = {A->col, A->val, A->ecol, A->eval, A->diag, A->rexp, fixed ? rowmax : NULL};
    if (!st) st = launched(mixi_cuda_sell_fill(s->stream, n, A64->rowptr, A64->colind, A64->val, scale,
                                               prec, &A->d.sell, &o, s->d_flag));
    if (!st) st = read_flag(s, &flag);
    if (!st && (flag & 1)) st = MIX_ERR_OVERFLOW;
    if (!st) st = sell_meta(s, A, &z, hslice);
    if (!st && !rect) st = sell_unit_diag(s, prec, A);
    mixi_free(rp);
    mixi_free(cnt);
    mixi_free(ci);
    mixi_free(far);
    mixi_free(hslice);
    mixi_free(heslice);
    mixi_free(herp);
    mixi_free(hshift);
    return st;
}

/* The conversions' one body (csr_convert_rows's: rowmax in device memory, read by the fill
 * kernel, kernels/common's row code), a rectangular matrix's layout where `rect`. */
static int convert_any(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                       const double *rowmax, double gmax, int rect, mixi_spmat **out)
{
    mixi_cuda_state *s = state;
    if (!out) return MIX_ERR_INVALID_ARG;
    *out = NULL;
    if (!A64 || A64->d.prec != MIX_FP64 || !mixk_prec_storage(prec)) return MIX_ERR_INVALID_ARG;
    const int n = A64->d.n;
    const int64_t nnz = A64->d.nnz;
    int st;
    mixi_spmat *A = mixi_calloc(1, sizeof *A);
    if (!A) return MIX_ERR_ALLOC;
    A->d = A64->d;
    A->d.prec = prec;
    A->owns_pattern = 0;
    if (mixk_sell_used(prec)) {
        st = convert_sell(s, A64, prec, scale, rowmax, gmax, rect, A);
        A->d.rowptr = NULL;
        A->d.colind = NULL;
    } else {
        A->rowptr = A64->rowptr;
        A->colind = A64->colind;
        A->bytes = A64->bytes;
        st = dalloc(s, &A->val, (size_t)(nnz > 0 ? nnz : 1) * sizeof(double));
        if (!st) st = launched(mixi_cuda_csr_convert_fp64(s->stream, n, A64->rowptr, A64->colind,
                                                          A64->val, scale, A->val));
    }
    A->d.val = A->val;
    if (st) {
        sp_destroy(s, A);
        return st;
    }
    *out = A;
    return MIX_SUCCESS;
}

static int sp_convert_rows(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                           const double *rowmax, double gmax, mixi_spmat **out)
{
    return convert_any(state, A64, prec, scale, rowmax, gmax, 0, out);
}

static int sp_convert(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                      mixi_spmat **out)
{
    return convert_any(state, A64, prec, scale, NULL, 0.0, 0, out);
}

static int sp_convert_rect(void *state, const mixi_spmat *A64, mix_prec prec,
                           const double *scale, mixi_spmat **out)
{
    return convert_any(state, A64, prec, scale, NULL, 0.0, 1, out);
}

/* The rows' largest off-diagonal magnitudes on the host (sell_gmax's pass), uploaded. */
static int sp_row_offmax(void *state, const mixi_spmat *A64, const double *scale, double *rowmax)
{
    mixi_cuda_state *s = state;
    if (!A64 || !rowmax || A64->d.prec != MIX_FP64) return MIX_ERR_INVALID_ARG;
    const int n = A64->d.n;
    const int64_t nnz = A64->d.nnz;
    int64_t *rp = mixi_malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = mixi_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *ci);
    double *hm = mixi_malloc((size_t)(n > 0 ? n : 1) * sizeof *hm), gmax;
    int st = rp && ci && hm ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st) st = mixi_cuda_download(s, rp, A64->rowptr, ((size_t)n + 1) * sizeof *rp);
    if (!st && nnz > 0) st = mixi_cuda_download(s, ci, A64->colind, (size_t)nnz * sizeof *ci);
    if (!st) st = sell_gmax(s, A64, rp, ci, scale, 0, &gmax, hm);
    if (!st && n > 0) st = mixi_cuda_upload(s, rowmax, hm, (size_t)n * sizeof *hm);
    mixi_free(rp);
    mixi_free(ci);
    mixi_free(hm);
    return st;
}

static int sp_csr_bytes(void *state, const mixi_spmat *A, int64_t *bytes)
{
    (void)state;
    if (!A || !bytes) return MIX_ERR_INVALID_ARG;
    *bytes = A->bytes;
    return MIX_SUCCESS;
}

/* The FP64 matrix's CSR downloaded to host arrays (the multigrid set-up reads it there). */
static int sp_csr_export(void *state, const mixi_spmat *A64, int64_t *nnz, int64_t *rowptr,
                         int32_t *colind, double *val)
{
    if (!A64 || A64->d.prec != MIX_FP64 || !nnz) return MIX_ERR_INVALID_ARG;
    *nnz = A64->d.nnz;
    if (!rowptr) return MIX_SUCCESS;
    int st = mixi_cuda_download(state, rowptr, A64->rowptr, ((size_t)A64->d.n + 1) * sizeof *rowptr);
    if (!st && A64->d.nnz > 0)
        st = mixi_cuda_download(state, colind, A64->colind, (size_t)A64->d.nnz * sizeof *colind);
    if (!st && A64->d.nnz > 0)
        st = mixi_cuda_download(state, val, A64->val, (size_t)A64->d.nnz * sizeof(double));
    return st;
}

static int sp_diag_rsqrt(void *state, const mixi_spmat *A64, double *scale)
{
    mixi_cuda_state *s = state;
    if (!A64 || A64->d.prec != MIX_FP64 || !scale) return MIX_ERR_INVALID_ARG;
    int flag = 0;
    int st = mixi_cuda_status(cudaMemsetAsync(s->d_flag, 0, sizeof(int), s->stream));
    if (!st) st = launched(mixi_cuda_diag_rsqrt(s->stream, A64->d.n, A64->rowptr, A64->colind,
                                                A64->val, scale, s->d_flag));
    if (!st) st = read_flag(s, &flag);
    if (!st && (flag & 2)) st = MIX_ERR_NOT_SPD;
    return st;
}

static int sp_residual64(void *state, const mixi_spmat *A64, const double *b, const double *x,
                         double *r, double *rr)
{
    mixi_cuda_state *s = state;
    if (!A64 || A64->d.prec != MIX_FP64 || !x || !r) return MIX_ERR_INVALID_ARG;
    double *ws = NULL;
    int st = rr ? workspace(s, &ws) : MIX_SUCCESS;
    if (!st) st = launched(mixi_cuda_residual64(s->stream, &A64->d, b, x, r, ws));
    if (!st && rr) st = fetch(s, 1, rr, NULL);
    return st;
}

static int sp_nrm2sq64(void *state, int n, const double *x, double *xx)
{
    mixi_cuda_state *s = state;
    if (n < 0 || (n > 0 && !x) || !xx) return MIX_ERR_INVALID_ARG;
    if (n == 0) {
        *xx = 0.0;
        return MIX_SUCCESS;
    }
    double *ws;
    int st = workspace(s, &ws);
    if (!st) st = launched(mixi_cuda_nrm2sq64(s->stream, n, x, ws));
    if (!st) st = fetch(s, 1, xx, NULL);
    return st;
}

static int check_vec(const mixi_svec *v)
{
    if (!v || !mixk_prec_storage(v->prec) || v->n < 0 || (v->n > 0 && !v->val) ||
        (mixk_prec_block_scaled(v->prec) && v->n > 0 && !v->norm))
        return MIX_ERR_INVALID_ARG;
    return MIX_SUCCESS;
}

/* Two sloppy vectors one operation combines: the same n and precision. */
static int check_pair(const mixi_svec *a, const mixi_svec *b)
{
    if (check_vec(a) || check_vec(b) || a->n != b->n) return MIX_ERR_INVALID_ARG;
    return a->prec == b->prec ? MIX_SUCCESS : MIX_ERR_UNSUPPORTED;
}

static int sp_vec_from64(void *state, const double *x, const double *scale, double alpha,
                         mixi_svec *v, double *vv)
{
    mixi_cuda_state *s = state;
    if (check_vec(v) || (v->n > 0 && !x)) return MIX_ERR_INVALID_ARG;
    double *ws = NULL;
    int st = vv ? workspace(s, &ws) : MIX_SUCCESS;
    if (!st) st = launched(mixi_cuda_vec_from64(s->stream, v->prec, v->n, x, scale, alpha, dvec(v), ws));
    if (!st && vv) {
        if (v->n == 0) *vv = 0.0;
        else st = fetch(s, 1, vv, NULL);
    }
    return st;
}

static int sp_vec_accum64(void *state, const mixi_svec *v, const double *scale, double alpha,
                          double *y)
{
    mixi_cuda_state *s = state;
    if (check_vec(v) || (v->n > 0 && !y)) return MIX_ERR_INVALID_ARG;
    return launched(mixi_cuda_vec_accum64(s->stream, v->prec, v->n, dvec(v), scale, alpha, y));
}

static int sp_vec_zero(void *state, mixi_svec *v)
{
    mixi_cuda_state *s = state;
    size_t vb, nb;
    if (check_vec(v) || mixi_svec_bytes(v->prec, v->n, &vb, &nb)) return MIX_ERR_INVALID_ARG;
    int st = mixi_cuda_status(cudaMemsetAsync(v->val, 0, vb, s->stream));
    if (!st && nb) st = mixi_cuda_status(cudaMemsetAsync(v->norm, 0, nb, s->stream));
    return st;
}

static int sp_spmv(void *state, const mixi_spmat *As, const mixi_svec *x, mixi_svec *y, double *xy)
{
    mixi_cuda_state *s = state;
    if (!As) return MIX_ERR_INVALID_ARG;
    int st = check_pair(x, y);
    if (st) return st;
    if (x->n != As->d.n) return MIX_ERR_INVALID_ARG;
    /* x, y in the matrix's precision, or FP32 over a 16-bit matrix (spmv_acc_vectors). */
    const int acc = x->prec != As->d.prec && As->d.prec != MIX_FP64 &&
                    x->prec == mixk_prec_acc(As->d.prec);
    if (x->prec != As->d.prec && !acc) return MIX_ERR_UNSUPPORTED;
    double *ws = NULL;
    if (xy && (st = workspace(s, &ws))) return st;
    st = acc ? launched(mixi_cuda_spmv_acc(s->stream, &As->d, x->val, y->val, ws))
             : launched(mixi_cuda_spmv(s->stream, &As->d, dvec(x), dvec(y), ws));
    if (st) return st;
    return xy ? fetch(s, 1, xy, NULL) : MIX_SUCCESS;
}

/* y = As^T x: FP64 atomics into the matrix's accumulators (one product at a time per matrix),
 * then rounded into y. */
static int sp_spmv_t(void *state, const mixi_spmat *As, const mixi_svec *x, mixi_svec *y)
{
    mixi_cuda_state *s = state;
    if (!As || check_vec(x) || check_vec(y) || x->n != As->d.n || y->n > x->n) return MIX_ERR_INVALID_ARG;
    const int x32 = x->prec != As->d.prec && As->d.prec != MIX_FP64 &&
                    x->prec == mixk_prec_acc(As->d.prec);
    if ((x->prec != As->d.prec && !x32) || y->prec != x->prec) return MIX_ERR_UNSUPPORTED;
    if (y->n == 0) return MIX_SUCCESS;
    mixi_spmat *W = (mixi_spmat *)As; /* scratch only: the matrix's values are not touched */
    if (W->tacc_len < y->n) {
        mixi_cuda_free(state, W->tacc);
        W->tacc = NULL, W->tacc_len = 0;
        const int st = dalloc(s, (void **)&W->tacc, (size_t)y->n * sizeof(double));
        if (st) return st;
        W->tacc_len = y->n;
    }
    int st = launched(mixi_cuda_spmv_t(s->stream, &As->d, dvec(x), x32, W->tacc, y->n));
    if (!st) st = launched(mixi_cuda_vec_from64(s->stream, y->prec, y->n, W->tacc, NULL, 1.0, dvec(y), NULL));
    return st;
}

/* The vectors of a tentative prolongator's transfer: T's precision, FP32 or FP64. */
static int tent_check(const mixi_tent *T, const mixi_svec *fine, const mixi_svec *coarse,
                      const mixi_svec *x)
{
    if (!T || check_vec(fine) || check_vec(coarse) || (x && check_vec(x)) || fine->n != T->n ||
        coarse->n != T->nc || (x && x->n != T->n))
        return MIX_ERR_INVALID_ARG;
    if ((T->prec != MIX_FP32 && T->prec != MIX_FP64) || fine->prec != T->prec ||
        coarse->prec != T->prec || (x && x->prec != T->prec))
        return MIX_ERR_UNSUPPORTED;
    return MIX_SUCCESS;
}

static int sp_tent_restrict(void *state, const mixi_tent *T, const mixi_svec *x, mixi_svec *y)
{
    mixi_cuda_state *s = state;
    const int st = tent_check(T, x, y, NULL);
    if (st) return st;
    return launched(mixi_cuda_tent_restrict(s->stream, T->prec == MIX_FP64, T->nc, T->start, T->rows,
                                            T->val, x->val, y->val));
}

static int sp_tent_prolong(void *state, const mixi_tent *T, const mixi_svec *y, mixi_svec *u,
                           mixi_svec *x)
{
    mixi_cuda_state *s = state;
    const int st = tent_check(T, u, y, x);
    if (st) return st;
    return launched(mixi_cuda_tent_prolong(s->stream, T->prec == MIX_FP64, T->n, T->nc, T->agg, T->row_val,
                                           y->val, u->val, x ? x->val : NULL));
}

static int sp_cg_update(void *state, double alpha, const mixi_svec *p, const mixi_svec *Ap,
                        mixi_svec *x, mixi_svec *r, double *rr, double *rr_dot_old)
{
    mixi_cuda_state *s = state;
    int st = check_pair(p, Ap);
    if (!st) st = check_pair(p, r);
    /* x is p's precision, or p's accumulator (FP32 for a 16-bit p: kernels/backend_sparse.h). */
    const int x32 = p && x && x->prec != p->prec && x->prec == mixk_prec_acc(p->prec);
    if (!st && !x32) st = check_pair(p, x);
    if (!st && x32 && (check_vec(x) || x->n != p->n)) st = MIX_ERR_INVALID_ARG;
    if (st) return st;
    if (!rr || !rr_dot_old) return MIX_ERR_INVALID_ARG;
    if (p->n == 0) {
        *rr = *rr_dot_old = 0.0;
        return MIX_SUCCESS;
    }
    double *ws;
    if ((st = workspace(s, &ws))) return st;
    if ((st = launched(mixi_cuda_cg_update(s->stream, p->prec, p->n, alpha, dvec(p), dvec(Ap),
                                           dvec(x), x32, dvec(r), ws))))
        return st;
    return fetch(s, 2, rr, rr_dot_old);
}

static int sp_axpby(void *state, double a, const mixi_svec *x, double b, mixi_svec *y)
{
    mixi_cuda_state *s = state;
    int st = check_pair(x, y);
    if (st) return st;
    return launched(mixi_cuda_axpby(s->stream, x->prec, x->n, a, dvec(x), b, dvec(y)));
}

/* y = a (As x) + b z in one pass (kernels/backend_sparse.h): vectors in the accumulator
 * precision, x not y (other rows read x while y is written); z may be x or y. */
static int sp_spmv_axpby(void *state, const mixi_spmat *As, const mixi_svec *x, double a,
                         const mixi_svec *z, double b, mixi_svec *y)
{
    mixi_cuda_state *s = state;
    if (!As || check_vec(x) || check_vec(z) || check_vec(y)) return MIX_ERR_INVALID_ARG;
    const mix_prec vp = mixk_prec_acc(As->d.prec);
    if (x->prec != vp || y->prec != vp || z->prec != vp || z->n != y->n) return MIX_ERR_UNSUPPORTED;
    if (x == y || (x->n > 0 && x->val == y->val)) return MIX_ERR_UNSUPPORTED;
    if (x->n != As->d.n || y->n != As->d.n) return MIX_ERR_INVALID_ARG;
    return launched(mixi_cuda_spmv_axpby(s->stream, &As->d, dvec(x), a, dvec(z), b, dvec(y)));
}

/* d = a r + b d, then x = d + c x (kernels/backend_sparse.h): r, d, x distinct, one precision. */
static int sp_cheb_update(void *state, double a, const mixi_svec *r, double b, mixi_svec *d,
                          double c, mixi_svec *x)
{
    mixi_cuda_state *s = state;
    if (check_vec(r) || check_vec(d) || check_vec(x)) return MIX_ERR_INVALID_ARG;
    if (d->prec != r->prec || x->prec != r->prec || d->n != r->n || x->n != r->n) return MIX_ERR_UNSUPPORTED;
    if (r == d || r == x || d == x || (r->n > 0 && (r->val == d->val || r->val == x->val || d->val == x->val)))
        return MIX_ERR_UNSUPPORTED;
    return launched(mixi_cuda_cheb_update(s->stream, r->prec, r->n, a, dvec(r), b, dvec(d), c, dvec(x)));
}

static int sp_dot(void *state, const mixi_svec *x, const mixi_svec *y, double *xy)
{
    mixi_cuda_state *s = state;
    int st = check_pair(x, y);
    if (st) return st;
    if (!xy) return MIX_ERR_INVALID_ARG;
    if (x->n == 0) {
        *xy = 0.0;
        return MIX_SUCCESS;
    }
    double *ws;
    if ((st = workspace(s, &ws))) return st;
    if ((st = launched(mixi_cuda_dot(s->stream, x->prec, x->n, dvec(x), dvec(y), ws)))) return st;
    return fetch(s, 1, xy, NULL);
}

const mixi_sparse_ops mixi_cuda_sparse_ops = {
    .csr_create = sp_create,
    .csr_convert = sp_convert,
    .csr_row_offmax = sp_row_offmax,
    .csr_convert_rows = sp_convert_rows,
    .csr_convert_rect = sp_convert_rect,
    .csr_destroy = sp_destroy,
    .csr_bytes = sp_csr_bytes,
    .csr_export = sp_csr_export,
    .diag_rsqrt = sp_diag_rsqrt,
    .residual64 = sp_residual64,
    .nrm2sq64 = sp_nrm2sq64,
    .vec_from64 = sp_vec_from64,
    .vec_accum64 = sp_vec_accum64,
    .vec_zero = sp_vec_zero,
    .spmv = sp_spmv,
    .spmv_t = sp_spmv_t,
    .tent_restrict = sp_tent_restrict,
    .tent_prolong = sp_tent_prolong,
    .spmv_axpby = sp_spmv_axpby,
    .cheb_update = sp_cheb_update,
    .cg_update = sp_cg_update,
    .axpby = sp_axpby,
    .dot = sp_dot,
    .spmv_acc_vectors = 1,
};

/* Test and benchmark hook: forces the threads per row of a matrix's SpMV (1, 2, 4, ..., 32). */
int mixi_cuda_spmat_set_lanes(mixi_spmat *A, int lanes)
{
    if (!A || lanes < 1 || lanes > 32 || (lanes & (lanes - 1))) return MIX_ERR_INVALID_ARG;
    A->d.lanes = lanes;
    return MIX_SUCCESS;
}

int mixi_cuda_spmat_lanes(const mixi_spmat *A)
{
    return A ? A->d.lanes : 0;
}
