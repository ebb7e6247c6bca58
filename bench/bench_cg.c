/* bench_cg.c: time to a true residual of 1e-10 per storage precision (3D Poisson, SuiteSparse SPD) and SpMV bandwidth vs a triad. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "lib/api/mix_internal.h"
#include "solvers/cg/cg_impl.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"
#include "kernels/cpu/sparse_cpu.h"
#include "kernels/cpu/spmv_tune.h"

static const mix_prec storage[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16, MIX_PREC_AUTO};
#define NSTORAGE 6

/* STREAM triad a = b + s c over arrays far larger than the caches; best of 5; bytes counted
 * as STREAM does (two reads, one write).  Its arrays come from the library's host allocator,
 * as the vectors do: the system's default pages at the first touch (lib/core/alloc.c).  A
 * matrix moves to huge pages after 384 products (kernels/cpu/sparse_cpu.c), so a later SpMV's
 * share of the triad also counts that page size. */
static double triad_gbs(size_t n)
{
    double *a = mixi_malloc_n(n, sizeof *a), *b = mixi_malloc_n(n, sizeof *b), *c = mixi_malloc_n(n, sizeof *c);
    if (!a || !b || !c) {
        mixi_free(a), mixi_free(b), mixi_free(c);
        return 0.0;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t = mixm_wtime();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        t = mixm_wtime() - t;
        if (t < best) best = t;
    }
    volatile double sink = a[n / 2];
    (void)sink;
    mixi_free(a), mixi_free(b), mixi_free(c);
    return 3.0 * 8.0 * (double)n / best / 1e9;
}

static size_t elem_bytes(mix_prec p) { return p == MIX_FP64 ? 8 : p == MIX_FP32 ? 4 : 2; }

/* The sloppy matrix as stored: what one SpMV reads of it, as its backend counts it (FP64 plain
 * CSR: values, 4-byte column indices, 8-byte row pointers; the other formats SELL-32: values,
 * 2-byte column offsets, per block of 32 rows an 8-byte first slot and per row a 2-byte start,
 * FIXED16 per row a float diagonal and an exponent byte; kernels/backend_sparse.h).  -1 when
 * the backend cannot say. */
static double matrix_bytes(mix_context *ctx, mix_sparse *S, mix_prec p)
{
    const mixi_spmat *As;
    const double *scale;
    int64_t bytes = 0;
    if (!ctx->ops->sparse->csr_bytes || mixi_sparse_sloppy(S, p, 0, &As, &scale) ||
        ctx->ops->sparse->csr_bytes(ctx->state, As, &bytes))
        return -1.0;
    return (double)bytes;
}

/* Bytes one sloppy SpMV must move at least: the matrix, x read once, y written once, in the
 * vectors' precision v (and FIXED16 vectors' block norms). */
static double spmv_bytes(double mbytes, int n, mix_prec v)
{
    double b = mbytes + 2.0 * n * (double)elem_bytes(v);
    if (v == MIX_FIXED16) b += 2.0 * n / 32.0 * 4.0;
    return b;
}

/* The same as the CPU kernels move it: 16-bit vectors are first decoded into a float copy (read
 * x, write 4 bytes per entry) that the rows then gather (4 bytes per entry, read once at best). */
static double spmv_bytes_as_run(double mbytes, int n, mix_prec v)
{
    double b = spmv_bytes(mbytes, n, v);
    if (elem_bytes(v) == 2) b += n * 4.0 + n * (4.0 - 2.0);
    return b;
}

