/* cpu_backend.c: the CPU backend's table: host memory, capabilities, and its dense/sparse families. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "lib/core/core.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/cpu_mem.h"
#include "kernels/cpu/onednn_gemm.h"
#include "kernels/backend_dense.h"
#include "kernels/backend_sparse.h"

extern const mixi_dense_ops mixi_cpu_dense_ops;   /* dense_cpu.c */
extern const mixi_sparse_ops mixi_cpu_sparse_ops; /* sparse_cpu.c */
#if HAVE_MUMPS
extern const mixi_sparse_lu_ops mixi_cpu_sparse_lu_ops; /* sparse_lu_cpu.c */
#define MIXI_CPU_SPARSE_LU (&mixi_cpu_sparse_lu_ops)
#else
#define MIXI_CPU_SPARSE_LU NULL
#endif

/* The state of a CPU context: its spare workspace block (core.h). */
static int cpu_init(void **state)
{
    mixi_cpu_omp_clamp();
    *state = mixi_spare_create();
    return *state ? MIX_SUCCESS : MIX_ERR_ALLOC;
}

static void cpu_fini(void *state) { mixi_spare_destroy(state); }

/* The CPU's model name, read from /proc/cpuinfo once per process: every MIX_PREC_AUTO decision
 * asks for the capabilities, and the read took 31 us of its 33 (issue 32). */
static char cpu_model[sizeof ((mix_caps *)0)->device];
static pthread_once_t cpu_model_once = PTHREAD_ONCE_INIT;

static void read_cpu_model(void)
{
    snprintf(cpu_model, sizeof cpu_model, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += (colon[1] == ' ') ? 2 : 1;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(cpu_model, sizeof cpu_model, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

static int cpu_caps(mix_caps *caps)
{
    caps->available = 1;
    caps->gemm[MIX_FP64] = MIX_PREC_NATIVE;
    caps->gemm[MIX_FP32] = MIX_PREC_NATIVE;
    caps->gemm[MIX_TF32] = MIX_PREC_EMULATED; /* inputs rounded, FP32 GEMM */
    caps->gemm[MIX_FP16] = MIX_PREC_EMULATED;
    /* NATIVE: oneDNN's matmul with BF16 inputs on AVX512-BF16 or AMX-BF16 hardware; otherwise
     * rounded inputs (the emulation, or oneDNN's own BF16 conversion when forced on AVX-512
     * without BF16). */
    int bf16_onednn = mixi_cpu_gemm_engine(MIX_BF16) == MIXI_GEMM_ONEDNN;
    caps->gemm[MIX_BF16] =
        bf16_onednn && mixi_cpu_has_native_bf16_gemm() ? MIX_PREC_NATIVE : MIX_PREC_EMULATED;
    for (int p = 0; p < MIX_NUM_PREC; p++) /* every storage format of the table runs, at least */
        if (mixk_prec_storage((mix_prec)p)) caps->storage[p] = MIX_PREC_EMULATED; /* in C */
    caps->storage[MIX_FP64] = MIX_PREC_NATIVE;
    caps->storage[MIX_FP32] = MIX_PREC_NATIVE;
    caps->storage[MIX_FP16] = mixi_cpu_has_f16c() ? MIX_PREC_NATIVE : MIX_PREC_EMULATED;
    caps->storage[MIX_BF16] = MIX_PREC_EMULATED; /* shifts, no BF16 arithmetic */
    caps->storage[MIX_FIXED16] = MIX_PREC_NATIVE;
    pthread_once(&cpu_model_once, read_cpu_model);
    snprintf(caps->device, sizeof caps->device, "%s", cpu_model);
    /* Said where OpenBLAS runs kernels older than the CPU's (tools/run-bench.sh reads it). */
    const char *below_isa = mixi_cpu_blas_below_isa() ? ", older than this CPU's" : "";
#ifdef MIX_HAVE_ONEDNN
    int fp32_onednn = mixi_cpu_gemm_engine(MIX_FP32) == MIXI_GEMM_ONEDNN;
    /* Which engine and which instructions each precision's GEMM runs on, as chosen here. */
    const char *bf16_how = !bf16_onednn                     ? "OpenBLAS emulated"
                         : caps->gemm[MIX_BF16] != MIX_PREC_NATIVE ? "oneDNN emulated"
                         : mixi_cpu_has_amx_bf16()           ? "oneDNN AMX-BF16"
                                                             : "oneDNN AVX512-BF16";
    snprintf(caps->libraries, sizeof caps->libraries,
             "OpenBLAS (%s, %s kernels%s) + LAPACKE + oneDNN (GEMM: FP32 %s, BF16 %s)",
             mixi_cpu_blas_shares_omp_pool() ? "OpenMP" : "own threads", mixi_cpu_blas_core(),
             below_isa, fp32_onednn ? "oneDNN" : "OpenBLAS", bf16_how);
#else
    (void)bf16_onednn;
    snprintf(caps->libraries, sizeof caps->libraries,
             "OpenBLAS (%s, %s kernels%s) + LAPACKE (GEMM: FP32 OpenBLAS, BF16 OpenBLAS emulated)",
             mixi_cpu_blas_shares_omp_pool() ? "OpenMP" : "own threads", mixi_cpu_blas_core(),
             below_isa);
#endif
    return MIX_SUCCESS;
}

/* The spare block's calls only from its minimum size: a small solve makes a dozen of each. */
static int cpu_alloc(void *state, void **ptr, size_t bytes)
{
    *ptr = NULL;
    const int rc = bytes >= MIXI_SPARE_MIN ? mixi_spare_take(state, bytes, ptr) : MIX_SUCCESS;
    if (rc || *ptr) return rc;
    *ptr = mixi_malloc(bytes);
    return *ptr ? MIX_SUCCESS : MIX_ERR_ALLOC;
}

static void cpu_free(void *state, void *ptr)
{
    if (!ptr || mixi_block_bytes(ptr) < MIXI_SPARE_MIN || !mixi_spare_keep(state, ptr))
        mixi_free(ptr);
}

static int cpu_copy(void *state, void *dst, const void *src, size_t bytes)
{
    (void)state;
    if (bytes) memmove(dst, src, bytes);
    return MIX_SUCCESS;
}

static int cpu_memset0(void *state, void *dst, size_t bytes)
{
    (void)state;
    mixi_cpu_bytes_threaded(dst, NULL, bytes);
    return MIX_SUCCESS;
}

static int cpu_synchronize(void *state)
{
    (void)state;
    return MIX_SUCCESS;
}

const mixi_backend_ops mixi_cpu_backend = {
    .flags = MIXI_BACKEND_HOST_MEMORY | MIXI_BACKEND_CONCURRENT,
    .init = cpu_init,
    .fini = cpu_fini,
    .caps = cpu_caps,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .copy = cpu_copy,
    .memset0 = cpu_memset0,
    .synchronize = cpu_synchronize,
    .dense = &mixi_cpu_dense_ops,
    .sparse = &mixi_cpu_sparse_ops,
    .sparse_lu = MIXI_CPU_SPARSE_LU,
};
