/* test_hostile.c: the hostile-input corpus: malformed, lying and endless files through the reader and through `mixsolve solve` under a memory cap and a timeout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/mixt.h"
#include "matrices/mmio.h"
#include "matrices/mixmat.h"

/* Every CLI case runs under this address-space cap (KiB) and wall-clock limit (s): a case that
 * allocates for a lying size or reads forever fails here instead of passing slowly.  The cap
 * leaves room for the CUDA libraries a CUDA build maps at start (~1.3 GB of address space). */
#define CLI_VMEM_KIB 2097152
#define CLI_TIMEOUT_S 60

/* `mixsolve ARGS` under the memory cap and the timeout: its exit status (124 on timeout). */
static int run_capped(const char *args)
{
    char prefix[128];
#ifdef __SANITIZE_ADDRESS__
    /* ASan reserves terabytes of shadow address space: no cap (its own checks stand in for it). */
    snprintf(prefix, sizeof prefix, "exec timeout %d ", CLI_TIMEOUT_S);
#else
    snprintf(prefix, sizeof prefix, "ulimit -v %d; exec timeout %d ", CLI_VMEM_KIB, CLI_TIMEOUT_S);
#endif
    return mixt_tool(prefix, args);
}

/* Exit `code` and one stderr line "mixsolve: ..." containing `words`. */
static void expect_cli(const char *args, int code, const char *words)
{
    mixt_expect_tool_failure(args, run_capped(args), code, words);
}

#define GENERAL "%%MatrixMarket matrix coordinate real general\n"
#define SYMMETRIC "%%MatrixMarket matrix coordinate real symmetric\n"

/* ---- the reader, in process ------------------------------------------------------------------ */

static void expect_read_bad(const char *data, size_t len, int status, const char *words)
{
    mixm_csr A;
    char err[512];
    memset(&A, 0x5a, sizeof A);
    int st = mixm_mtx_read_mem(data, len, "h.mtx", &A, NULL, err, sizeof err);
    CU_ASSERT_EQUAL(st, status);
    CU_ASSERT_EQUAL(strncmp(err, "h.mtx", 5), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, words));
    CU_ASSERT_PTR_NULL(A.rowptr);
    if (st != status || !strstr(err, words))
        fprintf(stderr, "\n  expected %d '%s', got %d '%s'\n", status, words, st, err);
}

/* Defect 10: a symmetric file storing both (2,1) and (1,2) doubled A12. */
static void test_reader_both_triangles(void)
{
    const char *t = SYMMETRIC "2 2 3\n1 1 4\n2 1 1\n1 2 1\n";
    expect_read_bad(t, strlen(t), MIX_ERR_PARSE, "one triangle only");
    t = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n1 2 1\n3 1 1\n";
    expect_read_bad(t, strlen(t), MIX_ERR_PARSE, "one triangle only");
    /* One triangle, either one, is fine. */
    mixm_csr A;
    char err[256];
    t = SYMMETRIC "2 2 2\n1 1 4\n1 2 1\n";
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read_mem(t, strlen(t), "h.mtx", &A, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(A.nnz, 3);
    CU_ASSERT(A.val[1] == 1.0 && A.val[2] == 1.0);
    mixm_csr_free(&A);
}

/* Defect 10: a NUL byte truncated a line silently. */
static void test_reader_nul(void)
{
    static const char t[] = GENERAL "2 2 2\n1 1 4\0 junk\n2 2 1\n";
    expect_read_bad(t, sizeof t - 1, MIX_ERR_PARSE, "NUL byte");
    static const char c[] = GENERAL "% comment \0 with NUL\n1 1 1\n1 1 1\n";
    expect_read_bad(c, sizeof c - 1, MIX_ERR_PARSE, "NUL byte");
}

/* Defect 10: duplicates whose sum overflows passed the reader. */
static void test_reader_duplicate_overflow(void)
{
    const char *t = GENERAL "2 2 3\n1 1 1e308\n1 1 1e308\n2 2 1\n";
    expect_read_bad(t, strlen(t), MIX_ERR_PARSE, "overflows");
    /* The dense reader (right-hand sides) too. */
    mixt_write_text(mixt_tmp("dup.mtx"), "%%MatrixMarket matrix coordinate real general\n2 1 2\n1 1 1.5e308\n1 1 1.5e308\n");
    mixm_dense X;
    char err[256];
    CU_ASSERT_EQUAL(mixm_mtx_read_dense(mixt_tmp("dup.mtx"), &X, err, sizeof err), MIX_ERR_PARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "overflows"));
    CU_ASSERT_PTR_NULL(X.a);
}

