/* env.c: the drop-in's policy (read once), per-thread contexts, real-LAPACK lookup, xerbla and log. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dropin/dropin.h"
#include "dropin/lapack.h"
#include "lib/api/mix_internal.h"
#include "lib/core/clock.h"

static mixd_policy policy = {MIXD_AUTO, MIX_FP64, MIX_BACKEND_AUTO, -1, MIXD_FACTORS_AUTO, NULL, 1};
static pthread_once_t policy_once = PTHREAD_ONCE_INIT;
static pthread_key_t ctx_key;

static void destroy_context(void *ctx)
{
    mix_context_destroy(ctx);
}

static void read_environment(void)
{
    const char *m = getenv("MIXSOLVE_LAPACK");
    if (m && *m && strcmp(m, "auto") != 0) {
        /* An unknown value changes nothing in the program's answers: forward everything.  The
         * precisions it may force are the library's low-precision factor precisions. */
        mix_prec forced[MIX_CAPS_PREC_SLOTS];
        const int nf = mix_prec_list(MIX_ROLE_FACTOR, forced, MIX_CAPS_PREC_SLOTS);
        policy.mode = MIXD_OFF;
        for (int i = 0; i < nf && i < MIX_CAPS_PREC_SLOTS; i++)
            if (forced[i] != MIX_FP64 && strcmp(m, mix_prec_name(forced[i])) == 0) {
                policy.mode = MIXD_FORCE;
                policy.forced = forced[i];
            }
    }
    const char *f = getenv("MIXSOLVE_LAPACK_FACTORS");
    if (f && strcmp(f, "discard") == 0) policy.factors = MIXD_FACTORS_DISCARD;
    else if (f && strcmp(f, "keep") == 0) policy.factors = MIXD_FACTORS_KEEP;
    const char *callers = getenv("MIXSOLVE_LAPACK_CALLERS");
    if (callers && *callers) policy.callers = strdup(callers);
    /* 0: refine until converged, stalled or out of iterations, however long it takes (the
     * path a call takes then no longer depends on the machine's load). */
    const char *cf = getenv("MIXSOLVE_LAPACK_COST_FALLBACK");
    if (cf && strcmp(cf, "0") == 0) policy.cost_fallback = 0;
    const char *b = getenv("MIXSOLVE_BACKEND");
    mix_backend all[MIX_NUM_BACKENDS]; /* the library's backends, by name */
    const int nb = mix_backend_list(all, MIX_NUM_BACKENDS);
    for (int k = 0; b && k < nb && k < MIX_NUM_BACKENDS; k++)
        if (strcmp(b, mix_backend_name(all[k])) == 0) policy.backend = all[k];
    const char *log = getenv("MIXSOLVE_LAPACK_LOG");
    if (log && *log) policy.log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (pthread_key_create(&ctx_key, destroy_context)) policy.mode = MIXD_OFF;
}

const mixd_policy *mixd_policy_get(void)
{
    pthread_once(&policy_once, read_environment);
    return &policy;
}

mix_context *mixd_context(void)
{
    /* One context per thread: concurrent calls never share backend state. */
    mix_context *ctx = pthread_getspecific(ctx_key);
    if (!ctx) {
        if (mix_context_create(&ctx, policy.backend) != MIX_SUCCESS) return NULL;
        if (pthread_setspecific(ctx_key, ctx)) {
            mix_context_destroy(ctx);
            return NULL;
        }
    }
    return ctx;
}

static mixd_real_lapack real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
    /* Object pointers to function pointers through memcpy: dlsym's documented idiom. */
#define REAL(f) {#f "_", offsetof(mixd_real_lapack, f)}
    static const struct {
        const char *name;
        size_t offset;
    } names[] = {
        REAL(dgesv),  REAL(dsgesv), REAL(dposv),  REAL(dsposv), REAL(dgetrs), REAL(dpotrs),
        REAL(dgetri), REAL(dpotri), REAL(dgecon), REAL(dpocon), REAL(dgerfs), REAL(dporfs),
        REAL(dgesvx), REAL(dposvx), REAL(dgetrf), REAL(dpotrf), REAL(dgemm),  REAL(dsymm),
        REAL(dlacn2),
    };
#undef REAL
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *f = dlsym(RTLD_NEXT, names[i].name);
        memcpy((char *)&real + names[i].offset, &f, sizeof f);
    }
}

const mixd_real_lapack *mixd_real(void)
{
    pthread_once(&real_once, find_real);
    return &real;
}

