/* lapack_reuse.c: the drop-in's consumers of LU and Cholesky factors: dgetrs_/dpotrs_,
 * dgetri_/dpotri_, dgecon_/dpocon_, dgerfs_/dporfs_, dgesvx_/dposvx_ (FACT = 'F').  On factors a
 * routed dgesv_/dposv_ left in low precision (and kept A for) they answer as if the factors were
 * FP64; on any other array they forward untouched after an address look-up. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"
#include "dropin/reuse.h"

/* One consumer call: the kept system its factors are (r.kept NULL: not ours, forwarded
 * untouched), and the kept A's FP64 factors once taken. */
typedef struct {
    const char *name;
    double t0;
    int nrhs;
    mixd_reuse r;
    const double *f;
    const int *p64;
    int transient;
    double *af; /* private copies for dgesvx_/dposvx_ */
    int *ipiv;
} use;

/* How a call was answered (the log's): LAPACK on the caller's arrays, the low-precision factors
 * refined against the kept A, or the kept A's FP64 factors. */
enum { LAPACK, REFINED, EXACT };

/* Looks up the factors in a (uplo 'N' LU, 'U'/'L' the Cholesky triangle, 0 an illegal one) when
 * the call is the program's own (not mixsolve's) and its arguments are legal; end() closes every
 * call. */
static void begin(use *u, const char *name, char uplo, int n, const double *a, int lda,
                  const int *ipiv, int nrhs, int args_ok)
{
    *u = (use){name, mixd_now(), nrhs, {NULL, n, uplo, a, lda, ipiv}, NULL, NULL, 0, NULL, NULL};
    mixd_policy_get();
    mixd_real();
    if (mixd_enter() || !args_ok || !uplo || n <= 0 || lda < n) return;
    u->r.kept = mixd_keep_lookup(a, n, lda, uplo, ipiv);
}

/* The kept A's FP64 factors (ld n, pivots u->p64 for LU); NULL when not ours or no memory. */
static const double *exact(use *u)
{
    if (u->r.kept && !u->f) u->f = mixd_reuse_exact(&u->r, &u->p64, &u->transient);
    return u->f;
}

static void end(use *u, int how, const int *iter, int info)
{
    mixd_kept *k = u->r.kept;
    const char *prec = how == REFINED ? mix_prec_name(mixd_kept_prec(k))
                     : how == EXACT ? "fp64" : "lapack";
    if (k)
        mixd_log(u->name, u->r.n, u->nrhs, how ? "routed" : "forwarded", prec, how ? iter : NULL,
                 info, mixd_now() - u->t0, how ? NULL : "memory");
    mixd_reuse_done(u->f, u->p64, u->transient);
    free(u->af), free(u->ipiv);
    if (k) mixd_keep_release(k);
    mixd_leave();
}

/* dgetrs_/dpotrs_ on our factors: B := op(A)^-1 B refined against the kept A (reuse.c).  1 when
 * answered (and ended), 0 when the caller forwards. */
static int solved(use *u, char trans, double *b, int ldb, int *info)
{
    int iter = 0;
    if (!u->r.kept || mixd_reuse_solve(&u->r, trans, u->nrhs, b, ldb, &iter) != 0) return 0;
    *info = 0;
    end(u, REFINED, &iter, 0);
    return 1;
}

/* dgetri_/dpotri_: a (the uplo triangle for Cholesky) gets the kept A's FP64 factors before
 * LAPACK inverts it, and is no longer ours; 0 when not ours or no memory. */
static int replaced(use *u, double *a, int lda)
{
    if (!exact(u)) return 0;
    mixd_copy_matrix(u->r.uplo, u->r.n, u->f, u->r.n, a, lda);
    mixd_keep_orphan(a); /* A holds the inverse next; copies of the factors stay ours */
    return 1;
}

/* dgecon_/dpocon_: dlacn2 through refined solves against the kept A (mixd_reuse_rcond), O(n^2)
 * as LAPACK's.  Returns REFINED when that answered; else the caller runs LAPACK's estimator on
 * *f (ld *ld): the FP64 factors (EXACT, O(n^3): a solve could not be refined), or its own. */
static int condition(use *u, char norm, double anorm, double *rcond, int *iter, const double **f,
                     int *ld)
{
    int st = u->r.kept ? mixd_reuse_rcond(&u->r, norm, anorm, rcond, iter) : -1;
    if (st == 0) return REFINED;
    if (st != 1 || !exact(u)) return LAPACK;
    *f = u->f, *ld = u->r.n, *iter = -1;
    return EXACT;
}

