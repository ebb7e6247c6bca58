/* mmio.c: Matrix Market reader (plain or gzip, strict, never trusts declared sizes) and writer. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>
#include "matrices/mmio.h"

/* The Matrix Market specification limits lines to 1024 characters; comments may be longer and
 * are skipped whole, data lines beyond this are refused. */
#define LINE_CAP 1100
#define MAX_ENTRIES ((int64_t)INT32_MAX)

static size_t mem_limit;
static int64_t dim_free;

size_t mixm_mtx_mem_limit(void)
{
    if (mem_limit) return mem_limit;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    size_t half = (pages > 0 && psize > 0) ? (size_t)pages / 2 * (size_t)psize : 0;
    return half > ((size_t)1 << 30) ? half : ((size_t)1 << 30);
}

void mixm_mtx_set_mem_limit(size_t bytes) { mem_limit = bytes; }

/* Longest line skipped whole (a comment); anything longer, and more skipped (comment or blank)
 * lines than SKIP_CAP, is refused: endless input such as /dev/zero fails instead of spinning. */
#define SKIP_LINE_CAP (1 << 16)
#define SKIP_CAP ((long)1 << 24)
/* Rows or columns the reader sets aside arrays for without entries to justify them: beyond it a
 * matrix needs at least one stored entry per DIM_PER_ENTRY rows or columns (a nonsingular matrix
 * stores at least one per row), or a raised MIXSOLVE_MTX_MAX_EMPTY_DIM (see mmio.h). */
#define DIM_FREE ((int64_t)1 << 20)
#define DIM_PER_ENTRY 64

/* Raw bytes from a file descriptor or a memory buffer, inflated when they start with the gzip
 * magic (several members allowed, as gzip writes them; anything else after the last member is
 * an error, as is a truncated or corrupt stream). */
typedef struct {
    int fd;                      /* -1: memory */
    const unsigned char *mem;    /* memory source */
    size_t mem_len, mem_pos;
    int gzip, z_init, z_end, raw_eof;
    z_stream z;
    unsigned char raw[1 << 16];
    size_t raw_have;             /* bytes of raw not yet handed on (plain) or consumed (gzip) */
    const unsigned char *raw_cur;
} source;

/* A line source over a `source`. */
typedef struct {
    source src;
    const char *cur, *end;
    const char *name;
    long line, skipped;
    char *err;
    size_t errlen;
    const char *src_err;         /* what went wrong in the source, for read_error */
    char buf[LINE_CAP];
    char chunk[1 << 16];
} reader;

