/* cmd_bench.c: `mixsolve bench`: every matrix x method x precision against FP64, each solve in its own
 * process (time limit, crash isolation) and checked here in FP64. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cblas.h>
#include <lapacke.h>
#include "tools/cli.h"
#include "tools/bench.h"
#include "tools/bench_sparse_lu.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

#ifndef MIX_SRCDIR
#define MIX_SRCDIR "."
#endif

typedef struct {
    int quick, gen;
    mix_backend backend;
    int dense_max;
    double time_limit;
    long long max_nnz;
    double min_time; /* repeat a solve until this much time is spent (timing noise) */
    int max_reps;
    double max_time; /* whole run; 0 = none */
    double t_end;
} bench_opts;

/* One problem: a file (loaded when its turn comes) or a generated matrix. */
typedef struct {
    char name[64];
    char *path;      /* NULL for generated ones */
    int gen_kind;    /* 0 file, 1 randsvd, 2 poisson2d, 3 poisson3d, 4 anisotropic, 5 uniform random */
    double gen_kappa; /* randsvd: the condition number (0: 1e6) */
    int gen_n;
} problem;

static void bench_usage(FILE *f)
{
    char be[128], lu[256], cg[256]; /* the library's lists of backends and precisions */
    fprintf(f,
            "Usage: mixsolve bench [DIR|FILE...] [-o OUTDIR] [--quick] [--backend %s]\n"
            "         [--dense-max N] [--time-limit SECONDS] [--max-time SECONDS] [--max-nnz N] [--no-gen]\n"
            "Runs every matrix (*.mtx, *.mtx.gz in each DIR, or the FILEs) with every applicable\n"
            "method and precision: dense LU-IR (mix_dgesv_ir, factor %s; refine auto)\n"
            "for square matrices with n <= --dense-max (default 4096), dense Cholesky-IR (mix_dposv_ir,\n"
            "the same precisions, against LAPACKE_dposv) for those that are symmetric with a positive\n"
            "diagonal, and reliable-update CG\n"
            "(mix_dcg, Jacobi, storage %s) for symmetric matrices with a\n"
            "positive diagonal, against the FP64 baseline (LAPACKE_dgesv, FP64 CG) in the same run.\n"
            "Square matrices beyond --dense-max that are not SPD candidates: sparse LU-IR (splu:\n"
            "mix_dgesv_sparse fp32|auto) against UMFPACK, factor memory FP32 vs FP64 in the note.\n"
            "b = A * ones; the backward error (LU) or true relative residual (CG) is recomputed here\n"
            "in FP64, so a reported success that is not one counts as a silent failure.  Each solve\n"
            "runs in a child process killed after --time-limit seconds (default 60).  Without\n"
            "arguments: the bundled SuiteSparse set plus generated problems (--no-gen: without them).\n"
            "--max-time bounds the whole run (solves left are reported as skipped); files with more\n"
            "than --max-nnz stored entries (default 50000000) are skipped with a note.\n"
            "Writes a table on stdout, progress on stderr, and OUTDIR (default bench-out) with\n"
            "results.csv, report.md and PNG plots (gnuplot).  --quick: smaller limits and problems.\n",
            cli_backend_choices(be, sizeof be), cli_prec_choices(MIX_ROLE_FACTOR, lu, sizeof lu),
            cli_prec_choices(MIX_ROLE_STORAGE, cg, sizeof cg));
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int add_problem(problem **p, int *n, int *cap, const char *name, const char *path, int kind, int gn)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 64;
        problem *q = realloc(*p, (size_t)c * sizeof *q);
        if (!q) return -1;
        *p = q;
        *cap = c;
    }
    problem *e = &(*p)[(*n)++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->path = path ? strdup(path) : NULL;
    e->gen_kind = kind;
    e->gen_n = gn;
    return (path && !e->path) ? -1 : 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void base_name(const char *path, char *out, size_t len)
{
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    snprintf(out, len, "%s", s);
    char *dot = strstr(out, ".mtx");
    if (dot) *dot = '\0';
}

/* Files of a directory, sorted; 0, or -1 when it cannot be read. */
static int add_dir(const char *dir, problem **p, int *n, int *cap)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    int cnt = 0, ncap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".mtx") && !has_suffix(e->d_name, ".mtx.gz")) continue;
        if (cnt == ncap) {
            ncap = ncap ? 2 * ncap : 64;
            char **q = realloc(names, (size_t)ncap * sizeof *q);
            if (!q) break;
            names = q;
        }
        names[cnt] = strdup(e->d_name);
        if (names[cnt]) cnt++;
    }
    closedir(d);
    qsort(names, (size_t)cnt, sizeof *names, name_cmp);
    for (int i = 0; i < cnt; i++) {
        char path[4096], nm[64];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        base_name(names[i], nm, sizeof nm);
        add_problem(p, n, cap, nm, path, 0, 0);
        free(names[i]);
    }
    free(names);
    return 0;
}

