/* bench_gpu_cg.c: GPU CG benchmark: reliable-update CG per storage precision vs plain FP64 CG on cusparseSpMV, and SpMV bandwidth vs a device-to-device copy, in one run. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <cusparse.h>
#define BENCH_GPU_NAME "bench_gpu_cg"
#include "bench/bench_gpu.h"
#include "solvers/cg/cg.h"
#include "kernels/cuda/cuda_sparse.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

/* Usage:
 *   bench_gpu_cg [-p N1,N2,...] [-t TOL] [-r REPS] [-d DIR] [-s P1,P2,...] [FILE.mtx[.gz] ...]
 * -p  3D Poisson grid sizes nx (n = nx^3), default 100,150,200,256,320,400; the list stops at
 *     the first size that does not fit the device (or the host); -p '' skips Poisson.
 * -t  target true relative residual ||b - A x||2 / ||b||2, default 1e-10.
 * -r  timed repetitions per method (best kept), default 3, after one untimed warm-up solve
 *     (which also makes and caches our sloppy matrix copy).
 * -d  directory of Matrix Market files when none are named (default the bundled set); only
 *     files with a symmetric real banner are taken, and a matrix on which FP64 CG breaks down is
 *     reported and skipped; -d '' scans nothing (Poisson only).
 * -s  our storage precisions (fp64,fp32,fp16,bf16,fixed16; default all five).
 * Poisson runs without preconditioner; Matrix Market matrices with Jacobi, for both methods
 * (the baseline solves D A D y = D b, x = D y, D = diag(A)^-1/2, as ours does).
 * b = A * ones-ish (random in [0.5, 1.5), fixed seed); x0 = 0.  Every answer's true residual is
 * recomputed here in FP64 with cuSPARSE on the unscaled A; a row counts ("ok") when it meets -t.
 * SpMV bandwidth: bytes the kernel must move (row pointers, column indices, values, row scales,
 * x and y once, FIXED16 block norms) per second, next to cudaMemcpy device-to-device (2 bytes
 * moved per byte copied) timed in the same run. */

#define MAXLIST 32
#define MAXFILES 256

