/* cuda_libs.c: opens cuBLAS, cuSOLVER and cuSPARSE on the first CUDA context and fills the table their calls go through (cuda_libs.h). */
#define MIXI_CUDA_LIBS_LOADER
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "config.h"
#include "mixsolve.h"
#include "kernels/cuda/cuda_libs.h"

mixi_cuda_fn_table mixi_cuda_fn;

static pthread_once_t libs_once = PTHREAD_ONCE_INIT;
static int libs_status = MIX_ERR_BACKEND;
static char missing[160] = "";

#define MIXI_STR(x) MIXI_STR2(x)
#define MIXI_STR2(x) #x

/* The library by its soname (found as the loader would: LD_LIBRARY_PATH, then our RUNPATH, the
 * cache), then in the CUDA directory configure found. */
static void *open_lib(const char *soname)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", MIX_CUDA_LIBDIR, soname);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) snprintf(missing, sizeof missing, "%.150s", soname);
    return h;
}

/* 1 when every function was found; the first missing one is named. */
static int find_all(void *cublas, void *cusolver, void *cusparse)
{
    int ok = 1;
/* member: p_ and the API name, pasted before the name expands to its symbol's */
#define MIXI_CUDA_FIND(lib, member, name)                                                           \
    if (ok && !(*(void **)&mixi_cuda_fn.member = dlsym(lib, MIXI_STR(name)))) {                   \
        snprintf(missing, sizeof missing, "%s", MIXI_STR(name));                                   \
        ok = 0;                                                                                    \
    }
#define MIXI_CUBLAS_FIND(name) MIXI_CUDA_FIND(cublas, p_##name, name)
#define MIXI_CUSOLVER_FIND(name) MIXI_CUDA_FIND(cusolver, p_##name, name)
#define MIXI_CUSPARSE_FIND(name) MIXI_CUDA_FIND(cusparse, p_##name, name)
    MIXI_CUBLAS_FUNCS(MIXI_CUBLAS_FIND)
    MIXI_CUSOLVER_FUNCS(MIXI_CUSOLVER_FIND)
    MIXI_CUSPARSE_FUNCS(MIXI_CUSPARSE_FIND)
    return ok;
}

static void load_libs(void)
{
    void *cublas = open_lib(MIX_CUBLAS_SONAME);
    void *cusolver = cublas ? open_lib(MIX_CUSOLVER_SONAME) : NULL;
    void *cusparse = cusolver ? open_lib(MIX_CUSPARSE_SONAME) : NULL;
    if (cusparse && find_all(cublas, cusolver, cusparse)) libs_status = MIX_SUCCESS;
    /* A failed load keeps what it opened: the process may not unload what another thread could
     * be resolving, and the backend is unavailable anyway. */
}

int mixi_cuda_libs_load(void)
{
    pthread_once(&libs_once, load_libs);
    return libs_status;
}

const char *mixi_cuda_libs_missing(void)
{
    return missing;
}
