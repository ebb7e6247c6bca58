/* bench_sparse_lu.c: mix_dgesv_sparse (MUMPS FP32 LU-IR, AUTO, FP64 by MUMPS or KLU) against UMFPACK's FP64 solve on 3-D convection-diffusion or Matrix Market files (Markdown table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <cblas.h>
#include <umfpack.h>
#include "mixsolve.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

typedef struct {
    double time, cpu, berr, mem; /* best seconds (wall, process CPU); backward error (FP64
                                  * re-check); factor bytes */
    int status, iter, fell_back;
    mix_prec used;
} outcome;

static int usage(void)
{
    fprintf(stderr, "usage: bench_sparse_lu [-m] [-n NX]... [-f FILE.mtx]... [-r REPS]\n"
                    "  defaults: -n 40 -r 3 (convection-diffusion nx^3, velocity (100, 50, 25);\n"
                    "  best of REPS; threads: OMP_NUM_THREADS)\n"
                    "  -m: the memory argument: one FP32 LU-IR solve with the process's peak RSS,\n"
                    "      then the FP64 and FP32 factorizations alone, each with its status\n");
    return 2;
}

/* Process CPU seconds (all threads): on a shared machine the wall clock also measures the queue. */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void keep_best(outcome *o, double t, double c)
{
    if (!(o->time > 0) || t < o->time) o->time = t;
    if (!(o->cpu > 0) || c < o->cpu) o->cpu = c;
}

/* UMFPACK on A^T (a CSR is the CSC of A^T): symbolic, numeric, solve with UMFPACK_At, so that
 * it solves A x = b as UMFPACK's users with a CSR matrix do. */
static void umfpack_once(const mixm_csr *A, const double *b, double *x, outcome *o)
{
    const int n = A->nrows;
    int *ap = malloc(((size_t)n + 1) * sizeof *ap), *ai = malloc((size_t)A->nnz * sizeof *ai);
    for (int i = 0; i <= n; i++) ap[i] = (int)A->rowptr[i];
    for (int64_t k = 0; k < A->nnz; k++) ai[k] = A->colind[k];
    void *sym = NULL, *num = NULL;
    double info[UMFPACK_INFO];
    double t0 = mixm_wtime(), c0 = cpu_seconds();
    int st = umfpack_di_symbolic(n, n, ap, ai, A->val, &sym, NULL, info);
    if (st == UMFPACK_OK) st = umfpack_di_numeric(ap, ai, A->val, sym, &num, NULL, info);
    double mem = info[UMFPACK_NUMERIC_SIZE] * info[UMFPACK_SIZE_OF_UNIT];
    if (st == UMFPACK_OK) st = umfpack_di_solve(UMFPACK_At, ap, ai, A->val, x, b, num, NULL, NULL);
    double t = mixm_wtime() - t0, c = cpu_seconds() - c0;
    umfpack_di_free_symbolic(&sym);
    umfpack_di_free_numeric(&num);
    free(ap);
    free(ai);
    o->status = st;
    o->mem = mem;
    keep_best(o, t, c);
}

static void mix_once(mix_context *ctx, mix_sparse *S, int n, mix_prec prec, const double *b,
                     double *x, outcome *o)
{
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = prec;
    mix_gesv_info info;
    double t0 = mixm_wtime(), c0 = cpu_seconds();
    o->status = mix_dgesv_sparse(ctx, &p, S, 1, b, n, x, n, &info);
    double t = mixm_wtime() - t0, c = cpu_seconds() - c0;
    o->iter = info.iter;
    o->fell_back = info.fell_back;
    o->used = info.factor_prec_used;
    keep_best(o, t, c);
}

static void row(const char *name, const outcome *o, const outcome *base)
{
    printf("| %-29s | %8.3f | %5.2fx | %8.3f | %5.2fx | %4d | %-4s | %9.2e | %9.1f |\n", name,
           o->time, o->time > 0 ? base->time / o->time : 0.0, o->cpu,
           o->cpu > 0 ? base->cpu / o->cpu : 0.0, o->iter, mix_prec_name(o->used), o->berr,
           o->mem / 1048576.0);
}

/* What every case starts from: a CPU context, A as a mix_sparse, b = A * ones and x. */
typedef struct {
    mix_context *ctx;
    mix_sparse *S;
    double *b, *x;
} bench_case;

static void case_free(bench_case *c)
{
    free(c->b);
    free(c->x);
    mix_sparse_destroy(c->S);
    mix_context_destroy(c->ctx);
}

static int case_setup(const char *name, const mixm_csr *A, bench_case *c)
{
    const int n = A->nrows;
    *c = (bench_case){0};
    c->b = malloc((size_t)n * sizeof *c->b);
    c->x = malloc((size_t)n * sizeof *c->x);
    if (!c->b || !c->x || mix_context_create(&c->ctx, MIX_BACKEND_CPU) ||
        mix_sparse_create_csr(c->ctx, n, A->rowptr, A->colind, A->val, &c->S)) {
        fprintf(stderr, "%s: cannot set up\n", name);
        case_free(c);
        return 1;
    }
    for (int i = 0; i < n; i++) c->x[i] = 1.0;
    mixm_csr_matvec(A, c->x, c->b);
    return 0;
}