void mixd_xerbla(const char *routine, int info)
{
    /* Fortran's hidden length argument (size_t since gfortran 8); LAPACK pads upper-case names
     * to 6. */
    typedef void (*xerbla_fn)(const char *, const int *, size_t);
    xerbla_fn f = (xerbla_fn)dlsym(RTLD_DEFAULT, "xerbla_");
    char name[7];
    snprintf(name, sizeof name, "%-6s", routine);
    for (char *c = name; *c; c++) *c = (char)toupper((unsigned char)*c);
    if (f) f(name, &info, strlen(name));
}

static _Thread_local int depth;

int mixd_enter(void)
{
    return depth++ > 0;
}

void mixd_leave(void)
{
    depth--;
}

mix_prec mixd_route_prec(mix_context *ctx, int chol, int n, int nrhs)
{
    if (policy.mode == MIXD_FORCE) return policy.forced;
    if (policy.mode != MIXD_AUTO) return MIX_FP64;
    mix_prec p = MIX_FP64;
    const int st = mixi_auto_prec_for_call(ctx, chol, n, nrhs, &p);
    return st == MIX_SUCCESS ? p : MIX_FP64;
}

mixd_factor_plan mixd_plan_factors(const void *return_address)
{
    mixd_factor_plan plan = {1, 0, 0, NULL};
    if (policy.factors == MIXD_FACTORS_DISCARD) {
        plan.discard = 1;
        return plan;
    }
    if (policy.factors == MIXD_FACTORS_KEEP) {
        plan.keep = 1;
        return plan;
    }
    /* Low-precision factors are kept exact for reuse wherever a caller may pass them on. */
    switch (mixd_caller_factor_use(return_address, policy.callers)) {
    case MIXD_FACTORS_DISCARDED:
        plan.discard = 1;
        return plan;
    case MIXD_FACTORS_CONDITION_ONLY:
        /* Nothing kept: the condition estimate on the low-precision factors is only compared
         * with eps (mixsolve_lapack(7), WHO SEES THE FACTORS), and an exact one through the kept
         * A cost 5-13x LAPACK's dgecon, more than the routed solve saves. */
        return plan;
    case MIXD_FACTORS_SEEN:
    default:
        /* Only an explicit choice of precision opts an unknown caller in. */
        if (policy.mode == MIXD_FORCE) {
            plan.keep = 1;
            return plan;
        }
        plan.route = 0;
        plan.why = "caller";
        return plan;
    }
}

double mixd_now(void) { return mixi_wtime(); }

char mixd_upper(const char *c)
{
    return *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
}

void mixd_params_init(mix_gesv_params *p, mix_prec prec)
{
    mix_gesv_params_init(p);
    /* Under auto the library weighs AUTO again (its cached rates); both keep the worst-case
     * bound (solvers/policy.c). */
    p->factor_prec = policy.mode == MIXD_AUTO && prec != MIX_FP64 ? MIX_PREC_AUTO : prec;
    p->cost_fallback = mixd_policy_get()->cost_fallback;
}

const char *mixd_reason_name(int reason)
{
    switch (reason) {
    case MIX_REASON_NONE: case MIX_REASON_DIRECT: return NULL;
    case MIX_REASON_FACTOR_FAILED: return "factor";
    case MIX_REASON_OVERFLOW: return "overflow";
    case MIX_REASON_TOO_SLOW: return "too-slow";
    case MIX_REASON_NOT_CONVERGED: return "not-converged";
    case MIX_REASON_NAN_IN_REFINEMENT: return "nan";
    default: return "error";
    }
}

void mixd_log(const char *routine, int n, int nrhs, const char *what, const char *prec,
              const int *iter, int info, double seconds, const char *why)
{
    if (policy.log_fd < 0) return;
    char it[16] = "none", line[256];
    if (iter) snprintf(it, sizeof it, "%d", *iter);
    int len = snprintf(line, sizeof line,
                       "mixsolve_lapack %s n=%d nrhs=%d %s prec=%s iter=%s info=%d seconds=%.6f%s%s\n",
                       routine, n, nrhs, what, prec, it, info, seconds,
                       why ? " why=" : "", why ? why : "");
    if (len <= 0) return;
    if ((size_t)len >= sizeof line) len = sizeof line - 1;
    /* One write per line on an O_APPEND descriptor: lines from several threads never interleave. */
    ssize_t w = write(policy.log_fd, line, (size_t)len);
    (void)w;
}