/* Best-of-reps time of the SpMV of the matrix in `p` storage on vectors in `v`. */
static double time_spmv(mix_context *ctx, mix_sparse *S, mix_prec p, mix_prec v, int reps)
{
    const mixi_spmat *As;
    const double *scale;
    if (mixi_sparse_sloppy(S, p, 0, &As, &scale)) return -1.0;
    const mixi_backend_ops *ops = ctx->ops;
    mixi_svec x = {v, S->n, NULL, NULL}, y = {v, S->n, NULL, NULL};
    size_t vb = 0, nb = 0;
    mixi_svec_bytes(v, S->n, &vb, &nb);
    double *h = malloc((size_t)S->n * sizeof *h), best = 1e30, xy;
    double *d = NULL;
    int st = ops->alloc(ctx->state, &x.val, vb) | ops->alloc(ctx->state, &y.val, vb) |
             (nb ? ops->alloc(ctx->state, (void **)&x.norm, nb) | ops->alloc(ctx->state, (void **)&y.norm, nb) : 0) |
             ops->alloc(ctx->state, (void **)&d, (size_t)S->n * sizeof(double));
    if (!st && h) {
        for (int i = 0; i < S->n; i++) h[i] = sin(0.001 * i);
        ops->upload(ctx->state, d, h, (size_t)S->n * sizeof(double));
        ops->sparse->vec_from64(ctx->state, d, NULL, 1.0, &x, NULL);
        /* Warm-up, and the tuner's first SpMVs (it times its candidates on them) until it has
         * chosen: the timed calls then run its choice (or the MIXSOLVE_SPMV_VARIANT forced). */
        ops->sparse->spmv(ctx->state, As, &x, &y, &xy);
        for (int w = 0; w < 64 && ops->sparse->spmv_variant && ops->sparse->spmv_variant(ctx->state, As) &&
                        strcmp(ops->sparse->spmv_variant(ctx->state, As), "tuning") == 0; w++)
            ops->sparse->spmv(ctx->state, As, &x, &y, &xy);
        for (int r = 0; r < reps; r++) {
            ops->synchronize(ctx->state);
            double t = mixm_wtime();
            ops->sparse->spmv(ctx->state, As, &x, &y, &xy);
            ops->synchronize(ctx->state);
            t = mixm_wtime() - t;
            if (t < best) best = t;
        }
    }
    ops->free(ctx->state, x.val), ops->free(ctx->state, y.val);
    ops->free(ctx->state, x.norm), ops->free(ctx->state, y.norm), ops->free(ctx->state, d);
    free(h);
    return st ? -1.0 : best;
}

/* The SpMV body the backend's tuner chose for the sloppy matrix (kernels/cpu/spmv_tune.h) and,
 * on the CPU, the share of its SELL slot rows that are contiguous over a whole slice. */
static void spmv_variant(mix_context *ctx, mix_sparse *S, mix_prec p, char *out, size_t cap)
{
    const mixi_spmat *As;
    const double *scale;
    if (p == MIX_PREC_AUTO || !ctx->ops->sparse->spmv_variant || mixi_sparse_sloppy(S, p, 0, &As, &scale))
        return;
    const char *v = ctx->ops->sparse->spmv_variant(ctx->state, As);
    double contig = 0.0;
    if (mix_context_backend(ctx) == MIX_BACKEND_CPU) mixi_cpu_spmv_variant(As, &contig);
    if (p == MIX_FP64) snprintf(out, cap, "%s", v ? v : "-");
    else snprintf(out, cap, "%s (%.0f%%)", v ? v : "-", 100.0 * contig);
}

/* ---- --variants: every SpMV body forced, then the tuner's, timed interleaved -------------------
 * On a shared machine the load drifts between runs; here each round times one triad pass and one
 * SpMV of every variant back to back, and each keeps its best round, so that the variants and the
 * triad see the same machine. */
#define NVARIANTS 17 /* "tuned", 5 vector bodies x 3 prefetch distances, "portable" */
/* The variants of storage p, by the tuner's own names (kernels/cpu/spmv_tune.c): "tuned" first,
 * then FP64's CSR or the SELL bodies, each without prefetch, near and far; returns how many. */
static int variant_names(mix_prec p, const char *names[NVARIANTS])
{
    static const int pfd[] = {0, MIXI_SPMV_PF_DIST, MIXI_SPMV_PF_FAR};
    static const int isa[2][3] = {{MIXI_SPMV_AVX512_CONTIG, MIXI_SPMV_AVX512_GATHER, -1},
                                  {MIXI_SPMV_AVX2_CONTIG, MIXI_SPMV_AVX2_GATHER, MIXI_SPMV_AVX2_LOADS}};
    int n = 0;
    names[n++] = "tuned";
    for (int d = 0; d < 3; d++)
        if (p == MIX_FP64) names[n++] = mixi_spmv_variant_name(MIXI_SPMV_CSR | pfd[d] << MIXI_SPMV_PF_SHIFT);
    for (int w = 0; w < 2 && p != MIX_FP64; w++)
        for (int d = 0; d < 3; d++)
            for (int b = 0; b < 3; b++)
                if (isa[w][b] >= 0) names[n++] = mixi_spmv_variant_name(isa[w][b] | pfd[d] << MIXI_SPMV_PF_SHIFT);
    if (p != MIX_FP64) names[n++] = mixi_spmv_variant_name(MIXI_SPMV_PORTABLE);
    return n;
}

