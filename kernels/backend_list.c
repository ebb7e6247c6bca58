/* backend_list.c: the backends of this build in the order MIX_BACKEND_AUTO tries them; adding a backend is its folder plus one line here. */
#include "config.h"
#include "kernels/backend.h"

extern const mixi_backend_ops mixi_cpu_backend; /* kernels/cpu/cpu_backend.c */
#ifdef MIX_HAVE_CUDA
extern const mixi_backend_ops mixi_cuda_backend; /* kernels/cuda/cuda_backend.c */
#define MIXI_CUDA_OPS (&mixi_cuda_backend)
#else
#define MIXI_CUDA_OPS NULL /* not compiled: named, so that `info` and the errors can say so */
#endif

const mixi_backend_entry mixi_backend_registry[] = {
    {MIX_BACKEND_CUDA, "cuda", MIXI_CUDA_OPS}, /* a GPU when one answers ... */
    {MIX_BACKEND_CPU, "cpu", &mixi_cpu_backend}, /* ... the CPU otherwise */
};
const int mixi_backend_registry_size =
    (int)(sizeof mixi_backend_registry / sizeof mixi_backend_registry[0]);
