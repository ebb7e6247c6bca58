/* test_cli.c: the mixsolve command: exit statuses, the one stderr line, and what solve/gen/bench write. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/mixt.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

/* Runs "mixsolve ARGS": its exit status, its output in mixt_out and mixt_err. */
static int run(const char *args) { return mixt_tool("", args); }

/* A failure prints exactly one line on stderr, starting "mixsolve: " and containing `words`. */
static void expect_fail(const char *args, int code, const char *words)
{
    mixt_expect_tool_failure(args, run(args), code, words);
}

/* A file read back equals the generator's matrix bit for bit; both are freed. */
static void expect_same_csr(mixm_csr *A, mixm_csr *G)
{
    CU_ASSERT(A->nnz == G->nnz && !memcmp(A->val, G->val, (size_t)G->nnz * sizeof(double)) &&
              !memcmp(A->colind, G->colind, (size_t)G->nnz * sizeof(int32_t)));
    mixm_csr_free(A);
    mixm_csr_free(G);
}

/* Usage errors: exit 2 and one line naming the mistake. */
static void test_usage_errors(void)
{
    static const struct {
        const char *args, *words;
    } cases[] = {
        {"", "no command"},
        {"frobnicate", "unknown command"},
        {"solve", "no matrix file"},
        {"solve --prec half x.mtx", "bad --prec"}, /* no precision's name, now or later */
        {"solve --method qr x.mtx", "bad --method"},
        {"solve --backend tpu x.mtx", "bad --backend"},
        {"solve --refine", "needs a value"},
        {"solve --bogus x.mtx", "unknown option"},
        /* A prefix of two options is named as such (mixsolve(1): unambiguous prefixes only). */
        {"solve --pre=fp32 x.mtx", "'--pre' is ambiguous (--prec, --precond)"},
        {"bench --max 5", "'--max' is ambiguous (--max-time, --max-nnz)"},
        {"gen", "no KIND"},
        {"gen hilbert 4", "no output file"},
        {"gen spiral 4 -o x.mtx", "unknown kind"},
        {"gen randsvd 10 0.5 3 -o x.mtx", "KAPPA"},
        {"gen poisson2d 0 -o x.mtx", "size"},
        {"info extra", "no arguments"},
        {"bench --dense-max -3", "bad --dense-max"},
        {"bench /nonexistent-dir", "/nonexistent-dir"},
        /* An option the method never reads is refused, not ignored (--refine gmres with cg was
         * accepted and dropped), in either order, before the file is read. */
        {"solve --method cg --refine gmres x.mtx", "--refine does not apply to --method cg"},
        {"solve --refine auto x.mtx --method cg", "--refine does not apply to --method cg"},
        {"solve --method cg --dense-max 10 x.mtx", "--dense-max does not apply to --method cg"},
        {"solve --method lu --precond amg x.mtx", "--precond does not apply to --method lu"},
        {"solve --precond jacobi --method chol x.mtx", "--precond does not apply to --method chol"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        expect_fail(cases[k].args, 2, cases[k].words);
}

static void test_help(void)
{
    const char *cmds[] = {"--help", "info --help", "solve --help", "gen --help", "bench --help"};
    for (int k = 0; k < 5; k++) {
        CU_ASSERT_EQUAL(run(cmds[k]), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "Usage: mixsolve"));
        CU_ASSERT_EQUAL(mixt_err[0], '\0');
    }
    CU_ASSERT_EQUAL(run("--version"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, mix_version()));
}

static void test_info(void)
{
    CU_ASSERT_EQUAL(run("info"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "backend cpu  : compiled, available"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "fp16:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "default backend"));
}

static void test_malformed_input(void)
{
    char args[1024];
    mixt_write_text(mixt_tmp("bad.mtx"), "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 1\n");
    snprintf(args, sizeof args, "solve %s", mixt_tmp("bad.mtx"));
    char want[600];
    snprintf(want, sizeof want, "%s:4: index (4, 1) out of range", mixt_tmp("bad.mtx"));
    expect_fail(args, 2, want);
    snprintf(args, sizeof args, "solve %s", mixt_tmp("missing.mtx"));
    expect_fail(args, 2, "cannot open");
    mixt_write_text(mixt_tmp("rect.mtx"), "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n");
    snprintf(args, sizeof args, "solve %s", mixt_tmp("rect.mtx"));
    expect_fail(args, 2, "not square");
    mixt_write_text(mixt_tmp("cplx.mtx"), "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n");
    snprintf(args, sizeof args, "solve %s", mixt_tmp("cplx.mtx"));
    expect_fail(args, 2, "complex matrices are not supported");
    snprintf(args, sizeof args, "solve %s/pores_1.mtx --rhs %s/LF10.mtx", mixt_matrix_dir(), mixt_matrix_dir());
    expect_fail(args, 2, "right-hand side is 18 x 18, expected 30 x 1");
    snprintf(args, sizeof args, "solve %s/pores_1.mtx --method lu --prec fixed16", mixt_matrix_dir());
    expect_fail(args, 2, "fixed16 is for cg only");
}

static void test_solve_lu(void)
{
    char args[1024];
    snprintf(args, sizeof args, "solve %s/pores_1.mtx --method lu --prec fp16 --out %s", mixt_matrix_dir(),
             mixt_tmp("x.mtx"));
    CU_ASSERT_EQUAL(run(args), 0);
    CU_ASSERT_EQUAL(mixt_err[0], '\0');
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "backward error"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "iterations"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "fallback"));
    /* The written solution is x = ones to the accuracy cond(A) = 1.8e6 allows. */
    mixm_dense X;
    char e[512];
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read_dense(mixt_tmp("x.mtx"), &X, e, sizeof e), 0);
    CU_ASSERT_EQUAL(X.nrows, 30);
    double fe = 0;
    for (int i = 0; i < X.nrows; i++) fe = fmax(fe, fabs(X.a[i] - 1.0));
    CU_ASSERT(fe < 1e-8);
    /* The same solution as the right-hand side's file format: b read back gives the same run. */
    mixm_dense_free(&X);
}