static int fail(reader *r, int status, long line, const char *fmt, ...)
{
    if (r->err && r->errlen) {
        int k = line > 0 ? snprintf(r->err, r->errlen, "%s:%ld: ", r->name, line)
                         : snprintf(r->err, r->errlen, "%s: ", r->name);
        if (k >= 0 && (size_t)k < r->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return status;
}

/* Raw bytes into raw[]: 0 at end, -1 on a read error. */
static int raw_fill(reader *r)
{
    source *s = &r->src;
    if (s->raw_eof) return 0;
    size_t keep = s->raw_have;
    if (keep && s->raw_cur != s->raw) memmove(s->raw, s->raw_cur, keep);
    s->raw_cur = s->raw;
    size_t room = sizeof s->raw - keep;
    ssize_t got;
    if (s->fd < 0) {
        size_t left = s->mem_len - s->mem_pos;
        got = (ssize_t)(left < room ? left : room);
        memcpy(s->raw + keep, s->mem + s->mem_pos, (size_t)got);
        s->mem_pos += (size_t)got;
    } else {
        do {
            got = read(s->fd, s->raw + keep, room);
        } while (got < 0 && errno == EINTR);
        if (got < 0) {
            r->src_err = strerror(errno);
            return -1;
        }
    }
    if (got == 0) s->raw_eof = 1;
    s->raw_have = keep + (size_t)got;
    return got > 0;
}

/* Up to cap decompressed (or plain) bytes into out: the count, 0 at the end, -1 on an error
 * (r->src_err says which). */
static long src_read(reader *r, char *out, size_t cap)
{
    source *s = &r->src;
    if (!s->gzip) {
        if (!s->raw_have && raw_fill(r) < 0) return -1;
        size_t k = s->raw_have < cap ? s->raw_have : cap;
        memcpy(out, s->raw_cur, k);
        s->raw_cur += k;
        s->raw_have -= k;
        return (long)k;
    }
    if (s->z_end) return 0;
    s->z.next_out = (unsigned char *)out;
    s->z.avail_out = (uInt)cap;
    while (s->z.avail_out == cap) {
        if (!s->raw_have) {
            int f = raw_fill(r);
            if (f < 0) return -1;
            if (f == 0) {
                r->src_err = "truncated gzip stream";
                return -1;
            }
        }
        s->z.next_in = (unsigned char *)s->raw_cur;
        s->z.avail_in = (uInt)s->raw_have;
        int zr = inflate(&s->z, Z_NO_FLUSH);
        s->raw_cur = s->z.next_in;
        s->raw_have = s->z.avail_in;
        if (zr == Z_STREAM_END) {
            /* Another gzip member may follow; anything else is trailing garbage. */
            while (s->raw_have < 2 && raw_fill(r) > 0) {
            }
            if (s->raw_have == 0) {
                s->z_end = 1;
                break;
            }
            if (s->raw_have < 2 || s->raw_cur[0] != 0x1f || s->raw_cur[1] != 0x8b) {
                r->src_err = "trailing data after the gzip stream";
                return -1;
            }
            inflateReset(&s->z);
        } else if (zr == Z_BUF_ERROR && s->raw_have == 0) {
            continue; /* needs more input */
        } else if (zr != Z_OK) {
            r->src_err = zr == Z_MEM_ERROR ? "out of memory inflating" : "corrupt gzip data";
            return -1;
        }
    }
    return (long)(cap - s->z.avail_out);
}

/* Looks at the first bytes: gzip magic turns inflation on.  0, or -1 (r->src_err). */
static int src_start(reader *r)
{
    source *s = &r->src;
    while (s->raw_have < 2) {
        int f = raw_fill(r);
        if (f < 0) return -1;
        if (f == 0) break;
    }
    if (s->raw_have >= 2 && s->raw_cur[0] == 0x1f && s->raw_cur[1] == 0x8b) {
        memset(&s->z, 0, sizeof s->z);
        if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
            r->src_err = "out of memory";
            return -1;
        }
        s->gzip = s->z_init = 1;
    }
    return 0;
}

static void src_close(reader *r)
{
    if (r->src.z_init) inflateEnd(&r->src.z);
    if (r->src.fd >= 0) close(r->src.fd);
    r->src.fd = -1;
    r->src.z_init = 0;
}

/* Next line into r->buf without its newline: 1; 0 at end of input; -1 read error; -2 a line
 * longer than SKIP_LINE_CAP; -3 a NUL byte.  *toolong is set when the line did not fit buf
 * (its start is kept, the rest skipped). */
static int next_line(reader *r, int *toolong)
{
    size_t n = 0, total = 0;
    int any = 0, nul = 0;
    *toolong = 0;
    for (;;) {
        if (r->cur == r->end) {
            long got = src_read(r, r->chunk, sizeof r->chunk);
            if (got < 0) return -1;
            if (got == 0) break;
            r->cur = r->chunk;
            r->end = r->chunk + got;
        }
        any = 1;
        const char *nl = memchr(r->cur, '\n', (size_t)(r->end - r->cur));
        const char *stop = nl ? nl : r->end;
        size_t k = (size_t)(stop - r->cur), room = LINE_CAP - 1 - n;
        if (memchr(r->cur, '\0', k)) nul = 1;
        total += k;
        if (total > SKIP_LINE_CAP) {
            r->line++;
            return -2;
        }
        if (k > room) {
            *toolong = 1;
            k = room;
        }
        memcpy(r->buf + n, r->cur, k);
        n += k;
        r->cur = nl ? nl + 1 : r->end;
        if (nl) break;
    }
    if (!any) return 0;
    r->buf[n] = '\0';
    if (n && r->buf[n - 1] == '\r') r->buf[n - 1] = '\0';
    r->line++;
    return nul ? -3 : 1;
}

/* The message for a negative next_line result. */
static int read_error(reader *r, int got)
{
    if (got == -2)
        return fail(r, MIX_ERR_PARSE, r->line, "line longer than %d bytes (not a Matrix Market file?)",
                    SKIP_LINE_CAP);
    if (got == -3) return fail(r, MIX_ERR_PARSE, r->line, "NUL byte in the line");
    /* The source reads ahead of the lines, so a source error carries no line number. */
    return fail(r, r->src.gzip ? MIX_ERR_PARSE : MIX_ERR_IO, 0, "read error: %s",
                r->src_err ? r->src_err : "unknown");
}

/* A comment or blank line skipped: bounded, so endless input ends. */
static int skip_line(reader *r)
{
    if (++r->skipped > SKIP_CAP)
        return fail(r, MIX_ERR_PARSE, r->line, "more than %ld comment or blank lines", SKIP_CAP);
    return MIX_SUCCESS;
}

/* Splits r->buf into at most `max` whitespace-separated tokens; returns how many (max + 1 when
 * there are more). */
static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\f' || *s == '\v' || *s == '\r') s++;
        if (!*s) return n;
        if (n == max) return max + 1;
        tok[n++] = s;
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = '\0';
    }
}

