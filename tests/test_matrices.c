/* test_matrices.c: Matrix Market reader/writer (round trips, every malformed case) and the generators. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <lapacke.h>
#include "config.h"
#include "tests/mixt.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

/* Reads `text` from memory; returns the status and leaves the message in err. */
static int read_text(const char *text, mixm_csr *A, mixm_mtx_header *h, char *err, size_t errlen)
{
    return mixm_mtx_read_mem(text, strlen(text), "t.mtx", A, h, err, errlen);
}

static int csr_equal(const mixm_csr *A, const mixm_csr *B)
{
    if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
    for (int i = 0; i <= A->nrows; i++)
        if (A->rowptr[i] != B->rowptr[i]) return 0;
    for (int64_t k = 0; k < A->nnz; k++)
        if (A->colind[k] != B->colind[k] || memcmp(&A->val[k], &B->val[k], sizeof(double))) return 0;
    return 1;
}

/* A random sparse n x m matrix with sorted rows and awkward values (tiny, huge, negative, zero). */
static void random_csr(int n, int m, uint64_t seed, mixm_csr *A)
{
    mixm_rng r;
    mixm_rng_seed(&r, seed);
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(A, n, m, (int64_t)n * m), 0);
    int64_t w = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = w;
        for (int j = 0; j < m; j++)
            if (mixm_rng_uniform(&r) < 0.3) {
                A->colind[w] = j;
                double u = mixm_rng_uniform(&r);
                A->val[w++] = (u - 0.5) * pow(10.0, (double)(int)(mixm_rng_next(&r) % 600) - 300.0);
            }
    }
    A->rowptr[n] = w;
    A->nnz = w;
    if (w) A->val[0] = 0.0; /* explicit zeros are kept */
}

static void test_roundtrip_general(void)
{
    const char *names[] = {"g.mtx", "g.mtx.gz"};
    for (int f = 0; f < 2; f++) {
        mixm_csr A, B;
        mixm_mtx_header h;
        char err[256];
        random_csr(37, 23, 7 + f, &A);
        CU_ASSERT_EQUAL(mixm_mtx_write_csr(mixt_tmp(names[f]), &A, 0, err, sizeof err), 0);
        CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mixt_tmp(names[f]), &B, &h, err, sizeof err), 0);
        CU_ASSERT(csr_equal(&A, &B)); /* %.17g round-trips every double exactly */
        CU_ASSERT_EQUAL(h.format, MIXM_MTX_COORDINATE);
        CU_ASSERT_EQUAL(h.symmetry, MIXM_MTX_GENERAL);
        CU_ASSERT_EQUAL(h.entries, A.nnz);
        mixm_csr_free(&A);
        mixm_csr_free(&B);
    }
    /* The .gz one really is gzip (magic bytes), the plain one is not. */
    FILE *fp = fopen(mixt_tmp("g.mtx.gz"), "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    unsigned char mg[2] = {0, 0};
    CU_ASSERT_EQUAL(fread(mg, 1, 2, fp), 2);
    fclose(fp);
    CU_ASSERT(mg[0] == 0x1f && mg[1] == 0x8b);
}

static void test_roundtrip_symmetric(void)
{
    mixm_csr T, B;
    mixm_mtx_header h;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(mixm_gen_trefethen(40, &T), 0);
    CU_ASSERT_EQUAL(mixm_mtx_write_csr(mixt_tmp("s.mtx.gz"), &T, 1, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mixt_tmp("s.mtx.gz"), &B, &h, err, sizeof err), 0);
    CU_ASSERT_EQUAL(h.symmetry, MIXM_MTX_SYMMETRIC);
    CU_ASSERT_EQUAL(h.entries, (T.nnz + 40) / 2); /* one triangle and the diagonal stored */
    CU_ASSERT(csr_equal(&T, &B));
    mixm_csr_free(&T);
    mixm_csr_free(&B);
}