static void test_solve_cg_and_rhs(void)
{
    char args[1024];
    /* b = A * ones written by gen's writer path: a 1-column array file. */
    mixm_csr A;
    char e[512];
    char path[600];
    snprintf(path, sizeof path, "%s/bcsstk01.mtx", mixt_matrix_dir());
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(path, &A, NULL, e, sizeof e), 0);
    double ones[48], b[48];
    for (int i = 0; i < 48; i++) ones[i] = 1.0;
    mixm_csr_matvec(&A, ones, b);
    mixm_dense B = {48, 1, b};
    CU_ASSERT_EQUAL(mixm_mtx_write_dense(mixt_tmp("b.mtx"), &B, e, sizeof e), 0);
    mixm_csr_free(&A);
    snprintf(args, sizeof args, "solve %s --rhs %s --method cg --prec fp64", path, mixt_tmp("b.mtx"));
    CU_ASSERT_EQUAL(run(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "true residual"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "converged"));
    CU_ASSERT_EQUAL(mixt_err[0], '\0');
    /* --precond amg: the multigrid V-cycle (MIX_PRECOND_AMG); an unknown name is a usage error. */
    snprintf(args, sizeof args, "solve %s --rhs %s --method cg --precond amg", path, mixt_tmp("b.mtx"));
    CU_ASSERT_EQUAL(run(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "AMG V-cycle"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "status          : converged"));
    /* The body of the copy the V-cycle multiplied by (A's Jacobi-scaled one), not "-" (it
     * looked for the unscaled copy, which an FP32 AMG solve never makes). */
    snprintf(args, sizeof args, "solve %s --rhs %s --method cg --precond amg --prec fp32", path,
             mixt_tmp("b.mtx"));
    CU_ASSERT_EQUAL(run(args), 0);
    const char *body = strstr(mixt_out, "spmv body       : fp32 ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    CU_ASSERT(strncmp(body + strlen("spmv body       : fp32 "), "-", 1) != 0);
    /* b of subnormals: the FP32 LU-IR's x loses the digits the test needs (status NOT_CONVERGED)
     * but is returned, and the report recomputes its backward error (it printed "nan"), dense
     * and sparse. */
    double tiny[48];
    for (int i = 0; i < 48; i++) tiny[i] = 1e-311 * (1 + i % 3);
    mixm_dense T = {48, 1, tiny};
    CU_ASSERT_EQUAL(mixm_mtx_write_dense(mixt_tmp("tiny.mtx"), &T, e, sizeof e), 0);
    for (int sparse = 0; sparse < 2; sparse++) {
        snprintf(args, sizeof args, "solve %s --rhs %s --method lu --prec fp32%s", path,
                 mixt_tmp("tiny.mtx"), sparse ? " --dense-max 10" : "");
        CU_ASSERT_EQUAL(run(args), 1);
        const char *be = strstr(mixt_out, "(solver), ");
        CU_ASSERT_PTR_NOT_NULL_FATAL(be);
        CU_ASSERT(strncmp(be + strlen("(solver), "), "nan", 3) != 0);
    }
    snprintf(args, sizeof args, "solve %s --method cg --precond ilu", path);
    CU_ASSERT_EQUAL(run(args), 2);
    /* --method auto picks CG for this SPD candidate. */
    snprintf(args, sizeof args, "solve %s --prec fp32", path);
    CU_ASSERT_EQUAL(run(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "method          : cg"));
    /* A real SPD file: --refine with cg exited 0, the option dropped. */
    snprintf(args, sizeof args, "solve %s --method cg --refine gmres", path);
    CU_ASSERT_EQUAL(run(args), 2);
    /* auto may run either method: it takes the options of both. */
    snprintf(args, sizeof args, "solve %s --refine gmres --precond none --dense-max 100", path);
    CU_ASSERT_EQUAL(run(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "no preconditioner"));
    /* --prec auto reaches CG's MIX_PREC_AUTO: FP64 for this small matrix. */
    snprintf(args, sizeof args, "solve %s --method cg --prec auto", path);
    CU_ASSERT_EQUAL(run(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "storage stages  : fp64"));
}

