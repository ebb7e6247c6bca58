/* context.c: contexts bind a backend's operations table to its run-time state. */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "mix_internal.h"
#include "lib/core/comm.h"

static int create_for(mix_context **ctx, mix_backend b)
{
    const mixi_backend_ops *ops = mixi_backend_lookup(b);
    if (!ops) return MIX_ERR_BACKEND;
    mix_context *c = mixi_calloc(1, sizeof *c);
    if (!c) return MIX_ERR_ALLOC;
    int st = ops->init(&c->state);
    if (st) {
        mixi_free(c);
        return st;
    }
    c->ops = ops;
    c->backend = b;
    c->comm = &mixi_comm_serial;
    *ctx = c;
    return MIX_SUCCESS;
}

int mix_context_create(mix_context **ctx, mix_backend backend)
{
    if (!ctx) return MIX_ERR_INVALID_ARG;
    *ctx = NULL;
    if (backend != MIX_BACKEND_AUTO) {
        if (!strcmp(mix_backend_name(backend), "?")) return MIX_ERR_INVALID_ARG;
        return create_for(ctx, backend);
    }
    /* The first backend of the registry's order that answers; an allocation failure is not
     * hidden behind the next one. */
    mix_backend order[16];
    const int n = mix_backend_list(order, 16);
    int st = MIX_ERR_BACKEND;
    for (int k = 0; k < n && k < 16; k++) {
        st = create_for(ctx, order[k]);
        if (st == MIX_SUCCESS || st == MIX_ERR_ALLOC) return st;
    }
    return st;
}

void mix_context_destroy(mix_context *ctx)
{
    if (!ctx) return;
    if (ctx->comm && ctx->comm->ops->fini) ctx->comm->ops->fini(ctx->comm); /* collective */
    ctx->ops->fini(ctx->state);
    mixi_free(ctx);
}

mix_backend mix_context_backend(const mix_context *ctx)
{
    return ctx ? ctx->backend : MIX_BACKEND_AUTO;
}

/* The simple drivers' context: created on first successful use and kept for the process's life;
 * a failed creation (e.g. out of memory) is retried on the next call rather than remembered. */
static mix_context *default_ctx;
static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;

int mixi_default_context(mix_context **ctx)
{
    int st = MIX_SUCCESS;
    pthread_mutex_lock(&default_lock);
    if (!default_ctx) {
        mix_backend b = MIX_BACKEND_AUTO; /* also for an unknown name */
        if (!mixi_backend_by_name(getenv("MIXSOLVE_BACKEND"), &b)) b = MIX_BACKEND_AUTO;
        st = mix_context_create(&default_ctx, b);
    }
    *ctx = default_ctx;
    pthread_mutex_unlock(&default_lock);
    return st;
}

/* The simple drivers may be called from several threads at once.  A backend whose context may
 * be shared between threads says MIXI_BACKEND_CONCURRENT and its calls run concurrently; on the
 * others (a device stream and library handles are not safe to share) they take turns. */
static pthread_mutex_t default_use_lock = PTHREAD_MUTEX_INITIALIZER;

void mixi_default_enter(mix_context *ctx)
{
    if (!(ctx->ops->flags & MIXI_BACKEND_CONCURRENT)) pthread_mutex_lock(&default_use_lock);
}

void mixi_default_leave(mix_context *ctx)
{
    if (!(ctx->ops->flags & MIXI_BACKEND_CONCURRENT)) pthread_mutex_unlock(&default_use_lock);
}