static void test_roundtrip_dense(void)
{
    double a[6] = {1.5, -2.0, 1e-300, 3.0, 0.0, 1e300};
    mixm_dense X = {3, 2, a}, Y;
    char err[256];
    CU_ASSERT_EQUAL(mixm_mtx_write_dense(mixt_tmp("d.mtx"), &X, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read_dense(mixt_tmp("d.mtx"), &Y, err, sizeof err), 0);
    CU_ASSERT_EQUAL(Y.nrows, 3);
    CU_ASSERT_EQUAL(Y.ncols, 2);
    CU_ASSERT(memcmp(a, Y.a, sizeof a) == 0);
    mixm_dense_free(&Y);
    /* The same file read as CSR keeps every value of the array (zeros included). */
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mixt_tmp("d.mtx"), &A, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(A.nnz, 6);
    CU_ASSERT_EQUAL(A.val[A.rowptr[2] + 1], 1e300);
    mixm_csr_free(&A);
}

static void test_fields_and_symmetries(void)
{
    mixm_csr A;
    mixm_mtx_header h;
    char err[256];
    /* pattern symmetric: ones, mirrored */
    CU_ASSERT_EQUAL_FATAL(read_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n", &A, &h,
                                    err, sizeof err), 0);
    CU_ASSERT_EQUAL(h.field, MIXM_MTX_PATTERN);
    CU_ASSERT_EQUAL(A.nnz, 3);
    CU_ASSERT(A.colind[0] == 1 && A.val[0] == 1.0 && A.colind[1] == 0 && A.colind[2] == 2);
    mixm_csr_free(&A);
    /* integer skew-symmetric: the mirror is negated */
    CU_ASSERT_EQUAL_FATAL(read_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n% c\n\n3 3 1\n3 1 -7\n",
                                    &A, &h, err, sizeof err), 0);
    CU_ASSERT_EQUAL(A.nnz, 2);
    CU_ASSERT(A.colind[0] == 2 && A.val[0] == 7.0 && A.colind[1] == 0 && A.val[1] == -7.0);
    mixm_csr_free(&A);
    /* array symmetric: lower triangle column by column */
    mixm_dense D;
    FILE *f = fopen(mixt_tmp("as.mtx"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", f);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read_dense(mixt_tmp("as.mtx"), &D, err, sizeof err), 0);
    CU_ASSERT(D.a[0] == 1 && D.a[1] == 2 && D.a[2] == 2 && D.a[3] == 3);
    mixm_dense_free(&D);
    /* duplicates summed, rows sorted, CRLF line ends and case-insensitive banner accepted */
    CU_ASSERT_EQUAL_FATAL(read_text("%%MatrixMarket MATRIX Coordinate Real General\r\n2 3 4\r\n1 3 1.0\r\n1 1 2\r\n"
                                    "1 3 0.5\r\n2 2 -1e-3\r\n", &A, &h, err, sizeof err), 0);
    CU_ASSERT_EQUAL(A.nnz, 3);
    CU_ASSERT(A.colind[0] == 0 && A.colind[1] == 2 && A.val[1] == 1.5 && A.val[2] == -1e-3);
    mixm_csr_free(&A);
    /* an empty 0 x 0 matrix is legal */
    CU_ASSERT_EQUAL(read_text("%%MatrixMarket matrix coordinate real general\n0 0 0\n", &A, &h, err, sizeof err), 0);
    CU_ASSERT_EQUAL(A.nrows, 0);
    mixm_csr_free(&A);
}

/* A malformed input must give `status`, an error naming the file and `line`, and a zeroed A. */
static void expect_bad(const char *text, int status, int line, const char *words)
{
    mixm_csr A;
    char err[512], want[32];
    memset(&A, 0x5a, sizeof A);
    int st = read_text(text, &A, NULL, err, sizeof err);
    CU_ASSERT_EQUAL(st, status);
    snprintf(want, sizeof want, "t.mtx:%d: ", line);
    CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, words));
    CU_ASSERT_PTR_NULL(A.rowptr);
    if (st != status || strncmp(err, want, strlen(want)) || !strstr(err, words))
        fprintf(stderr, "\n  expected %d '%s...%s', got %d '%s'\n", status, want, words, st, err);
}

#define BANNER "%%MatrixMarket matrix coordinate real general\n"
#define SYMMETRIC "%%MatrixMarket matrix coordinate real symmetric\n"
#define INTEGER "%%MatrixMarket matrix coordinate integer general\n"
#define SKEW "%%MatrixMarket matrix coordinate real skew-symmetric\n"
#define ARRAY "%%MatrixMarket matrix array real general\n"
#define COMPLEX "%%MatrixMarket matrix coordinate complex general\n"

