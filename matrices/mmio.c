/* mmio.c: Matrix Market reader (plain or gzip, strict, never trusts declared sizes) and writer. */
#include <ctype.h>
#include <errno.h>
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

size_t mixm_mtx_mem_limit(void)
{
    if (mem_limit) return mem_limit;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    size_t half = (pages > 0 && psize > 0) ? (size_t)pages / 2 * (size_t)psize : 0;
    return half > ((size_t)1 << 30) ? half : ((size_t)1 << 30);
}

void mixm_mtx_set_mem_limit(size_t bytes) { mem_limit = bytes; }

/* A line source over a gzFile (which also reads plain files) or a memory buffer. */
typedef struct {
    gzFile gz;
    const char *cur, *end;
    const char *name;
    long line;
    char *err;
    size_t errlen;
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

/* Next line into r->buf without its newline: 1, 0 at end of input, -1 read error.  *toolong is
 * set when the line did not fit (its start is kept, the rest skipped). */
static int next_line(reader *r, int *toolong)
{
    size_t n = 0;
    int any = 0;
    *toolong = 0;
    for (;;) {
        if (r->cur == r->end) {
            if (!r->gz) break;
            int got = gzread(r->gz, r->chunk, sizeof r->chunk);
            if (got < 0) return -1;
            if (got == 0) {
                int errnum;
                gzerror(r->gz, &errnum);
                if (errnum != Z_OK && errnum != Z_STREAM_END) return -1;
                break;
            }
            r->cur = r->chunk;
            r->end = r->chunk + got;
        }
        any = 1;
        const char *nl = memchr(r->cur, '\n', (size_t)(r->end - r->cur));
        const char *stop = nl ? nl : r->end;
        size_t k = (size_t)(stop - r->cur), room = LINE_CAP - 1 - n;
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
    return 1;
}

static int read_error(reader *r)
{
    const char *msg = "read error";
    if (r->gz) {
        int errnum;
        msg = gzerror(r->gz, &errnum);
        if (errnum == Z_ERRNO) msg = strerror(errno);
    }
    return fail(r, MIX_ERR_IO, r->line + 1, "read error: %s", msg);
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
    int toolong, got;
    char *tok[6];
    memset(h, 0, sizeof *h);
    got = next_line(r, &toolong);
    if (got < 0) return read_error(r);
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
        if (got < 0) return read_error(r);
        if (got == 0) return fail(r, MIX_ERR_PARSE, r->line + 1, "truncated file: no size line");
        if (r->buf[0] == '%' || blank(r->buf)) continue;
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
    if (!coord) row = h->symmetry == MIXM_MTX_SKEW ? 1 : 0;
    for (int64_t k = 0; k < h->entries;) {
        got = next_line(r, &toolong);
        if (got < 0) return read_error(r);
        if (got == 0)
            return fail(r, MIX_ERR_PARSE, r->line + 1,
                        "truncated file: %lld of the %lld declared entries found", (long long)k,
                        (long long)h->entries);
        if (r->buf[0] == '%' || blank(r->buf)) continue;
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
        if (got < 0) return read_error(r);
        if (got == 0) return MIX_SUCCESS;
        if (r->buf[0] != '%' && !blank(r->buf))
            return fail(r, MIX_ERR_PARSE, r->line, "wrong counts: more entries than the %lld declared",
                        (long long)h->entries);
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

static int read_csr(reader *r, mixm_csr *A, mixm_mtx_header *hout)
{
    mixm_mtx_header h;
    triplets t = {0};
    int64_t full_max;
    int st = read_header(r, &h, &full_max);
    if (!st) st = check_memory(r, &h, full_max, 0);
    if (!st) st = read_entries(r, &h, &t);
    if (!st) st = build_csr(r, &h, &t, A);
    trip_free(&t);
    if (hout) *hout = h;
    return st;
}

static int open_reader(reader *r, const char *path, char *err, size_t errlen)
{
    memset(r, 0, offsetof(reader, buf));
    r->name = path;
    r->err = err;
    r->errlen = errlen;
    if (err && errlen) err[0] = '\0';
    if (!path) return fail(r, MIX_ERR_IO, 0, "no file name");
    r->name = path;
    errno = 0;
    r->gz = gzopen(path, "rb");
    if (!r->gz) return fail(r, MIX_ERR_IO, 0, "cannot open: %s", errno ? strerror(errno) : "out of memory");
    gzbuffer(r->gz, 1 << 17);
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
    if (r->gz) gzclose(r->gz);
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
    if (r->gz) gzclose(r->gz);
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
    memset(r, 0, offsetof(reader, buf));
    r->name = name ? name : "(memory)";
    r->err = err;
    r->errlen = errlen;
    if (err && errlen) err[0] = '\0';
    r->cur = buf;
    r->end = (const char *)buf + len;
    int st = read_csr(r, A, h);
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
        }
    }
    trip_free(&t);
    if (r->gz) gzclose(r->gz);
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

int mixm_mtx_write_csr(const char *path, const mixm_csr *A, int symmetric, char *err, size_t errlen)
{
    if (!path || !A || (symmetric && A->nrows != A->ncols)) return MIX_ERR_INVALID_ARG;
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
    gzFile f = open_writer(path, err, errlen);
    if (!f) return MIX_ERR_IO;
    int ok = gzprintf(f, "%%%%MatrixMarket matrix array real general\n%d %d\n", X->nrows, X->ncols) > 0;
    size_t total = (size_t)X->nrows * (size_t)X->ncols;
    for (size_t k = 0; ok && k < total; k++) ok = gzprintf(f, "%.17g\n", X->a[k]) > 0;
    return close_writer(f, ok, path, err, errlen);
}