/* CPU seconds of the process per thread: on a shared machine the time it was not descheduled. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    return ((double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec) / threads;
}

static void triad_pass(double *a, const double *b, const double *c, size_t n, double *wall, double *cpu)
{
    double t = mixm_wtime(), u = cpu_now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    *wall = mixm_wtime() - t;
    *cpu = cpu_now() - u;
}

static int svec_new(mix_context *ctx, mix_prec v, int n, mixi_svec *x)
{
    size_t vb = 0, nb = 0;
    mixi_svec_bytes(v, n, &vb, &nb);
    *x = (mixi_svec){v, n, NULL, NULL};
    return ctx->ops->alloc(ctx->state, &x->val, vb) ||
           (nb && ctx->ops->alloc(ctx->state, (void **)&x->norm, nb));
}

/* --rounds N: rounds of the variant table (default 10 above 10^6 rows, else 20); --hot: per round
 * each variant's SpMV runs once untimed, then 4 times timed back to back (the matrix as far in the
 * caches as it fits: the bodies' instruction cost on a small matrix, one thread). */
static int rounds, hot;

/* One storage format: its copies per variant (the forced ones made under MIXSOLVE_SPMV_VARIANT). */
static void variant_rows(mix_context *ctx, mixi_spmat *A64, int n, mix_prec p, const double *x64,
                         double *ta, double *tb, double *tc, size_t tn, int rounds)
{
    const mixi_sparse_ops *o = ctx->ops->sparse;
    const char *names[NVARIANTS];
    const int nv = variant_names(p, names);
    mixi_spmat *As[NVARIANTS] = {NULL};
    const mix_prec v = mixi_cg_vector_prec(ctx, 0, p);
    mixi_svec x, y;
    double best[NVARIANTS], cbest[NVARIANTS], tbest = 1e30, tcbest = 1e30, xy;
    if (svec_new(ctx, v, n, &x) || svec_new(ctx, v, n, &y)) return;
    o->vec_from64(ctx->state, x64, NULL, 1.0, &x, NULL);
    for (int k = 0; k < nv; k++) {
        if (k) setenv("MIXSOLVE_SPMV_VARIANT", names[k], 1);
        else unsetenv("MIXSOLVE_SPMV_VARIANT");
        best[k] = cbest[k] = 1e30;
        if (o->csr_convert(ctx->state, A64, p, NULL, &As[k])) As[k] = NULL;
        /* warm-up; the tuned copy tunes: its bodies, then (the choice made) their prefetch */
        for (int w = 0, after = 0; As[k] && w < 96 && after <= 2 * MIXI_TUNE_ROUNDS; w++) {
            o->spmv(ctx->state, As[k], &x, &y, &xy);
            if (o->spmv_variant && strcmp(o->spmv_variant(ctx->state, As[k]), "tuning") != 0) after++;
            if (k) break;
        }
    }
    unsetenv("MIXSOLVE_SPMV_VARIANT");
    for (int r = 0; r < rounds; r++) {
        double t, tc_;
        triad_pass(ta, tb, tc, tn, &t, &tc_);
        tbest = t < tbest ? t : tbest;
        tcbest = tc_ < tcbest ? tc_ : tcbest;
        for (int k = 0, rep = 0; k < nv; rep = rep + 1 < (hot ? 4 : 1) ? rep + 1 : (k++, 0)) {
            if (!As[k]) continue;
            if (hot && rep == 0) o->spmv(ctx->state, As[k], &x, &y, &xy); /* in the caches */
            const double t0 = mixm_wtime(), u0 = cpu_now();
            o->spmv(ctx->state, As[k], &x, &y, &xy);
            const double dt = mixm_wtime() - t0, du = cpu_now() - u0;
            best[k] = dt < best[k] ? dt : best[k];
            cbest[k] = du < cbest[k] ? du : cbest[k];
        }
    }
    const double triad = 3.0 * 8.0 * (double)tn / tbest / 1e9, ctriad = 3.0 * 8.0 * (double)tn / tcbest / 1e9;
    for (int k = 0; k < nv; k++) {
        if (!As[k]) continue;
        int64_t mb = 0;
        o->csr_bytes(ctx->state, As[k], &mb);
        const double gbs = spmv_bytes((double)mb, n, v) / best[k] / 1e9;
        const double cgbs = spmv_bytes((double)mb, n, v) / cbest[k] / 1e9;
        printf("| %s | %s | %s | %.2f | %.1f | %.0f%% | %.2f | %.1f | %.0f%% |\n", mix_prec_name(p),
               names[k], o->spmv_variant ? o->spmv_variant(ctx->state, As[k]) : "-",
               1e3 * best[k], gbs, 100.0 * gbs / triad, 1e3 * cbest[k], cgbs, 100.0 * cgbs / ctriad);
        o->csr_destroy(ctx->state, As[k]);
    }
    printf("| %s | (triad) | - | %.2f | %.1f | 100%% | %.2f | %.1f | 100%% |\n", mix_prec_name(p), 1e3 * tbest,
           triad, 1e3 * tcbest, ctriad);
    ctx->ops->free(ctx->state, x.val), ctx->ops->free(ctx->state, x.norm);
    ctx->ops->free(ctx->state, y.val), ctx->ops->free(ctx->state, y.norm);
}