#define CS(call)                                                                                   \
    do {                                                                                           \
        cusparseStatus_t s_ = (call);                                                              \
        if (s_ != CUSPARSE_STATUS_SUCCESS) die(#call, cusparseGetErrorString(s_));                 \
    } while (0)

/* Device memory, or NULL when it does not fit (the caller skips the matrix). */
static void *dmalloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static double *dput(const void *h, size_t bytes)
{
    void *p = dmalloc(bytes);
    if (p) CU(cudaMemcpy(p, h, bytes, cudaMemcpyHostToDevice));
    /* Landed before the non-blocking streams (ours, the library's) read it: a pageable
     * cudaMemcpy may return before its DMA ends, and they do not wait for the legacy stream. */
    if (p) CU(cudaDeviceSynchronize());
    return p;
}

typedef struct {
    cudaStream_t stream;
    cublasHandle_t blas;
    cusparseHandle_t sp;
} gpu;

/* A CSR for cuSPARSE: 32-bit row offsets and column indices (cuSPARSE's fastest setting). */
typedef struct {
    int n;
    int64_t nnz;
    int32_t *rowptr, *colind;
    double *val;
    cusparseSpMatDescr_t mat;
    void *buf;
    size_t buf_bytes;
} dcsr;

static void dcsr_free(dcsr *A)
{
    if (A->mat) cusparseDestroySpMat(A->mat);
    cudaFree(A->rowptr);
    cudaFree(A->colind);
    cudaFree(A->val);
    cudaFree(A->buf);
    memset(A, 0, sizeof *A);
}

/* Uploads A (values times d_i d_j when d is given); 0 when it does not fit. */
static int dcsr_make(gpu *g, const mixm_csr *H, const double *d, dcsr *A)
{
    memset(A, 0, sizeof *A);
    A->n = H->nrows;
    A->nnz = H->nnz;
    if (H->nnz > INT32_MAX) return 0;
    int32_t *rp = malloc(((size_t)H->nrows + 1) * sizeof *rp);
    double *v = d ? malloc((size_t)H->nnz * sizeof *v) : NULL;
    if (!rp || (d && !v)) die("host memory", NULL);
    for (int i = 0; i <= H->nrows; i++) rp[i] = (int32_t)H->rowptr[i];
    if (d)
        for (int i = 0; i < H->nrows; i++)
            for (int64_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++)
                v[k] = d[i] * H->val[k] * d[H->colind[k]];
    A->rowptr = (int32_t *)dput(rp, ((size_t)H->nrows + 1) * sizeof *rp);
    A->colind = (int32_t *)dput(H->colind, (size_t)H->nnz * sizeof(int32_t));
    A->val = dput(d ? v : H->val, (size_t)H->nnz * sizeof(double));
    free(rp);
    free(v);
    if (!A->rowptr || !A->colind || !A->val) {
        dcsr_free(A);
        return 0;
    }
    CS(cusparseCreateCsr(&A->mat, A->n, A->n, A->nnz, A->rowptr, A->colind, A->val,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_64F));
    (void)g;
    return 1;
}

/* y = alpha A x + beta y with cusparseSpMV (buffer made on first use). */
static void spmv(gpu *g, dcsr *A, double alpha, const double *x, double beta, double *y)
{
    cusparseDnVecDescr_t vx, vy;
    CS(cusparseCreateDnVec(&vx, A->n, (void *)x, CUDA_R_64F));
    CS(cusparseCreateDnVec(&vy, A->n, y, CUDA_R_64F));
    size_t need = 0;
    CS(cusparseSpMV_bufferSize(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A->mat, vx, &beta,
                               vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &need));
    if (need > A->buf_bytes) {
        cudaFree(A->buf);
        A->buf = dmalloc(need);
        if (!A->buf) die("cusparseSpMV buffer", "out of device memory");
        A->buf_bytes = need;
    }
    CS(cusparseSpMV(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A->mat, vx, &beta, vy,
                    CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, A->buf));
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
}

/* ||b - A x||2 / ||b||2 in FP64 (A unscaled); w is scratch. */
static double true_rel(gpu *g, dcsr *A, const double *b, const double *x, double *w)
{
    double rn, bn;
    CU(cudaMemcpyAsync(w, b, (size_t)A->n * sizeof(double), cudaMemcpyDeviceToDevice, g->stream));
    spmv(g, A, -1.0, x, 1.0, w);
    CB(cublasDnrm2(g->blas, A->n, w, 1, &rn));
    CB(cublasDnrm2(g->blas, A->n, b, 1, &bn));
    return rn / bn;
}

/* The baseline: textbook FP64 CG on As = D A D (D NULL: As = A) with cusparseSpMV and cuBLAS,
 * x = D y.  It stops when the true residual of A meets tol: the recursive residual is only the
 * trigger for a true check, and the trigger is tightened when the check fails. */
typedef struct {
    int iter, ok;
    double rel, seconds;
} run;

static run cg_fp64(gpu *g, dcsr *As, dcsr *A, const double *dd, const double *b, double tol,
                   int max_iter, double *x, double *const w[5])
{
    const int n = A->n;
    double *y = w[0], *r = w[1], *p = w[2], *ap = w[3], *bs = w[4];
    run out = {0, 0, INFINITY, 0.0};
    double t0 = mixi_wtime();
    /* bs = D b, y = 0, r = p = bs */
    if (dd) CB(cublasDdgmm(g->blas, CUBLAS_SIDE_LEFT, n, 1, b, n, dd, 1, bs, n));
    else CU(cudaMemcpyAsync(bs, b, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, g->stream));
    CU(cudaMemsetAsync(y, 0, (size_t)n * sizeof(double), g->stream));
    CU(cudaMemcpyAsync(r, bs, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, g->stream));
    CU(cudaMemcpyAsync(p, bs, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, g->stream));
    double rr, bsn, one = 1.0;
    CB(cublasDdot(g->blas, n, r, 1, r, 1, &rr));
    bsn = sqrt(rr);
    double trigger = tol * bsn;
    int it;
    for (it = 1; it <= max_iter; it++) {
        double pap, alpha, nalpha, rr_new, beta;
        spmv(g, As, 1.0, p, 0.0, ap);
        CB(cublasDdot(g->blas, n, p, 1, ap, 1, &pap));
        if (!(pap > 0.0)) break;
        alpha = rr / pap;
        nalpha = -alpha;
        CB(cublasDaxpy(g->blas, n, &alpha, p, 1, y, 1));
        CB(cublasDaxpy(g->blas, n, &nalpha, ap, 1, r, 1));
        CB(cublasDdot(g->blas, n, r, 1, r, 1, &rr_new));
        if (sqrt(rr_new) <= trigger) {
            if (dd) CB(cublasDdgmm(g->blas, CUBLAS_SIDE_LEFT, n, 1, y, n, dd, 1, x, n));
            else CU(cudaMemcpyAsync(x, y, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, g->stream));
            out.rel = true_rel(g, A, b, x, ap);
            if (out.rel <= tol) break;
            trigger *= fmax(0.01, 0.5 * tol / out.rel); /* (ap served as scratch: not needed) */
        }
        beta = rr_new / rr;
        rr = rr_new;
        CB(cublasDscal(g->blas, n, &beta, p, 1));
        CB(cublasDaxpy(g->blas, n, &one, r, 1, p, 1));
    }
    CU(cudaStreamSynchronize(g->stream));
    out.seconds = mixi_wtime() - t0;
    out.iter = it > max_iter ? max_iter : it;
    if (dd) CB(cublasDdgmm(g->blas, CUBLAS_SIDE_LEFT, n, 1, y, n, dd, 1, x, n));
    else CU(cudaMemcpyAsync(x, y, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, g->stream));
    out.rel = true_rel(g, A, b, x, ap);
    out.ok = out.rel <= tol;
    return out;
}

/* Device-to-device copy bandwidth, bytes read + written per second. */
static double copy_bw(gpu *g, size_t bytes, int reps)
{
    void *a = dmalloc(bytes), *b = dmalloc(bytes);
    if (!a || !b) {
        cudaFree(a);
        cudaFree(b);
        return NAN;
    }
    CU(cudaMemsetAsync(a, 1, bytes, g->stream));
    double best = INFINITY;
    for (int r = 0; r <= reps; r++) {
        CU(cudaStreamSynchronize(g->stream));
        double t = mixi_wtime();
        for (int k = 0; k < 10; k++)
            CU(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g->stream));
        CU(cudaStreamSynchronize(g->stream));
        t = (mixi_wtime() - t) / 10;
        if (r > 0 && t < best) best = t;
    }
    cudaFree(a);
    cudaFree(b);
    return 2.0 * (double)bytes / best;
}

