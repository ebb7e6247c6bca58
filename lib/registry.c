/* registry.c: which backends were compiled in; adding a backend is one line in the table below. */
#include <string.h>
#include "mix_internal.h"

static const mix_backend_ops *const compiled_backends[MIX_NUM_BACKENDS] = {
    [MIX_BACKEND_CPU] = &mixi_cpu_backend,
#ifdef MIX_HAVE_CUDA
    [MIX_BACKEND_CUDA] = &mixi_cuda_backend,
#endif
};

const mix_backend_ops *mixi_backend_lookup(mix_backend b)
{
    if ((int)b <= (int)MIX_BACKEND_AUTO || (int)b >= MIX_NUM_BACKENDS) return NULL;
    return compiled_backends[b];
}

int mix_backend_caps(mix_backend backend, mix_caps *caps)
{
    if (!caps) return MIX_ERR_INVALID_ARG;
    if ((int)backend <= (int)MIX_BACKEND_AUTO || (int)backend >= MIX_NUM_BACKENDS)
        return MIX_ERR_INVALID_ARG;
    memset(caps, 0, sizeof *caps);
    const mix_backend_ops *ops = mixi_backend_lookup(backend);
    if (!ops) return MIX_SUCCESS; /* not compiled: compiled = available = 0 */
    caps->compiled = 1;
    return ops->caps(caps);
}