static void variant_table(mix_context *ctx, const char *name, const mixm_csr *A)
{
    const size_t tn = (size_t)1 << 25;
    double *ta = mixi_malloc_n(tn, sizeof *ta), *tb = mixi_malloc_n(tn, sizeof *tb), *tc = mixi_malloc_n(tn, sizeof *tc);
    double *x64 = malloc((size_t)A->nrows * sizeof *x64);
    mixi_spmat *A64 = NULL;
    if (ta && tb && tc && x64 &&
        !ctx->ops->sparse->csr_create(ctx->state, A->nrows, A->rowptr, A->colind, A->val, &A64)) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < tn; i++) ta[i] = 0.0, tb[i] = 1.0, tc[i] = 2.0;
        for (int i = 0; i < A->nrows; i++) x64[i] = sin(0.001 * i);
        printf("\n### %s: SpMV per variant, interleaved with a triad pass (best of %d rounds)\n\n", name,
               rounds > 0 ? rounds : A->nrows > 1000000 ? 10 : 20);
        printf("Wall: best wall time; CPU: best process CPU time / threads (what a loaded machine "
               "leaves of it); GB/s from the min byte model; triad (the same rounds): ");
        printf("%s\n\n", "its row after each format's.");
        printf("| storage | variant | runs | wall ms | wall GB/s | %% of triad (wall) | CPU ms | CPU GB/s | %% of triad (CPU) |\n");
        printf("|---|---|---|---|---|---|---|---|---|\n");
        const mix_prec ps[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};
        for (int k = 0; k < 5; k++)
            variant_rows(ctx, A64, A->nrows, ps[k], x64, ta, tb, tc, tn, rounds > 0 ? rounds : A->nrows > 1000000 ? 10 : 20);
        ctx->ops->sparse->csr_destroy(ctx->state, A64);
    }
    mixi_free(ta), mixi_free(tb), mixi_free(tc), free(x64);
}

static double true_rel(const mixm_csr *A, const double *b, const double *x)
{
    double *ax = malloc((size_t)A->nrows * sizeof *ax), rr = 0.0, bb = 0.0;
    mixm_csr_matvec(A, x, ax);
    for (int i = 0; i < A->nrows; i++) rr += (b[i] - ax[i]) * (b[i] - ax[i]), bb += b[i] * b[i];
    free(ax);
    return sqrt(rr / bb);
}

/* spmv_only: 1 the SpMV columns only (no solves); 2 (--variants) the table of SpMV variants. */
static int spmv_only;
/* --storage NAME: only that row (and FP64's, the "vs FP64" reference unless NAME is fp64): for
 * profiling one storage's solve. */
static const char *only_storage;