/* Defect 10: a gzip stream followed by garbage was accepted; several members are still read. */
static void test_reader_gzip_trailing(void)
{
    mixm_csr T, A;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(&T, 2, 2, 2), 0);
    T.rowptr[0] = 0; T.rowptr[1] = 1; T.rowptr[2] = 2;
    T.colind[0] = 0; T.colind[1] = 1;
    T.val[0] = 4; T.val[1] = 2;
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_write_csr(mixt_tmp("g.mtx.gz"), &T, 0, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mixt_tmp("g.mtx.gz"), &A, NULL, err, sizeof err), 0);
    mixm_csr_free(&A);
    FILE *f = fopen(mixt_tmp("g.mtx.gz"), "ab");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("garbage\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(mixm_mtx_read(mixt_tmp("g.mtx.gz"), &A, NULL, err, sizeof err), MIX_ERR_PARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "trailing data after the gzip stream"));
    CU_ASSERT_PTR_NULL(A.rowptr);
    /* Truncated: the last 8 bytes (CRC, length) cut off. */
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_write_csr(mixt_tmp("g.mtx.gz"), &T, 0, err, sizeof err), 0);
    struct stat sb;
    CU_ASSERT_EQUAL_FATAL(stat(mixt_tmp("g.mtx.gz"), &sb), 0);
    CU_ASSERT_EQUAL_FATAL(truncate(mixt_tmp("g.mtx.gz"), sb.st_size - 8), 0);
    CU_ASSERT_EQUAL(mixm_mtx_read(mixt_tmp("g.mtx.gz"), &A, NULL, err, sizeof err), MIX_ERR_PARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "truncated gzip"));
    mixm_csr_free(&T);
}

/* Defect 7: endless input (no newline, or endless comments) ends with an error. */
static void test_reader_endless(void)
{
    size_t n = (size_t)1 << 17;
    char *z = calloc(n, 1);
    expect_read_bad(z, n, MIX_ERR_PARSE, "line longer than");
    memcpy(z, GENERAL "% ", strlen(GENERAL "% "));
    memset(z + strlen(GENERAL "% "), 'x', n - strlen(GENERAL "% "));
    expect_read_bad(z, n, MIX_ERR_PARSE, "line longer than");
    free(z);
    /* 2^24 + 1 blank lines (17 MB): refused, not read forever. */
    size_t m = strlen(GENERAL) + ((size_t)1 << 24) + 2;
    char *b = malloc(m);
    memcpy(b, GENERAL, strlen(GENERAL));
    memset(b + strlen(GENERAL), '\n', m - strlen(GENERAL));
    expect_read_bad(b, m, MIX_ERR_PARSE, "comment or blank lines");
    free(b);
}