/* Malformed inputs: each row one named test (the reader's status, the line it names, words of
 * its message), run by test_bad_input. */
typedef struct {
    const char *name, *text;
    int status, line;
    const char *words;
} bad_input;

static const bad_input bad_inputs[] = {
    {"bad: empty file", "", MIX_ERR_PARSE, 1, "empty file"},
    {"bad: banner", "%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", MIX_ERR_PARSE, 1, "bad banner"},
    {"bad: banner fields", "%%MatrixMarket matrix coordinate real\n", MIX_ERR_PARSE, 1, "bad banner"},
    {"bad: object", "%%MatrixMarket vector coordinate real general\n", MIX_ERR_PARSE, 1, "object"},
    {"bad: format", "%%MatrixMarket matrix sparse real general\n", MIX_ERR_PARSE, 1, "format"},
    {"bad: field", "%%MatrixMarket matrix coordinate float general\n", MIX_ERR_PARSE, 1, "field"},
    {"bad: symmetry", "%%MatrixMarket matrix coordinate real lower\n", MIX_ERR_PARSE, 1, "symmetry"},
    {"bad: complex refused", COMPLEX "1 1 1\n1 1 1 0\n", MIX_ERR_UNSUPPORTED, 1, "complex"},
    {"bad: hermitian refused", "%%MatrixMarket matrix coordinate complex hermitian\n", MIX_ERR_UNSUPPORTED, 1, "complex"},
    {"bad: array pattern", "%%MatrixMarket matrix array pattern general\n", MIX_ERR_PARSE, 1, "array pattern"},
    {"bad: no size line", BANNER "% only a comment\n", MIX_ERR_PARSE, 3, "no size line"},
    {"bad: size not integer", BANNER "% c\n3 x 2\n", MIX_ERR_PARSE, 3, "integers"},
    {"bad: size line count", BANNER "3 3\n", MIX_ERR_PARSE, 2, "ROWS COLS ENTRIES"},
    {"bad: negative size", BANNER "-3 3 1\n", MIX_ERR_PARSE, 2, "negative"},
    {"bad: size overflows", BANNER "99999999999999999999 3 1\n", MIX_ERR_PARSE, 2, "integers"},
    {"bad: size beyond int", BANNER "3000000000 3 1\n", MIX_ERR_PARSE, 2, "too large"},
    {"bad: wrong counts", BANNER "2 2 5\n", MIX_ERR_PARSE, 2, "wrong counts"},
    {"bad: entries beyond 2^31", BANNER "100000 100000 3000000000\n", MIX_ERR_PARSE, 2, "too large"},
    {"bad: non-square symmetric", SYMMETRIC "2 3 1\n", MIX_ERR_PARSE, 2, "square"},
    {"bad: truncated", BANNER "3 3 3\n1 1 1\n2 2 1\n", MIX_ERR_PARSE, 5, "truncated"},
    {"bad: extra entries", BANNER "3 3 1\n1 1 1\n% ok\n2 2 1\n", MIX_ERR_PARSE, 5, "more entries"},
    {"bad: index out of range", BANNER "3 3 2\n1 1 1\n4 1 1\n", MIX_ERR_PARSE, 4, "out of range"},
    {"bad: index zero", BANNER "3 3 1\n0 1 1\n", MIX_ERR_PARSE, 3, "out of range"},
    {"bad: index unparsable", BANNER "3 3 1\n1 b 1\n", MIX_ERR_PARSE, 3, "unparsable index"},
    {"bad: value unparsable", BANNER "3 3 2\n1 1 1\n2 2 1.2.3\n", MIX_ERR_PARSE, 4, "unparsable"},
    {"bad: value overflows", BANNER "3 3 1\n1 1 1e999\n", MIX_ERR_PARSE, 3, "non-finite"},
    {"bad: value NaN", BANNER "3 3 1\n1 1 nan\n", MIX_ERR_PARSE, 3, "non-finite"},
    {"bad: integer field", INTEGER "3 3 1\n1 1 2.5\n", MIX_ERR_PARSE, 3, "integer"},
    {"bad: too few fields", BANNER "3 3 1\n1 1\n", MIX_ERR_PARSE, 3, "expected 3 fields"},
    {"bad: too many fields", BANNER "3 3 1\n1 1 1 1\n", MIX_ERR_PARSE, 3, "more than 3"},
    {"bad: skew diagonal", SKEW "3 3 1\n2 2 1\n", MIX_ERR_PARSE, 3, "diagonal"},
    {"bad: array truncated", ARRAY "2 2\n1\n2\n3\n", MIX_ERR_PARSE, 6, "truncated"},
};
#define N_BAD_INPUTS (sizeof bad_inputs / sizeof bad_inputs[0])