static void bench_matrix(mix_context *ctx, const char *name, const mixm_csr *A, int precond,
                         double triad)
{
    mix_sparse *S = NULL;
    double t0 = mixm_wtime();
    int st = mix_sparse_create_csr(ctx, A->nrows, A->rowptr, A->colind, A->val, &S);
    double t_create = mixm_wtime() - t0;
    if (st) {
        printf("| %s | create failed: %s |\n", name, mix_strerror(st));
        return;
    }
    int n = A->nrows;
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    mixm_rng g;
    mixm_rng_seed(&g, 2024);
    for (int i = 0; i < n; i++) b[i] = mixm_rng_uniform(&g) - 0.5;
    fprintf(stderr, "%s: n = %d, nnz = %lld, created in %.3f s\n", name, n, (long long)A->nnz,
            t_create);
    printf("\n### %s (n = %d, nnz = %lld, %s)\n\n", name, n, (long long)A->nnz,
           precond ? "Jacobi" : "no preconditioner");
    printf("| storage | iter | updates | true rel. residual | status | conversion s | solve s | "
           "vs FP64 | ms/iter | SpMV ms | matrix B/nnz | SpMV MB (min / as run) | SpMV GB/s (min / as run) "
           "| %% of triad (min / as run) | iter / SpMV time | SpMV variant (contiguous slot rows) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    double t64 = 0.0;
    for (int k = 0; k < NSTORAGE; k++) {
        mix_cg_params p;
        mix_cg_params_init(&p);
        p.sloppy_prec = storage[k];
        p.precond = precond;
        mix_cg_info info2;
        /* The sloppy copy is made (and timed) first, as a first solve would; the solve then finds
         * it cached.  AUTO's choice was made by the row of that precision. */
        if (only_storage && strcasecmp(only_storage, mix_prec_name(storage[k])) != 0) continue;
        fprintf(stderr, "  %s ...", mix_prec_name(storage[k]));
        double t_conv = 0.0;
        if (storage[k] != MIX_PREC_AUTO) {
            const mixi_spmat *As;
            const double *scale;
            t_conv = mixm_wtime();
            mixi_sparse_sloppy(S, storage[k], precond, &As, &scale);
            t_conv = mixm_wtime() - t_conv;
        }
        if (spmv_only && (storage[k] == MIX_PREC_AUTO || precond)) continue;
        memset(&info2, 0, sizeof info2);
        st = spmv_only ? MIX_SUCCESS : mix_dcg(ctx, &p, S, b, x, &info2);
        if (storage[k] == MIX_PREC_AUTO) t_conv = info2.t_setup; /* its choice's measurement included */
        if (spmv_only) info2.stages = 1, info2.stage_prec[0] = storage[k], info2.t_solve = 1.0;
        double rel = spmv_only ? 0.0 : true_rel(A, b, x);
        if (k == 0) t64 = info2.t_solve;
        int reps = n > 100000 ? 10 : 50;
        const mix_prec v = storage[k] == MIX_PREC_AUTO ? MIX_FP64 : mixi_cg_vector_prec(ctx, 0, storage[k]);
        double ts = precond || storage[k] == MIX_PREC_AUTO ? -1.0 : time_spmv(ctx, S, storage[k], v, reps);
        double mb = storage[k] == MIX_PREC_AUTO ? -1.0 : matrix_bytes(ctx, S, storage[k]);
        if (mb < 0) ts = -1.0;
        double gbs = ts > 0 ? spmv_bytes(mb, n, v) / ts / 1e9 : 0.0;
        double gbs_run = ts > 0 ? spmv_bytes_as_run(mb, n, v) / ts / 1e9 : 0.0;
        double ms_it = 1e3 * info2.t_solve / (info2.iter > 0 ? info2.iter : 1);
        fprintf(stderr, " %d iterations, %.3f s\n", info2.iter, info2.t_solve);
        char label[64] = "";
        for (int s2 = 0; s2 < info2.stages; s2++) /* the precisions that ran */
            snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s", s2 ? "->" : "",
                     mix_prec_name(info2.stage_prec[s2]));
        if (storage[k] == MIX_PREC_AUTO || info2.stages > 1)
            snprintf(label + strlen(label), sizeof label - strlen(label), " (%s)", mix_prec_name(storage[k]));
        printf("| %s | %d | %d | %.2e | %s | %.3f | %.3f | %.2fx | %.2f |", label,
               info2.iter, info2.reliable_updates, rel, st ? mix_strerror(st) : "converged",
               t_conv, info2.t_solve, t64 / info2.t_solve,
               1e3 * info2.t_solve / (info2.iter > 0 ? info2.iter : 1));
        char var[64] = "-";
        spmv_variant(ctx, S, storage[k], var, sizeof var);
        if (ts > 0)
            printf(" %.2f | %.2f | %.0f / %.0f | %.1f / %.1f | %.0f%% / %.0f%% | %.2f | %s |\n", 1e3 * ts,
                   mb / (double)S->nnz, spmv_bytes(mb, n, v) / 1e6,
                   spmv_bytes_as_run(mb, n, v) / 1e6,
                   gbs, gbs_run, 100.0 * gbs / triad, 100.0 * gbs_run / triad, ms_it / (1e3 * ts), var);
        else
            printf(" - | - | - | - | - | - | %s |\n", var);
        fflush(stdout);
    }
    free(b);
    free(x);
    mix_sparse_destroy(S);
}