/* All methods on A, REPS times each, interleaved so that load drifts hit them alike. */
static void bench_matrix(const char *name, const mixm_csr *A, int reps, const bench_case *c)
{
    const int n = A->nrows;
    mix_context *ctx = c->ctx;
    mix_sparse *S = c->S;
    double *b = c->b, *x = c->x;
    static const mix_prec precs[3] = {MIX_FP32, MIX_PREC_AUTO, MIX_FP64};
    outcome um = {0}, mx[3] = {{0}};
    for (int r = 0; r < reps; r++) {
        umfpack_once(A, b, x, &um);
        if (r == reps - 1) mixm_csr_recheck(A, b, x, &um.berr, NULL);
        for (int k = 0; k < 3; k++) {
            mix_once(ctx, S, n, precs[k], b, x, &mx[k]);
            if (r == reps - 1) mixm_csr_recheck(A, b, x, &mx[k].berr, NULL);
        }
    }
    int64_t peak;
    int64_t f32 = 0, f64 = 0;
    mix_sparse_lu_memory(ctx, S, MIX_FP32, &f32, &peak);
    mix_sparse_lu_memory(ctx, S, MIX_FP64, &f64, &peak);
    mx[0].mem = (double)f32;
    mx[2].mem = (double)f64;
    mx[1].mem = mx[1].used == MIX_FP32 ? (double)(f32 + (mx[1].fell_back ? f64 : 0)) : (double)f64;
    um.used = MIX_FP64;
    printf("\n%s: n = %d, nnz = %lld, best of %d (OpenBLAS core %s)\n\n", name, n,
           (long long)A->nnz, reps, openblas_get_corename());
    printf("| method                        | time (s) | vs UMF | CPU (s)  | vs UMF | iter | used "
           "| backward  | factors MiB |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    row("UMFPACK FP64 (baseline)", &um, &um);
    row("mix_dgesv_sparse FP32 LU-IR", &mx[0], &um);
    row("mix_dgesv_sparse AUTO", &mx[1], &um);
    row("mix_dgesv_sparse FP64", &mx[2], &um);
    printf("\nFP32 LU-IR vs MUMPS FP64: %.2fx wall, %.2fx CPU; FP32 factors / FP64 factors: %.2f\n",
           mx[0].time > 0 ? mx[2].time / mx[0].time : 0.0,
           mx[0].cpu > 0 ? mx[2].cpu / mx[0].cpu : 0.0, f64 > 0 ? (double)f32 / f64 : 0.0);
}

/* The memory argument (-m): where FP64 factors would not fit, FP32's may.  One FP32 LU-IR solve
 * first, with the process's peak RSS, then mix_sparse_lu_memory (a real factorization) for FP64
 * and FP32, each with its status: an FP64 that fails for memory is the point being made. */
static void memory_case(const char *name, const mixm_csr *A, const bench_case *c)
{
    const int n = A->nrows;
    mix_context *ctx = c->ctx;
    mix_sparse *S = c->S;
    double *b = c->b, *x = c->x;
    outcome o = {0};
    mix_once(ctx, S, n, MIX_FP32, b, x, &o);
    mixm_csr_recheck(A, b, x, &o.berr, NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\n%s: n = %d, nnz = %lld\nFP32 LU-IR: status %d, %.1f s wall, %.1f s CPU, %d steps, "
           "used %s, backward error %.2e, process peak RSS %.0f MiB\n", name, n,
           (long long)A->nnz, o.status, o.time, o.cpu, o.iter, mix_prec_name(o.used), o.berr,
           ru.ru_maxrss / 1024.0);
    fflush(stdout);
    static const mix_prec precs[2] = {MIX_FP64, MIX_FP32};
    for (int k = 0; k < 2; k++) {
        int64_t f = 0, peak = 0;
        int st = mix_sparse_lu_memory(ctx, S, precs[k], &f, &peak);
        printf("%s factorization alone: status %d (%s), factors %.0f MiB, peak %.0f MiB\n",
               mix_prec_name(precs[k]), st, mix_strerror(st), f / 1048576.0, peak / 1048576.0);
        fflush(stdout);
    }
}

static void run_case(const char *name, const mixm_csr *A, int reps, int memory)
{
    bench_case c;
    if (case_setup(name, A, &c)) return;
    if (memory) memory_case(name, A, &c);
    else bench_matrix(name, A, reps, &c);
    case_free(&c);
}

int main(int argc, char **argv)
{
    int nxs[16], nn = 0, nf = 0, reps = 3, memory = 0;
    const char *files[16];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc && nn < 16) nxs[nn++] = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-f") && i + 1 < argc && nf < 16) files[nf++] = argv[++i];
        else if (!strcmp(argv[i], "-m")) memory = 1;
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else return usage();
    }
    if (!nn && !nf) nxs[nn++] = 40;
    if (reps < 1) return usage();
    for (int k = 0; k < nn; k++) {
        mixm_csr A = {0};
        char name[64];
        snprintf(name, sizeof name, "convdiff3d %d^3", nxs[k]);
        if (nxs[k] < 1 || mixm_gen_convdiff3d(nxs[k], 100.0, 50.0, 25.0, &A)) return usage();
        run_case(name, &A, reps, memory);
        mixm_csr_free(&A);
    }
    for (int k = 0; k < nf; k++) {
        mixm_csr A = {0};
        char err[256];
        if (mixm_mtx_read(files[k], &A, NULL, err, sizeof err) || A.nrows != A.ncols) {
            fprintf(stderr, "%s: %s\n", files[k], err);
            continue;
        }
        run_case(files[k], &A, reps, memory);
        mixm_csr_free(&A);
    }
    return 0;
}