static size_t elem_bytes(mix_prec p)
{
    return p == MIX_FP64 ? 8 : p == MIX_FP32 ? 4 : 2;
}

/* Compulsory traffic of one of our SpMVs (64-bit row pointers, 32-bit column indices). */
static double spmv_bytes(mix_prec p, int n, int64_t nnz)
{
    double e = (double)elem_bytes(p);
    double b = 8.0 * (n + 1) + (4.0 + e) * (double)nnz + 2.0 * e * n;
    if (p == MIX_FIXED16) b += 4.0 * n + 2.0 * 4.0 * ceil(n / 32.0);
    return b;
}

/* Our SpMV through the operations table, seconds per call (best of reps x 20 calls). */
static double our_spmv_time(mix_context *ctx, mix_sparse *S, mix_prec p, int jacobi, int reps)
{
    const mixi_spmat *As;
    const double *sc;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    if (mixi_sparse_sloppy(S, p, jacobi, &As, &sc)) return NAN;
    mixi_svec x = {p, S->n, NULL, NULL}, y = {p, S->n, NULL, NULL};
    size_t vb, nb;
    double best = INFINITY;
    double *h = malloc((size_t)S->n * sizeof *h), *d = NULL;
    if (!h) die("host memory", NULL);
    for (int i = 0; i < S->n; i++) h[i] = 0.5 + (double)((i * 7919) % 1000) / 1000.0;
    if (mixi_svec_bytes(p, S->n, &vb, &nb)) goto out;
    if (!(x.val = dmalloc(vb)) || !(y.val = dmalloc(vb)) || !(d = dput(h, (size_t)S->n * sizeof *h)))
        goto out;
    if (nb && (!(x.norm = dmalloc(nb)) || !(y.norm = dmalloc(nb)))) goto out;
    if (sp->vec_from64(ctx->state, d, NULL, 1.0, &x, NULL)) goto out;
    for (int r = 0; r <= reps; r++) {
        ctx->ops->synchronize(ctx->state);
        double t = mixi_wtime();
        for (int k = 0; k < 20; k++) sp->spmv(ctx->state, As, &x, &y, NULL);
        ctx->ops->synchronize(ctx->state);
        t = (mixi_wtime() - t) / 20;
        if (r > 0 && t < best) best = t;
    }
out:
    cudaFree(x.val);
    cudaFree(y.val);
    cudaFree(x.norm);
    cudaFree(y.norm);
    cudaFree(d);
    free(h);
    return best;
}