static void test_solve_failure(void)
{
    char args[1024];
    /* A zero row: exactly singular in every precision, a solver failure (status 1). */
    mixt_write_text(mixt_tmp("sing.mtx"), "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n1 2 1\n3 3 2\n");
    snprintf(args, sizeof args, "solve %s --method lu --prec fp32", mixt_tmp("sing.mtx"));
    expect_fail(args, 1, "singular");
    /* Cholesky on a nonsymmetric A: refused before solving, not "solved" then rejected. */
    snprintf(args, sizeof args, "solve %s/pores_1.mtx --method chol", mixt_matrix_dir());
    expect_fail(args, 2, "not symmetric");
}

static void test_gen(void)
{
    char args[1024], e[512];
    snprintf(args, sizeof args, "gen trefethen 64 -o %s", mixt_tmp("t.mtx.gz"));
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    mixm_csr A, T;
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mixt_tmp("t.mtx.gz"), &A, NULL, e, sizeof e), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_trefethen(64, &T), 0);
    CU_ASSERT_EQUAL(A.nnz, T.nnz);
    expect_same_csr(&A, &T);
    snprintf(args, sizeof args, "gen hilbert 5 -o %s", mixt_tmp("h.mtx"));
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    mixm_dense H;
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read_dense(mixt_tmp("h.mtx"), &H, e, sizeof e), 0);
    CU_ASSERT_EQUAL(H.a[4 + 4 * 5], 1.0 / 9.0);
    mixm_dense_free(&H);
    snprintf(args, sizeof args, "gen poisson2d 6 -o %s", mixt_tmp("p.mtx"));
    CU_ASSERT_EQUAL(run(args), 0);
    snprintf(args, sizeof args, "solve %s --method cg --prec fixed16", mixt_tmp("p.mtx"));
    CU_ASSERT_EQUAL(run(args), 0);
    snprintf(args, sizeof args, "gen hilbert 5 -o /nonexistent-dir/h.mtx");
    expect_fail(args, 2, "/nonexistent-dir/h.mtx");
}

