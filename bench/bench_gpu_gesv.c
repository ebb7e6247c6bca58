/* bench_gpu_gesv.c: GPU dense benchmark: time to FP64 accuracy, ours vs cuSOLVER FP64 LU and cuSOLVER IRS. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#define BENCH_GPU_NAME "bench_gpu_gesv"
#include "bench/bench_gpu.h"
#include "mixsolve.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"
#include "solvers/dense/lu_profile.h"

/* Usage:
 *   bench_gpu_gesv [-n N1,N2,...] [-k K1,K2,...] [-g auto|host|device] [-r REPS] [-c FILE.csv]
 *                  [-m P1,P2,...] [-i P1,P2,...] [-R classical,gmres] [FILE.mtx[.gz] ...]
 * -m  our factor precisions (fp16,bf16,tf32,fp32,auto; default all five);
 * -i  cuSOLVER IRS lowest precisions (fp16,bf16,tf32,fp32; default all four; '' none);
 * -R  cuSOLVER IRS refinement solvers (classical,gmres; default both).
 * Each of our rows is also compared with the fastest "ok" cuSOLVER IRS row of the precision its
 * factors used (vs_irs; AUTO: the precision it picked).
 * Matrix Market files (square, real) are solved as dense matrices after the randsvd sizes; -n ''
 * skips the randsvd sizes.  Defaults: n = 4096,8192,16384,32768 (sizes that do not fit the device
 * are skipped),
 * kappa = 1e2,1e4,1e6, reps = 3 (best time kept), generator auto (host randsvd up to n = 8192).
 * Every method solves the same A x = b (nrhs = 1) from the same device copy of A; each result's
 * normwise backward error ||b - A x||inf / (||A||inf ||x||inf + ||b||inf) is computed in FP64 on
 * the device against the untouched A and must be <= sqrt(n) eps for the row to count ("ok").
 * Environment: MIXSOLVE_LU_PROFILE=1 adds a '# profile' line after each of our rows (profile_ours);
 * MIXSOLVE_LU_NB sets the library's LU block size (mix_dgesv_ir(3)). */

#define MAXLIST 32
#define CHUNK_COLS 256

#define CS(call)                                                                                   \
    do {                                                                                           \
        if ((call) != CUSOLVER_STATUS_SUCCESS) die(#call, "cuSOLVER call failed");                 \
    } while (0)

/* cuSOLVER IRS lowest precisions, in the order the rows are printed. */
static const struct {
    cusolverPrecType_t p;
    const char *name;
    mix_prec ours; /* the same rounding of the GEMM inputs in our precisions */
} irs_lows[] = {{CUSOLVER_R_16F, "fp16", MIX_FP16}, {CUSOLVER_R_16BF, "bf16", MIX_BF16},
                {CUSOLVER_R_TF32, "tf32", MIX_TF32}, {CUSOLVER_R_32F, "fp32", MIX_FP32}};
#define NLOWS ((int)(sizeof irs_lows / sizeof irs_lows[0]))

/* Which rows to run (-m, -i, -R). */
typedef struct {
    mix_prec ours[MAXLIST];
    int nours;
    int lows[NLOWS]; /* indices into irs_lows */
    int nlows;
    int classical, gmres;
} methods;

static int parse_list(const char *s, double *out)
{
    int k = 0;
    if (!*s) return 0;
    char *end;
    while (*s && k < MAXLIST) {
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno || !(v > 0)) die("bad number list", s);
        out[k++] = v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') die("bad number list", end);
    }
    return k;
}

/* A comma-separated list of names out of `names` (nnames of them): their indices, in order. */
static int parse_names(const char *s, const char *const *names, int nnames, int *out, int max)
{
    int k = 0;
    while (*s && k < max) {
        size_t len = strcspn(s, ",");
        int found = -1;
        for (int i = 0; i < nnames; i++)
            if (strlen(names[i]) == len && !strncmp(s, names[i], len)) found = i;
        if (found < 0) die("unknown name in list", s);
        out[k++] = found;
        s += len;
        if (*s == ',') s++;
    }
    return k;
}

