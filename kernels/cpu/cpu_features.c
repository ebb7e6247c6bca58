/* cpu_features.c: CPU features probed once per process from cpuid and the OS-enabled register
 * state (xgetbv), less those MIXSOLVE_CPU_ISA masks.  In a virtual machine each cpuid traps to
 * the hypervisor, so the probe must not run per call: a conversion loop once asked for F16C per
 * column (11% of a BF16 solve). */
#include "config.h" /* MIX_HAVE_ONEDNN: without it the oneDNN engine silently compiled out */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define MIX_X86 1
#endif
#include <cblas.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "kernels/cpu/cpu_features.h"

typedef struct {
    int f16c, avx512f, avx512_bf16, avx512_fp16, amx_bf16;
} features;

static features feat;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

#ifdef MIX_X86
/* XCR0: which register states the OS saves; AVX needs SSE+AVX (bits 1, 2), AVX-512 also the
 * opmask and upper ZMM states (bits 5, 6, 7); AMX the tile config and data (bits 17, 18). */
static unsigned long long xcr0(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0; /* no OSXSAVE */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static void probe(void)
{
    unsigned a, b, c, d, max = __get_cpuid_max(0, 0);
    unsigned long long x = xcr0();
    int os_avx = (x & 0x6) == 0x6, os_avx512 = (x & 0xe6) == 0xe6,
        os_amx = (x & 0x60000ull) == 0x60000ull;
    unsigned l1c = 0, l7b = 0, l7d = 0, l71a = 0;
    if (__get_cpuid(1, &a, &b, &c, &d)) l1c = c;
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        l7b = b;
        l7d = d;
        if (a >= 1) {
            __cpuid_count(7, 1, a, b, c, d);
            l71a = a;
        }
    }
    /* The AVX2 tier: F16C, AVX2 and FMA3 (every AVX2 CPU has it; the AVX2 SpMV bodies fuse their
     * exact products). */
    feat.f16c = ((l1c >> 29) & 1u) && ((l1c >> 12) & 1u) && ((l7b >> 5) & 1u) && os_avx;
    feat.avx512f = ((l7b >> 16) & 1u) && os_avx512;
    feat.avx512_bf16 = feat.avx512f && ((l71a >> 5) & 1u);
    feat.avx512_fp16 = feat.avx512f && ((l7d >> 23) & 1u);
    feat.amx_bf16 = ((l7d >> 22) & 1u) && ((l7d >> 24) & 1u) && os_amx;
}
#else
static void probe(void) {} /* portable loops only */
#endif

/* MIXSOLVE_CPU_ISA caps the features seen (it only clears flags, never sets one), so that this
 * CPU runs every dispatched path a lesser CPU would: AVX2 bodies timed and tested end to end on
 * an AVX-512 machine.  Unknown values leave the probe as it is. */
static void cap(features *f, const char *isa)
{
    if (!isa || !*isa || strcmp(isa, "native") == 0) return;
    if (strcmp(isa, "avx512") == 0) { /* AVX-512F only: no BF16/FP16 arithmetic, no AMX */
        f->avx512_bf16 = f->avx512_fp16 = f->amx_bf16 = 0;
    } else if (strcmp(isa, "avx2") == 0) { /* AVX2 + F16C (+ FMA), e.g. AMD Zen 1-3 */
        f->avx512f = f->avx512_bf16 = f->avx512_fp16 = f->amx_bf16 = 0;
    } else if (strcmp(isa, "portable") == 0 || strcmp(isa, "sse2") == 0) { /* the C bodies */
        memset(f, 0, sizeof *f);
    }
}

static void probe_capped(void)
{
    probe();
    cap(&feat, getenv("MIXSOLVE_CPU_ISA"));
}

static const features *get(void)
{
    pthread_once(&probe_once, probe_capped);
    return &feat;
}

int mixi_cpu_has_f16c(void) { return get()->f16c; }
int mixi_cpu_has_avx512f(void) { return get()->avx512f; }
int mixi_cpu_has_avx512_bf16(void) { return get()->avx512_bf16; }
int mixi_cpu_has_avx512_fp16(void) { return get()->avx512_fp16; }
int mixi_cpu_has_amx_bf16(void) { return get()->amx_bf16; }

