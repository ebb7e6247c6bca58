/* bench_child.c: each solve of `mixsolve bench` in a child process (a hang cut at the time limit,
 * a crash only a result), and the backend AUTO resolves to, found in a child as well. */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cblas.h>
#include "tools/bench_run.h"

/* The parent never runs BLAS on more than one thread: an OpenMP team (OpenBLAS's OpenMP build,
 * which install-deps selects) does not survive fork(), and a child's first parallel call after
 * the parent started one hangs (measured: a dgemm in the child never returned, and every
 * n = 4096 solve of the main job was killed at its time limit).  Each child gets the threads back. */
static int child_blas_threads = 1;

static void enter_child(void) { openblas_set_num_threads(child_blas_threads); }

void bench_serial_parent(void)
{
    child_blas_threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
}

/* In the child: the solve, its result written whole to fd; never returns. */
_Noreturn static void child_solve(int fd, const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res)
{
    enter_child();
    bench_run_one(A, o, s, res);
    const char *p = (const char *)res;
    size_t left = sizeof *res;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w <= 0) _exit(3);
        p += w;
        left -= (size_t)w;
    }
    _exit(0);
}

/* In the parent: the child's result from fd until the deadline; the bytes read (sizeof *got when
 * whole), *timed_out set when the deadline passed first. */
static size_t read_result(int fd, bench_result *got, double deadline, int *timed_out)
{
    char *p = (char *)got;
    size_t have = 0;
    *timed_out = 0;
    while (have < sizeof *got) {
        int ms = (int)((deadline - mixm_wtime()) * 1000);
        if (ms <= 0) {
            *timed_out = 1;
            break;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) {
            *timed_out = 1;
            break;
        }
        ssize_t k = read(fd, p + have, sizeof *got - have);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        have += (size_t)k;
    }
    return have;
}

void bench_run_isolated(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res)
{
    int fd[2];
    if (pipe(fd)) {
        bench_run_one(A, o, s, res);
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        bench_run_one(A, o, s, res);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        child_solve(fd[1], A, o, s, res);
    }
    close(fd[1]);
    bench_result got;
    int timed_out;
    size_t have = read_result(fd[0], &got, fmin(mixm_wtime() + o->time_limit, o->t_end), &timed_out);
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

void bench_probe_backend(mix_backend want, bench_backend_probe *pr)
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
        bench_backend_probe r;
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
    bench_backend_probe got;
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