static double cusparse_spmv_time(gpu *g, dcsr *A, const double *x, double *y, int reps)
{
    double best = INFINITY;
    for (int r = 0; r <= reps; r++) {
        CU(cudaStreamSynchronize(g->stream));
        double t = mixi_wtime();
        for (int k = 0; k < 20; k++) spmv(g, A, 1.0, x, 0.0, y);
        CU(cudaStreamSynchronize(g->stream));
        t = (mixi_wtime() - t) / 20;
        if (r > 0 && t < best) best = t;
    }
    return best;
}

/* The SpMV table, printed after the CG table. */
static char spmv_table[1 << 16];
static size_t spmv_used;

static void spmv_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(spmv_table + spmv_used, sizeof spmv_table - spmv_used, fmt, ap);
    va_end(ap);
    if (k > 0 && spmv_used + (size_t)k < sizeof spmv_table) spmv_used += (size_t)k;
}

/* Our storage precisions to run (-s), in this order. */
static const mix_prec all_precs[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};
#define NALL ((int)(sizeof all_precs / sizeof all_precs[0]))
static mix_prec precs[NALL] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};
static int nprec = NALL;

/* -s fp64,fixed16,...: the precisions, each once, in all_precs order. */
static void parse_precs(const char *s)
{
    int want[NALL] = {0};
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = -1;
        for (int k = 0; k < NALL; k++)
            if (strlen(mix_prec_name(all_precs[k])) == len &&
                !strncmp(s, mix_prec_name(all_precs[k]), len))
                found = k;
        if (found < 0) die("unknown storage precision", s);
        want[found] = 1;
        s += len;
        if (*s == ',') s++;
    }
    nprec = 0;
    for (int k = 0; k < NALL; k++)
        if (want[k]) precs[nprec++] = all_precs[k];
}

