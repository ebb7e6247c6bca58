/* comm_mpi.c: the communicator table over MPI (lib/core/comm.h) and mix_context_create_mpi. */
#include <stdlib.h>
#include "lib/mpi/mpi_internal.h"

static MPI_Comm mc_of(const mixi_comm *c) { return ((const mixi_mpi_state *)c->state)->mc; }

static int reduce(const mixi_comm *c, double *v, int k, MPI_Op op)
{
    if (k < 0 || (k > 0 && !v)) return MIX_ERR_INVALID_ARG;
    if (k == 0) return MIX_SUCCESS;
    return MPI_Allreduce(MPI_IN_PLACE, v, k, MPI_DOUBLE, op, mc_of(c)) == MPI_SUCCESS
               ? MIX_SUCCESS : MIX_ERR_COMM;
}

static int mpi_sum(const mixi_comm *c, double *v, int k) { return reduce(c, v, k, MPI_SUM); }
static int mpi_max(const mixi_comm *c, double *v, int k) { return reduce(c, v, k, MPI_MAX); }
static int mpi_min(const mixi_comm *c, double *v, int k) { return reduce(c, v, k, MPI_MIN); }

static int mpi_all(const mixi_comm *c, int *flag)
{
    int f = *flag != 0;
    if (MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_LAND, mc_of(c)) != MPI_SUCCESS)
        return MIX_ERR_COMM;
    *flag = f;
    return MIX_SUCCESS;
}

static int mpi_agree(const mixi_comm *c, int *status)
{
    *status = mixi_mpi_agree(mc_of(c), *status);
    return *status == MIX_ERR_COMM ? MIX_ERR_COMM : MIX_SUCCESS;
}

static int mpi_halo_begin(const mixi_comm *c, struct mixi_halo *h, mix_prec wire, const double *x)
{
    (void)c;
    return h ? mixi_halo_begin(h, wire, x) : MIX_SUCCESS;
}

static int mpi_halo_begin_sv(const mixi_comm *c, struct mixi_halo *h, mix_prec wire, mix_prec prec,
                             void *val, const float *norm)
{
    (void)c;
    return h ? mixi_halo_begin_sv(h, wire, prec, val, norm) : MIX_SUCCESS;
}

static int mpi_halo_end(const mixi_comm *c, struct mixi_halo *h, double *ghost)
{
    (void)c;
    return h ? mixi_halo_end(h, ghost) : MIX_SUCCESS;
}

static void mpi_fini(const mixi_comm *c)
{
    mixi_mpi_state *s = c->state;
    MPI_Comm_free(&s->mc);
    free(s);
}

const mixi_comm_ops mixi_comm_mpi_ops = {
    .name = "mpi",
    .sum = mpi_sum,
    .max = mpi_max,
    .min = mpi_min,
    .all = mpi_all,
    .agree = mpi_agree,
    .halo_begin = mpi_halo_begin,
    .halo_begin_sv = mpi_halo_begin_sv,
    .halo_end = mpi_halo_end,
    .fini = mpi_fini,
};

MPI_Comm mixi_mpi_comm_of(const mix_context *ctx)
{
    if (!ctx || !ctx->comm || ctx->comm->ops != &mixi_comm_mpi_ops) return MPI_COMM_NULL;
    return mc_of(ctx->comm);
}

/* Every rank makes its own context; if one fails, all give theirs back and return its status. */
int mix_context_create_mpi(mix_context **ctx, mix_backend backend, MPI_Comm comm)
{
    int init = 0;
    if (!ctx) return MIX_ERR_INVALID_ARG;
    *ctx = NULL;
    if (MPI_Initialized(&init) != MPI_SUCCESS || !init || comm == MPI_COMM_NULL)
        return MIX_ERR_INVALID_ARG;
    MPI_Comm dup; /* first, on every rank: MPI_Comm_dup is collective */
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return MIX_ERR_COMM;
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN); /* a failure is a status, never an abort */
    mixi_mpi_state *s = calloc(1, sizeof *s);
    mix_context *c = NULL;
    int st = s ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st) st = mix_context_create(&c, backend);
    st = mixi_mpi_agree(dup, st);
    if (st) {
        mix_context_destroy(c); /* still the serial table: nothing collective */
        MPI_Comm_free(&dup);
        free(s);
        return st;
    }
    s->mc = dup;
    s->comm.ops = &mixi_comm_mpi_ops;
    s->comm.state = s;
    MPI_Comm_rank(s->mc, &s->comm.rank);
    MPI_Comm_size(s->mc, &s->comm.size);
    c->comm = &s->comm;
    *ctx = c;
    return MIX_SUCCESS;
}