/* dgesvx_/dposvx_ (FACT = 'F'): private copies of the FP64 factors (and pivots) in u->af and
 * u->ipiv, since their prototypes take AF non-const; 0 when not ours or no memory. */
static int copied(use *u)
{
    const size_t n = (size_t)u->r.n;
    if (!exact(u)) return 0;
    u->af = malloc(n * n * sizeof *u->af);
    if (u->r.uplo == 'N') u->ipiv = malloc(n * sizeof *u->ipiv);
    if (!u->af || (u->r.uplo == 'N' && !u->ipiv)) return 0;
    memcpy(u->af, u->f, n * n * sizeof *u->af);
    if (u->ipiv) memcpy(u->ipiv, u->p64, n * sizeof *u->ipiv);
    return 1;
}

static int is_trans(char c)
{
    return c == 'N' || c == 'T' || c == 'C';
}

/* A Cholesky routine's UPLO for begin(). */
static char triangle(const char *uplo)
{
    const char c = mixd_upper(uplo);
    return c == 'U' || c == 'L' ? c : 0;
}

void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len)
{
    use u;
    const char t = mixd_upper(trans);
    begin(&u, "dgetrs", 'N', *n, a, *lda, ipiv, *nrhs, is_trans(t) && *nrhs > 0 && *ldb >= *n);
    if (solved(&u, t == 'N' ? 'N' : 'T', b, *ldb, info)) return;
    mixd_real()->dgetrs(trans, n, nrhs, a, lda, ipiv, b, ldb, info, trans_len);
    end(&u, LAPACK, NULL, *info);
}

void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t uplo_len)
{
    use u;
    begin(&u, "dpotrs", triangle(uplo), *n, a, *lda, NULL, *nrhs, *nrhs > 0 && *ldb >= *n);
    if (solved(&u, 'N', b, *ldb, info)) return;
    mixd_real()->dpotrs(uplo, n, nrhs, a, lda, b, ldb, info, uplo_len);
    end(&u, LAPACK, NULL, *info);
}

void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
             const int *lwork, int *info)
{
    use u;
    begin(&u, "dgetri", 'N', *n, a, *lda, ipiv, 0, *lwork >= *n);
    /* The FP64 factors come with their own pivots; the caller's IPIV stays as it was. */
    const int how = replaced(&u, a, *lda) ? EXACT : LAPACK;
    mixd_real()->dgetri(n, a, lda, how == EXACT ? u.p64 : ipiv, work, lwork, info);
    end(&u, how, NULL, *info);
}

void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len)
{
    use u;
    begin(&u, "dpotri", triangle(uplo), *n, a, *lda, NULL, 0, 1);
    const int how = replaced(&u, a, *lda) ? EXACT : LAPACK;
    mixd_real()->dpotri(uplo, n, a, lda, info, uplo_len);
    end(&u, how, NULL, *info);
}

void dgecon_(const char *norm, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t norm_len)
{
    const void *caller = __builtin_return_address(0);
    use u;
    const char c = mixd_upper(norm);
    begin(&u, "dgecon", 'N', *n, a, *lda, NULL, 0,
          (c == '1' || c == 'O' || c == 'I') && *anorm > 0 && isfinite(*anorm));
    if (u.r.kept) u.r.ipiv = mixd_kept_ipiv(u.r.kept); /* dgecon has none: the kept ones */
    const double *f = a;
    int iter = 0, ld = *lda;
    const int how = condition(&u, c == 'I' ? 'I' : '1', *anorm, rcond, &iter, &f, &ld);
    if (how == REFINED) *info = 0;
    else mixd_real()->dgecon(norm, n, f, &ld, anorm, rcond, work, iwork, info, norm_len);
    /* R's solve() drops its factors after this call (caller.c): so does the registry. */
    if (u.r.kept &&
        mixd_caller_factor_use(caller, mixd_policy_get()->callers) == MIXD_FACTORS_CONDITION_ONLY)
        mixd_keep_forget(a);
    end(&u, how, &iter, *info);
}