/* The row of the running test, found by its name (CUnit calls every row's test with no argument). */
static void test_bad_input(void)
{
    const char *name = CU_get_current_test()->pName;
    for (size_t k = 0; k < N_BAD_INPUTS; k++)
        if (!strcmp(bad_inputs[k].name, name)) {
            expect_bad(bad_inputs[k].text, bad_inputs[k].status, bad_inputs[k].line, bad_inputs[k].words);
            return;
        }
    CU_FAIL("no row for this test");
}

static void test_bad_long_line(void)
{
    char text[4000];
    strcpy(text, BANNER "3 3 1\n1 1 ");
    size_t k = strlen(text);
    memset(text + k, '1', 2000);
    strcpy(text + k + 2000, "\n");
    expect_bad(text, MIX_ERR_PARSE, 3, "too long");
}

static void test_bad_memory_limit(void)
{
    /* Sizes that are legal but would need more memory than allowed are refused before allocating. */
    mixm_mtx_set_mem_limit((size_t)1 << 20);
    expect_bad(BANNER "100000 100000 1000000\n1 1 1\n", MIX_ERR_PARSE, 2, "too large");
    mixm_mtx_set_mem_limit(0);
    CU_ASSERT(mixm_mtx_mem_limit() >= ((size_t)1 << 30));
}

static void test_bad_files(void)
{
    mixm_csr A;
    char err[512];
    const char *missing = mixt_tmp("does-not-exist.mtx");
    CU_ASSERT_EQUAL(mixm_mtx_read(missing, &A, NULL, err, sizeof err), MIX_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, missing));
    /* A gzip file cut in the middle: a read error naming the file, never a crash. */
    char src[512];
    snprintf(src, sizeof src, "%s/bcsstk16.mtx.gz", mixt_matrix_dir());
    FILE *in = fopen(src, "rb"), *out = fopen(mixt_tmp("cut.mtx.gz"), "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    char buf[65536];
    size_t got = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, got, out);
    fclose(in);
    fclose(out);
    int st = mixm_mtx_read(mixt_tmp("cut.mtx.gz"), &A, NULL, err, sizeof err);
    CU_ASSERT(st == MIX_ERR_IO || st == MIX_ERR_PARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cut.mtx.gz:"));
    CU_ASSERT_PTR_NULL(A.rowptr);
    CU_ASSERT_EQUAL(mixm_mtx_write_csr("/nonexistent-dir/x.mtx", &A, 0, err, sizeof err), MIX_ERR_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent-dir/x.mtx"));
}

/* Every bundled matrix reads with the n and expanded entry count its MANIFEST row gives. */
static void test_bundled_set(void)
{
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/MANIFEST.md", mixt_matrix_dir());
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        char file[128];
        long n, stored, full;
        /* | `file` | group/name (id) | kind | n | stored / full | ... */
        if (sscanf(line, "| `%127[^`]` |", file) != 1) continue;
        char *c = line;
        for (int bars = 0; bars < 3 && c; bars++) c = strchr(c + 1, '|');
        if (!c || sscanf(c, "| %ld | %ld / %ld |", &n, &stored, &full) != 3) continue;
        mixm_csr A;
        mixm_mtx_header h;
        char err[512];
        snprintf(path, sizeof path, "%s/%s", mixt_matrix_dir(), file);
        int st = mixm_mtx_read(path, &A, &h, err, sizeof err);
        CU_ASSERT_EQUAL(st, 0);
        if (st) {
            fprintf(stderr, "\n  %s\n", err);
            continue;
        }
        CU_ASSERT_EQUAL(A.nrows, n);
        CU_ASSERT_EQUAL(A.ncols, n);
        CU_ASSERT_EQUAL(h.entries, stored);
        CU_ASSERT_EQUAL(A.nnz, full); /* no duplicates in these files: nothing merged */
        if (h.symmetry == MIXM_MTX_SYMMETRIC) CU_ASSERT(mixm_csr_is_symmetric(&A));
        mixm_csr_free(&A);
        checked++;
    }
    fclose(f);
    CU_ASSERT_EQUAL(checked, 50);
}