int mixi_cpu_has_native_bf16_gemm(void)
{
#ifdef MIX_HAVE_ONEDNN
    return get()->avx512_bf16 || get()->amx_bf16;
#else
    return 0;
#endif
}

/* OpenBLAS reports its threading model: 2 = OpenMP.  Then OpenBLAS, oneDNN (Debian builds it on
 * OpenMP) and our loops share libgomp's one pool, and an O(n^2) loop may run parallel between
 * two BLAS calls; with the pthreads build its spinning workers would fight our OpenMP team for
 * the cores (measured: FP32 solve at n = 512 five times slower). */
static int shared_pool;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static void probe_pool(void) { shared_pool = openblas_get_parallel() == 2; }

int mixi_cpu_blas_shares_omp_pool(void)
{
#ifdef _OPENMP
    pthread_once(&pool_once, probe_pool);
    return shared_pool;
#else
    return 0;
#endif
}

/* OpenBLAS's OpenMP build sizes its GEMM team by omp_get_max_threads() and spins until every
 * share of the work has run: where OpenMP cannot give it that team (OMP_THREAD_LIMIT below
 * OMP_NUM_THREADS, or OMP_MAX_ACTIVE_LEVELS=0: a team of one), its first threaded cblas_dgemm
 * never returned, in any program (soak probe, 2026-11-30).  The calling thread's thread count
 * is clamped to the team it can have, which changes no team's size. */
void mixi_cpu_omp_clamp(void)
{
#ifdef _OPENMP
    if (!mixi_cpu_blas_shares_omp_pool() || omp_in_parallel()) return;
    const int want = omp_get_max_threads();
    int can = omp_get_max_active_levels() < 1 ? 1 : omp_get_thread_limit();
    if (can < 1) can = 1;
    if (want > can) omp_set_num_threads(can);
#endif
}

/* OpenBLAS picks its kernels by CPU model at load time, and a build older than the CPU falls
 * back to a generic core: Debian 12's OpenBLAS 0.3.21 runs "Prescott" (SSE3) kernels on the
 * AVX-512 Xeon model 207 of doc/benchmarks.md, where LAPACKE_dgesv at n = 4096 takes 1.6-2.6 s
 * against 0.5 s on its SkylakeX kernels.  The vector ISA of its running kernels, from the core
 * name it reports: 2 AVX-512, 1 AVX2, 0 anything else (older, or a name not listed here, which
 * only sends FP32 factorizations to oneDNN: about even with OpenBLAS's own where both are
 * good). */
static int blas_isa;
static const char *blas_core = "unknown";
static pthread_once_t blas_isa_once = PTHREAD_ONCE_INIT;

static int name_in(const char *name, const char *const *list, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (!strcasecmp(name, list[i])) return 1;
    return 0;
}

static void probe_blas_isa(void)
{
    static const char *const avx512[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
    static const char *const avx2[] = {"Haswell", "Zen", "Excavator"};
    const char *core = openblas_get_corename();
    if (core && *core) blas_core = core;
    blas_isa = !core                                                   ? 0
               : name_in(core, avx512, sizeof avx512 / sizeof *avx512) ? 2
               : name_in(core, avx2, sizeof avx2 / sizeof *avx2)       ? 1
                                                                       : 0;
}

const char *mixi_cpu_blas_core(void)
{
    pthread_once(&blas_isa_once, probe_blas_isa);
    return blas_core;
}

static _Atomic int below_forced = -1;

void mixi_cpu_blas_force_below_isa(int below) { below_forced = below; }

int mixi_cpu_blas_below_isa(void)
{
    const int forced = below_forced;
    if (forced >= 0) return forced;
    pthread_once(&blas_isa_once, probe_blas_isa);
    const int cpu_isa = mixi_cpu_has_avx512f() ? 2 : mixi_cpu_has_f16c() ? 1 : 0;
    return blas_isa < cpu_isa;
}

/* Below both sparse_cpu.c and vec_cpu.c, which ask it on each dispatch. */
static int sparse_portable;

void mixi_cpu_sparse_force_portable(int on) { sparse_portable = on; }
int mixi_cpu_sparse_portable_forced(void) { return sparse_portable; }
