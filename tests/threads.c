/* threads.c: the simple drivers and CG called from several threads at once, CG also on one shared CPU context (make check; CI also runs it under ThreadSanitizer, tools/ci-tsan.sh). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mixsolve.h"
#include "lib/api/mix_internal.h"
#include "matrices/mixmat.h"

#define THREADS 4
#define ROUNDS 6

static pthread_barrier_t start;

typedef struct {
    int id;
    int failures;
} job;

/* A diagonally dominant n x n system with a known solution (column-major), seeded per call. */
static void make_system(int n, uint64_t seed, double *a, double *x, double *b)
{
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) a[i + (size_t)j * n] = mixm_rng_uniform(&g) - 0.5;
    for (int i = 0; i < n; i++) a[i + (size_t)i * n] += n;
    for (int i = 0; i < n; i++) x[i] = mixm_rng_uniform(&g) + 0.5;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++) s += a[i + (size_t)j * n] * x[j];
        b[i] = s;
    }
}

static int dense_round(int id, int r)
{
    int (*const drivers[])(int, int, int, double *, int, int *, double *, int, double *, int, int *) = {
        mix_dsgesv, mix_dxgesv, mix_dhgesv, mix_dbgesv};
    const int n = 40 + 7 * id + r;
    double *a = malloc((size_t)n * n * sizeof *a), *a0 = malloc((size_t)n * n * sizeof *a);
    double *xt = malloc((size_t)n * sizeof *xt), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), iter = 0, bad = 0;
    make_system(n, 1000u * (uint64_t)id + (uint64_t)r, a0, xt, b);
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    int st = drivers[(id + r) % 4](MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, &iter);
    double err = 0.0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(x[i] - xt[i]) / fabs(xt[i]));
    if (st != 0 || !(err <= 1e-12)) {
        fprintf(stderr, "thread %d round %d: dense status %d, error %.3e\n", id, r, st, err);
        bad = 1;
    }
    free(a); free(a0); free(xt); free(b); free(x); free(ipiv);
    return bad;
}

/* tridiag(-1, 4, -1) of order n in CSR (3n entries allocated) and b; returns nnz. */
static int64_t tridiag(int n, int64_t *rp, int32_t *ci, double *v, double *b)
{
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        rp[i] = k;
        if (i > 0) { ci[k] = i - 1; v[k++] = -1.0; }
        ci[k] = i; v[k++] = 4.0;
        if (i + 1 < n) { ci[k] = i + 1; v[k++] = -1.0; }
        b[i] = 1.0 + (i % 5);
    }
    rp[n] = k;
    return k;
}

/* tridiag(-1, 4, -1) on a context of the thread's own. */
static int cg_round(int id, int r)
{
    const int n = 200 + 13 * id + r;
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)3 * n * sizeof *ci);
    double *v = malloc((size_t)3 * n * sizeof *v), *b = malloc((size_t)n * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x);
    const int64_t k = tridiag(n, rp, ci, v, b);
    int bad = 0;
    mix_context *ctx = NULL;
    mix_sparse *S = NULL;
    if (mix_context_create(&ctx, MIX_BACKEND_CPU) ||
        mix_sparse_create_csr(ctx, n, rp, ci, v, &S)) {
        fprintf(stderr, "thread %d: CG setup failed\n", id);
        bad = 1;
    } else {
        mix_prec precs[MIX_CAPS_PREC_SLOTS]; /* the library's storage precisions */
        const int np = mix_prec_list(MIX_ROLE_STORAGE, precs, MIX_CAPS_PREC_SLOTS);
        mix_cg_params p;
        mix_cg_params_init(&p);
        p.sloppy_prec = precs[(id + r) % np];
        p.precond = r % 2 ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
        mix_cg_info info;
        int st = mix_dcg(ctx, &p, S, b, x, &info);
        mixm_csr A = {n, n, k, rp, ci, v};
        double rel = NAN;
        mixm_csr_recheck(&A, b, x, NULL, &rel);
        if (st != MIX_SUCCESS || !(rel <= 1e-9)) {
            fprintf(stderr, "thread %d round %d: CG status %d, residual %.3e\n", id, r, st, rel);
            bad = 1;
        }
    }
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    free(rp); free(ci); free(v); free(b); free(x);
    return bad;
}

/* One CPU context shared by every thread, as mix_context_create(3) allows: thread `id` makes
 * its own matrix on it (each thread a storage, Jacobi on odd ids) and solves; status, x and
 * iterations must be those of the same solve run alone (sequentially, *ref from main). */