static const char *default_dir(void)
{
    static char buf[4096];
    const char *env = getenv("MIX_MATRIX_DIR");
    const char *cands[] = {env, MIX_DATADIR "/matrices", MIX_SRCDIR "/matrices/data"};
    for (int k = 0; k < 3; k++) {
        struct stat st;
        if (!cands[k]) continue;
        snprintf(buf, sizeof buf, "%s/LF10.mtx", cands[k]);
        if (!stat(cands[k], &st) && S_ISDIR(st.st_mode) && (k == 0 || !stat(buf, &st))) return cands[k];
    }
    return NULL;
}

/* ---- the problems ----------------------------------------------------------------------------- */

/* Dense generated matrices go through the same CSR path as files (every entry stored). */
static int dense_to_csr(int n, const double *a, mixm_csr *A)
{
    int st = mixm_csr_alloc(A, n, n, (int64_t)n * n);
    if (st) return st;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = (int64_t)i * n;
        for (int j = 0; j < n; j++) {
            A->colind[(int64_t)i * n + j] = j;
            A->val[(int64_t)i * n + j] = a[i + (size_t)j * n];
        }
    }
    A->rowptr[n] = (int64_t)n * n;
    return MIX_SUCCESS;
}

static int load_problem(const problem *p, const bench_opts *o, mixm_csr *A, char *err, size_t errlen)
{
    memset(A, 0, sizeof *A);
    if (p->path) {
        mixm_mtx_header h;
        int st = mixm_mtx_read_header(p->path, &h, err, errlen);
        if (st) return st;
        if (h.entries > o->max_nnz) {
            snprintf(err, errlen, "%lld stored entries exceed --max-nnz %lld", (long long)h.entries, o->max_nnz);
            return MIX_ERR_UNSUPPORTED;
        }
        return mixm_mtx_read(p->path, A, NULL, err, errlen);
    }
    int st;
    switch (p->gen_kind) {
    case 1:
    case 5: {
        double *a = malloc((size_t)p->gen_n * (size_t)p->gen_n * sizeof *a);
        if (!a) return MIX_ERR_ALLOC;
        st = p->gen_kind == 5 ? mixm_gen_random_dense(p->gen_n, 42, a)
                              : mixm_gen_randsvd(p->gen_n, p->gen_kappa > 0 ? p->gen_kappa : 1e6, 3, 42, a);
        if (!st) st = dense_to_csr(p->gen_n, a, A);
        free(a);
        break;
    }
    case 2: st = mixm_gen_poisson2d(p->gen_n, A); break;
    case 3: st = mixm_gen_poisson3d(p->gen_n, A); break;
    default: st = mixm_gen_anisotropic2d(p->gen_n, 1e-3, A); break;
    }
    if (st) snprintf(err, errlen, "generator failed: %s", mix_strerror(st));
    return st;
}

/* ---- one solve (runs in the child) ------------------------------------------------------------ */

static int has_nonfinite(const double *x, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i])) return 1;
    return 0;
}

/* Backward error (LU) and true relative 2-norm residual (CG) of x by libmixmat's range-safe FP64
 * re-check, from the CSR, and the forward error against x = ones; a non-finite x is infinitely
 * wrong. */
static void check_solution(const mixm_csr *A, const double *b, const double *x, double *be, double *rel2,
                           double *fwd)
{
    int n = A->nrows;
    if (has_nonfinite(x, n) || mixm_csr_recheck(A, b, x, be, rel2)) {
        *be = *rel2 = *fwd = INFINITY;
        return;
    }
    double f = 0;
    for (int i = 0; i < n; i++) f = fmax(f, fabs(x[i] - 1.0));
    *fwd = f;
}

static const char *cg_reason(int reason)
{
    static const char *const names[] = {"converged", "iteration limit", "stagnated at the precision's floor",
                                        "breakdown: not SPD", "breakdown: NaN/Inf", "zero right-hand side",
                                        "solution out of FP64 range", "matrix overflows the storage"};
    return reason >= 0 && reason <= 7 ? names[reason] : "unknown";
}

static const char *lu_reason(int reason)
{
    static const char *const names[] = {"", "FP64 chosen directly", "overflow in the low precision",
                                        "low-precision factorization failed", "refinement did not converge",
                                        "NaN/Inf in refinement", "refinement predicted slower than FP64"};
    return reason >= 0 && reason <= 6 ? names[reason] : "unknown";
}