/* Defect 6: a 74-byte file declaring 10^8 rows with one entry allocated GBs before failing. */
static void test_reader_lying_size(void)
{
    const char *t = GENERAL "100000000 100000000 1\n1 1 1\n";
    expect_read_bad(t, strlen(t), MIX_ERR_PARSE, "stored entries");
    /* Up to 2^20 rows are free; the limit can be raised. */
    t = GENERAL "1000000 1000000 1\n1 1 1\n";
    mixm_csr A;
    char err[256];
    CU_ASSERT_EQUAL(mixm_mtx_read_mem(t, strlen(t), "h.mtx", &A, NULL, err, sizeof err), 0);
    mixm_csr_free(&A);
    t = GENERAL "3000000 3000000 1\n1 1 1\n";
    expect_read_bad(t, strlen(t), MIX_ERR_PARSE, "MIXSOLVE_MTX_DIM_FREE");
    mixm_mtx_set_dim_free(4000000);
    CU_ASSERT_EQUAL(mixm_mtx_read_mem(t, strlen(t), "h.mtx", &A, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(A.nrows, 3000000);
    mixm_csr_free(&A);
    mixm_mtx_set_dim_free(0);
    CU_ASSERT_EQUAL(mixm_mtx_dim_free(), (int64_t)1 << 20);
}

/* MIXSOLVE_MTX_DIM_FREE: a positive decimal integer or the default; an overflowing value once
 * read as LLONG_MAX and lifted the limit, and a leading space or sign was taken, a trailing one
 * not. */
static void test_reader_dim_free_env(void)
{
    const char *bad[] = {"", "abc", "12x", "-5", "0", " 4000000", "+4000000", "4000000 ",
                         "1e7", "99999999999999999999", "-99999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        setenv("MIXSOLVE_MTX_DIM_FREE", bad[k], 1);
        CU_ASSERT_EQUAL(mixm_mtx_dim_free(), (int64_t)1 << 20);
    }
    setenv("MIXSOLVE_MTX_DIM_FREE", "4000000", 1);
    CU_ASSERT_EQUAL(mixm_mtx_dim_free(), 4000000);
    unsetenv("MIXSOLVE_MTX_DIM_FREE");
}

/* ---- the command, capped --------------------------------------------------------------------- */

typedef struct {
    const char *name;    /* file name in the temporary folder */
    const char *data;    /* its bytes (NULL: the name is a path used as is) */
    size_t len;          /* 0: strlen(data) */
    const char *args;    /* after "solve FILE" */
    int code;            /* expected exit status */
    const char *words;   /* expected in the one stderr line */
} cli_case;

static const char nul_file[] = GENERAL "2 2 2\n1 1 4\0 junk\n2 2 1\n";

static const cli_case corpus[] = {
    /* defect 6: lying size line (LU and CG) */
    {"huge.mtx", GENERAL "100000000 100000000 1\n1 1 1\n", 0, "--method lu", 2, "stored entries"},
    {"huge.mtx", GENERAL "100000000 100000000 1\n1 1 1\n", 0, "--method cg", 2, "stored entries"},
    {"huge.mtx", GENERAL "100000000 100000000 1\n1 1 1\n", 0, "--method chol", 2, "stored entries"},
    /* 2^20 rows, one entry: allowed by the reader, refused before any n-sized solver work */
    {"empty_rows.mtx", GENERAL "1048576 1048576 1\n1 1 1\n", 0, "--method lu", 1, "has no entries"},
    {"empty_rows.mtx", GENERAL "1048576 1048576 1\n1 1 1\n", 0, "--method cg", 1, "has no entries"},
    {"empty_rows.mtx", GENERAL "1048576 1048576 1\n1 1 1\n", 0, "--method chol", 1, "has no entries"},
    /* defect 7: endless input */
    {"/dev/zero", NULL, 0, "", 2, "line longer than"},
    /* defect 8: 0 x 0 */
    {"empty.mtx", GENERAL "0 0 0\n", 0, "--method lu", 2, "0 x 0"},
    {"empty.mtx", GENERAL "0 0 0\n", 0, "--method cg", 2, "0 x 0"},
    {"empty.mtx", GENERAL "0 0 0\n", 0, "--method chol", 2, "0 x 0"},
    /* defect 10: lenient reader */
    {"both.mtx", SYMMETRIC "2 2 3\n1 1 4\n2 1 1\n1 2 1\n", 0, "", 2, "one triangle only"},
    {"nul.mtx", nul_file, sizeof nul_file - 1, "", 2, "NUL byte"},
    {"dup.mtx", GENERAL "2 2 3\n1 1 1e308\n1 1 1e308\n2 2 1\n", 0, "", 2, "overflows"},
    /* the malformed files of the CLI tests */
    {"bad.mtx", GENERAL "3 3 2\n1 1 1\n4 1 1\n", 0, "", 2, "out of range"},
    {"missing.mtx", NULL, 0, "", 2, "cannot open"},
    {"rect.mtx", GENERAL "2 3 1\n1 1 1\n", 0, "", 2, "not square"},
    {"cplx.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 0, "", 2,
     "complex matrices are not supported"},
    {"trunc.mtx", GENERAL "3 3 3\n1 1 1\n2 2 1\n", 0, "", 2, "truncated"},
    {"banner.mtx", "%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", 0, "", 2, "bad banner"},
    {"nanval.mtx", GENERAL "1 1 1\n1 1 nan\n", 0, "", 2, "non-finite"},
    {"big.mtx", GENERAL "3000000000 3 1\n", 0, "", 2, "too large"},
    /* b = A * ones overflows */
    {"rowsum.mtx", GENERAL "2 2 3\n1 1 1.7e308\n1 2 1.7e308\n2 2 1\n", 0, "", 2, "overflows FP64"},
    {NULL, NULL, 0, NULL, 0, NULL},
};

static void test_cli_corpus(void)
{
    char args[2048];
    for (const cli_case *c = corpus; c->name; c++) {
        const char *path = c->name;
        if (c->data) {
            path = mixt_tmp(c->name);
            mixt_write_file(path, c->data, c->len ? c->len : strlen(c->data));
        } else if (c->name[0] != '/') {
            path = mixt_tmp(c->name); /* never written: missing */
        }
        snprintf(args, sizeof args, "solve %s %s", path, c->args);
        expect_cli(args, c->code, c->words);
    }
}

/* Reads x written by --out and re-checks it against the file's A and b = A * ones. */
static void check_solution(const char *mtx, const char *xfile, double berr_max)
{
    mixm_csr A;
    mixm_dense X;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mtx, &A, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read_dense(xfile, &X, err, sizeof err), 0);
    double *ones = malloc((size_t)A.nrows * sizeof *ones), *b = malloc((size_t)A.nrows * sizeof *b);
    for (int i = 0; i < A.nrows; i++) ones[i] = 1.0;
    mixm_csr_matvec(&A, ones, b);
    double be = NAN;
    mixm_csr_recheck(&A, b, X.a, &be, NULL);
    CU_ASSERT(be <= berr_max);
    if (!(be <= berr_max)) fprintf(stderr, "\n  %s: backward error %.3e\n", xfile, be);
    free(ones);
    free(b);
    mixm_csr_free(&A);
    mixm_dense_free(&X);
}

/* `mixsolve solve` of the Matrix Market `text` (written to `file`) by `method` in each of the
 * np precisions: success only with an x that passes the re-check within berr_max; where
 * `may_fail`, a failure saying why on one line instead. */
static void cli_recheck(const char *file, const char *text, const char *method,
                        const char *const *precs, int np, double berr_max, int may_fail)
{
    char m[512], x[512], args[2048];
    snprintf(m, sizeof m, "%s", mixt_tmp(file));
    snprintf(x, sizeof x, "%s", mixt_tmp("x.mtx"));
    mixt_write_text(m, text);
    for (int k = 0; k < np; k++) {
        snprintf(args, sizeof args, "solve %s --method %s --prec %s --out %s", m, method, precs[k], x);
        int rc = run_capped(args);
        if (may_fail) {
            CU_ASSERT(rc == 0 || (rc == 1 && mixt_count_lines(mixt_err) == 1));
        } else {
            CU_ASSERT_EQUAL(rc, 0);
        }
        if (rc == 0) check_solution(m, x, berr_max);
    }
}

/* Defect 1 through the command: the subnormal 3 x 3 exited 0 with x = NaN. */
static void test_cli_subnormal_lu(void)
{
    const char *precs[] = {"fp64", "fp32", "fp16", "auto"};
    cli_recheck("sub.mtx", GENERAL "3 3 7\n1 1 4e-310\n2 1 1e-310\n1 2 1e-310\n2 2 4e-310\n3 2 1e-310\n"
                "2 3 1e-310\n3 3 4e-310\n", "lu", precs, 4, 1e-12, 0);
}

/* The same subnormal range through Cholesky (symmetric: the tridiagonal scaled by 1e-310). */
static void test_cli_subnormal_chol(void)
{
    const char *precs[] = {"fp64", "fp32", "fp16", "auto"};
    cli_recheck("subspd.mtx", SYMMETRIC "3 3 5\n1 1 4e-310\n2 1 -1e-310\n2 2 4e-310\n3 2 -1e-310\n"
                "3 3 4e-310\n", "chol", precs, 4, 1e-12, 0);
}

/* Defect 2 through the command: tiny A and b; CG exited 0 with x = 0.  Success only with an x
 * that passes the re-check; a failure says why on one line. */
static void test_cli_tiny_cg(void)
{
    const char *precs[] = {"fp64", "fp32", "fp16", "bf16", "fixed16"};
    cli_recheck("tiny.mtx", SYMMETRIC "4 4 7\n1 1 4e-170\n2 1 -1e-170\n2 2 4e-170\n3 2 -1e-170\n"
                "3 3 4e-170\n4 3 -1e-170\n4 4 4e-170\n", "cg", precs, 5, 1e-9, 1);
}

static const mixt_test hostile_tests[] = {
    {"reader: both triangles of a symmetric file", test_reader_both_triangles},
    {"reader: NUL bytes", test_reader_nul},
    {"reader: duplicates that overflow", test_reader_duplicate_overflow},
    {"reader: gzip trailing garbage, truncation", test_reader_gzip_trailing},
    {"reader: endless input", test_reader_endless},
    {"reader: lying size line", test_reader_lying_size},
    {"reader: MIXSOLVE_MTX_DIM_FREE parsing", test_reader_dim_free_env},
    {"mixsolve solve: hostile corpus under ulimit -v and timeout", test_cli_corpus},
    {"mixsolve solve: subnormal LU re-checked", test_cli_subnormal_lu},
    {"mixsolve solve: tiny CG re-checked", test_cli_tiny_cg},
    {"mixsolve solve: subnormal Cholesky re-checked", test_cli_subnormal_chol},
    {NULL, NULL},
};

void mixt_register_hostile(void) { mixt_add_suite("hostile", hostile_tests); }