static mix_context *shared;
#define SHARED_N(id) (300 + 17 * (id))

static int shared_solve(int id, double *x, int *iter)
{
    const int n = SHARED_N(id);
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)3 * n * sizeof *ci);
    double *v = malloc((size_t)3 * n * sizeof *v), *b = malloc((size_t)n * sizeof *b);
    tridiag(n, rp, ci, v, b);
    mix_sparse *S = NULL;
    int st = mix_sparse_create_csr(shared, n, rp, ci, v, &S);
    if (!st) {
        mix_prec precs[MIX_CAPS_PREC_SLOTS];
        const int np = mix_prec_list(MIX_ROLE_STORAGE, precs, MIX_CAPS_PREC_SLOTS);
        mix_cg_params p;
        mix_cg_params_init(&p);
        p.sloppy_prec = precs[id % np];
        p.precond = id % 2 ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
        mix_cg_info info;
        st = mix_dcg(shared, &p, S, b, x, &info);
        *iter = info.iter;
    }
    mix_sparse_destroy(S);
    free(rp); free(ci); free(v); free(b);
    return st;
}

static double *shared_ref[THREADS];
static int shared_ref_iter[THREADS];

static int shared_round(int id, int r)
{
    double *x = malloc((size_t)SHARED_N(id) * sizeof *x);
    int iter = -1;
    const int st = shared_solve(id, x, &iter);
    const int bad = st != MIX_SUCCESS || iter != shared_ref_iter[id] ||
                    memcmp(x, shared_ref[id], (size_t)SHARED_N(id) * sizeof *x) != 0;
    if (bad)
        fprintf(stderr, "thread %d round %d: shared context: status %d, %d iterations (alone %d)%s\n",
                id, r, st, iter, shared_ref_iter[id], st ? "" : ", or x differs from the solve alone");
    free(x);
    return bad;
}

static void *worker(void *arg)
{
    job *j = arg;
    /* All threads reach their first simple-driver call together: the default context is
     * created concurrently. */
    pthread_barrier_wait(&start);
    for (int r = 0; r < ROUNDS; r++) {
        j->failures += dense_round(j->id, r);
        j->failures += cg_round(j->id, r);
        j->failures += shared_round(j->id, r);
    }
    return NULL;
}

/* The shared context and each thread's answer alone (before any thread starts). */
static int shared_open(void)
{
    if (mix_context_create(&shared, MIX_BACKEND_CPU)) return 1;
    for (int id = 0; id < THREADS; id++) {
        shared_ref[id] = malloc((size_t)SHARED_N(id) * sizeof *shared_ref[id]);
        if (shared_solve(id, shared_ref[id], &shared_ref_iter[id])) return 1;
    }
    return 0;
}

static void shared_close(void)
{
    for (int id = 0; id < THREADS; id++) free(shared_ref[id]);
    mix_context_destroy(shared);
}

int main(void)
{
    mixi_alloc_count(1);
    /* What one context of the default's backend holds while it lives (itself, the backend's
     * state): the default context keeps that much for the process. */
    long live0 = mixi_alloc_live();
    mix_context *probe = NULL;
    if (mix_context_create(&probe, MIX_BACKEND_AUTO)) {
        fprintf(stderr, "no context\n");
        return 1;
    }
    const long per_context = mixi_alloc_live() - live0;
    mix_context_destroy(probe);
    if (shared_open()) {
        fprintf(stderr, "shared CPU context: the solves alone failed\n");
        return 1;
    }
    pthread_t t[THREADS];
    job jobs[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){i, 0};
        if (pthread_create(&t[i], NULL, worker, &jobs[i])) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    int failures = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        failures += jobs[i].failures;
    }
    pthread_barrier_destroy(&start);
    shared_close();
    /* Every allocation freed but the one default context's, which lives for the process (its
     * spare workspace block is out of the count): a counter updated without atomics loses
     * increments under contention. */
    long live = mixi_alloc_live();
    if (live != live0 + per_context) {
        fprintf(stderr, "live allocations %ld, expected %ld\n", live, live0 + per_context);
        failures++;
    }
    printf("threads: %d threads x %d rounds of mix_d?gesv, mix_dcg, mix_dcg on one shared CPU context: "
           "%d failures\n", THREADS, ROUNDS, failures);
    return failures ? 1 : 0;
}