/* Runs everything on one matrix; returns 0 when it did not fit. */
static int bench_matrix(gpu *g, mix_context *ctx, const char *name, const mixm_csr *H, int jacobi,
                        double tol, int reps, double copy_gbs, size_t l2)
{
    const int n = H->nrows;
    int fits = 0;
    double *dd = NULL, *db = NULL, *dx = NULL, *w[5] = {NULL, NULL, NULL, NULL, NULL};
    dcsr A, As;
    memset(&A, 0, sizeof A);
    memset(&As, 0, sizeof As);
    mix_sparse *S = NULL;
    double *hd = NULL, *hb = malloc((size_t)n * sizeof *hb);
    if (!hb) die("host memory", NULL);
    mixm_rng rng;
    mixm_rng_seed(&rng, 2024);
    for (int i = 0; i < n; i++) hb[i] = 0.5 + mixm_rng_uniform(&rng);
    if (jacobi) {
        hd = malloc((size_t)n * sizeof *hd);
        if (!hd) die("host memory", NULL);
        for (int i = 0; i < n; i++) {
            double a = 0.0;
            for (int64_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++)
                if (H->colind[k] == i) a = H->val[k];
            if (!(a > 0.0)) {
                printf("| %s | %d | %lld | - | skipped: diagonal entry <= 0 (not SPD) |\n", name, n,
                       (long long)H->nnz);
                goto out;
            }
            hd[i] = 1.0 / sqrt(a);
        }
    }
    if (!dcsr_make(g, H, NULL, &A)) goto out;
    if (jacobi && !dcsr_make(g, H, hd, &As)) goto out;
    if (!(db = dput(hb, (size_t)n * sizeof *hb)) || !(dx = dmalloc((size_t)n * sizeof(double))))
        goto out;
    if (jacobi && !(dd = dput(hd, (size_t)n * sizeof *hd))) goto out;
    for (int k = 0; k < 5; k++)
        if (!(w[k] = dmalloc((size_t)n * sizeof(double)))) goto out;
    if (mix_sparse_create_csr(ctx, n, H->rowptr, H->colind, H->val, &S)) goto out;
    fits = 1;

    const int max_iter = n > 100 ? 10 * n : 1000;
    const double a64_bytes = 12.0 * (double)H->nnz + 8.0 * (n + 1);
    const char *l2s = a64_bytes > (double)l2 ? "> L2" : "in L2";
    /* FP64 cuSPARSE CG, best of reps after a warm-up. */
    run base = {0, 0, INFINITY, INFINITY};
    for (int r = 0; r <= reps; r++) {
        run t = cg_fp64(g, jacobi ? &As : &A, &A, dd, db, tol, max_iter, dx, w);
        if (r == 0 || t.seconds < base.seconds) base = t;
        if (!t.ok && r == 0) break; /* no point timing a failure again */
    }
    printf("| %s | %d | %lld | %s | FP64 CG (cusparseSpMV) | %d | - | %.2e | %s | %.4f | 1.00 |\n",
           name, n, (long long)H->nnz, l2s, base.iter, base.rel, base.ok ? "ok" : "FAIL",
           base.seconds);
    fflush(stdout);
    for (int k = 0; k < nprec; k++) {
        mix_cg_params prm;
        mix_cg_params_init(&prm);
        prm.sloppy_prec = precs[k];
        prm.tol = tol;
        prm.precond = jacobi ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
        mix_cg_info info;
        double best = INFINITY;
        int st = 0;
        for (int r = 0; r <= reps; r++) {
            CU(cudaDeviceSynchronize());
            double t = mixi_wtime();
            st = mix_dcg_gpu(ctx, &prm, S, db, dx, &info);
            ctx->ops->synchronize(ctx->state);
            t = mixi_wtime() - t;
            if (r > 0 && t < best) best = t;
            if (st && st != MIX_ERR_NOT_CONVERGED) break;
        }
        double rel = true_rel(g, &A, db, dx, w[0]);
        printf("| %s | %d | %lld | %s | ours %s | %d | %d | %.2e | %s | %.4f | %.2f |%s%s\n", name,
               n, (long long)H->nnz, l2s, mix_prec_name(precs[k]), info.iter,
               info.reliable_updates, rel, rel <= tol ? "ok" : "FAIL", best,
               base.seconds / best, st ? " " : "", st ? mix_strerror(st) : "");
        fflush(stdout);
    }
    /* SpMV bandwidth, ours per format and cuSPARSE FP64, next to the copy. */
    double tc = cusparse_spmv_time(g, jacobi ? &As : &A, w[0], w[1], reps);
    double bc = (8.0 * (double)H->nnz + 4.0 * (double)H->nnz + 4.0 * (n + 1) + 16.0 * n) / tc;
    spmv_line("| %s | %s | cuSPARSE fp64 | %.2f | %.1f | %.0f%% |\n", name, l2s, tc * 1e3, bc / 1e9,
              100.0 * bc / copy_gbs);
    for (int k = 0; k < nprec; k++) {
        double t = our_spmv_time(ctx, S, precs[k], jacobi, reps);
        double bw = spmv_bytes(precs[k], n, H->nnz) / t;
        spmv_line("| %s | %s | ours %s (%d lanes/row) | %.2f | %.1f | %.0f%% |\n", name, l2s,
                  mix_prec_name(precs[k]), mixi_cuda_spmat_lanes(S->a64), t * 1e3, bw / 1e9,
                  100.0 * bw / copy_gbs);
    }
out:
    if (!fits) printf("| %s | %d | %lld | - | skipped: does not fit the device |\n", name, n, (long long)H->nnz);
    mix_sparse_destroy(S);
    dcsr_free(&A);
    dcsr_free(&As);
    cudaFree(dd);
    cudaFree(db);
    cudaFree(dx);
    for (int k = 0; k < 5; k++) cudaFree(w[k]);
    free(hb);
    free(hd);
    return fits;
}

static int parse_list(const char *s, int *out)
{
    int k = 0;
    while (*s && k < MAXLIST) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0 || v > 2000) die("bad size list", s);
        out[k++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') die("bad size list", s);
    }
    return k;
}