static void test_trefethen_500_exact(void)
{
    mixm_csr T, B;
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/Trefethen_500.mtx", mixt_matrix_dir());
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(path, &B, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_trefethen(500, &T), 0);
    CU_ASSERT_EQUAL(T.nnz, 8478);
    CU_ASSERT(csr_equal(&T, &B));
    CU_ASSERT_EQUAL(T.val[T.rowptr[500] - 1], 3571.0); /* the 500th prime */
    mixm_csr_free(&T);
    mixm_csr_free(&B);
    CU_ASSERT_EQUAL(mixm_gen_trefethen(0, &T), MIX_ERR_INVALID_ARG);
}

static void test_hilbert(void)
{
    enum { N = 9 };
    double a[N * N];
    CU_ASSERT_EQUAL_FATAL(mixm_gen_hilbert(N, a), 0);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) CU_ASSERT_EQUAL(a[i + j * N], 1.0 / (double)(i + j + 1));
    CU_ASSERT_EQUAL(mixm_gen_hilbert(-1, a), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(mixm_gen_hilbert(3, NULL), MIX_ERR_INVALID_ARG);
}

static void test_random_dense(void)
{
    enum { N = 40 };
    static double a[N * N], b[N * N];
    CU_ASSERT_EQUAL(mixm_gen_random_dense(N, 5, a), 0);
    CU_ASSERT_EQUAL(mixm_gen_random_dense(N, 5, b), 0);
    CU_ASSERT(memcmp(a, b, sizeof a) == 0);
    CU_ASSERT_EQUAL(mixm_gen_random_dense(N, 6, b), 0);
    CU_ASSERT(memcmp(a, b, sizeof a) != 0);
    double mean = 0, lo = 1, hi = -1;
    for (int k = 0; k < N * N; k++) {
        mean += a[k];
        lo = fmin(lo, a[k]);
        hi = fmax(hi, a[k]);
    }
    CU_ASSERT(lo >= -1.0 && hi < 1.0 && lo < -0.99 && hi > 0.99);
    CU_ASSERT(fabs(mean / (N * N)) < 0.05); /* 1600 uniforms: sd of the mean 0.014 */
}

/* Poisson structure: sizes, entry counts, stencil values, symmetry and zero row sums inside. */
static void test_poisson(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(5, &A), 0);
    CU_ASSERT_EQUAL(A.nrows, 25);
    CU_ASSERT_EQUAL(A.nnz, 5 * 25 - 4 * 5);
    CU_ASSERT(mixm_csr_is_symmetric(&A));
    int interior = 0;
    for (int i = 0; i < 25; i++) {
        double sum = 0;
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
            sum += A.val[k];
            CU_ASSERT(A.colind[k] == i ? A.val[k] == 4.0 : A.val[k] == -1.0);
            if (k > A.rowptr[i]) CU_ASSERT(A.colind[k] > A.colind[k - 1]);
        }
        if (A.rowptr[i + 1] - A.rowptr[i] == 5) {
            CU_ASSERT_EQUAL(sum, 0.0);
            interior++;
        }
    }
    CU_ASSERT_EQUAL(interior, 9);
    mixm_csr_free(&A);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(4, &A), 0);
    CU_ASSERT_EQUAL(A.nrows, 64);
    CU_ASSERT_EQUAL(A.nnz, 7 * 64 - 6 * 16);
    CU_ASSERT(mixm_csr_is_symmetric(&A));
    CU_ASSERT_EQUAL(A.val[A.rowptr[21] + 3], 6.0); /* (1,1,1): three lower neighbours, then the diagonal */
    mixm_csr_free(&A);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_anisotropic2d(4, 1e-3, &A), 0);
    CU_ASSERT(mixm_csr_is_symmetric(&A));
    CU_ASSERT_EQUAL(A.val[A.rowptr[5]], -1e-3); /* (1,1): neighbour below in y first */
    mixm_csr_free(&A);
}