/* LU or Cholesky rows: LAPACKE for FP64, the mixsolve drivers otherwise; best of repetitions. */
/* The outcome and note of a dense run whose check is in res (status st of the solver). */
static void judge_dense(bench_result *res, const bench_set *s, int n, int chol, int st)
{
    double thr = s->threshold_lu_factor * sqrt((double)(n ? n : 1)) * DBL_EPSILON;
    if (st) {
        res->outcome = BENCH_FAILED;
        if (res->prec == MIX_FP64 && chol)
            snprintf(res->note, sizeof res->note, "dposv info %d: not positive definite", st);
        else if (res->prec == MIX_FP64) snprintf(res->note, sizeof res->note, "dgesv info %d: exactly singular", st);
        else snprintf(res->note, sizeof res->note, "%s", mix_strerror(st));
    } else if (!(res->check <= thr)) {
        res->outcome = BENCH_SILENT;
        snprintf(res->note, sizeof res->note, "reported success, backward error %.2e > %.2e", res->check, thr);
    } else if (res->fell_back && !(res->prec == MIX_PREC_AUTO && res->reason == MIX_REASON_DIRECT)) {
        res->outcome = BENCH_FALLBACK;
        snprintf(res->note, sizeof res->note, "%sfallback: %s",
                 res->prec == MIX_PREC_AUTO ? (res->reason == MIX_REASON_DIRECT ? "" : "auto: ") : "",
                 lu_reason(res->reason));
    } else {
        res->outcome = BENCH_OK;
        /* AUTO says what it took (FP64 directly is a choice, not a fallback). */
        if (res->prec == MIX_PREC_AUTO)
            snprintf(res->note, sizeof res->note, "auto took %s", mix_prec_name(res->used));
    }
}

static void run_dense(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res,
                      mix_context *ctx, const double *b, double *x)
{
    const int n = A->nrows, chol = res->method == BENCH_CHOL;
    const size_t nn = (size_t)(n ? n : 1);
    double best = INFINITY, spent = 0;
    int st = 0;
    mixm_dense D;
    if (mixm_csr_to_dense(A, &D)) {
        snprintf(res->note, sizeof res->note, "out of memory for the dense copy");
        return;
    }
    double *d0 = D.a, *work = malloc(nn * nn * sizeof *work);
    int *ipiv = malloc(nn * sizeof *ipiv);
    if (!work || !ipiv) {
        snprintf(res->note, sizeof res->note, "out of memory for the dense copy");
        goto out;
    }
    mix_gesv_params prm;
    mix_gesv_params_init(&prm);
    prm.factor_prec = res->prec;
    prm.refine = MIX_REFINE_AUTO;
    prm.residual_history = res->hist;
    prm.history_capacity = BENCH_HIST;
    mix_gesv_info info;
    memset(&info, 0, sizeof info);
    for (int rep = 0; rep < o->max_reps; rep++) {
        memcpy(work, d0, (size_t)n * nn * sizeof *work);
        double t0;
        if (res->prec == MIX_FP64) {
            memcpy(x, b, nn * sizeof *x);
            t0 = mixm_wtime();
            st = chol ? (int)LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, work, n, x, n)
                      : (int)LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, work, n, ipiv, x, n);
        } else {
            t0 = mixm_wtime();
            st = chol ? mix_dposv_ir(ctx, &prm, MIX_COL_MAJOR, 'L', n, 1, work, n, b, n, x, n, &info)
                      : mix_dgesv_ir(ctx, &prm, MIX_COL_MAJOR, n, 1, work, n, ipiv, b, n, x, n, &info);
        }
        double t = mixm_wtime() - t0;
        best = fmin(best, t);
        spent += t;
        if (st || (rep >= 1 && spent > o->min_time) || spent > o->time_limit / 8) break;
    }
    res->status = st;
    res->time = best;
    if (res->prec == MIX_FP64) {
        if (st == 0 && n > 0 && !chol) { /* work holds the LU factors of the last repetition */
            double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', n, n, d0, n), rcond = 0;
            if (LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', n, work, n, anorm, &rcond) == 0 && rcond > 0)
                res->kappa1 = 1.0 / rcond;
            else
                res->kappa1 = INFINITY;
        }
    } else {
        res->iter = info.iter;
        res->used = info.factor_prec_used;
        res->inner_iter = info.inner_iter;
        res->fell_back = info.fell_back;
        res->reason = info.reason;
        res->solver_check = info.backward_error;
        res->hist_len = info.history_length < BENCH_HIST ? info.history_length : BENCH_HIST;
    }
    double rel2;
    check_solution(A, b, x, &res->check, &rel2, &res->fwd_err);
    judge_dense(res, s, n, chol, st);
out:
    free(d0);
    free(work);
    free(ipiv);
}