typedef struct {
    cudaStream_t stream;
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    int n;
    double *d_a0;   /* the matrix, never modified after generation */
    double *d_a;    /* working copy each method may overwrite */
    double *d_b, *d_x, *d_r;
    int *d_ipiv, *d_info;
    double norm_a;  /* ||A||inf */
    double norm_b;  /* ||b||inf */
    FILE *csv;
    double t_dgetrf; /* reference time of the current matrix, for the speed-up column */
    double t_irs[MIX_NUM_PREC]; /* fastest "ok" IRS time per lowest precision (0: none) */
    const char *label;
    double kappa;
} bench;

/* Row sums of |A| through column chunks copied to the host: ||A||inf. */
static double device_norm_inf(bench *B)
{
    int n = B->n;
    double *rows = calloc((size_t)n, sizeof *rows);
    double *buf = malloc((size_t)n * CHUNK_COLS * sizeof *buf);
    if (!rows || !buf) die("out of host memory", NULL);
    for (int j0 = 0; j0 < n; j0 += CHUNK_COLS) {
        int nc = n - j0 < CHUNK_COLS ? n - j0 : CHUNK_COLS;
        CU(cudaMemcpy(buf, B->d_a0 + (size_t)j0 * n, (size_t)nc * n * sizeof *buf,
                      cudaMemcpyDeviceToHost));
        for (int j = 0; j < nc; j++)
            for (int i = 0; i < n; i++) rows[i] += fabs(buf[(size_t)j * n + i]);
    }
    double m = 0;
    for (int i = 0; i < n; i++) m = rows[i] > m ? rows[i] : m;
    free(rows);
    free(buf);
    return m;
}

