/* cpu_features.c: CPU feature detection through the compiler's cpuid support. */
#include "kernels/cpu/cpu_features.h"

int mixi_cpu_has_f16c(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx2");
}

int mixi_cpu_has_avx512f(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

int mixi_cpu_has_avx512_bf16(void)
{
    /* gcc 12's __builtin_cpu_supports knows avx512bf16; read cpuid leaf 7 subleaf 1 eax bit 5. */
    unsigned a = 7, b = 0, c = 1, d = 0;
    unsigned max_leaf;
    __asm__ volatile("cpuid" : "=a"(max_leaf), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
    if (max_leaf < 7) return 0;
    a = 7; c = 1;
    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return (a >> 5) & 1u;
}

int mixi_cpu_has_native_bf16_gemm(void)
{
#ifdef MIX_HAVE_ONEDNN
    return mixi_cpu_has_avx512_bf16();
#else
    return 0;
#endif
}