/* CG rows: mix_dcg with Jacobi, best of repetitions, the storage precisions that ran. */
static void run_cg(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res,
                   mix_context *ctx, const double *b, double *x)
{
    const int n = A->nrows;
    const size_t nn = (size_t)(n ? n : 1);
    double best = INFINITY, spent = 0;
    int st = 0;
    mix_sparse *S = NULL;
    if ((st = mix_sparse_create_csr(ctx, n, A->rowptr, A->colind, A->val, &S))) {
        res->status = st;
        snprintf(res->note, sizeof res->note, "sparse setup: %s", mix_strerror(st));
        return;
    }
    mix_cg_params prm;
    mix_cg_params_init(&prm);
    prm.sloppy_prec = res->prec;
    prm.tol = s->cg_tol;
    prm.precond = MIX_PRECOND_JACOBI;
    mix_cg_info info;
    memset(&info, 0, sizeof info);
    for (int rep = 0; rep < o->max_reps; rep++) {
        memset(x, 0, nn * sizeof *x);
        double t0 = mixm_wtime();
        st = mix_dcg(ctx, &prm, S, b, x, &info);
        double t = mixm_wtime() - t0;
        best = fmin(best, t);
        spent += t;
        if (st || (rep >= 1 && spent > o->min_time) || spent > o->time_limit / 8) break;
    }
    res->status = st;
    res->time = best;
    res->iter = info.iter;
    res->reliable_updates = info.reliable_updates;
    res->reason = info.reason;
    res->solver_check = info.true_rel_residual;
    double be;
    check_solution(A, b, x, &be, &res->check, &res->fwd_err);
    if (st) {
        res->outcome = BENCH_FAILED;
        snprintf(res->note, sizeof res->note, "%s (%s)", mix_strerror(st), cg_reason(info.reason));
    } else if (!(res->check <= 10 * prm.tol)) {
        res->outcome = BENCH_SILENT;
        snprintf(res->note, sizeof res->note, "reported convergence, residual %.2e > 10 tol", res->check);
    } else {
        res->outcome = BENCH_OK;
    }
    /* Which storage precisions ran (escalation, AUTO's choice). */
    if (!res->note[0] && (info.stages > 1 || res->prec == MIX_PREC_AUTO)) {
        size_t len = 0;
        for (int k = 0; k < info.stages && len < sizeof res->note; k++)
            len += (size_t)snprintf(res->note + len, sizeof res->note - len, "%s%s %d it",
                                    k ? " -> " : "storage ", mix_prec_name(info.stage_prec[k]),
                                    info.stage_iter[k]);
    }
    mix_sparse_destroy(S);
}

