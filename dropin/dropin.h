/* dropin.h: what the LAPACK drop-in's routines share: policy, per-thread context, log, real LAPACK. */
#ifndef MIX_DROPIN_H
#define MIX_DROPIN_H

#include "mixsolve.h"

/* MIXSOLVE_LAPACK: off (forward all), auto (default: route where AUTO predicts a gain), or a
 * forced factor precision. */
typedef enum { MIXD_OFF, MIXD_AUTO, MIXD_FORCE } mixd_mode;

/* MIXSOLVE_LAPACK_FACTORS: what dgesv_/dposv_ may assume of the factors they leave in A.
 * auto (default): under MIXSOLVE_LAPACK=auto, route only callers known to discard them; under a
 * forced precision, route every caller and keep A for exact reuse.  discard: the program never
 * uses them (route any caller, keep nothing).  keep: route any caller, keep A. */
typedef enum { MIXD_FACTORS_AUTO, MIXD_FACTORS_DISCARD, MIXD_FACTORS_KEEP } mixd_factors_mode;

typedef struct {
    mixd_mode mode;
    mix_prec forced;   /* MIXD_FORCE only */
    mix_backend backend; /* MIXSOLVE_BACKEND */
    int log_fd;        /* MIXSOLVE_LAPACK_LOG, or -1 */
    mixd_factors_mode factors; /* MIXSOLVE_LAPACK_FACTORS */
    const char *callers; /* MIXSOLVE_LAPACK_CALLERS, or NULL */
    int cost_fallback; /* MIXSOLVE_LAPACK_COST_FALLBACK: 0 refines to convergence, no time cap */
} mixd_policy;

/* What the caller of dgesv_/dposv_ does with the factors left in A. */
typedef enum {
    MIXD_FACTORS_SEEN,           /* unknown: it may reuse or read them */
    MIXD_FACTORS_DISCARDED,      /* a known wrapper that frees them unread (NumPy) */
    MIXD_FACTORS_CONDITION_ONLY, /* a known wrapper that only passes them to dgecon_ (R) */
} mixd_factor_use;

/* Classifies the shared object holding return_address (dladdr); user_list is
 * MIXSOLVE_LAPACK_CALLERS. */
mixd_factor_use mixd_caller_factor_use(const void *return_address, const char *user_list);

/* Whether a dgesv_/dposv_ call from return_address may be routed (else *why says why not),
 * whether the original A must be kept so that its reuse stays exact, and whether the caller
 * discards the factors unread (then none are written into A). */
typedef struct {
    int route, keep, discard;
    const char *why;
} mixd_factor_plan;
mixd_factor_plan mixd_plan_factors(const void *return_address);

/* The environment, read once per process (thread-safe). */
const mixd_policy *mixd_policy_get(void);

/* The calling thread's context (created on first use, destroyed at thread exit); NULL when none
 * can be created, and then the caller forwards. */
mix_context *mixd_context(void);

/* LAPACK's error handler as the program sees it (its own xerbla_ when it defines one), for
 * routine ("dgesv"). */
void mixd_xerbla(const char *routine, int info);

/* Nonzero while this thread is inside the drop-in: a LAPACK call made by mixsolve itself must
 * reach the real LAPACK, never come back here. */
int mixd_enter(void);
void mixd_leave(void);

/* The precision to route an n x n, nrhs solve with (chol: Cholesky's AUTO, which weighs half
 * LU's factorization), or MIX_FP64 to forward it. */
mix_prec mixd_route_prec(mix_context *ctx, int chol, int n, int nrhs);

/* mixsolve's parameters for a routed call in precision prec, as the environment asks. */
void mixd_params_init(mix_gesv_params *p, mix_prec prec);

/* The log's word for a mix_fallback_reason ("too-slow", "not-converged", ...); NULL for none. */
const char *mixd_reason_name(int reason);

/* One log line (only when MIXSOLVE_LAPACK_LOG is set): routine, n, nrhs, what happened
 * ("routed", "forwarded", "rejected" for an argument error), precision name, iter (NULL: none),
 * info, seconds, and why a call was not routed or, routed, fell back to FP64 (NULL: neither). */
void mixd_log(const char *routine, int n, int nrhs, const char *what, const char *prec,
              const int *iter, int info, double seconds, const char *why);

double mixd_now(void);

/* LAPACK's LSAME on a character argument: upper case. */
char mixd_upper(const char *c);

#endif