/* Row i of A against the hand-computed (column, value) list, in order. */
static void check_row(const mixm_csr *A, int i, int len, const int *cols, const double *vals)
{
    CU_ASSERT_EQUAL_FATAL(A->rowptr[i + 1] - A->rowptr[i], len);
    for (int k = 0; k < len; k++) {
        CU_ASSERT_EQUAL(A->colind[A->rowptr[i] + k], cols[k]);
        CU_ASSERT_EQUAL(A->val[A->rowptr[i] + k], vals[k]);
    }
}

/* Convection-diffusion on a 3^d grid, h = 1/4, b chosen so that h b = (1, -2, 3) is exact: diagonal
 * 2 d + 6 (3-D) or 2 d + 3 (2-D); upwind: x and z flow up (-1 - h b to the lower neighbour), y
 * down (-1 + h b = -3 to the upper one). */
static void test_convdiff_stencil(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff2d(3, 4.0, -8.0, &A), 0);
    CU_ASSERT_EQUAL(A.nrows, 9);
    CU_ASSERT_EQUAL(A.nnz, 5 * 9 - 4 * 3);
    check_row(&A, 4, 5, (const int[]){1, 3, 4, 5, 7}, (const double[]){-1, -2, 7, -1, -3}); /* centre */
    check_row(&A, 0, 3, (const int[]){0, 1, 3}, (const double[]){7, -1, -3});
    check_row(&A, 8, 3, (const int[]){5, 7, 8}, (const double[]){-1, -2, 7});
    /* Row sums: 0 inside; at the boundary, minus the missing neighbours' entries. */
    const double sums[9] = {3, 1, 2, 2, 0, 1, 5, 3, 4};
    for (int i = 0; i < 9; i++) {
        double sum = 0;
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) sum += A.val[k];
        CU_ASSERT_EQUAL(sum, sums[i]);
    }
    mixm_csr_free(&A);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(3, 4.0, -8.0, 12.0, &A), 0);
    CU_ASSERT_EQUAL(A.nrows, 27);
    CU_ASSERT_EQUAL(A.nnz, 7 * 27 - 6 * 9);
    check_row(&A, 13, 7, (const int[]){4, 10, 12, 13, 14, 16, 22}, (const double[]){-4, -1, -2, 12, -1, -3, -1});
    check_row(&A, 0, 4, (const int[]){0, 1, 3, 9}, (const double[]){12, -1, -3, -1});
    mixm_csr_free(&A);
}

/* Off-diagonals negative, the diagonal at least their sum (to rounding), strictly in rows with a
 * boundary neighbour (fewer than 2 dim + 1 entries); 0 when some row breaks that. */
static int m_matrix_rows(const mixm_csr *A, int dim)
{
    int ok = 1;
    for (int i = 0; i < A->nrows; i++) {
        double diag = 0, off = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (A->colind[k] == i) diag = A->val[k];
            else if (A->val[k] < 0) off -= A->val[k];
            else ok = 0;
        }
        const int full = A->rowptr[i + 1] - A->rowptr[i] == 2 * dim + 1;
        if (!(full ? diag * (1 + 8 * DBL_EPSILON) >= off : diag > off)) ok = 0;
    }
    return ok;
}

/* Velocities of every sign and a mesh Peclet number |b| h / 2 from 0 to ~100: always an
 * M-matrix, unsymmetric unless b = 0, where it is Poisson's matrix bit for bit (-0 too). */