static void run_one(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res)
{
    int n = A->nrows;
    size_t nn = (size_t)(n ? n : 1);
    double *b = malloc(nn * sizeof *b), *x = calloc(nn, sizeof *x);
    mix_context *ctx = NULL;
    res->outcome = BENCH_FAILED;
    if (!b || !x) {
        snprintf(res->note, sizeof res->note, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) x[i] = 1.0;
    mixm_csr_matvec(A, x, b);
    int st = 0;
    const int dense = res->method == BENCH_LU || res->method == BENCH_CHOL;
    if (!(dense && res->prec == MIX_FP64)) {
        if ((st = mix_context_create(&ctx, o->backend))) {
            res->status = st;
            snprintf(res->note, sizeof res->note, "backend: %s", mix_strerror(st));
            goto out;
        }
    }
    if (dense) run_dense(A, o, s, res, ctx, b, x);
    else if (res->method == BENCH_SPLU)
        bench_sparse_lu_run(A, ctx, o->min_time, o->max_reps,
                            s->threshold_lu_factor * sqrt((double)n) * DBL_EPSILON, b, x, res);
    else run_cg(A, o, s, res, ctx, b, x);
out:
    mix_context_destroy(ctx);
    free(b);
    free(x);
}

/* Runs run_one in a child so that a hang is cut at the time limit and a crash is only a result. */
/* The parent never runs BLAS on more than one thread: an OpenMP team (OpenBLAS's OpenMP build,
 * which install-deps selects) does not survive fork(), and a child's first parallel call after
 * the parent started one hangs (measured: a dgemm in the child never returned, and every
 * n = 4096 solve of the main job was killed at its time limit).  Each child gets the threads back. */
static int child_blas_threads = 1;

static void enter_child(void) { openblas_set_num_threads(child_blas_threads); }

static void run_isolated(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res)
{
    int fd[2];
    if (pipe(fd)) {
        run_one(A, o, s, res);
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        run_one(A, o, s, res);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        enter_child();
        run_one(A, o, s, res);
        const char *p = (const char *)res;
        size_t left = sizeof *res;
        while (left) {
            ssize_t w = write(fd[1], p, left);
            if (w <= 0) _exit(3);
            p += w;
            left -= (size_t)w;
        }
        _exit(0);
    }
    close(fd[1]);
    bench_result got;
    char *p = (char *)&got;
    size_t have = 0;
    double deadline = fmin(mixm_wtime() + o->time_limit, o->t_end);
    int timed_out = 0;
    while (have < sizeof got) {
        int ms = (int)((deadline - mixm_wtime()) * 1000);
        if (ms <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = {fd[0], POLLIN, 0};
        int pr = poll(&pf, 1, ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) {
            timed_out = 1;
            break;
        }
        ssize_t k = read(fd[0], p + have, sizeof got - have);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        have += (size_t)k;
    }
    close(fd[0]);
    if (timed_out) kill(pid, SIGKILL);
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {}
    if (have == sizeof got) {
        *res = got;
    } else if (timed_out) {
        res->outcome = BENCH_TIMEOUT;
        snprintf(res->note, sizeof res->note, "killed at the %.0f s time limit", o->time_limit);
    } else {
        res->outcome = BENCH_CRASHED;
        if (WIFSIGNALED(wst))
            snprintf(res->note, sizeof res->note, "solve process died: %s", strsignal(WTERMSIG(wst)));
        else
            snprintf(res->note, sizeof res->note, "solve process exited with status %d", WEXITSTATUS(wst));
    }
}

/* The backend AUTO resolves to, and its description, found in a child: the parent must never
 * initialise CUDA, or no forked solve could use the device. */
typedef struct {
    int status;
    mix_backend used;
    mix_caps caps;
} backend_probe;

static void probe_backend(mix_backend want, backend_probe *pr)
{
    memset(pr, 0, sizeof *pr);
    pr->status = MIX_ERR_INTERNAL;
    int fd[2];
    if (pipe(fd)) return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        enter_child();
        backend_probe r;
        memset(&r, 0, sizeof r);
        mix_context *ctx = NULL;
        r.status = mix_context_create(&ctx, want);
        if (!r.status) {
            r.used = mix_context_backend(ctx);
            mix_backend_caps(r.used, &r.caps);
            mix_context_destroy(ctx);
        }
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 3);
    }
    close(fd[1]);
    size_t have = 0;
    backend_probe got;
    char *p = (char *)&got;
    for (;;) {
        ssize_t k = read(fd[0], p + have, sizeof got - have);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        have += (size_t)k;
        if (have == sizeof got) break;
    }
    close(fd[0]);
    int wst;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {}
    if (have == sizeof got) *pr = got;
}

/* ---- the run ----------------------------------------------------------------------------------- */

static bench_result *new_result(bench_set *s, const char *name, const mixm_csr *A, int spd, bench_method m,
                                mix_prec p)
{
    if (s->count == s->cap) {
        int c = s->cap ? 2 * s->cap : 256;
        bench_result *q = realloc(s->r, (size_t)c * sizeof *q);
        if (!q) return NULL;
        s->r = q;
        s->cap = c;
    }
    bench_result *r = &s->r[s->count++];
    memset(r, 0, sizeof *r);
    snprintf(r->matrix, sizeof r->matrix, "%s", name);
    r->n = A ? A->nrows : 0;
    r->nnz = A ? (long long)A->nnz : 0;
    r->spd_candidate = spd;
    r->method = m;
    r->prec = p;
    r->outcome = BENCH_SKIPPED;
    return r;
}


/* A DIR (its *.mtx, *.mtx.gz) or a FILE given on the command line: 0, or the message printed. */
static int add_input(const char *path, problem **probs, int *np, int *pcap)
{
    struct stat st;
    if (stat(path, &st)) return cli_error(CLI_USAGE, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        if (add_dir(path, probs, np, pcap)) return cli_error(CLI_USAGE, "%s: cannot read the directory", path);
        return 0;
    }
    char nm[64];
    base_name(path, nm, sizeof nm);
    add_problem(probs, np, pcap, nm, path, 0, 0);
    return 0;
}

