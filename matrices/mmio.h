/* mmio.h: Matrix Market reader and writer of libmixmat (coordinate/array, real/integer/pattern, gzip). */
#ifndef MIXMAT_MMIO_H
#define MIXMAT_MMIO_H

#include <stddef.h>
#include <stdint.h>
#include "matrices/mixmat.h"

typedef enum { MIXM_MTX_COORDINATE, MIXM_MTX_ARRAY } mixm_mtx_format;
typedef enum { MIXM_MTX_REAL, MIXM_MTX_INTEGER, MIXM_MTX_PATTERN } mixm_mtx_field;
typedef enum { MIXM_MTX_GENERAL, MIXM_MTX_SYMMETRIC, MIXM_MTX_SKEW } mixm_mtx_symmetry;

/* What the banner and size line declared (the CSR itself holds the expanded matrix). */
typedef struct {
    mixm_mtx_format format;
    mixm_mtx_field field;
    mixm_mtx_symmetry symmetry;
    int nrows, ncols;
    int64_t entries; /* entry lines declared (coordinate) or values (array) */
} mixm_mtx_header;

/* Reads a Matrix Market file, plain or gzip (detected by its magic bytes; several gzip members
 * allowed, anything else after them refused), into a 0-based CSR: symmetric and skew-symmetric
 * storage (one triangle only; entries on both sides of the diagonal are refused) expanded to both
 * triangles, duplicates summed (a sum that overflows is refused), each row sorted by column,
 * explicitly stored zeros kept.  Lines are bounded (data 1024 characters, comments 64 KiB, at
 * most 2^24 comment or blank lines) and NUL bytes refused, so endless input ends with an error.  h may be NULL.  Returns 0, MIX_ERR_IO (cannot open/read),
 * MIX_ERR_PARSE (malformed: err says "file:line: what") or MIX_ERR_ALLOC; on failure A is zeroed.
 * Declared sizes are checked before anything is allocated: more than 2^31 - 1 entries, or more
 * memory than mixm_mtx_mem_limit(), is refused.  err (errlen bytes) may be NULL. */
int mixm_mtx_read(const char *path, mixm_csr *A, mixm_mtx_header *h, char *err, size_t errlen);
/* The same from memory; `name` is used in messages (the fuzzing harness reads this way). */
int mixm_mtx_read_mem(const void *buf, size_t len, const char *name, mixm_csr *A, mixm_mtx_header *h,
                      char *err, size_t errlen);
/* Reads only the banner and size line (cheap: to decide whether a file is worth loading). */
int mixm_mtx_read_header(const char *path, mixm_mtx_header *h, char *err, size_t errlen);
/* Reads a dense matrix or vector (array format, or coordinate scattered into zeros), column-major. */
int mixm_mtx_read_dense(const char *path, mixm_dense *X, char *err, size_t errlen);

/* Writes coordinate real; symmetric != 0 writes only the lower triangle with the "symmetric"
 * banner (the caller knows A is symmetric).  A name ending in ".gz" is gzip-compressed.  Both
 * writers refuse NaN and Inf (MIX_ERR_NAN, err says which entry; no file made), which the reader
 * refuses. */
int mixm_mtx_write_csr(const char *path, const mixm_csr *A, int symmetric, char *err, size_t errlen);
/* Writes array real general, column-major (leading dimension nrows). */
int mixm_mtx_write_dense(const char *path, const mixm_dense *X, char *err, size_t errlen);

/* Rows and columns (or dense entries) the reader allocates for without stored entries to justify
 * them: beyond this count a matrix must store at least one entry per 64 rows or columns, else it
 * is refused (MIX_ERR_PARSE) before any allocation of its size, so a lying size line costs
 * nothing.  Default 2^20, or the environment variable MIXSOLVE_MTX_DIM_FREE; set_dim_free(0)
 * restores the default. */
int64_t mixm_mtx_dim_free(void);
void mixm_mtx_set_dim_free(int64_t rows);

/* Memory the reader may allocate for one matrix: default half the physical memory (at least
 * 1 GiB); set_mem_limit(0) restores the default. */
size_t mixm_mtx_mem_limit(void);
void mixm_mtx_set_mem_limit(size_t bytes);

#endif
