/* core.h: what every layer of the library needs and nothing above it provides: the build's
 * configuration, the context, the one host allocator, size arithmetic, the clock (never installed).
 * The bottom layer: it includes only config.h and the public types; kernels/, solvers/ and lib/
 * include it, it includes none of them. */
#ifndef MIX_CORE_H
#define MIX_CORE_H

#include "config.h"
#include <stddef.h>
#include <string.h>
#include "mixsolve.h"

/* A context: one backend's operations table plus that backend's private state.  The table's
 * type is the kernels' (kernels/backend.h); whoever calls through ops includes that header. */
struct mixi_backend_ops;
struct mixi_comm;
struct mix_context {
    const struct mixi_backend_ops *ops;
    void *state;          /* owned by the backend (device handles and stream, say) */
    mix_backend backend;  /* never MIX_BACKEND_AUTO */
    /* The ranks a solve spans (lib/core/comm.h): &mixi_comm_serial unless libmixsolve_mpi's
     * mix_context_create_mpi made the context; its fini runs in mix_context_destroy. */
    const struct mixi_comm *comm;
};

/* All host allocation of the library goes through these, so tests can make the Nth one fail.
 * A block of mixi_malloc/mixi_calloc is released by mixi_free only (never free()). */
void *mixi_malloc(size_t bytes);
void *mixi_calloc(size_t count, size_t size);
void mixi_free(void *p);
/* Blocks of MIXI_HUGE_MIN bytes or more are MIXI_HUGE_ALIGN-aligned, so that huge pages can back
 * them where the system has them (Linux); mixi_alloc_alignment: the alignment that mixi_malloc
 * gives a block of `bytes` here (64 or MIXI_HUGE_ALIGN).  mixi_pages_streamed: `block` (from
 * mixi_malloc, already written) is read again and again, as a matrix by its SpMVs: advised for
 * huge pages (MADV_HUGEPAGE, which the kernel applies in the background), where it is such a
 * block; not at allocation, which would make its first touch take fresh huge pages (alloc.c). */
#define MIXI_HUGE_MIN ((size_t)4 << 20)
#define MIXI_HUGE_ALIGN ((size_t)2 << 20)
size_t mixi_alloc_alignment(size_t bytes);
void mixi_pages_streamed(void *block, size_t bytes);
/* Moves such a block to huge pages now (Linux 6.1+ MADV_COLLAPSE; elsewhere nothing): for a
 * matrix that has been streamed often enough to pay their first touch back.  0 where the
 * system took it. */
int mixi_pages_collapse(void *block, size_t bytes);
/* Test hook: the allocation after `n` more successful ones fails (n < 0: never fail).
 * Also consulted by the backends' device allocators through mixi_alloc_should_fail(). */
void mixi_alloc_fail_after(long n);
int mixi_alloc_should_fail(void);
/* Outstanding host allocations, for leak tests: counted from mixi_alloc_count(1) on, which a
 * test program calls before its first allocation (off by default: a cost on every call). */
long mixi_alloc_live(void);
void mixi_alloc_count(int on);

/* The size a block of mixi_malloc (or mixi_malloc_scratch, mixi_calloc) was asked with:
 * alloc.c keeps it in the 8 bytes before the 8 that hold malloc's address.  Inline: every free
 * of a context's workspace on the host reads it (a dozen in a solve at n = 20). */
static inline size_t mixi_block_bytes(const void *p)
{
    size_t bytes;
    memcpy(&bytes, (const unsigned char *)p - sizeof(void *) - sizeof bytes, sizeof bytes);
    return bytes;
}
/* A block held apart from the live count (the spare cache below) leaves it (-1) and comes back
 * (+1) before it is used or freed. */
void mixi_alloc_live_adjust(long delta);

/* A context's spare block (spare.c): the largest workspace a solve freed, kept for the next
 * solve on that context, whose first touch of fresh pages would cost again what the last one
 * paid (the FP32 copy of A at n = 4096, 67 MB: 14 ms of a 0.4 s LU-IR on the 2-core Xeon, a
 * kernel page fault per 4 KiB).  From MIXI_SPARE_MIN bytes (below it glibc reuses its own
 * heap) up to a 16th of the machine's memory; one block, thread-safe, released at fini. */
#define MIXI_SPARE_MIN ((size_t)8 << 20)
typedef struct mixi_spare mixi_spare;
/* NULL when out of memory. */
mixi_spare *mixi_spare_create(void);
void mixi_spare_destroy(mixi_spare *s);
/* An allocation of `bytes` (s may be NULL): *p the spare where it fits (at least bytes, at most
 * twice), else NULL for the caller to allocate; MIX_ERR_ALLOC where a test's injected failure
 * falls on it. */
int mixi_spare_take(mixi_spare *s, size_t bytes, void **p);
/* 1: the spare cache now owns block p (mixi_malloc's), the caller's free is done; 0: the caller
 * frees it. */
int mixi_spare_keep(mixi_spare *s, void *p);

/* Values are left unscaled inside [2^-MIXI_RANGE_EXP, 2^MIXI_RANGE_EXP]: there LU's growth, the
 * residual b - A x and the stopping test's products stay far from FP64's overflow and underflow,
 * and FP32/TF32/BF16 hold them.  Beyond, the dense flow (solvers/dense/dense_range.c), the
 * sparse LU (solvers/sparse_lu/sparse_lu_range.c) and its backend's held matrix scale by powers
 * of two.  No bundled SuiteSparse matrix comes near (largest entries ~1e10 = 2^33). */
#define MIXI_RANGE_EXP 64
static inline int mixi_beyond_range(double v)
{
    return v > 0.0 && (v > 0x1p64 || v < 0x1p-64); /* 2^+-MIXI_RANGE_EXP */
}

/* Overflow-checked size arithmetic: 0 on success, MIX_ERR_ALLOC when the result does not fit
 * (every workspace size goes through these, so a huge parameter is an error, never a wrap). */
int mixi_mul_size(size_t a, size_t b, size_t *out);
int mixi_add_size(size_t a, size_t b, size_t *out);
int mixi_mul3_size(size_t a, size_t b, size_t c, size_t *out);
/* mixi_malloc of count * size bytes, NULL when that does not fit. */
void *mixi_malloc_n(size_t count, size_t size);
/* count * size bytes of scratch memory (freed with mixi_free): 64-byte aligned, never advised
 * for huge pages.  For memory written once and read a few times (a set-up's intermediate
 * matrices): there a huge page costs more at its first touch (the kernel compacts memory to
 * find 2 MiB; 3-D Poisson 150^3's multigrid set-up took 10.4 s instead of 7.1 s) than its TLB
 * entries save. */
void *mixi_malloc_scratch(size_t count, size_t size);
/* Whether the byte ranges [p, p + pbytes) and [q, q + qbytes) share a byte (aliased arguments). */
int mixi_overlap(const void *p, size_t pbytes, const void *q, size_t qbytes);

/* The value that the environment variable var ("a=1.5,b=2", any order) gives name: the first
 * "name=" entry, when strtod reads all of it up to the next comma or the end and it is positive
 * and finite; else 0 (unset, not named, malformed: the caller keeps its default) (env_list.c). */
#define MIXI_ENV_LIST_MIN 1e-6 /* the values mixi_env_list_value accepts; others read as 0 */
#define MIXI_ENV_LIST_MAX 1e9
double mixi_env_list_value(const char *var, const char *name);

/* Wall clock in seconds (monotonic): mixi_wtime, header-only (libmixmat's users share it). */
#include "lib/core/clock.h"

#endif
