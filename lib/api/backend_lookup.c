/* backend_lookup.c: the backends as lib/ sees them: names, lookup, capabilities, each table checked once (the list itself is kernels/backend_list.c). */
#include <pthread.h>
#include <string.h>
#include "mix_internal.h"

int mixi_backend_valid(const mixi_backend_ops *ops)
{
    return ops && ops->init && ops->fini && ops->caps && ops->alloc && ops->free && ops->upload &&
           ops->download && ops->copy && ops->memset0 && ops->synchronize;
}

/* A table that lacks a required operation is left out once, at first use, rather than found
 * missing in the middle of a solve. */
static int usable[8];
static pthread_once_t checked = PTHREAD_ONCE_INIT;

static void check_all(void)
{
    for (int k = 0; k < mixi_backend_registry_size && k < 8; k++)
        usable[k] = mixi_backend_valid(mixi_backend_registry[k].ops);
}

static int find(mix_backend b)
{
    for (int k = 0; k < mixi_backend_registry_size; k++)
        if (mixi_backend_registry[k].id == b && b != MIX_BACKEND_AUTO) return k;
    return -1;
}

const mixi_backend_ops *mixi_backend_lookup(mix_backend b)
{
    pthread_once(&checked, check_all);
    const int k = find(b);
    return k >= 0 && k < 8 && usable[k] ? mixi_backend_registry[k].ops : NULL;
}

int mixi_backend_by_name(const char *name, mix_backend *b)
{
    if (!name) return 0;
    if (!strcmp(name, "auto")) {
        *b = MIX_BACKEND_AUTO;
        return 1;
    }
    for (int k = 0; k < mixi_backend_registry_size; k++)
        if (!strcmp(name, mixi_backend_registry[k].name)) {
            *b = mixi_backend_registry[k].id;
            return 1;
        }
    return 0;
}

const char *mix_backend_name(mix_backend b)
{
    if (b == MIX_BACKEND_AUTO) return "auto";
    const int k = find(b);
    return k >= 0 ? mixi_backend_registry[k].name : "?";
}

int mix_backend_list(mix_backend *list, int max)
{
    for (int k = 0; list && k < mixi_backend_registry_size && k < max; k++)
        list[k] = mixi_backend_registry[k].id;
    return mixi_backend_registry_size;
}

int mix_backend_caps(mix_backend backend, mix_caps *caps)
{
    if (!caps) return MIX_ERR_INVALID_ARG;
    if (find(backend) < 0) return MIX_ERR_INVALID_ARG;
    memset(caps, 0, sizeof *caps);
    const mixi_backend_ops *ops = mixi_backend_lookup(backend);
    if (!ops) return MIX_SUCCESS; /* not compiled: compiled = available = 0 */
    caps->compiled = 1;
    return ops->caps(caps);
}