/* gen anisotropic's EPS (issue 33): 1e308 wrote an `inf` diagonal its own reader refused,
 * while 1e-320 (subnormal, which the reader keeps) was refused as "not positive".  Now EPS in
 * (0, DBL_MAX / 2] round-trips, anything else is exit 2 with one line and no file; and the
 * writers refuse NaN and Inf for every caller (no file, the entry named). */
static void test_gen_range(void)
{
    static const struct { const char *eps, *words; } bad[] = {
        {"1e308", "EPS '1e308' must be a number in (0, "}, {"inf", "must be a number in"},
        {"0", "must be a number in"}, {"-1", "must be a number in"}, {"nan", "is not a number"},
        {"1e-400", "underflows FP64 to 0"}};
    char args[1024], e[512];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        unlink(mixt_tmp("an.mtx"));
        snprintf(args, sizeof args, "gen anisotropic 4 %s -o %s", bad[k].eps, mixt_tmp("an.mtx"));
        expect_fail(args, 2, bad[k].words);
        CU_ASSERT_NOT_EQUAL(access(mixt_tmp("an.mtx"), F_OK), 0);
    }
    static const char *const good[] = {"8.98e307", "1e-320", "1e-300"};
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "gen anisotropic 4 %s -o %s", good[k], mixt_tmp("an.mtx"));
        CU_ASSERT_EQUAL_FATAL(run(args), 0);
        mixm_csr A, G;
        CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mixt_tmp("an.mtx"), &A, NULL, e, sizeof e), 0);
        CU_ASSERT_EQUAL_FATAL(mixm_gen_anisotropic2d(4, strtod(good[k], NULL), &G), 0);
        CU_ASSERT(A.nnz == G.nnz && !memcmp(A.val, G.val, (size_t)G.nnz * sizeof(double)));
        mixm_csr_free(&A);
        mixm_csr_free(&G);
    }
    mixm_csr A;
    CU_ASSERT_EQUAL(mixm_gen_anisotropic2d(4, 1e308, &A), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(3, &A), 0);
    A.val[4] = NAN;
    unlink(mixt_tmp("nan.mtx"));
    CU_ASSERT_EQUAL(mixm_mtx_write_csr(mixt_tmp("nan.mtx"), &A, 1, e, sizeof e), MIX_ERR_NAN);
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "entry 5 (2, 2) is nan"));
    CU_ASSERT_NOT_EQUAL(access(mixt_tmp("nan.mtx"), F_OK), 0);
    mixm_csr_free(&A);
    double x[4] = {1.0, 2.0, INFINITY, 4.0};
    mixm_dense X = {2, 2, x};
    CU_ASSERT_EQUAL(mixm_mtx_write_dense(mixt_tmp("inf.mtx"), &X, e, sizeof e), MIX_ERR_NAN);
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "entry 3 (1, 2) is inf"));
    CU_ASSERT_NOT_EQUAL(access(mixt_tmp("inf.mtx"), F_OK), 0);
}

/* gen convdiff2d/3d: written as general files that read back to the generators' matrices bit for
 * bit; solve --method auto takes LU for them (not SPD candidates); bad velocities, a missing
 * one and an overflowing diagonal are exit 2 with no file. */