static double host_vec_norm_inf(const double *d_v, int n)
{
    double *h = malloc((size_t)n * sizeof *h);
    if (!h) die("out of host memory", NULL);
    CU(cudaMemcpy(h, d_v, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
    double m = 0;
    for (int i = 0; i < n; i++) {
        double v = fabs(h[i]);
        if (v != v) m = v; /* NaN propagates into the backward error */
        else if (v > m) m = v;
    }
    free(h);
    return m;
}

/* ||b - A x||inf / (||A||inf ||x||inf + ||b||inf) with the original A, in FP64, on the device
 * (libmixmat's mixm_dense_backward_error would need A, n^2 doubles, downloaded per solve). */
static double backward_error(bench *B)
{
    const double one = 1.0, minus_one = -1.0;
    CU(cudaMemcpyAsync(B->d_r, B->d_b, (size_t)B->n * sizeof(double), cudaMemcpyDeviceToDevice,
                       B->stream));
    CB(cublasDgemv(B->blas, CUBLAS_OP_N, B->n, B->n, &minus_one, B->d_a0, B->n, B->d_x, 1, &one,
                   B->d_r, 1));
    CU(cudaStreamSynchronize(B->stream));
    double nr = host_vec_norm_inf(B->d_r, B->n), nx = host_vec_norm_inf(B->d_x, B->n);
    return nr / (B->norm_a * nx + B->norm_b);
}

/* Haar-like random orthogonal factor: Q of the QR of a uniform random matrix, built on the device. */
static void device_orthogonal(bench *B, uint64_t seed, double *d_q, double *d_tau)
{
    int n = B->n;
    double *buf = malloc((size_t)n * CHUNK_COLS * sizeof *buf);
    if (!buf) die("out of host memory", NULL);
    mixm_rng rng;
    mixm_rng_seed(&rng, seed);
    for (int j0 = 0; j0 < n; j0 += CHUNK_COLS) {
        int nc = n - j0 < CHUNK_COLS ? n - j0 : CHUNK_COLS;
        for (size_t k = 0; k < (size_t)nc * n; k++) buf[k] = 2.0 * mixm_rng_uniform(&rng) - 1.0;
        CU(cudaMemcpy(d_q + (size_t)j0 * n, buf, (size_t)nc * n * sizeof *buf, cudaMemcpyHostToDevice));
    }
    free(buf);
    /* A pageable cudaMemcpy may return before its DMA lands, and B->stream (non-blocking) does
     * not wait for the legacy stream: the QR below could read the last chunk unwritten. */
    CU(cudaDeviceSynchronize());
    int lw1 = 0, lw2 = 0;
    CS(cusolverDnDgeqrf_bufferSize(B->solver, n, n, d_q, n, &lw1));
    CS(cusolverDnDorgqr_bufferSize(B->solver, n, n, n, d_q, n, d_tau, &lw2));
    int lw = lw1 > lw2 ? lw1 : lw2;
    double *d_work;
    CU(cudaMalloc((void **)&d_work, (size_t)lw * sizeof(double)));
    CS(cusolverDnDgeqrf(B->solver, n, n, d_q, n, d_tau, d_work, lw, B->d_info));
    CS(cusolverDnDorgqr(B->solver, n, n, n, d_q, n, d_tau, d_work, lw, B->d_info));
    CU(cudaStreamSynchronize(B->stream));
    CU(cudaFree(d_work));
}

/* randsvd, geometric singular values (mode 3): A = U diag(sigma) V^T, cond_2(A) = kappa.
 * On the device, the orthogonal factors come from QR of uniform random matrices (not exactly Haar,
 * the condition number is exact); on the host, mixm_gen_randsvd. */
static void generate(bench *B, double kappa, int on_device, uint64_t seed)
{
    int n = B->n;
    size_t bytes = (size_t)n * n * sizeof(double);
    if (!on_device) {
        double *a = malloc(bytes);
        if (!a) die("out of host memory", NULL);
        int st = mixm_gen_randsvd(n, kappa, 3, seed, a);
        if (st) die("mixm_gen_randsvd", mix_strerror(st));
        CU(cudaMemcpy(B->d_a0, a, bytes, cudaMemcpyHostToDevice));
        free(a);
        return;
    }
    double *d_u = B->d_a0, *d_v = B->d_a, *d_w, *d_tau, *d_sigma;
    CU(cudaMalloc((void **)&d_w, bytes));
    CU(cudaMalloc((void **)&d_tau, (size_t)n * sizeof(double)));
    CU(cudaMalloc((void **)&d_sigma, (size_t)n * sizeof(double)));
    double *sigma = malloc((size_t)n * sizeof *sigma);
    if (!sigma) die("out of host memory", NULL);
    for (int i = 0; i < n; i++) sigma[i] = n > 1 ? pow(kappa, -(double)i / (double)(n - 1)) : 1.0;
    CU(cudaMemcpy(d_sigma, sigma, (size_t)n * sizeof *sigma, cudaMemcpyHostToDevice));
    free(sigma);
    device_orthogonal(B, seed, d_w, d_tau);      /* U in w */
    device_orthogonal(B, seed ^ 0x5bd1e995u, d_v, d_tau);
    CB(cublasDdgmm(B->blas, CUBLAS_SIDE_RIGHT, n, n, d_w, n, d_sigma, 1, d_u, n)); /* U diag(sigma) */
    CU(cudaMemcpyAsync(d_w, d_u, bytes, cudaMemcpyDeviceToDevice, B->stream));
    const double one = 1.0, zero = 0.0;
    CB(cublasDgemm(B->blas, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, d_w, n, d_v, n, &zero, d_u, n));
    CU(cudaStreamSynchronize(B->stream));
    CU(cudaFree(d_w));
    CU(cudaFree(d_tau));
    CU(cudaFree(d_sigma));
}

/* One row; t_irs > 0: the matching cuSOLVER IRS time for the vs_irs column.  Returns "ok". */
static int report(bench *B, const char *method, double t, int iters, double berr, double t_irs,
                  const char *note)
{
    double tol = sqrt((double)B->n) * 0x1p-52;
    int ok = berr <= tol;
    double speedup = t > 0 && B->t_dgetrf > 0 ? B->t_dgetrf / t : 0;
    double vs_irs = t > 0 && t_irs > 0 ? t_irs / t : 0;
    char irs_col[16] = "      -";
    if (vs_irs > 0) snprintf(irs_col, sizeof irs_col, "%6.2fx", vs_irs);
    printf("%-10s %6d %8.0e  %-22s %9.4f %6d %10.2e %-3s %6.2fx %s  %s\n", B->label, B->n, B->kappa,
           method, t, iters, berr, ok ? "ok" : "NO", speedup, irs_col, note ? note : "");
    fflush(stdout);
    if (B->csv) {
        fprintf(B->csv, "%s,%d,%g,%s,%.6f,%d,%.3e,%d,%.3f,%.3f\n", B->label, B->n, B->kappa, method,
                t, iters, berr, ok, speedup, vs_irs);
        fflush(B->csv); /* a run stopped by a timeout keeps its rows */
    }
    return ok;
}

static void reset_working_copy(bench *B)
{
    size_t bytes = (size_t)B->n * B->n * sizeof(double);
    CU(cudaMemcpyAsync(B->d_a, B->d_a0, bytes, cudaMemcpyDeviceToDevice, B->stream));
    CU(cudaMemsetAsync(B->d_x, 0, (size_t)B->n * sizeof(double), B->stream));
    CU(cudaStreamSynchronize(B->stream));
}

/* cuSOLVER FP64 LU: dgetrf + dgetrs (x overwrites a copy of b). */
static void run_dgetrf(bench *B, int reps)
{
    int n = B->n, lw = 0;
    CS(cusolverDnDgetrf_bufferSize(B->solver, n, n, B->d_a, n, &lw));
    double *d_work;
    CU(cudaMalloc((void **)&d_work, (size_t)lw * sizeof(double)));
    double best = INFINITY;
    int info = 0;
    for (int r = 0; r <= reps; r++) { /* r = 0 warms up */
        reset_working_copy(B);
        CU(cudaMemcpyAsync(B->d_x, B->d_b, (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice,
                           B->stream));
        CU(cudaStreamSynchronize(B->stream));
        double t0 = mixm_wtime();
        CS(cusolverDnDgetrf(B->solver, n, n, B->d_a, n, d_work, B->d_ipiv, B->d_info));
        CS(cusolverDnDgetrs(B->solver, CUBLAS_OP_N, n, 1, B->d_a, n, B->d_ipiv, B->d_x, n,
                            B->d_info));
        CU(cudaStreamSynchronize(B->stream));
        double t = mixm_wtime() - t0;
        if (r > 0 && t < best) best = t;
    }
    CU(cudaMemcpy(&info, B->d_info, sizeof info, cudaMemcpyDeviceToHost));
    CU(cudaFree(d_work));
    B->t_dgetrf = best;
    report(B, "cusolver-dgetrf", best, 0, backward_error(B), 0, info ? "info != 0" : NULL);
}

/* cuSOLVER IRS: FP64 main precision, `lowest` factorization, classical or GMRES refinement. */
static void run_irs(bench *B, int low, cusolverIRSRefinement_t refine, const char *rname,
                    int reps)
{
    int n = B->n;
    const cusolverPrecType_t lowest = irs_lows[low].p;
    const char *lname = irs_lows[low].name;
    cusolverDnIRSParams_t params;
    cusolverDnIRSInfos_t infos;
    CS(cusolverDnIRSParamsCreate(&params));
    CS(cusolverDnIRSInfosCreate(&infos));
    CS(cusolverDnIRSParamsSetSolverPrecisions(params, CUSOLVER_R_64F, lowest));
    CS(cusolverDnIRSParamsSetRefinementSolver(params, refine));
    CS(cusolverDnIRSParamsSetMaxIters(params, 30));
    CS(cusolverDnIRSParamsEnableFallback(params));
    size_t lwork = 0;
    CS(cusolverDnIRSXgesv_bufferSize(B->solver, params, n, 1, &lwork));
    void *d_work = NULL;
    if (cudaMalloc(&d_work, lwork) != cudaSuccess) {
        (void)cudaGetLastError();
        char name[64];
        snprintf(name, sizeof name, "cusolver-irs-%s-%s", lname, rname);
        printf("%-10s %6d %8.0e  %-22s skipped: workspace of %zu bytes does not fit\n", B->label,
               B->n, B->kappa, name, lwork);
        cusolverDnIRSInfosDestroy(infos);
        cusolverDnIRSParamsDestroy(params);
        return;
    }
    double best = INFINITY;
    int niters = 0, info = 0;
    for (int r = 0; r <= reps; r++) {
        reset_working_copy(B);
        double t0 = mixm_wtime();
        CS(cusolverDnIRSXgesv(B->solver, params, infos, n, 1, B->d_a, n, B->d_b, n, B->d_x, n,
                              d_work, lwork, &niters, B->d_info));
        CU(cudaStreamSynchronize(B->stream));
        double t = mixm_wtime() - t0;
        if (r > 0 && t < best) best = t;
    }
    CU(cudaMemcpy(&info, B->d_info, sizeof info, cudaMemcpyDeviceToHost));
    char name[64], note[64];
    snprintf(name, sizeof name, "cusolver-irs-%s-%s", lname, rname);
    snprintf(note, sizeof note, "%s%s", niters < 0 ? "fell back to FP64" : "",
             info ? " info != 0" : "");
    if (report(B, name, best, niters, backward_error(B), 0, note)) {
        double *t_low = &B->t_irs[irs_lows[low].ours];
        if (*t_low == 0 || best < *t_low) *t_low = best;
    }
    CU(cudaFree(d_work));
    cusolverDnIRSInfosDestroy(infos);
    cusolverDnIRSParamsDestroy(params);
}

/* MIXSOLVE_LU_PROFILE=1: after the timed runs, one more run with the library's phase profile
 * (lu_profile.h; each phase between two device synchronisations, so slower than the timed runs),
 * printed as one '# profile' line: the factorization's phases (seconds, calls), then the
 * refinement per step: its triangular solves (getrs) and the rest (the FP64 residual, norms). */
static void profile_ours(bench *B, mix_context *ctx, const mix_gesv_params *p, int *ipiv,
                         const char *name)
{
    const char *e = getenv("MIXSOLVE_LU_PROFILE");
    if (!e || strcmp(e, "1") != 0) return;
    mixi_lu_profile prof;
    mix_gesv_info info;
    memset(&prof, 0, sizeof prof);
    reset_working_copy(B);
    mixi_lu_profile_attach(&prof);
    double t0 = mixm_wtime();
    int st = mix_dgesv_ir_gpu(ctx, p, MIX_COL_MAJOR, B->n, 1, B->d_a, B->n, ipiv, B->d_b, B->n,
                              B->d_x, B->n, &info);
    CU(cudaDeviceSynchronize());
    double t = mixm_wtime() - t0;
    mixi_lu_profile_attach(NULL);
    if (st) return;
    printf("# profile %s n=%d kappa=%g nb=%d steps=%d total %.4f factor %.4f:", name, B->n,
           B->kappa, prof.nb, prof.steps, t, info.t_factor);
    for (int ph = 0; ph < MIXI_LU_PH_SOLVE; ph++)
        printf(" %s %.4f (%ld)", mixi_lu_phase_names[ph], prof.seconds[ph], prof.calls[ph]);
    const double solve = prof.seconds[MIXI_LU_PH_SOLVE];
    const int steps = info.iter > 0 ? info.iter : 1;
    printf(" | refine %.4f iter %d inner %d: per step %.2f ms = solve %.2f ms (%ld calls) + rest "
           "%.2f ms%s\n", info.t_refine, info.iter, info.inner_iter, 1e3 * info.t_refine / steps,
           1e3 * solve / steps, prof.calls[MIXI_LU_PH_SOLVE],
           1e3 * (info.t_refine - solve) / steps, info.fell_back ? " (fell back to FP64)" : "");
}

/* Ours: mix_dgesv_ir_gpu, A, b, x on the device; GMRES-IR when classical refinement stalls. */
static void run_ours(bench *B, mix_context *ctx, mix_prec prec, int reps)
{
    int n = B->n;
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!ipiv) die("out of host memory", NULL);
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = prec;
    mix_gesv_info info;
    memset(&info, 0, sizeof info);
    double best = INFINITY;
    int st = MIX_SUCCESS;
    for (int r = 0; r <= reps && !st; r++) {
        reset_working_copy(B);
        double t0 = mixm_wtime();
        st = mix_dgesv_ir_gpu(ctx, &p, MIX_COL_MAJOR, n, 1, B->d_a, n, ipiv, B->d_b, n, B->d_x, n,
                              &info);
        CU(cudaDeviceSynchronize());
        double t = mixm_wtime() - t0;
        if (r > 0 && t < best) best = t;
    }
    char name[64], note[96];
    snprintf(name, sizeof name, "mixsolve-%s", mix_prec_name(prec));
    if (!st) profile_ours(B, ctx, &p, ipiv, name);
    free(ipiv);
    if (st) {
        printf("%-10s %6d %8.0e  %-22s failed: %s\n", B->label, n, B->kappa, name, mix_strerror(st));
        return;
    }
    const mix_prec used = info.factor_prec_used;
    snprintf(note, sizeof note, "factor %.3fs refine %.3fs inner %d%s%s%s", info.t_factor,
             info.t_refine, info.inner_iter, prec == MIX_PREC_AUTO ? " picked " : "",
             prec == MIX_PREC_AUTO ? mix_prec_name(used) : "",
             info.fell_back ? " fell back to FP64" : "");
    double t_irs = (int)used >= 0 && (int)used < MIX_NUM_PREC ? B->t_irs[used] : 0;
    report(B, name, best, info.iter, backward_error(B), t_irs, note);
}

static void run_all(bench *B, mix_context *ctx, const methods *M, int reps)
{
    int n = B->n;
    double *b = calloc((size_t)n, sizeof *b);
    if (!b) die("out of host memory", NULL);
    mixm_rng rng;
    mixm_rng_seed(&rng, 12345u + (uint64_t)n);
    for (int i = 0; i < n; i++) b[i] = 2.0 * mixm_rng_uniform(&rng) - 1.0;
    CU(cudaMemcpy(B->d_b, b, (size_t)n * sizeof *b, cudaMemcpyHostToDevice));
    B->norm_b = 0;
    for (int i = 0; i < n; i++) B->norm_b = fabs(b[i]) > B->norm_b ? fabs(b[i]) : B->norm_b;
    free(b);
    B->norm_a = device_norm_inf(B);
    B->t_dgetrf = 0;
    memset(B->t_irs, 0, sizeof B->t_irs);

    run_dgetrf(B, reps);
    for (int i = 0; i < M->nlows; i++) {
        if (M->classical) run_irs(B, M->lows[i], CUSOLVER_IRS_REFINE_CLASSICAL, "classical", reps);
        if (M->gmres) run_irs(B, M->lows[i], CUSOLVER_IRS_REFINE_GMRES, "gmres", reps);
    }
    for (int i = 0; i < M->nours; i++) run_ours(B, ctx, M->ours[i], reps);
}

/* Device buffers for order n; 0 (and a line on stdout) when they would not fit. */
static int bench_alloc(bench *B, int n)
{
    size_t bytes = (size_t)n * n * sizeof(double), free_b = 0, total_b = 0;
    CU(cudaMemGetInfo(&free_b, &total_b));
    /* A0, A, the generator's third matrix, and our FP32 factors plus 16-bit panels. */
    if ((double)bytes * 3.8 > (double)free_b) {
        printf("# n = %d skipped: needs about %.1f GiB of device memory, %.1f GiB free\n", n,
               (double)bytes * 3.8 / 1073741824.0, (double)free_b / 1073741824.0);
        return 0;
    }
    B->n = n;
    CU(cudaMalloc((void **)&B->d_a0, bytes));
    CU(cudaMalloc((void **)&B->d_a, bytes));
    CU(cudaMalloc((void **)&B->d_b, (size_t)n * sizeof(double)));
    CU(cudaMalloc((void **)&B->d_x, (size_t)n * sizeof(double)));
    CU(cudaMalloc((void **)&B->d_r, (size_t)n * sizeof(double)));
    CU(cudaMalloc((void **)&B->d_ipiv, (size_t)n * sizeof(int)));
    CU(cudaMalloc((void **)&B->d_info, sizeof(int)));
    return 1;
}

static void bench_release(bench *B)
{
    cudaFree(B->d_a0);
    cudaFree(B->d_a);
    cudaFree(B->d_b);
    cudaFree(B->d_x);
    cudaFree(B->d_r);
    cudaFree(B->d_ipiv);
    cudaFree(B->d_info);
    B->d_a0 = B->d_a = B->d_b = B->d_x = B->d_r = NULL;
    B->d_ipiv = B->d_info = NULL;
}

/* A Matrix Market file as a dense system (its base name is the row label). */
static void run_file(bench *B, mix_context *ctx, const methods *M, const char *path, int reps)
{
    mixm_csr A;
    mixm_mtx_header h;
    char err[256] = "";
    int st = mixm_mtx_read(path, &A, &h, err, sizeof err);
    if (st) {
        printf("# %s skipped: %s\n", path, err[0] ? err : mix_strerror(st));
        return;
    }
    mixm_dense D;
    if (A.nrows != A.ncols || A.nrows < 1 || (st = mixm_csr_to_dense(&A, &D))) {
        printf("# %s skipped: %s\n", path, st ? mix_strerror(st) : "not square");
        mixm_csr_free(&A);
        return;
    }
    mixm_csr_free(&A);
    if (bench_alloc(B, D.nrows)) {
        CU(cudaMemcpy(B->d_a0, D.a, (size_t)D.nrows * D.nrows * sizeof(double),
                      cudaMemcpyHostToDevice));
        const char *base = strrchr(path, '/');
        B->label = base ? base + 1 : path;
        B->kappa = 0; /* unknown */
        run_all(B, ctx, M, reps);
        bench_release(B);
    }
    mixm_dense_free(&D);
}

/* The command line (see the top of this file). */
typedef struct {
    double ns[MAXLIST], ks[MAXLIST];
    int nn, nk, reps, nfiles;
    const char *gen, *csv_path;
    const char *files[MAXLIST];
    methods m;
} options;

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-n N,...] [-k KAPPA,...] [-g auto|host|device] [-r REPS] "
                    "[-c FILE.csv] [-m fp16,bf16,tf32,fp32,auto] [-i fp16,bf16,tf32,fp32] "
                    "[-R classical,gmres] [FILE.mtx ...]\n", argv0);
    exit(2);
}