static int ends_with(const char *s, const char *t)
{
    size_t a = strlen(s), b = strlen(t);
    return a >= b && !strcmp(s + a - b, t);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int sizes[MAXLIST] = {100, 150, 200, 256, 320, 400}, nsizes = 6, reps = 3, nfiles = 0;
    double tol = 1e-10;
    const char *dir = MIXB_MATRIX_DIR;
    char *files[MAXFILES];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-p") && i + 1 < argc) nsizes = parse_list(argv[++i], sizes);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) tol = atof(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) parse_precs(argv[++i]);
        else if (argv[i][0] == '-') die("usage", "bench_gpu_cg [-p N1,N2,...] [-t TOL] [-r REPS] [-d DIR] [-s P1,P2,...] [FILE.mtx ...]");
        else if (nfiles < MAXFILES) files[nfiles++] = argv[i];
    }
    if (!(tol > 0.0) || reps < 1) die("usage", "-t must be > 0 and -r >= 1");
    int scanned = 0;
    if (nfiles == 0) { /* the bundled set: symmetric real Matrix Market files */
        DIR *dp = opendir(dir);
        struct dirent *e;
        while (dp && (e = readdir(dp)) && nfiles < MAXFILES) {
            if (!ends_with(e->d_name, ".mtx") && !ends_with(e->d_name, ".mtx.gz")) continue;
            size_t len = strlen(dir) + strlen(e->d_name) + 2;
            char *path = malloc(len);
            if (!path) die("host memory", NULL);
            snprintf(path, len, "%s/%s", dir, e->d_name);
            mixm_mtx_header h;
            if (!mixm_mtx_read_header(path, &h, NULL, 0) && h.symmetry == MIXM_MTX_SYMMETRIC &&
                h.field != MIXM_MTX_PATTERN && h.format == MIXM_MTX_COORDINATE && h.nrows == h.ncols)
                files[nfiles++] = path;
            else
                free(path);
        }
        if (dp) closedir(dp);
        qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
        scanned = 1;
    }

    mix_context *ctx = NULL;
    int st = mix_context_create(&ctx, MIX_BACKEND_CUDA);
    if (st) die("no CUDA context", mix_strerror(st));
    gpu g;
    CU(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    CB(cublasCreate(&g.blas));
    CB(cublasSetStream(g.blas, g.stream));
    CS(cusparseCreate(&g.sp));
    CS(cusparseSetStream(g.sp, g.stream));
    struct cudaDeviceProp prop;
    int dev = 0;
    CU(cudaGetDevice(&dev));
    CU(cudaGetDeviceProperties(&prop, dev));
    double copy = copy_bw(&g, (size_t)1 << 30, reps);
    if (!(copy > 0.0)) copy = copy_bw(&g, (size_t)1 << 27, reps);
    printf("# GPU CG: %s (%d SMs, L2 %.0f MiB), device-to-device copy %.1f GB/s, tol %.1e, best of %d\n\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1048576.0, copy / 1e9, tol, reps);
    printf("| matrix | n | nnz | FP64 CSR vs L2 | method | iterations | reliable updates | true rel. residual | | seconds | speedup vs FP64 CG |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < nsizes; k++) {
        mixm_csr H;
        char name[64];
        snprintf(name, sizeof name, "poisson3d %d^3", sizes[k]);
        fprintf(stderr, "bench_gpu_cg: %s\n", name);
        if (mixm_gen_poisson3d(sizes[k], &H)) {
            printf("| %s | - | - | - | skipped: does not fit the host |\n", name);
            break;
        }
        int fit = bench_matrix(&g, ctx, name, &H, 0, tol, reps, copy, (size_t)prop.l2CacheSize);
        mixm_csr_free(&H);
        if (!fit) break; /* larger ones will not fit either */
    }
    for (int k = 0; k < nfiles; k++) {
        mixm_csr H;
        char err[256];
        const char *base = strrchr(files[k], '/');
        base = base ? base + 1 : files[k];
        fprintf(stderr, "bench_gpu_cg: %s\n", base);
        if (mixm_mtx_read(files[k], &H, NULL, err, sizeof err)) {
            printf("| %s | - | - | - | skipped: %s |\n", base, err);
            continue;
        }
        if (H.nrows == H.ncols && mixm_csr_is_symmetric(&H))
            bench_matrix(&g, ctx, base, &H, 1, tol, reps, copy, (size_t)prop.l2CacheSize);
        else
            printf("| %s | %d | %lld | - | skipped: not symmetric |\n", base, H.nrows, (long long)H.nnz);
        mixm_csr_free(&H);
    }
    printf("\nSpMV: bytes that must move (matrix, x and y once) per second; copy = %.1f GB/s.\n\n",
           copy / 1e9);
    printf("| matrix | FP64 CSR vs L2 | kernel | ms | GB/s | of copy |\n|---|---|---|---|---|---|\n%s",
           spmv_table);
    if (scanned)
        for (int k = 0; k < nfiles; k++) free(files[k]);
    cusparseDestroy(g.sp);
    cublasDestroy(g.blas);
    cudaStreamDestroy(g.stream);
    mix_context_destroy(ctx);
    return 0;
}