static void test_gen_convdiff(void)
{
    char args[1024], e[512];
    for (int dim = 2; dim <= 3; dim++) {
        snprintf(args, sizeof args, dim == 2 ? "gen convdiff2d 6 100 -50 -o %s" : "gen convdiff3d 4 1 -2.5 3e3 -o %s",
                 mixt_tmp("cd.mtx"));
        CU_ASSERT_EQUAL_FATAL(run(args), 0);
        mixm_csr A, G;
        mixm_mtx_header h;
        CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(mixt_tmp("cd.mtx"), &A, &h, e, sizeof e), 0);
        CU_ASSERT_EQUAL(h.symmetry, MIXM_MTX_GENERAL);
        CU_ASSERT_EQUAL_FATAL(dim == 2 ? mixm_gen_convdiff2d(6, 100, -50, &G) : mixm_gen_convdiff3d(4, 1, -2.5, 3e3, &G), 0);
        expect_same_csr(&A, &G);
        snprintf(args, sizeof args, "solve %s", mixt_tmp("cd.mtx"));
        CU_ASSERT_EQUAL(run(args), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "method          : lu"));
    }
    static const struct { const char *args, *words; } bad[] = {
        {"gen convdiff2d 4 1 nan", "velocity 'nan' must be a finite number"},
        {"gen convdiff3d 4 1 2 inf", "velocity 'inf' must be a finite number"},
        {"gen convdiff3d 4 1 2", "takes 4 arguments, got 3"},
        {"gen convdiff2d 46341 1 2", "size '46341' must be an integer in 1..46340"},
        {"gen convdiff3d 1 1.7e308 1.7e308 -1.7e308", "overflows FP64"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        unlink(mixt_tmp("cd.mtx"));
        snprintf(args, sizeof args, "%s -o %s", bad[k].args, mixt_tmp("cd.mtx"));
        expect_fail(args, 2, bad[k].words);
        CU_ASSERT_NOT_EQUAL(access(mixt_tmp("cd.mtx"), F_OK), 0);
    }
}

static void test_bench_small(void)
{
    /* Two small bundled matrices and a malformed one: the bad file is reported, never fatal. */
    char args[2048], path[600];
    const char *d = mixt_tmp("set");
    mkdir(d, 0777);
    const char *names[] = {"pores_1.mtx", "bcsstk01.mtx"};
    for (int k = 0; k < 2; k++) {
        char src[600], dst[600], cmd[1400];
        snprintf(src, sizeof src, "%s/%s", mixt_matrix_dir(), names[k]);
        snprintf(dst, sizeof dst, "%s/%s", d, names[k]);
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
        CU_ASSERT_EQUAL(system(cmd), 0);
    }
    snprintf(path, sizeof path, "%s/broken.mtx", d);
    mixt_write_text(path, "%%MatrixMarket matrix coordinate real general\n2 2 1\n");
    snprintf(args, sizeof args, "bench %s -o %s --quick --time-limit 30", d, mixt_tmp("bout"));
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_err, "[1/3] bcsstk01: cg fixed16"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_err, "[2/3] broken: skipped"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "Silent failures (reported success, recomputed check failed): 0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "Report: "));
    snprintf(path, sizeof path, "%s/results.csv", mixt_tmp("bout"));
    char csv[65536];
    mixt_slurp(path, csv, sizeof csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "pores_1,30,180,0,lu,fp16,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "bcsstk01,48,400,1,cg,fixed16,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "bcsstk01,48,400,1,cg,auto,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "bcsstk01,48,400,1,chol,bf16,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "pores_1,30,180,0,lu,auto,ok,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "bcsstk01,48,400,1,cg-amg,fp64,ok,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "bcsstk01,48,400,1,cg-amg,auto,ok,"));
    /* 1 skipped + 2 x LU (dgesv, the low factor precisions, auto) + Cholesky (dposv, the low
     * ones, auto) + CG rows (the storage precisions and auto) + the two AMG rows (FP64, AUTO),
     * plus the header: 1 + 1 + 12 + 6 + 6 + 2. */
    const int nlu = mix_prec_list(MIX_ROLE_FACTOR, NULL, 0), ncg = mix_prec_list(MIX_ROLE_STORAGE, NULL, 0);
    CU_ASSERT_EQUAL(mixt_count_lines(csv), 1 + 1 + 2 * (nlu + 1) + nlu + 1 + ncg + 1 + 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "bcsstk01,48,400,1,chol,auto,ok,"));
    snprintf(path, sizeof path, "%s/report.md", mixt_tmp("bout"));
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    /* The AMG plot's data: bcsstk01's CG iterations with Jacobi and with the V-cycle, per n. */
    snprintf(path, sizeof path, "%s/iters_amg.dat", mixt_tmp("bout"));
    mixt_slurp(path, csv, sizeof csv);
    const char *jac = strstr(csv, "# cg fp64\n48 "), *amg = strstr(csv, "# cg-amg fp64\n48 ");
    CU_ASSERT(jac && amg && jac < amg && strstr(csv, "# cg-amg auto\n48 "));
    int it_jacobi = 0, it_amg = 0;
    if (jac && amg && sscanf(jac, "# cg fp64\n48 %d", &it_jacobi) == 1 &&
        sscanf(amg, "# cg-amg fp64\n48 %d", &it_amg) == 1)
        CU_ASSERT(it_amg > 0 && it_amg < it_jacobi);
}