static int blank(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

static int parse_int64(const char *t, int64_t *v)
{
    char *e;
    errno = 0;
    long long x = strtoll(t, &e, 10);
    if (e == t || *e || errno == ERANGE) return 0;
    *v = (int64_t)x;
    return 1;
}

static int parse_real(const char *t, double *v)
{
    char *e;
    errno = 0;
    double x = strtod(t, &e);
    if (e == t || *e) return 0;
    if (!isfinite(x) || (errno == ERANGE && fabs(x) > 1.0)) return 0; /* underflow to 0 is fine */
    *v = x;
    return 1;
}

static const char *const format_names[] = {"coordinate", "array"};
static const char *const field_names[] = {"real", "integer", "pattern"};
static const char *const sym_names[] = {"general", "symmetric", "skew-symmetric"};

static int lookup(const char *t, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(t, names[i])) return i;
    return -1;
}

/* Banner, comments and size line; checks the declared sizes against every limit. */
static int read_header(reader *r, mixm_mtx_header *h, int64_t *full_max)
{
    int toolong, got, st;
    char *tok[6];
    memset(h, 0, sizeof *h);
    got = next_line(r, &toolong);
    if (got < 0) return read_error(r, got);
    if (got == 0) return fail(r, MIX_ERR_PARSE, 1, "empty file: no Matrix Market banner");
    int nt = tokenize(r->buf, tok, 5);
    if (nt < 1 || strcasecmp(tok[0], "%%MatrixMarket"))
        return fail(r, MIX_ERR_PARSE, r->line, "bad banner: the file must start with %%%%MatrixMarket");
    if (nt != 5)
        return fail(r, MIX_ERR_PARSE, r->line,
                    "bad banner: expected '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY'");
    if (strcasecmp(tok[1], "matrix"))
        return fail(r, MIX_ERR_PARSE, r->line, "bad banner: object '%.40s' is not 'matrix'", tok[1]);
    int fmt = lookup(tok[2], format_names, 2);
    if (fmt < 0)
        return fail(r, MIX_ERR_PARSE, r->line,
                    "bad banner: format '%.40s' is not coordinate or array", tok[2]);
    if (!strcasecmp(tok[3], "complex") || !strcasecmp(tok[4], "hermitian"))
        return fail(r, MIX_ERR_UNSUPPORTED, r->line,
                    "complex matrices are not supported (only real, integer and pattern)");
    int field = lookup(tok[3], field_names, 3);
    if (field < 0)
        return fail(r, MIX_ERR_PARSE, r->line,
                    "bad banner: field '%.40s' is not real, integer or pattern", tok[3]);
    int sym = lookup(tok[4], sym_names, 3);
    if (sym < 0)
        return fail(r, MIX_ERR_PARSE, r->line,
                    "bad banner: symmetry '%.40s' is not general, symmetric or skew-symmetric", tok[4]);
    if (field == MIXM_MTX_PATTERN && fmt == MIXM_MTX_ARRAY)
        return fail(r, MIX_ERR_PARSE, r->line, "bad banner: 'array pattern' is not a valid combination");
    if (field == MIXM_MTX_PATTERN && sym == MIXM_MTX_SKEW)
        return fail(r, MIX_ERR_PARSE, r->line,
                    "bad banner: 'pattern skew-symmetric' is not a valid combination");
    h->format = (mixm_mtx_format)fmt;
    h->field = (mixm_mtx_field)field;
    h->symmetry = (mixm_mtx_symmetry)sym;

    /* Comments and blank lines, then the size line. */
    for (;;) {
        got = next_line(r, &toolong);
        if (got < 0) return read_error(r, got);
        if (got == 0) return fail(r, MIX_ERR_PARSE, r->line + 1, "truncated file: no size line");
        if (r->buf[0] == '%' || blank(r->buf)) {
            if ((st = skip_line(r))) return st;
            continue;
        }
        break;
    }
    if (toolong) return fail(r, MIX_ERR_PARSE, r->line, "size line too long");
    int want = fmt == MIXM_MTX_COORDINATE ? 3 : 2;
    nt = tokenize(r->buf, tok, 3);
    if (nt != want)
        return fail(r, MIX_ERR_PARSE, r->line, "bad size line: expected %s",
                    fmt == MIXM_MTX_COORDINATE ? "'ROWS COLS ENTRIES'" : "'ROWS COLS'");
    int64_t m, n, e = 0;
    if (!parse_int64(tok[0], &m) || !parse_int64(tok[1], &n) || (want == 3 && !parse_int64(tok[2], &e)))
        return fail(r, MIX_ERR_PARSE, r->line, "bad size line: sizes must be integers");
    if (m < 0 || n < 0 || e < 0)
        return fail(r, MIX_ERR_PARSE, r->line, "bad size line: negative size");
    if (m > INT_MAX || n > INT_MAX)
        return fail(r, MIX_ERR_PARSE, r->line, "matrix too large: %lld x %lld (at most %d rows and columns)",
                    (long long)m, (long long)n, INT_MAX);
    if (sym != MIXM_MTX_GENERAL && m != n)
        return fail(r, MIX_ERR_PARSE, r->line, "a %s matrix must be square, not %lld x %lld",
                    sym_names[sym], (long long)m, (long long)n);
    /* Most values the storage can hold: whole matrix, triangle with or without diagonal. */
    uint64_t cap = sym == MIXM_MTX_GENERAL ? (uint64_t)m * (uint64_t)n
                   : sym == MIXM_MTX_SYMMETRIC ? (uint64_t)m * ((uint64_t)m + 1) / 2
                                                : (uint64_t)m * ((uint64_t)m - (m > 0)) / 2;
    if (fmt == MIXM_MTX_ARRAY) {
        if (cap > (uint64_t)MAX_ENTRIES)
            return fail(r, MIX_ERR_PARSE, r->line, "matrix too large: %llu values (limit 2^31 - 1)",
                        (unsigned long long)cap);
        e = (int64_t)cap;
    } else if ((uint64_t)e > cap) {
        return fail(r, MIX_ERR_PARSE, r->line, "wrong counts: %lld entries cannot fit a %lld x %lld %s matrix",
                    (long long)e, (long long)m, (long long)n, sym_names[sym]);
    } else if (e > MAX_ENTRIES) {
        return fail(r, MIX_ERR_PARSE, r->line, "matrix too large: %lld entries (limit 2^31 - 1)",
                    (long long)e);
    }
    h->nrows = (int)m;
    h->ncols = (int)n;
    h->entries = e;
    *full_max = sym == MIXM_MTX_GENERAL ? e : 2 * e;
    return MIX_SUCCESS;
}