int main(int argc, char **argv)
{
    int sizes[8] = {100, 150}, nsizes = 2;
    const char *files[16];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--spmv-only") == 0) {
            spmv_only = 1;
        } else if (strcmp(argv[i], "--variants") == 0) {
            spmv_only = 2;
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--hot") == 0) {
            hot = 1;
        } else if (strcmp(argv[i], "--storage") == 0 && i + 1 < argc) {
            only_storage = argv[++i];
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < 8; s = strtok(NULL, ","))
                sizes[nsizes++] = atoi(s);
        } else if (nfiles < 16) {
            files[nfiles++] = argv[i];
        }
    }
    static char def[1024];
    if (nfiles == 0) {
        snprintf(def, sizeof def, "%s/matrices/data/bcsstk16.mtx.gz", MIXB_SRCDIR);
        files[nfiles++] = def;
    }
    mix_context *ctx;
    if (mix_context_create(&ctx, MIX_BACKEND_CPU)) return 1;
    mix_caps caps;
    mix_backend_caps(MIX_BACKEND_CPU, &caps);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    double triad = triad_gbs((size_t)1 << 25);
    time_t tt = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&tt));
    printf("CPU: %s, %d OpenMP threads, %s, mixsolve %s\n\n", caps.device, threads, date,
           mix_version());
    printf("STREAM-like triad (a = b + s c, 3 x 256 MiB, best of 5, the library's host allocation: %s): "
           "%.1f GB/s\n",
           mixi_alloc_alignment(MIXI_HUGE_MIN) > 64 ? "2 MiB-aligned, default pages at first touch, as the vectors"
                                                    : "as the matrices and vectors",
           triad);
    printf("\nTime to a true residual ||b - A x|| <= 1e-10 ||b||, b uniform in [-0.5, 0.5), x0 = 0; "
           "the sloppy copy is converted first (\"conversion s\") and the solve that finds it cached is "
           "timed (--spmv-only: no solves). SpMV: best of 10 (n > 1e5) or 50 calls of the sloppy spmv. "
           "Byte model: matrix = the bytes the backend's SpMV reads of it (FP64 CSR: values, 4-byte column "
           "indices, 8-byte row pointers; other formats SELL-32: values, 2-byte column offsets, 2.25 bytes per "
           "row, FIXED16 per row a float diagonal and an exponent byte); x and y in the precision the CG "
           "runs its vectors in (FP32 over a 16-bit matrix); min = matrix + x read once + y written once; "
           "as run = min + a decode pass for 16-bit vectors (none by default); the triad's arrays and the "
           "matrices and vectors come from the same host allocator (the same page size). "
           "\"iter / SpMV time\" = solve "
           "time per iteration / "
           "SpMV time (issue 11 target: <= 1.2).\n");
    for (int s = 0; s < nsizes; s++) {
        mixm_csr A;
        if (mixm_gen_poisson3d(sizes[s], &A)) continue;
        char name[64];
        snprintf(name, sizeof name, "3D Poisson %d^3", sizes[s]);
        if (spmv_only == 2) variant_table(ctx, name, &A);
        else bench_matrix(ctx, name, &A, MIX_PRECOND_NONE, triad);
        mixm_csr_free(&A);
    }
    for (int f = 0; spmv_only < 2 && f < nfiles; f++) {
        mixm_csr A;
        char err[256];
        if (mixm_mtx_read(files[f], &A, NULL, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            continue;
        }
        const char *base = strrchr(files[f], '/');
        bench_matrix(ctx, base ? base + 1 : files[f], &A, MIX_PRECOND_JACOBI, triad);
        mixm_csr_free(&A);
    }
    mix_context_destroy(ctx);
    return 0;
}
