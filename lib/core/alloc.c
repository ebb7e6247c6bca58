/* alloc.c: the library's one host allocator, with a counter tests use to make allocations fail. */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdatomic.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include "lib/core/core.h"

/* Atomic: every thread allocates through here (the simple drivers may run concurrently, and so
 * may solves on different contexts).  The countdown is a test hook; with several threads the
 * allocation that fails is the n+1-th of all of them, whichever thread makes it. */
static _Atomic long fail_countdown = -1;
static _Atomic long live_allocations = 0;
/* The live count is kept only once a test program asks for it (mixi_alloc_count): its atomic
 * read-modify-write costs ~20 cycles per allocation and per free, 22 of them in a mix_dsgesv at
 * n = 20 (issue 32 round 4); the relaxed load of the switch is a plain load. */
static _Atomic int counting = 0;

void mixi_alloc_fail_after(long n) { atomic_store(&fail_countdown, n); }

void mixi_alloc_count(int on) { atomic_store(&counting, on); }

static void count_live(long delta)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add(&live_allocations, delta);
}

int mixi_alloc_should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    while (c > 0)
        if (atomic_compare_exchange_weak(&fail_countdown, &c, c - 1)) return 0;
    return c == 0;
}

long mixi_alloc_live(void) { return atomic_load(&live_allocations); }

size_t mixi_alloc_alignment(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= MIXI_HUGE_MIN) return MIXI_HUGE_ALIGN;
#endif
    (void)bytes;
    return 64;
}

/* The one place that decides the pages of host memory.  64-byte alignment for vector loads;
 * blocks of MIXI_HUGE_MIN or more start on a 2 MiB boundary, where huge pages can back them.
 * No huge-page advice here, at the first touch: a guest whose host backs memory lazily (a
 * balloon that returns freed 2 MiB blocks to the host: the Firecracker KVM Xeon) pays 3-4 ms a
 * MB for a fresh huge page against 0.4-0.5 ms for 4 KiB pages, and a first AMG solve of 3-D
 * Poisson 150^3 (1.5 GB touched) took 5.9 s with the advice against 4.9 without (issue 37,
 * 2026-11-28, three runs each; repeated solves no slower).  On bare metal both first touches
 * are mostly the kernel's zeroing.  The streamed matrices are advised once written
 * (mixi_pages_streamed: khugepaged moves them in the background) and moved at once after
 * enough products to pay for it (mixi_pages_collapse, from the backend that streams them): on
 * 4 KiB pages a hot SpMV ran up to 1.5x slower on that guest.
 * The block is carved from a plain malloc of bytes + align, the malloc'ed address stored in the
 * 8 bytes before the block and its size in the 8 before those (core.h's mixi_block_bytes): glibc's
 * aligned_alloc bypasses its per-thread cache and costs ~700 instructions a call with its free
 * (a small dense solve makes a dozen: issue 32, 12% of a mix_dsgesv at n = 20), malloc and
 * free ~100.  So mixi_free, never free(), releases it. */
static void *host_block(size_t bytes, size_t align)
{
    if (bytes > SIZE_MAX - align) return NULL;
    unsigned char *raw = malloc(bytes + align);
    if (!raw) return NULL;
    /* malloc's alignment (16) leaves at least 16 bytes before the aligned address. */
    unsigned char *p = raw + (align - (uintptr_t)raw % align);
    memcpy(p - sizeof raw, &raw, sizeof raw);
    memcpy(p - sizeof raw - sizeof bytes, &bytes, sizeof bytes);
    return p;
}

void mixi_alloc_live_adjust(long delta) { count_live(delta); }

#if defined(__linux__) && !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25 /* <linux/mman.h>, Linux 6.1; older glibc headers lack it */
#endif

/* madvise(advice) on a block huge pages can back (mixi_malloc's from MIXI_HUGE_MIN: on a 2 MiB
 * boundary); 0 where the system took it.  Advice: where it fails the memory is still good. */
static int pages_advise(void *block, size_t bytes, int advice)
{
#if defined(__linux__)
    if (block && bytes >= MIXI_HUGE_MIN && (uintptr_t)block % MIXI_HUGE_ALIGN == 0)
        return madvise(block, bytes, advice) == 0 ? 0 : -1;
#endif
    (void)block, (void)bytes, (void)advice;
    return -1;
}

void mixi_pages_streamed(void *block, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    (void)pages_advise(block, bytes, MADV_HUGEPAGE);
#else
    (void)block, (void)bytes;
#endif
}

int mixi_pages_collapse(void *block, size_t bytes)
{
#ifdef MADV_COLLAPSE
    return pages_advise(block, bytes, MADV_COLLAPSE);
#else
    (void)block, (void)bytes;
    return -1;
#endif
}

void *mixi_malloc(size_t bytes)
{
    if (mixi_alloc_should_fail()) return NULL;
    void *p = host_block(bytes, mixi_alloc_alignment(bytes));
    if (p) count_live(1);
    return p;
}

void *mixi_malloc_scratch(size_t count, size_t size)
{
    size_t bytes;
    if (mixi_mul_size(count, size, &bytes) || mixi_alloc_should_fail()) return NULL;
    void *p = host_block(bytes, 64); /* 64 < MIXI_HUGE_ALIGN: never advised */
    if (p) count_live(1);
    return p;
}

void *mixi_calloc(size_t count, size_t size)
{
    void *p = mixi_malloc_n(count, size);
    if (p) memset(p, 0, count * size);
    return p;
}

void mixi_free(void *p)
{
    if (!p) return;
    void *raw;
    memcpy(&raw, (unsigned char *)p - sizeof raw, sizeof raw);
    count_live(-1);
    free(raw);
}

int mixi_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return MIX_ERR_ALLOC;
    *out = a * b;
    return MIX_SUCCESS;
}

int mixi_add_size(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return MIX_ERR_ALLOC;
    *out = a + b;
    return MIX_SUCCESS;
}

int mixi_mul3_size(size_t a, size_t b, size_t c, size_t *out)
{
    size_t ab;
    if (mixi_mul_size(a, b, &ab)) return MIX_ERR_ALLOC;
    return mixi_mul_size(ab, c, out);
}

void *mixi_malloc_n(size_t count, size_t size)
{
    size_t bytes;
    return mixi_mul_size(count, size, &bytes) ? NULL : mixi_malloc(bytes);
}

int mixi_overlap(const void *p, size_t pbytes, const void *q, size_t qbytes)
{
    /* Compared as integers: relational operators on pointers to different objects are undefined. */
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    if (!p || !q || !pbytes || !qbytes) return 0;
    return a < b ? b - a < pbytes : a - b < qbytes;
}