static void test_convdiff_properties(void)
{
    static const double bs[][3] = {{0, 0, 0}, {-0.0, -0.0, -0.0}, {1, 2, 3}, {-300, 7, 0}, {0, 0, -5}, {2e3, -1e3, 4e3}};
    for (size_t t = 0; t < sizeof bs / sizeof bs[0]; t++) {
        const double *b = bs[t];
        const int zero2 = b[0] == 0 && b[1] == 0, zero = zero2 && b[2] == 0; /* 2-D reads b[0], b[1] */
        for (int dim = 2; dim <= 3; dim++) {
            mixm_csr A, P;
            const int is_poisson = dim == 2 ? zero2 : zero;
            CU_ASSERT_EQUAL_FATAL(dim == 2 ? mixm_gen_convdiff2d(7, b[0], b[1], &A)
                                           : mixm_gen_convdiff3d(5, b[0], b[1], b[2], &A), 0);
            CU_ASSERT_EQUAL_FATAL(dim == 2 ? mixm_gen_poisson2d(7, &P) : mixm_gen_poisson3d(5, &P), 0);
            CU_ASSERT(m_matrix_rows(&A, dim));
            CU_ASSERT_EQUAL(csr_equal(&A, &P), is_poisson);
            CU_ASSERT_EQUAL(mixm_csr_is_symmetric(&A), is_poisson);
            mixm_csr_free(&A);
            mixm_csr_free(&P);
        }
    }
}

/* Sizes beyond INT32_MAX rows (nx^3 past int64 too), nx <= 0, non-finite velocities and a
 * diagonal that overflows: refused before any allocation. */
static void test_convdiff_refused(void)
{
    mixm_csr A;
    memset(&A, 0, sizeof A);
    const int bad2[] = {0, -1, INT32_MIN, 46341, INT32_MAX}, bad3[] = {0, -1, INT32_MIN, 1291, INT32_MAX};
    for (int k = 0; k < 5; k++) {
        CU_ASSERT_EQUAL(mixm_gen_convdiff2d(bad2[k], 1, 2, &A), MIX_ERR_INVALID_ARG);
        CU_ASSERT_EQUAL(mixm_gen_convdiff3d(bad3[k], 1, 2, 3, &A), MIX_ERR_INVALID_ARG);
    }
    CU_ASSERT_EQUAL(mixm_gen_poisson3d(INT32_MAX, &A), MIX_ERR_INVALID_ARG);
    const double nonfinite[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++) {
            double b[3] = {1, 1, 1};
            b[d] = nonfinite[k];
            CU_ASSERT_EQUAL(mixm_gen_convdiff3d(4, b[0], b[1], b[2], &A), MIX_ERR_INVALID_ARG);
            if (d < 2) CU_ASSERT_EQUAL(mixm_gen_convdiff2d(4, b[0], b[1], &A), MIX_ERR_INVALID_ARG);
        }
    /* nx = 1, h = 1/2: 6 + 1.5 DBL_MAX overflows; in 2-D 4 + DBL_MAX rounds to DBL_MAX, kept. */
    CU_ASSERT_EQUAL(mixm_gen_convdiff3d(1, DBL_MAX, DBL_MAX, -DBL_MAX, &A), MIX_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NULL(A.val);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff2d(1, DBL_MAX, -DBL_MAX, &A), 0);
    CU_ASSERT_EQUAL(A.val[0], DBL_MAX);
    mixm_csr_free(&A);
}

/* Through mix_dgesv_sparse (FP32 factors and AUTO) at a mesh Peclet number near 8: FP64's
 * backward error, recomputed here.  Skipped where the build or backend has no sparse direct
 * solver (the CPU backend with MUMPS must have one). */
static void test_convdiff_solve(void)
{
    mix_context *ctx = mixt_context();
    for (int dim = 2; dim <= 3; dim++) {
        mixm_csr M;
        const double s = dim == 2 ? 1000.0 / sqrt(5.0) : 200.0 / sqrt(14.0);
        CU_ASSERT_EQUAL_FATAL(dim == 2 ? mixm_gen_convdiff2d(60, s, 2 * s, &M)
                                       : mixm_gen_convdiff3d(12, s, 2 * s, 3 * s, &M), 0);
        const int n = M.nrows;
        mix_sparse *S = NULL;
        CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M.rowptr, M.colind, M.val, &S), 0);
        double *b = mixt_rand64((size_t)n, 5), *x = mixt_dalloc((size_t)n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        for (int k = 0; k < 2; k++) {
            mix_gesv_params p = mixt_params(k ? MIX_PREC_AUTO : MIX_FP32, MIX_REFINE_AUTO);
            mix_gesv_info info;
            const int st = mix_dgesv_sparse(ctx, &p, S, 1, b, n, x, n, &info);
            if (st == MIX_ERR_UNSUPPORTED) { /* no sparse direct solver in this build or backend */
#if HAVE_MUMPS
                CU_ASSERT_NOT_EQUAL(mixt_backend, MIX_BACKEND_CPU);
#endif
                break;
            }
            CU_ASSERT_EQUAL(st, MIX_SUCCESS);
            double berr = INFINITY;
            CU_ASSERT_EQUAL(mixm_csr_recheck(&M, b, x, &berr, NULL), 0);
            CU_ASSERT(berr <= mixt_berr_bound(n));
            CU_ASSERT(k || (info.factor_prec_used == MIX_FP32 && !info.fell_back));
        }
        free(b);
        free(x);
        mix_sparse_destroy(S);
        mixm_csr_free(&M);
    }
    mix_context_destroy(ctx);
}

