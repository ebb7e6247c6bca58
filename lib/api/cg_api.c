/* cg_api.c: the public CG entry points: parameters, argument checks, host/device staging. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "mix_internal.h"
#include "solvers/cg/cg.h"
#include "kernels/common/prec_traits.h"

void mix_cg_params_init(mix_cg_params *p)
{
    if (!p) return;
    p->sloppy_prec = MIX_FIXED16;
    p->tol = 1e-10;
    p->max_iter = 0; /* 0: 10 n, at least 1000 */
    p->delta = 0.1;
    p->precond = MIX_PRECOND_NONE;
    p->x0_given = 0;
    p->escalate = 1;
    p->narrow_vectors = 0;
}

/* Checks shared by both entry points: 0 or -i for illegal argument i. */
static int check_args(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const void *b,
                      const void *x)
{
    if (!ctx) return -1;
    if (p) {
        if (!mixk_prec_storage(p->sloppy_prec) && p->sloppy_prec != MIX_PREC_AUTO) return -2;
        if (!(p->tol >= 0.0) || !isfinite(p->tol) || p->max_iter < 0 || !(p->delta > 0.0) ||
            !(p->delta < 1.0) || (p->escalate != 0 && p->escalate != 1) ||
            (p->narrow_vectors != 0 && p->narrow_vectors != 1) || (p->precond != MIX_PRECOND_NONE && p->precond != MIX_PRECOND_JACOBI &&
             p->precond != MIX_PRECOND_AMG))
            return -2;
    }
    if (!A || A->ctx != ctx) return -3;
    const int phantom = A->dist && A->dist->phantom; /* a rank owning no row needs no b, x */
    if (!b && !phantom) return -4;
    if (!x && !phantom) return -5;
    return 0;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *c = data;
    for (size_t k = 0; k < n; k++) h = (h ^ c[k]) * 0x100000001b3u;
    return h;
}

/* A hash of every field of *p that steers the solve, field by field (never the struct's padding),
 * in 52 bits so that an FP64 reduction carries it exactly.  tol + 0.0 makes -0 and +0 one value. */
static double params_hash(const mix_cg_params *p)
{
    /* x0_given as the solve reads it (any nonzero is 1, mix_dcg(3)): 1 and 2 are one setting. */
    const int ints[6] = {(int)p->sloppy_prec, p->max_iter, p->precond, p->x0_given != 0, p->escalate,
                         p->narrow_vectors};
    const double reals[2] = {p->tol + 0.0, p->delta + 0.0};
    uint64_t h = fnv1a(0xcbf29ce484222325u, ints, sizeof ints);
    h = fnv1a(h, reals, sizeof reals);
    return (double)(h >> 12);
}

/* A distributed A: every rank returns the largest illegal argument any rank found (0: none), so
 * that no rank enters the solve alone, and MIX_ERR_INVALID_ARG when the parameters (p, defaults
 * for NULL) differ between ranks: a rank with another tol, max_iter, storage or preconditioner
 * would take other steps and leave the others waiting in a reduction.  One reduction carries
 * both: the largest -illegal and the largest and smallest hash.  (A rank whose A itself is bad
 * cannot reach the others.) */
static int agree_args(mix_sparse *A, const mix_cg_params *p, int illegal)
{
    if (illegal == -3 || !A->dist) return illegal;
    mix_cg_params defaults;
    if (!p) mix_cg_params_init(&defaults);
    const double h = illegal ? 0.0 : params_hash(p ? p : &defaults);
    double v[3] = {-illegal, h, -h};
    if (mixi_cg_max(A, v, 3)) return illegal;
    if (v[0] != 0.0) return -(int)v[0];
    return v[1] != -v[2] ? MIX_ERR_INVALID_ARG : 0;
}

static int finish(int st, mix_cg_info *info, mix_cg_info *local)
{
    local->status = st;
    if (info) *info = *local;
    return st;
}

/* b and x in backend memory.  x == b (or overlapping): CG writes x (zeroed first unless x0_given)
 * while it still reads b, so b is copied first (n doubles). */
static int solve_unaliased(mix_context *ctx, const mix_cg_params *p, mix_sparse *A,
                           const double *b, double *x, mix_cg_info *info, mix_cg_info *local)
{
    double *bcopy;
    int st = mixi_unalias(ctx, &b, (size_t)A->n, x, (size_t)A->n, &bcopy);
    if (!st) st = mixi_cg_solve_in_range(ctx, p, A, b, x, local);
    /* The last writes to x (the best iterate's copy, the range's rescaling) are queued on a
     * device context's stream, which the caller's streams do not wait for (mix_dcg_gpu): done
     * before returning. */
    const int synced = ctx->ops->synchronize(ctx->state);
    if (st == MIX_SUCCESS) st = synced;
    ctx->ops->free(ctx->state, bcopy);
    return finish(st, info, local);
}

int mix_dcg(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *b, double *x,
            mix_cg_info *info)
{
    mix_cg_info local;
    memset(&local, 0, sizeof local);
    mix_cg_params defaults;
    int illegal = check_args(ctx, p, A, b, x);
    if (A && illegal != -3) illegal = agree_args(A, p, illegal);
    if (illegal == MIX_ERR_INVALID_ARG) return finish(illegal, info, &local); /* params differ */
    if (illegal) return illegal; /* -i, nothing written: the expert drivers' rule */
    if (!p) {
        mix_cg_params_init(&defaults);
        p = &defaults;
    }
    if (A->dist && A->dist->phantom) { /* the one isolated unknown: b_0 = 0, so x_0 = 0 */
        double b0 = 0.0, x0 = 0.0;
        return solve_unaliased(ctx, p, A, &b0, &x0, info, &local);
    }
    if (ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY) /* host memory is backend memory */
        return solve_unaliased(ctx, p, A, b, x, info, &local);

    /* Other backends: stage b and x through backend memory. */
    const mixi_backend_ops *ops = ctx->ops;
    size_t bytes = (size_t)A->n * sizeof(double);
    double *db = NULL, *dx = NULL;
    int st = ops->alloc(ctx->state, (void **)&db, bytes);
    if (!st) st = ops->alloc(ctx->state, (void **)&dx, bytes);
    if (!st) st = ops->upload(ctx->state, db, b, bytes);
    if (!st) st = p->x0_given ? ops->upload(ctx->state, dx, x, bytes) : ops->memset0(ctx->state, dx, bytes);
    if (!st) {
        st = mixi_cg_solve_in_range(ctx, p, A, db, dx, &local);
        /* Also on failure: x holds the best answer found, as on the host. */
        if (st == MIX_SUCCESS || st == MIX_ERR_NOT_CONVERGED || st == MIX_ERR_NOT_SPD ||
            st == MIX_ERR_NAN) {
            int st2 = ops->download(ctx->state, x, dx, bytes);
            if (st2) st = st2;
        }
    }
    ops->free(ctx->state, db);
    ops->free(ctx->state, dx);
    return finish(st, info, &local);
}

int mix_dcg_gpu(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *d_b,
                double *d_x, mix_cg_info *info)
{
    mix_cg_info local;
    memset(&local, 0, sizeof local);
    mix_cg_params defaults;
    const int illegal = check_args(ctx, p, A, d_b, d_x);
    if (illegal) return illegal;
    if (!(ctx->ops->flags & MIXI_BACKEND_DEVICE_POINTERS)) return -1; /* a device backend */
    if (!p) {
        mix_cg_params_init(&defaults);
        p = &defaults;
    }
    return solve_unaliased(ctx, p, A, d_b, d_x, info, &local);
}