/* A solve past its time limit is killed and reported; the run goes on and still writes its report. */
static void test_bench_timeout(void)
{
    char args[2048], path[600], csv[65536];
    snprintf(args, sizeof args, "bench %s/pores_1.mtx -o %s --time-limit 0.000001", mixt_matrix_dir(), mixt_tmp("tout"));
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(path, sizeof path, "%s/results.csv", mixt_tmp("tout"));
    mixt_slurp(path, csv, sizeof csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "pores_1,30,180,0,lu,fp64,timeout,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "killed at the"));
}

/* OMP_THREAD_LIMIT=1 under OMP_NUM_THREADS' default (the cores): OpenMP gives a team of one, and
 * OpenBLAS's OpenMP build, which asked omp_get_max_threads() threads for the FP32 LU's GEMM,
 * waited for the others forever (any program; soak probe).  The CPU context clamps the thread
 * count to the team OpenMP can give: the solve ends, and ends well. */
static void test_solve_thread_limit(void)
{
    char args[600];
    snprintf(args, sizeof args, "gen random 600 -o %s", mixt_tmp("r600.mtx"));
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    const char *limits[] = {"OMP_THREAD_LIMIT=1 OMP_NUM_THREADS=2 exec timeout 120 ",
                            "OMP_MAX_ACTIVE_LEVELS=0 OMP_NUM_THREADS=2 exec timeout 120 "};
    snprintf(args, sizeof args, "solve %s --method lu --prec fp32", mixt_tmp("r600.mtx"));
    for (int k = 0; k < 2; k++) CU_ASSERT_EQUAL(mixt_tool(limits[k], args), 0);
}

static const mixt_test cli_tests[] = {
    {"usage errors: status 2, one line", test_usage_errors},
    {"--help of every command", test_help},
    {"info", test_info},
    {"malformed input: status 2, file:line", test_malformed_input},
    {"solve lu fp16 with --out", test_solve_lu},
    {"solve cg with --rhs, auto picks cg", test_solve_cg_and_rhs},
    {"solver failure: status 1", test_solve_failure},
    {"gen writes what the generators make", test_gen},
    {"gen anisotropic: EPS range, no Inf written", test_gen_range},
    {"gen convdiff2d/3d: general files, exact, LU; bad velocities", test_gen_convdiff},
    {"bench on a small directory", test_bench_small},
    {"bench: time limit kills, run goes on", test_bench_timeout},
    {"solve under OMP_THREAD_LIMIT=1: no hang", test_solve_thread_limit},
    {NULL, NULL},
};

void mixt_register_cli(void)
{
    /* The tool is built with the tests (make check builds bin_PROGRAMS first). */
    char path[1024];
    snprintf(path, sizeof path, "%s/tools/mixsolve", mixt_build_dir());
    if (access(path, X_OK) != 0) {
        printf("cli suite not registered: %s not built\n", path);
        return;
    }
    mixt_add_suite("cli", cli_tests);
}