/* The options of `mixsolve bench` (getopt_long). */
enum { OPT_QUICK = 256, OPT_NO_GEN, OPT_BACKEND, OPT_DENSE_MAX, OPT_TIME_LIMIT, OPT_MAX_TIME, OPT_MAX_NNZ };
static const struct option bench_longopts[] = {{"help", no_argument, NULL, 'h'},
                                               {"output", required_argument, NULL, 'o'},
                                               {"quick", no_argument, NULL, OPT_QUICK},
                                               {"no-gen", no_argument, NULL, OPT_NO_GEN},
                                               {"backend", required_argument, NULL, OPT_BACKEND},
                                               {"dense-max", required_argument, NULL, OPT_DENSE_MAX},
                                               {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
                                               {"max-time", required_argument, NULL, OPT_MAX_TIME},
                                               {"max-nnz", required_argument, NULL, OPT_MAX_NNZ},
                                               {NULL, 0, NULL, 0}};

/* Options and inputs of `mixsolve bench`: -1 to go on, else the exit status (--help, an error). */
static int bench_args(int argc, char **argv, bench_opts *opts, const char **outdir, problem **probs,
                      int *np, int *pcap, int *explicit_inputs)
{
    bench_opts o = *opts;
    int dense_set = 0, limit_set = 0;
    cli_args args;
    cli_args_init(&args, argc, argv, "ho:", bench_longopts);
    const char *v;
    for (int c; (c = cli_next(&args, &v)) != CLI_ARGS_END;) {
        long lv;
        double dv;
        switch (c) {
        case 'h':
            bench_usage(stdout);
            return CLI_OK;
        case 'o':
            *outdir = v;
            break;
        case OPT_QUICK:
            o.quick = 1;
            break;
        case OPT_NO_GEN:
            o.gen = 0;
            break;
        case OPT_BACKEND:
            if (!cli_parse_backend(v, &o.backend)) return cli_error(CLI_USAGE, "bad --backend '%s' (cpu, cuda or auto)", v);
            break;
        case OPT_DENSE_MAX:
            if (!cli_parse_long(v, 0, 32768, &lv)) return cli_error(CLI_USAGE, "bad --dense-max '%s' (0..32768)", v);
            o.dense_max = (int)lv;
            dense_set = 1;
            break;
        case OPT_TIME_LIMIT:
            if (!cli_parse_double(v, &dv) || dv <= 0) return cli_error(CLI_USAGE, "bad --time-limit '%s'", v);
            o.time_limit = dv;
            limit_set = 1;
            break;
        case OPT_MAX_TIME:
            if (!cli_parse_double(v, &dv) || dv <= 0) return cli_error(CLI_USAGE, "bad --max-time '%s'", v);
            o.max_time = dv;
            break;
        case OPT_MAX_NNZ:
            if (!cli_parse_long(v, 1, 2147483647L, &lv)) return cli_error(CLI_USAGE, "bad --max-nnz '%s'", v);
            o.max_nnz = lv;
            break;
        case CLI_ARGS_POSITIONAL:
            *explicit_inputs = 1;
            if (add_input(v, probs, np, pcap)) return CLI_USAGE;
            break;
        case CLI_ARGS_UNKNOWN:
            return cli_error(CLI_USAGE, "bench: unknown option '%s' (see mixsolve bench --help)", v);
        default: /* CLI_ARGS_ERROR: said */
            return CLI_USAGE;
        }
    }
    if (o.quick) {
        if (!dense_set) o.dense_max = 2048;
        if (!limit_set) o.time_limit = 20;
        o.min_time = 0.05;
        o.max_reps = 50;
    }
    *opts = o;
    return -1;
}

/* The generated problems of the default set, after the bundled matrices. */
static void add_generated(const bench_opts *o, problem **probs, int *np, int *pcap)
{
    add_problem(probs, np, pcap, o->quick ? "gen_randsvd_500_1e6" : "gen_randsvd_1500_1e6", NULL, 1,
                o->quick ? 500 : 1500);
    if (!o->quick) {
        /* Where mixed precision pays on a CPU: dense n = 4096 (issue 10). */
        add_problem(probs, np, pcap, "gen_randsvd_4096_1e2", NULL, 1, 4096);
        (*probs)[*np - 1].gen_kappa = 1e2;
        add_problem(probs, np, pcap, "gen_randsvd_4096_1e6", NULL, 1, 4096);
        add_problem(probs, np, pcap, "gen_random_4096", NULL, 5, 4096);
    }
    add_problem(probs, np, pcap, o->quick ? "gen_poisson2d_128" : "gen_poisson2d_256", NULL, 2,
                o->quick ? 128 : 256);
    add_problem(probs, np, pcap, o->quick ? "gen_poisson3d_20" : "gen_poisson3d_32", NULL, 3,
                o->quick ? 20 : 32);
    /* n = 10^6: a CG problem larger than the caches, where storage precision can pay. */
    if (!o->quick) add_problem(probs, np, pcap, "gen_poisson3d_100", NULL, 3, 100);
    add_problem(probs, np, pcap, o->quick ? "gen_aniso_64_1e-3" : "gen_aniso_128_1e-3", NULL, 4,
                o->quick ? 64 : 128);
}

/* A general matrix beyond --dense-max: UMFPACK (FP64 baseline), sparse LU-IR in FP32 and AUTO. */
static void splu_rows(int i, int np, const problem *prob, const mixm_csr *A, const bench_opts *o,
                      bench_set *s, int spd)
{
    static const mix_prec precs[3] = {MIX_FP64, MIX_FP32, MIX_PREC_AUTO};
    for (int k = 0; k < 3; k++) {
        bench_result *r = new_result(s, prob->name, A, spd, BENCH_SPLU, precs[k]);
        if (!r) break;
        fprintf(stderr, "[%d/%d] %s: sparse lu %s\n", i + 1, np, prob->name,
                k ? mix_prec_name(precs[k]) : "fp64 (UMFPACK)");
        if (mixm_wtime() > o->t_end - 1) {
            snprintf(r->note, sizeof r->note, "skipped: --max-time budget spent");
            continue;
        }
        run_isolated(A, o, s, r);
    }
}

/* Every method and precision on problem i of np, each solve in its own child; rows into s. */
static void bench_problem(int i, int np, const problem *prob, const bench_opts *o, bench_set *s)
{
    char err[512] = "";
    mixm_csr A;
    if (mixm_wtime() > o->t_end - 1) {
        bench_result *r = new_result(s, prob->name, NULL, 0, BENCH_LU, MIX_FP64);
        if (r) snprintf(r->note, sizeof r->note, "skipped: --max-time budget spent");
        fprintf(stderr, "[%d/%d] %s: skipped (--max-time spent)\n", i + 1, np, prob->name);
        return;
    }
    fprintf(stderr, "[%d/%d] %s: loading\n", i + 1, np, prob->name);
    int st = load_problem(prob, o, &A, err, sizeof err);
    if (st) {
        bench_result *r = new_result(s, prob->name, NULL, 0, BENCH_LU, MIX_FP64);
        if (r) snprintf(r->note, sizeof r->note, "not loaded: %.100s", err[0] ? err : mix_strerror(st));
        fprintf(stderr, "[%d/%d] %s: skipped: %s\n", i + 1, np, prob->name, err[0] ? err : mix_strerror(st));
        return;
    }
    int spd = cli_spd_candidate(&A);
    int square = A.nrows == A.ncols;
    /* The library's lists, FP64 (the LAPACKE / FP64 CG baseline) first and AUTO last. */
    mix_prec lu_precs[CLI_MAX_PRECS], cg_precs[CLI_MAX_PRECS];
    const int n_lu = cli_precs(MIX_ROLE_FACTOR, 0, 1, lu_precs);
    const int n_cg = cli_precs(MIX_ROLE_STORAGE, 0, 1, cg_precs);
    double budget_end = mixm_wtime() + 3 * o->time_limit;
    if (!square || A.nrows > o->dense_max) {
        bench_result *r = new_result(s, prob->name, &A, spd, BENCH_LU, MIX_FP64);
        if (r) {
            if (!square) snprintf(r->note, sizeof r->note, "not square (%d x %d)", A.nrows, A.ncols);
            else snprintf(r->note, sizeof r->note, "dense LU skipped: n = %d > --dense-max %d", A.nrows, o->dense_max);
        }
    } else {
        for (int k = 0; k < n_lu; k++) {
            bench_result *r = new_result(s, prob->name, &A, spd, BENCH_LU, lu_precs[k]);
            if (!r) break;
            fprintf(stderr, "[%d/%d] %s: lu %s\n", i + 1, np, prob->name,
                    k ? mix_prec_name(lu_precs[k]) : "fp64 (LAPACKE_dgesv)");
            if ((k > 0 && mixm_wtime() > budget_end) || mixm_wtime() > o->t_end - 1) { /* baselines always run */
                snprintf(r->note, sizeof r->note, "skipped: %s time budget spent",
                         mixm_wtime() > o->t_end - 1 ? "--max-time" : "this matrix's");
                continue;
            }
            run_isolated(&A, o, s, r);
        }
    }
    if (spd && square && A.nrows <= o->dense_max) {
        for (int k = 0; k + 1 < n_lu; k++) { /* AUTO is the LU driver's */
            bench_result *r = new_result(s, prob->name, &A, spd, BENCH_CHOL, lu_precs[k]);
            if (!r) break;
            fprintf(stderr, "[%d/%d] %s: chol %s\n", i + 1, np, prob->name,
                    k ? mix_prec_name(lu_precs[k]) : "fp64 (LAPACKE_dposv)");
            if ((k > 0 && mixm_wtime() > budget_end + o->time_limit) || mixm_wtime() > o->t_end - 1) {
                snprintf(r->note, sizeof r->note, "skipped: %s time budget spent",
                         mixm_wtime() > o->t_end - 1 ? "--max-time" : "this matrix's");
                continue;
            }
            run_isolated(&A, o, s, r);
        }
    }
    if (spd) {
        for (int k = 0; k < n_cg; k++) {
            bench_result *r = new_result(s, prob->name, &A, spd, BENCH_CG, cg_precs[k]);
            if (!r) break;
            fprintf(stderr, "[%d/%d] %s: cg %s\n", i + 1, np, prob->name, mix_prec_name(cg_precs[k]));
            if ((k > 0 && mixm_wtime() > budget_end + 3 * o->time_limit) || mixm_wtime() > o->t_end - 1) {
                snprintf(r->note, sizeof r->note, "skipped: %s time budget spent",
                         mixm_wtime() > o->t_end - 1 ? "--max-time" : "this matrix's");
                continue;
            }
            run_isolated(&A, o, s, r);
        }
    } else if (square && A.nrows > o->dense_max) {
        splu_rows(i, np, prob, &A, o, s, spd);
    }
    mixm_csr_free(&A);
}

/* Speedups against the FP64 baseline of the same matrix and method. */
static void set_speedups(bench_set *s)
{
    for (int i = 0; i < s->count; i++) {
        bench_result *r = &s->r[i];
        if (r->outcome != BENCH_OK && r->outcome != BENCH_FALLBACK) continue;
        for (int j = 0; j < s->count; j++) {
            bench_result *b = &s->r[j];
            if (b->prec == MIX_FP64 && b->method == r->method && !strcmp(b->matrix, r->matrix) &&
                b->outcome == BENCH_OK && b->time > 0 && r->time > 0)
                r->speedup = b->time / r->time;
            if (b->prec == MIX_FP64 && b->method == BENCH_LU && !strcmp(b->matrix, r->matrix))
                r->kappa1 = b->kappa1;
        }
    }
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o = {0, 1, MIX_BACKEND_AUTO, 4096, 60.0, 50000000LL, 0.2, 200, 0, 0};
    child_blas_threads = openblas_get_num_threads();
    openblas_set_num_threads(1); /* see run_isolated */
    const char *outdir = "bench-out";
    problem *probs = NULL;
    int np = 0, pcap = 0, explicit_inputs = 0;
    int rc = bench_args(argc, argv, &o, &outdir, &probs, &np, &pcap, &explicit_inputs);
    if (rc >= 0) return rc;
    if (!explicit_inputs) {
        const char *d = default_dir();
        if (!d) return cli_error(CLI_USAGE, "bench: no bundled matrices found (set MIX_MATRIX_DIR or give a DIR)");
        add_dir(d, &probs, &np, &pcap);
        if (o.gen) add_generated(&o, &probs, &np, &pcap);
    }
    if (!np) return cli_error(CLI_USAGE, "bench: no *.mtx or *.mtx.gz files in the given inputs");
    if (mkdir(outdir, 0777) && errno != EEXIST)
        return cli_error(CLI_USAGE, "%s: cannot create the output folder: %s", outdir, strerror(errno));

    bench_set s;
    memset(&s, 0, sizeof s);
    s.outdir = outdir;
    s.threshold_lu_factor = 10.0;
    s.cg_tol = 1e-10;
    {
        backend_probe pr;
        probe_backend(o.backend, &pr);
        if (pr.status)
            return cli_error(CLI_SOLVER_FAILED, "cannot use backend %s: %s", mix_backend_name(o.backend),
                             mix_strerror(pr.status));
        snprintf(s.backend, sizeof s.backend, "%s", mix_backend_name(pr.used));
        snprintf(s.device, sizeof s.device, "%s", pr.caps.device);
        snprintf(s.libraries, sizeof s.libraries, "%s", pr.caps.libraries);
        o.backend = pr.used; /* every child uses the same one */
    }
    double t_start = mixm_wtime();
    o.t_end = o.max_time > 0 ? t_start + o.max_time : INFINITY;
    for (int i = 0; i < np; i++) bench_problem(i, np, &probs[i], &o, &s);
    s.wall = mixm_wtime() - t_start;
    for (int i = 0; i < np; i++) free(probs[i].path);
    free(probs);
    set_speedups(&s);
    rc = bench_report(&s, stdout);
    free(s.r);
    return rc ? CLI_USAGE : CLI_OK;
}