/* randsvd: the singular values (LAPACKE_dgesvd) have the asked 2-norm condition and mode shape. */
static void test_randsvd_kappa(void)
{
    enum { N = 24 };
    static double a[N * N], s[N], sup[N];
    const double kappa = 1e6;
    for (int mode = 1; mode <= 5; mode++) {
        CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd(N, kappa, mode, 11, a), 0);
        CU_ASSERT_EQUAL_FATAL(LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', N, N, a, N, s, NULL, 1, NULL, 1, sup), 0);
        double k = s[0] / s[N - 1];
        CU_ASSERT(fabs(k / kappa - 1.0) < 1e-6);
        if (mode == 1) CU_ASSERT(fabs(s[1] * kappa / s[0] - 1.0) < 1e-6);   /* one large */
        if (mode == 2) CU_ASSERT(fabs(s[N - 2] / s[0] - 1.0) < 1e-6);       /* one small */
        if (mode == 3) CU_ASSERT(fabs(s[1] / s[0] - pow(kappa, -1.0 / (N - 1))) < 1e-6); /* geometric */
        if (mode == 4) CU_ASSERT(fabs((s[0] - s[1]) - (s[1] - s[2])) < 1e-6 * s[0]);      /* arithmetic */
    }
    CU_ASSERT_EQUAL(mixm_gen_randsvd(N, 0.5, 3, 1, a), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(mixm_gen_randsvd(N, 10, 6, 1, a), MIX_ERR_INVALID_ARG);
}

static const mixt_test mmio_tests[] = {
    {"round trip general (plain and gzip)", test_roundtrip_general},
    {"round trip symmetric gzip", test_roundtrip_symmetric},
    {"round trip dense array", test_roundtrip_dense},
    {"pattern, integer, skew, array symmetric, duplicates", test_fields_and_symmetries},
    {"bundled set matches MANIFEST", test_bundled_set},
    {"bad: memory limit", test_bad_memory_limit},
    {"bad: line too long", test_bad_long_line},
    {"bad: files (missing, cut gzip, unwritable)", test_bad_files},
    {NULL, NULL},
};

static const mixt_test gen_tests[] = {
    {"Trefethen_500 reproduces the bundled file", test_trefethen_500_exact},
    {"Hilbert entries", test_hilbert},
    {"random dense: seeded, range", test_random_dense},
    {"Poisson 2D/3D and anisotropic structure", test_poisson},
    {"randsvd condition and modes (dgesvd)", test_randsvd_kappa},
    {"convection-diffusion 2D/3D: stencil values, row sums by hand", test_convdiff_stencil},
    {"convection-diffusion: M-matrix, unsymmetric, b = 0 is Poisson", test_convdiff_properties},
    {"convection-diffusion: bad sizes and velocities refused", test_convdiff_refused},
    {"convection-diffusion: mix_dgesv_sparse FP32 / AUTO to FP64", test_convdiff_solve},
    {NULL, NULL},
};

void mixt_register_matrices(void)
{
    CU_pSuite s = mixt_add_suite("matrices/mmio", mmio_tests);
    for (size_t k = 0; s && k < N_BAD_INPUTS; k++) CU_add_test(s, bad_inputs[k].name, test_bad_input);
    mixt_add_suite("matrices/generators", gen_tests);
}
