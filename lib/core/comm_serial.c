/* comm_serial.c: the communicator table of one process, every context's default (no MPI). */
#include "config.h"
#include <stddef.h>
#include "lib/core/comm.h"

static int serial_reduce(const mixi_comm *c, double *v, int k)
{
    (void)c;
    return v || k == 0 ? MIX_SUCCESS : MIX_ERR_INVALID_ARG;
}

static int serial_flag(const mixi_comm *c, int *x)
{
    (void)c;
    return x ? MIX_SUCCESS : MIX_ERR_INVALID_ARG;
}

static int serial_halo_begin(const mixi_comm *c, struct mixi_halo *h, mix_prec wire,
                             const double *x)
{
    (void)c, (void)wire, (void)x;
    return h ? MIX_ERR_INVALID_ARG : MIX_SUCCESS; /* one process owns every column */
}

static int serial_halo_begin_sv(const mixi_comm *c, struct mixi_halo *h, mix_prec wire,
                                mix_prec prec, void *val, const float *norm)
{
    (void)c, (void)wire, (void)prec, (void)val, (void)norm;
    return h ? MIX_ERR_INVALID_ARG : MIX_SUCCESS;
}

static int serial_halo_end(const mixi_comm *c, struct mixi_halo *h, double *ghost)
{
    (void)c, (void)ghost;
    return h ? MIX_ERR_INVALID_ARG : MIX_SUCCESS;
}

static const mixi_comm_ops serial_ops = {
    .name = "serial",
    .sum = serial_reduce,
    .max = serial_reduce,
    .min = serial_reduce,
    .all = serial_flag,
    .agree = serial_flag,
    .halo_begin = serial_halo_begin,
    .halo_begin_sv = serial_halo_begin_sv,
    .halo_end = serial_halo_end,
    .fini = NULL,
};

const mixi_comm mixi_comm_serial = {&serial_ops, NULL, 0, 1};
