/* cpu_mem.h: large host copies and clears on the threads.  A fresh block's first touch is
 * where its pages are faulted in (and, on a KVM guest, backed by the host: 3-4 ms a MB for
 * fresh 2 MiB pages, 0.5 for 4 KiB ones, doc/benchmarks.md); the threads take those faults
 * side by side instead of one after another. */
#ifndef MIXI_CPU_MEM_H
#define MIXI_CPU_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* dst = src (bytes of them), or zeros where src is NULL; in 2 MiB pieces, threaded from four. */
static inline void mixi_cpu_bytes_threaded(void *dst, const void *src, size_t bytes)
{
    const size_t piece = (size_t)2 << 20;
    const int64_t pieces = (int64_t)((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static) if (pieces >= 4)
    for (int64_t k = 0; k < pieces; k++) {
        const size_t at = (size_t)k * piece, len = bytes - at < piece ? bytes - at : piece;
        if (src) memcpy((char *)dst + at, (const char *)src + at, len);
        else memset((char *)dst + at, 0, len);
    }
}

#endif
