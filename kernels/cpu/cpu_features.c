/* cpu_features.c: CPU feature detection from cpuid and the OS-enabled register state (xgetbv). */
#include <cpuid.h>
#include "kernels/cpu/cpu_features.h"

/* XCR0: which register states the OS saves; AVX needs SSE+AVX (bits 1, 2), AVX-512 also the
 * opmask and upper ZMM states (bits 5, 6, 7). */
static unsigned long long xcr0(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0; /* no OSXSAVE */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static int os_avx(void) { return (xcr0() & 0x6) == 0x6; }
static int os_avx512(void) { return (xcr0() & 0xe6) == 0xe6; }

/* cpuid leaf 7 sub-leaf `sub`: register b or a. */
static unsigned leaf7(unsigned sub, int want_a)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, sub, a, b, c, d);
    return want_a ? a : b;
}

int mixi_cpu_has_f16c(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int f16c = (c >> 29) & 1u, avx2 = (leaf7(0, 0) >> 5) & 1u;
    return f16c && avx2 && os_avx();
}

int mixi_cpu_has_avx512f(void) { return ((leaf7(0, 0) >> 16) & 1u) && os_avx512(); }

int mixi_cpu_has_avx512_bf16(void) { return ((leaf7(1, 1) >> 5) & 1u) && os_avx512(); }

int mixi_cpu_has_native_bf16_gemm(void)
{
#ifdef MIX_HAVE_ONEDNN
    return mixi_cpu_has_avx512_bf16();
#else
    return 0;
#endif
}