void dpocon_(const char *uplo, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t uplo_len)
{
    use u;
    begin(&u, "dpocon", triangle(uplo), *n, a, *lda, NULL, 0, *anorm > 0 && isfinite(*anorm));
    const double *f = a;
    int iter = 0, ld = *lda;
    const int how = condition(&u, '1', *anorm, rcond, &iter, &f, &ld);
    if (how == REFINED) *info = 0;
    else mixd_real()->dpocon(uplo, n, f, &ld, anorm, rcond, work, iwork, info, uplo_len);
    end(&u, how, &iter, *info);
}

/* AF (and IPIV) are inputs only: the FP64 factors of the kept A stand in for them. */
void dgerfs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const int *ipiv, const double *b, const int *ldb,
             double *x, const int *ldx, double *ferr, double *berr, double *work, int *iwork,
             int *info, size_t trans_len)
{
    use u;
    begin(&u, "dgerfs", 'N', *n, af, *ldaf, ipiv, *nrhs, is_trans(mixd_upper(trans)) &&
          *nrhs >= 0 && *lda >= *n && *ldb >= *n && *ldx >= *n);
    if (exact(&u)) af = u.f, ldaf = n, ipiv = u.p64;
    mixd_real()->dgerfs(trans, n, nrhs, a, lda, af, ldaf, ipiv, b, ldb, x, ldx, ferr, berr, work,
                        iwork, info, trans_len);
    end(&u, u.f ? EXACT : LAPACK, NULL, *info);
}

void dporfs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const double *b, const int *ldb, double *x,
             const int *ldx, double *ferr, double *berr, double *work, int *iwork, int *info,
             size_t uplo_len)
{
    use u;
    begin(&u, "dporfs", triangle(uplo), *n, af, *ldaf, NULL, *nrhs,
          *nrhs >= 0 && *lda >= *n && *ldb >= *n && *ldx >= *n);
    if (exact(&u)) af = u.f, ldaf = n;
    mixd_real()->dporfs(uplo, n, nrhs, a, lda, af, ldaf, b, ldb, x, ldx, ferr, berr, work, iwork,
                        info, uplo_len);
    end(&u, u.f ? EXACT : LAPACK, NULL, *info);
}

/* Only FACT = 'F' reads AF (and IPIV) as given; 'N' and 'E' overwrite them with new factors,
 * no longer ours. */
void dgesvx_(const char *fact, const char *trans, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, int *ipiv, char *equed, double *r,
             double *c, double *b, const int *ldb, double *x, const int *ldx, double *rcond,
             double *ferr, double *berr, double *work, int *iwork, int *info, size_t fact_len,
             size_t trans_len, size_t equed_len)
{
    use u;
    const int factored = mixd_upper(fact) == 'F';
    begin(&u, "dgesvx", 'N', *n, af, *ldaf, ipiv, *nrhs, factored && is_trans(mixd_upper(trans)) &&
          *nrhs >= 0 && *lda >= *n && *ldb >= *n && *ldx >= *n);
    const int ok = copied(&u);
    if (!factored) mixd_keep_orphan(af); /* refactored; copies stay ours */
    mixd_real()->dgesvx(fact, trans, n, nrhs, a, lda, ok ? u.af : af, ok ? n : ldaf,
                        ok ? u.ipiv : ipiv, equed, r, c, b, ldb, x, ldx, rcond, ferr, berr, work,
                        iwork, info, fact_len, trans_len, equed_len);
    end(&u, ok ? EXACT : LAPACK, NULL, *info);
}

void dposvx_(const char *fact, const char *uplo, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, char *equed, double *s, double *b,
             const int *ldb, double *x, const int *ldx, double *rcond, double *ferr, double *berr,
             double *work, int *iwork, int *info, size_t fact_len, size_t uplo_len,
             size_t equed_len)
{
    use u;
    const int factored = mixd_upper(fact) == 'F';
    begin(&u, "dposvx", triangle(uplo), *n, af, *ldaf, NULL, *nrhs,
          factored && *nrhs >= 0 && *lda >= *n && *ldb >= *n && *ldx >= *n);
    const int ok = copied(&u);
    if (!factored) mixd_keep_orphan(af); /* refactored; copies stay ours */
    mixd_real()->dposvx(fact, uplo, n, nrhs, a, lda, ok ? u.af : af, ok ? n : ldaf, equed, s, b,
                        ldb, x, ldx, rcond, ferr, berr, work, iwork, info, fact_len, uplo_len,
                        equed_len);
    end(&u, ok ? EXACT : LAPACK, NULL, *info);
}