/* -m, -i, -R: the names, turned into the methods table. */
static void parse_methods(char opt, const char *arg, methods *M)
{
    static const char *const precs[] = {"fp16", "bf16", "tf32", "fp32", "auto"};
    static const mix_prec prec_values[] = {MIX_FP16, MIX_BF16, MIX_TF32, MIX_FP32, MIX_PREC_AUTO};
    static const char *const lows[] = {"fp16", "bf16", "tf32", "fp32"};
    static const char *const refines[] = {"classical", "gmres"};
    int idx[MAXLIST];
    if (opt == 'm') {
        M->nours = parse_names(arg, precs, 5, idx, MAXLIST);
        for (int k = 0; k < M->nours; k++) M->ours[k] = prec_values[idx[k]];
    } else if (opt == 'i') {
        M->nlows = parse_names(arg, lows, NLOWS, M->lows, NLOWS);
    } else {
        int n = parse_names(arg, refines, 2, idx, MAXLIST);
        M->classical = M->gmres = 0;
        for (int k = 0; k < n; k++) *(idx[k] ? &M->gmres : &M->classical) = 1;
    }
}

static void parse_options(int argc, char **argv, options *o)
{
    static const options defaults = {
        {4096, 8192, 16384, 32768}, {1e2, 1e4, 1e6}, 4, 3, 3, 0, "auto", NULL, {NULL},
        {{MIX_FP16, MIX_BF16, MIX_TF32, MIX_FP32, MIX_PREC_AUTO}, 5, {0, 1, 2, 3}, NLOWS, 1, 1}};
    *o = defaults;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "-n") && has) o->nn = parse_list(argv[++i], o->ns);
        else if (!strcmp(a, "-k") && has) o->nk = parse_list(argv[++i], o->ks);
        else if (!strcmp(a, "-g") && has) o->gen = argv[++i];
        else if (!strcmp(a, "-r") && has) o->reps = atoi(argv[++i]);
        else if (!strcmp(a, "-c") && has) o->csv_path = argv[++i];
        else if ((!strcmp(a, "-m") || !strcmp(a, "-i") || !strcmp(a, "-R")) && has)
            parse_methods(a[1], argv[++i], &o->m);
        else if (a[0] != '-' && o->nfiles < MAXLIST) o->files[o->nfiles++] = a;
        else usage(argv[0]);
    }
    if (o->reps < 1) die("-r must be at least 1", NULL);
    if (strcmp(o->gen, "auto") && strcmp(o->gen, "host") && strcmp(o->gen, "device"))
        die("-g must be auto, host or device", o->gen);
}