/* Stored entries, 0-based, as read. */
typedef struct {
    int32_t *i, *j;
    double *v;
    int64_t n, cap;
} triplets;

static void trip_free(triplets *t)
{
    free(t->i);
    free(t->j);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* Grows geometrically up to the declared count, so a lying size line costs nothing. */
static int trip_push(triplets *t, int64_t declared, int32_t i, int32_t j, double v)
{
    if (t->n == t->cap) {
        int64_t c = t->cap ? 2 * t->cap : 4096;
        if (c > declared) c = declared;
        int32_t *ni = realloc(t->i, (size_t)c * sizeof *ni);
        if (ni) t->i = ni;
        int32_t *nj = realloc(t->j, (size_t)c * sizeof *nj);
        if (nj) t->j = nj;
        double *nv = realloc(t->v, (size_t)c * sizeof *nv);
        if (nv) t->v = nv;
        if (!ni || !nj || !nv) return MIX_ERR_ALLOC;
        t->cap = c;
    }
    t->i[t->n] = i;
    t->j[t->n] = j;
    t->v[t->n] = v;
    t->n++;
    return MIX_SUCCESS;
}

static int parse_value(reader *r, const mixm_mtx_header *h, const char *t, double *v)
{
    if (h->field == MIXM_MTX_INTEGER) {
        int64_t x;
        if (!parse_int64(t, &x))
            return fail(r, MIX_ERR_PARSE, r->line, "unparsable integer value '%.40s'", t);
        *v = (double)x;
    } else if (!parse_real(t, v)) {
        return fail(r, MIX_ERR_PARSE, r->line, "unparsable or non-finite value '%.40s'", t);
    }
    return MIX_SUCCESS;
}

/* All entries of the file, then a check that nothing but comments follows. */
static int read_entries(reader *r, const mixm_mtx_header *h, triplets *t)
{
    int toolong, got, st;
    char *tok[4];
    const int coord = h->format == MIXM_MTX_COORDINATE;
    const int want = coord ? (h->field == MIXM_MTX_PATTERN ? 2 : 3) : 1;
    int64_t col = 0, row = 0; /* array format position, column-major */
    int triangle = 0;         /* symmetric coordinate: 1 lower, 2 upper, 0 none seen yet */
    long triangle_line = 0;
    if (!coord) row = h->symmetry == MIXM_MTX_SKEW ? 1 : 0;
    for (int64_t k = 0; k < h->entries;) {
        got = next_line(r, &toolong);
        if (got < 0) return read_error(r, got);
        if (got == 0)
            return fail(r, MIX_ERR_PARSE, r->line + 1,
                        "truncated file: %lld of the %lld declared entries found", (long long)k,
                        (long long)h->entries);
        if (r->buf[0] == '%' || blank(r->buf)) {
            if ((st = skip_line(r))) return st;
            continue;
        }
        if (toolong) return fail(r, MIX_ERR_PARSE, r->line, "line too long");
        int nt = tokenize(r->buf, tok, want);
        if (nt != want)
            return fail(r, MIX_ERR_PARSE, r->line, "expected %d field%s on an entry line, found %s%d", want,
                        want > 1 ? "s" : "", nt > want ? "more than " : "", nt > want ? want : nt);
        int64_t i, j;
        double v = 1.0;
        if (coord) {
            if (!parse_int64(tok[0], &i) || !parse_int64(tok[1], &j))
                return fail(r, MIX_ERR_PARSE, r->line, "unparsable index '%.40s %.40s'", tok[0], tok[1]);
            if (i < 1 || i > h->nrows || j < 1 || j > h->ncols)
                return fail(r, MIX_ERR_PARSE, r->line, "index (%lld, %lld) out of range for a %d x %d matrix",
                            (long long)i, (long long)j, h->nrows, h->ncols);
            if (h->symmetry == MIXM_MTX_SKEW && i == j)
                return fail(r, MIX_ERR_PARSE, r->line, "diagonal entry (%lld, %lld) in a skew-symmetric matrix",
                            (long long)i, (long long)j);
            /* One triangle only: (2,1) and (1,2) both stored would silently count A12 twice. */
            if (h->symmetry != MIXM_MTX_GENERAL && i != j) {
                int side = i > j ? 1 : 2;
                if (triangle && side != triangle)
                    return fail(r, MIX_ERR_PARSE, r->line,
                                "entry (%lld, %lld) is %s the diagonal, but line %ld stored one %s it: a %s "
                                "file stores one triangle only",
                                (long long)i, (long long)j, side == 1 ? "below" : "above", triangle_line,
                                side == 1 ? "above" : "below", h->symmetry == MIXM_MTX_SKEW ? "skew-symmetric" : "symmetric");
                if (!triangle) triangle_line = r->line;
                triangle = side;
            }
            if (want == 3 && (st = parse_value(r, h, tok[2], &v))) return st;
            i--;
            j--;
        } else {
            if ((st = parse_value(r, h, tok[0], &v))) return st;
            i = row;
            j = col;
            if (++row == h->nrows) {
                col++;
                row = h->symmetry == MIXM_MTX_GENERAL ? 0 : h->symmetry == MIXM_MTX_SYMMETRIC ? col : col + 1;
            }
        }
        if (trip_push(t, h->entries, (int32_t)i, (int32_t)j, v))
            return fail(r, MIX_ERR_ALLOC, r->line, "out of memory");
        k++;
    }
    for (;;) {
        got = next_line(r, &toolong);
        if (got < 0) return read_error(r, got);
        if (got == 0) return MIX_SUCCESS;
        if (r->buf[0] != '%' && !blank(r->buf))
            return fail(r, MIX_ERR_PARSE, r->line, "wrong counts: more entries than the %lld declared",
                        (long long)h->entries);
        if ((st = skip_line(r))) return st;
    }
}

/* Expanded CSR: entries scattered into a column-sorted CSC first, so that scattering that into
 * rows leaves every row sorted; duplicates are then summed in place. */
static int build_csr(reader *r, const mixm_mtx_header *h, const triplets *t, mixm_csr *A)
{
    const int sym = h->symmetry != MIXM_MTX_GENERAL;
    const double mirror = h->symmetry == MIXM_MTX_SKEW ? -1.0 : 1.0;
    int64_t full = 0;
    for (int64_t k = 0; k < t->n; k++) full += (sym && t->i[k] != t->j[k]) ? 2 : 1;
    int st = MIX_ERR_ALLOC;
    int64_t *next = NULL;
    int64_t *colptr = calloc((size_t)h->ncols + 2, sizeof *colptr);
    int32_t *crow = malloc((size_t)(full ? full : 1) * sizeof *crow);
    double *cval = malloc((size_t)(full ? full : 1) * sizeof *cval);
    if (!colptr || !crow || !cval) goto out;
    for (int64_t k = 0; k < t->n; k++) {
        colptr[t->j[k] + 2]++;
        if (sym && t->i[k] != t->j[k]) colptr[t->i[k] + 2]++;
    }
    for (int c = 0; c < h->ncols; c++) colptr[c + 2] += colptr[c + 1];
    for (int64_t k = 0; k < t->n; k++) {
        int64_t p = colptr[t->j[k] + 1]++;
        crow[p] = t->i[k];
        cval[p] = t->v[k];
        if (sym && t->i[k] != t->j[k]) {
            p = colptr[t->i[k] + 1]++;
            crow[p] = t->j[k];
            cval[p] = mirror * t->v[k];
        }
    }
    if ((st = mixm_csr_alloc(A, h->nrows, h->ncols, full))) goto out;
    for (int64_t p = 0; p < full; p++) A->rowptr[crow[p] + 1]++;
    for (int i = 0; i < h->nrows; i++) A->rowptr[i + 1] += A->rowptr[i];
    /* After the scatter colptr[c] .. colptr[c + 1] bounds column c; rows fill in column order. */
    next = malloc(((size_t)h->nrows + 1) * sizeof *next);
    if (!next) {
        mixm_csr_free(A);
        st = MIX_ERR_ALLOC;
        goto out;
    }
    memcpy(next, A->rowptr, ((size_t)h->nrows + 1) * sizeof *next);
    for (int c = 0; c < h->ncols; c++)
        for (int64_t p = colptr[c]; p < colptr[c + 1]; p++) {
            int64_t q = next[crow[p]]++;
            A->colind[q] = c;
            A->val[q] = cval[p];
        }
    /* Sum duplicates (rows are sorted, so they are adjacent). */
    int64_t w = 0;
    for (int i = 0; i < h->nrows; i++) {
        int64_t start = A->rowptr[i], end = A->rowptr[i + 1];
        A->rowptr[i] = w;
        for (int64_t p = start; p < end; p++) {
            if (w > A->rowptr[i] && A->colind[w - 1] == A->colind[p]) {
                A->val[w - 1] += A->val[p];
                if (!isfinite(A->val[w - 1])) {
                    int c = A->colind[p];
                    mixm_csr_free(A);
                    st = fail(r, MIX_ERR_PARSE, 0,
                              "duplicate entries at (%d, %d) sum to a value that overflows", i + 1, c + 1);
                    goto out;
                }
            } else {
                A->colind[w] = A->colind[p];
                A->val[w] = A->val[p];
                w++;
            }
        }
    }
    A->rowptr[h->nrows] = w;
    A->nnz = w;
    st = MIX_SUCCESS;
out:
    if (st == MIX_ERR_ALLOC) fail(r, st, 0, "out of memory building a %d x %d matrix with %lld entries",
                                  h->nrows, h->ncols, (long long)full);
    free(colptr);
    free(next);
    free(crow);
    free(cval);
    return st;
}

static int check_memory(reader *r, const mixm_mtx_header *h, int64_t full_max, size_t dense_bytes)
{
    /* triplets + CSC + CSR (or the dense array), computed in double to avoid overflow. */
    double need = (double)h->entries * 16.0 + (double)full_max * 24.0 + ((double)h->nrows + h->ncols + 3) * 16.0
                  + (double)dense_bytes;
    if (need > (double)mixm_mtx_mem_limit())
        return fail(r, MIX_ERR_PARSE, r->line,
                    "matrix too large: %d x %d with %lld entries needs about %.3g GB (limit %.3g GB)",
                    h->nrows, h->ncols, (long long)h->entries, need / 1e9, (double)mixm_mtx_mem_limit() / 1e9);
    return MIX_SUCCESS;
}

/* MIXSOLVE_MTX_DIM_FREE: a positive decimal integer, else the default, as MIXSOLVE_LU_NB is read:
 * strtoll alone took " 5000000" and "+5000000" but not "5000000 ", and read
 * "99999999999999999999" as LLONG_MAX, silently lifting the limit. */
int64_t mixm_mtx_dim_free(void)
{
    if (dim_free > 0) return dim_free;
    const char *env = getenv("MIXSOLVE_MTX_DIM_FREE");
    if (!env || *env < '0' || *env > '9') return DIM_FREE;
    char *e;
    errno = 0;
    const long long v = strtoll(env, &e, 10);
    return errno == 0 && !*e && v > 0 ? (int64_t)v : DIM_FREE;
}

void mixm_mtx_set_dim_free(int64_t rows) { dim_free = rows > 0 ? rows : 0; }

/* Arrays of `size` elements (rows, columns, or a dense array) for `stored` entries read: only
 * when the entries justify them, so that a lying size line costs nothing. */
static int check_size_justified(reader *r, const mixm_mtx_header *h, uint64_t size, int64_t stored)
{
    uint64_t free_dim = (uint64_t)mixm_mtx_dim_free();
    if (size <= free_dim || size <= (uint64_t)stored * DIM_PER_ENTRY) return MIX_SUCCESS;
    return fail(r, MIX_ERR_PARSE, 0,
                "a %d x %d matrix with only %lld stored entries: refused before allocating for "
                "its size (at least one entry per %d rows or columns beyond %llu; "
                "MIXSOLVE_MTX_DIM_FREE raises this)",
                h->nrows, h->ncols, (long long)stored, DIM_PER_ENTRY, (unsigned long long)free_dim);
}

static int read_csr(reader *r, mixm_csr *A, mixm_mtx_header *hout)
{
    mixm_mtx_header h;
    triplets t = {0};
    int64_t full_max;
    int st = read_header(r, &h, &full_max);
    if (!st) st = check_memory(r, &h, full_max, 0);
    if (!st) st = read_entries(r, &h, &t);
    if (!st) st = check_size_justified(r, &h, (uint64_t)(h.nrows > h.ncols ? h.nrows : h.ncols), t.n);
    if (!st) st = build_csr(r, &h, &t, A);
    trip_free(&t);
    if (hout) *hout = h;
    return st;
}

static void reader_init(reader *r, const char *name, char *err, size_t errlen)
{
    memset(r, 0, offsetof(reader, buf));
    r->src.fd = -1;
    r->src.raw_cur = r->src.raw;
    r->name = name;
    r->err = err;
    r->errlen = errlen;
    if (err && errlen) err[0] = '\0';
}

static int open_reader(reader *r, const char *path, char *err, size_t errlen)
{
    reader_init(r, path ? path : "(null)", err, errlen);
    if (!path) return fail(r, MIX_ERR_IO, 0, "no file name");
    do {
        r->src.fd = open(path, O_RDONLY | O_CLOEXEC);
    } while (r->src.fd < 0 && errno == EINTR);
    if (r->src.fd < 0) return fail(r, MIX_ERR_IO, 0, "cannot open: %s", strerror(errno));
    if (src_start(r)) return fail(r, MIX_ERR_IO, 0, "read error: %s", r->src_err);
    return MIX_SUCCESS;
}

int mixm_mtx_read(const char *path, mixm_csr *A, mixm_mtx_header *h, char *err, size_t errlen)
{
    if (!A) return MIX_ERR_INVALID_ARG;
    memset(A, 0, sizeof *A);
    reader *r = malloc(sizeof *r);
    if (!r) return MIX_ERR_ALLOC;
    int st = open_reader(r, path, err, errlen);
    if (!st) st = read_csr(r, A, h);
    src_close(r);
    free(r);
    if (st) mixm_csr_free(A);
    return st;
}

int mixm_mtx_read_header(const char *path, mixm_mtx_header *h, char *err, size_t errlen)
{
    if (!h) return MIX_ERR_INVALID_ARG;
    reader *r = malloc(sizeof *r);
    if (!r) return MIX_ERR_ALLOC;
    int64_t full_max;
    int st = open_reader(r, path, err, errlen);
    if (!st) st = read_header(r, h, &full_max);
    src_close(r);
    free(r);
    return st;
}

int mixm_mtx_read_mem(const void *buf, size_t len, const char *name, mixm_csr *A, mixm_mtx_header *h,
                      char *err, size_t errlen)
{
    if (!A || (!buf && len)) return MIX_ERR_INVALID_ARG;
    memset(A, 0, sizeof *A);
    reader *r = malloc(sizeof *r);
    if (!r) return MIX_ERR_ALLOC;
    reader_init(r, name ? name : "(memory)", err, errlen);
    r->src.mem = buf;
    r->src.mem_len = len;
    int st = src_start(r) ? fail(r, MIX_ERR_IO, 0, "read error: %s", r->src_err) : MIX_SUCCESS;
    if (!st) st = read_csr(r, A, h);
    src_close(r);
    free(r);
    if (st) mixm_csr_free(A);
    return st;
}

int mixm_mtx_read_dense(const char *path, mixm_dense *X, char *err, size_t errlen)
{
    if (!X) return MIX_ERR_INVALID_ARG;
    memset(X, 0, sizeof *X);
    reader *r = malloc(sizeof *r);
    if (!r) return MIX_ERR_ALLOC;
    mixm_mtx_header h;
    triplets t = {0};
    int64_t full_max;
    int st = open_reader(r, path, err, errlen);
    if (!st) st = read_header(r, &h, &full_max);
    size_t bytes = 0;
    if (!st) {
        bytes = (size_t)h.nrows * (size_t)h.ncols * sizeof(double); /* < 2^65 / 2: fits size_t on 64 bit */
        st = check_memory(r, &h, 0, bytes);
    }
    if (!st) st = read_entries(r, &h, &t);
    if (!st) st = check_size_justified(r, &h, (uint64_t)h.nrows * (uint64_t)h.ncols, t.n);
    if (!st) {
        X->a = calloc(bytes ? bytes : 1, 1);
        if (!X->a) st = fail(r, MIX_ERR_ALLOC, 0, "out of memory");
    }
    if (!st) {
        X->nrows = h.nrows;
        X->ncols = h.ncols;
        const double mirror = h.symmetry == MIXM_MTX_SKEW ? -1.0 : 1.0;
        for (int64_t k = 0; k < t.n; k++) {
            size_t i = (size_t)t.i[k], j = (size_t)t.j[k], m = (size_t)h.nrows;
            X->a[i + j * m] += t.v[k];
            if (h.symmetry != MIXM_MTX_GENERAL && i != j) X->a[j + i * m] += mirror * t.v[k];
            if (!isfinite(X->a[i + j * m])) {
                st = fail(r, MIX_ERR_PARSE, 0, "duplicate entries at (%zu, %zu) sum to a value that overflows",
                          i + 1, j + 1);
                break;
            }
        }
    }
    trip_free(&t);
    src_close(r);
    free(r);
    if (st) mixm_dense_free(X);
    return st;
}

/* ---- writer ---------------------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static gzFile open_writer(const char *path, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    errno = 0;
    /* "T": transparent (plain) writing through the same zlib calls. */
    gzFile f = gzopen(path, ends_with(path, ".gz") ? "wb6" : "wbT");
    if (!f && err) snprintf(err, errlen, "%s: cannot open for writing: %s", path, errno ? strerror(errno) : "error");
    return f;
}