int main(int argc, char **argv)
{
    options o;
    parse_options(argc, argv, &o);
    const methods *M = &o.m;
    const int reps = o.reps;

    mix_context *ctx = NULL;
    int st = mix_context_create(&ctx, MIX_BACKEND_CUDA);
    if (st) die("no CUDA context", mix_strerror(st));
    mix_caps caps;
    mix_backend_caps(MIX_BACKEND_CUDA, &caps);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    time_t tnow = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&tnow));
    printf("# %s, driver %d.%d, runtime %d.%d, mixsolve %s, %s\n", caps.device, drv / 1000,
           (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, mix_version(), date);
    printf("%-10s %6s %8s  %-22s %9s %6s %10s %-3s %7s %7s  %s\n", "matrix", "n", "kappa",
           "method", "time_s", "iter", "berr", "ok", "vs_fp64", "vs_irs", "note");

    bench B;
    memset(&B, 0, sizeof B);
    if (o.csv_path) {
        B.csv = fopen(o.csv_path, "w");
        if (!B.csv) die("cannot open", o.csv_path);
        fprintf(B.csv, "matrix,n,kappa,method,time_s,iter,berr,ok,speedup_vs_dgetrf,"
                       "speedup_vs_irs\n");
    }
    CU(cudaStreamCreateWithFlags(&B.stream, cudaStreamNonBlocking));
    CB(cublasCreate(&B.blas));
    CB(cublasSetStream(B.blas, B.stream));
    CS(cusolverDnCreate(&B.solver));
    CS(cusolverDnSetStream(B.solver, B.stream));

    for (int in = 0; in < o.nn; in++) {
        int n = (int)o.ns[in];
        if (!bench_alloc(&B, n)) continue;
        for (int ik = 0; ik < o.nk; ik++) {
            int on_device = !strcmp(o.gen, "device") || (!strcmp(o.gen, "auto") && n > 8192);
            double t0 = mixm_wtime();
            generate(&B, o.ks[ik], on_device, 20240u + (uint64_t)ik);
            fprintf(stderr, "generated n = %d kappa = %g on the %s in %.1f s\n", n, o.ks[ik],
                    on_device ? "device" : "host", mixm_wtime() - t0);
            B.label = on_device ? "randsvd-d" : "randsvd";
            B.kappa = o.ks[ik];
            run_all(&B, ctx, M, reps);
        }
        bench_release(&B);
    }
    for (int f = 0; f < o.nfiles; f++) run_file(&B, ctx, M, o.files[f], reps);
    cusolverDnDestroy(B.solver);
    cublasDestroy(B.blas);
    cudaStreamDestroy(B.stream);
    if (B.csv) fclose(B.csv);
    mix_context_destroy(ctx);
    return 0;
}