static int close_writer(gzFile f, int ok, const char *path, char *err, size_t errlen)
{
    int errnum = Z_OK;
    if (!ok) gzerror(f, &errnum);
    int c = gzclose(f);
    if (ok && c == Z_OK) return MIX_SUCCESS;
    if (err) snprintf(err, errlen, "%s: write error: %s", path, strerror(errno ? errno : EIO));
    return MIX_ERR_IO;
}

/* A value the reader would refuse (NaN, Inf) is never written: MIX_ERR_NAN, said, no file. */
static int refuse_nonfinite(const char *path, int64_t k, int i, int j, double v, char *err,
                            size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: not written: entry %lld (%d, %d) is %g, which Matrix Market "
                 "readers (ours too) refuse", path, (long long)k + 1, i + 1, j + 1, v);
    return MIX_ERR_NAN;
}

int mixm_mtx_write_csr(const char *path, const mixm_csr *A, int symmetric, char *err, size_t errlen)
{
    if (!path || !A || (symmetric && A->nrows != A->ncols)) return MIX_ERR_INVALID_ARG;
    for (int i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[k])) return refuse_nonfinite(path, k, i, A->colind[k], A->val[k], err, errlen);
    gzFile f = open_writer(path, err, errlen);
    if (!f) return MIX_ERR_IO;
    int64_t count = 0;
    for (int i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) count += !symmetric || A->colind[k] <= i;
    int ok = gzprintf(f, "%%%%MatrixMarket matrix coordinate real %s\n%%%% written by mixsolve\n%d %d %lld\n",
                      symmetric ? "symmetric" : "general", A->nrows, A->ncols, (long long)count) > 0;
    for (int i = 0; ok && i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; ok && k < A->rowptr[i + 1]; k++)
            if (!symmetric || A->colind[k] <= i)
                ok = gzprintf(f, "%d %d %.17g\n", i + 1, A->colind[k] + 1, A->val[k]) > 0;
    return close_writer(f, ok, path, err, errlen);
}

int mixm_mtx_write_dense(const char *path, const mixm_dense *X, char *err, size_t errlen)
{
    if (!path || !X || X->nrows < 0 || X->ncols < 0) return MIX_ERR_INVALID_ARG;
    size_t total = (size_t)X->nrows * (size_t)X->ncols;
    for (size_t k = 0; k < total; k++)
        if (!isfinite(X->a[k]))
            return refuse_nonfinite(path, (int64_t)k, (int)(k % (size_t)X->nrows),
                                    (int)(k / (size_t)X->nrows), X->a[k], err, errlen);
    gzFile f = open_writer(path, err, errlen);
    if (!f) return MIX_ERR_IO;
    int ok = gzprintf(f, "%%%%MatrixMarket matrix array real general\n%d %d\n", X->nrows, X->ncols) > 0;
    for (size_t k = 0; ok && k < total; k++) ok = gzprintf(f, "%.17g\n", X->a[k]) > 0;
    return close_writer(f, ok, path, err, errlen);
}
