/* mixt.h: shared helpers of the CUnit suites (one runner, suites registered from a table). */
#ifndef MIXT_H
#define MIXT_H

#include <stddef.h>
#include <stdint.h>
#include <CUnit/CUnit.h>
#include "mixsolve.h"
#include "matrices/mixmat.h"

typedef struct {
    const char *name;
    CU_TestFunc fn;
} mixt_test;

/* Adds a suite with the NULL-terminated test table; returns NULL on failure. */
CU_pSuite mixt_add_suite(const char *name, const mixt_test *tests);
/* Adds a per-backend suite named "<backend>/<name>"; while it runs, mixt_backend is `b`. */
CU_pSuite mixt_add_backend_suite(mix_backend b, const char *name, const mixt_test *tests);
extern mix_backend mixt_backend;

/* Directory of the bundled matrices (MIX_MATRIX_DIR, else $(top_srcdir)/matrices/data). */
const char *mixt_matrix_dir(void);
/* Directory of the built programs (the mixsolve tool), for CLI tests. */
const char *mixt_build_dir(void);

/* Backend memory of ctx for the kernel suites: a copy of `bytes` host bytes (NULL host:
 * zeroed), NULL if it cannot be had; a download (its status); a release. */
void *mixt_put(mix_context *ctx, const void *host, size_t bytes);
int mixt_get(mix_context *ctx, void *host, const void *dev, size_t bytes);
void mixt_drop(mix_context *ctx, void *p);

/* The mixsolve tool for the CLI suites: runs "PREFIX<builddir>/tools/mixsolve ARGS" through the
 * shell (PREFIX "" or limits such as "ulimit -v N; exec timeout T "), its stdout and stderr in
 * mixt_out and mixt_err; returns the exit status (-1 if it did not exit normally). */
extern char mixt_out[65536], mixt_err[65536];
int mixt_tool(const char *prefix, const char *args);
/* The exit status rc of `mixsolve args` is `code`, with exactly one stderr line, "mixsolve: ..."
 * containing `words`. */
void mixt_expect_tool_failure(const char *args, int rc, int code, const char *words);

/* Helpers of every suite (mixt_util.c).  The backward error of a dense solution is libmixmat's
 * mixm_dense_backward_error, the wall clock mixm_wtime, random numbers mixm_rng: the ones the
 * tool and the benchmarks use. */
mix_context *mixt_context(void);                   /* on mixt_backend; the test stops if it fails */
double *mixt_dalloc(size_t count);                 /* zeroed; the test stops if it fails */
double *mixt_rand64(size_t count, uint64_t seed);  /* uniform in [-1, 1) (mixm_rng); NULL: no memory */
float *mixt_rand32(size_t count, uint64_t seed);
/* NAME in this run's temporary directory (created at first use, removed at exit); the last 8
 * paths stay valid. */
const char *mixt_tmp(const char *name);
void mixt_write_file(const char *path, const void *data, size_t len); /* the test stops if it fails */
void mixt_write_text(const char *path, const char *text);
void mixt_slurp(const char *path, char *buf, size_t cap); /* "" when unreadable */
int mixt_count_lines(const char *s);
/* max_k |x_k - y_k| and max_k |x_k| (fmax: NaNs passed over), for comparisons to references. */
double mixt_max_diff(size_t count, const double *x, const double *y);
double mixt_max_abs(size_t count, const double *x);
/* LAPACK's acceptance for refined solutions (ddrvab.f): a small multiple of eps sqrt(n). */
double mixt_berr_bound(int n);
/* A simple driver's FP64 factors (lu, ipiv of A, n x n) against LAPACKE_dgetrf's (lu_ref,
 * piv_ref): bit for bit where the simple drivers' default context runs on the CPU (its LAPACK
 * computed both), else, another library's dgetrf rounding differently (cuSOLVER's), P L U = A to
 * FP64 rounding (64 n eps of max |A|) with valid pivots. */
void mixt_check_default_fp64_factors(int n, const double *a, const double *lu, const int *ipiv,
                                     const double *lu_ref, const int *piv_ref);
/* The precisions of a role (mix_prec_list), without MIX_FP64 when `low`: what suites loop over
 * instead of lists of their own, so that a precision added to the table reaches them. */
typedef struct {
    int n;
    mix_prec p[MIX_CAPS_PREC_SLOTS];
} mixt_prec_set;
mixt_prec_set mixt_precs(mix_prec_role role, int low);
/* Whether mixt_backend's drivers take device pointers (the _gpu entry points accept them). */
int mixt_device_pointers(void);
/* What the dense driver suites (LU: test_gesv.c, SPD: test_posv.c, edges, drop-in) share. */
/* mix_gesv_params_init's defaults with factor_prec and refine set. */
mix_gesv_params mixt_params(mix_prec factor, mix_refine refine);
/* *p := the defaults but for one invalid field, the k-th such case (k = 0, 1, ...); returns 0
 * past the last case.  Every expert driver must answer -2 (argument 2, params) to each. */
int mixt_bad_params(int k, mix_gesv_params *p);
/* One expert-driver call of an allocation sweep: `drive` solves the column-major n x n system
 * (a copy ac of a, ld n) with B and X of leading dimension ld, by the driver under test. */
typedef struct mixt_dense_job mixt_dense_job;
struct mixt_dense_job {
    int (*drive)(const mixt_dense_job *j, int ld, mix_gesv_info *info);
    mix_gesv_params p;
    int layout, n, nrhs;
    const double *a, *b;
    int keeps_a;             /* the driver leaves A alone when it fails for memory */
    mix_context *ctx;        /* the rest set by mixt_alloc_sweep */
    double *ac, *x;
    int *ipiv;
};
/* Runs j->drive with the k-th allocation of the library made to fail, k = 0, 1, ... until it
 * succeeds (200 tries at most); asserts that each try gives MIX_ERR_ALLOC or MIX_SUCCESS, leaks
 * nothing (and leaves A alone where j->keeps_a), and that the last succeeded after several (> 3)
 * failures. */
void mixt_alloc_sweep(mixt_dense_job j);
/* What an expert driver's solve gave.  mixt_outcome_of also asserts what holds for every dense
 * driver: info's status is the returned one and, on success, x (n x nrhs, ld n) solves the
 * column-major A X = B (ld n) to the FP64 backward error (mixt_berr_bound). */
typedef struct {
    int st, iter, reason, fell_back;
    double berr;
} mixt_outcome;
mixt_outcome mixt_outcome_of(int st, const mix_gesv_info *info, int n, int nrhs, const double *a,
                             const double *b, const double *x);
/* The arguments of a dense driver call, either family's (uplo for SPD, ipiv for LU), after the
 * -i that the simple drivers give for them. */
typedef struct {
    int want, layout;
    char uplo;
    int n, nrhs;
    double *a;
    int lda, *ipiv;
    double *b;
    int ldb;
    double *x;
    int ldx, *iter;
} mixt_args;
typedef enum { MIXT_LU, MIXT_SPD } mixt_family;
/* Simple driver s (0 to 3: FP32, TF32, FP16, BF16 factors) or the expert driver of family f on
 * the arguments c (want unused). */
int mixt_call_simple(mixt_family f, int s, const mixt_args *c);
int mixt_call_expert(mixt_family f, mix_context *ctx, const mix_gesv_params *p, const mixt_args *c,
                     mix_gesv_info *info);
/* Each of the `count` cases gives its want, the -i of an illegal argument, from every simple
 * driver of the family and want - 2 from its expert driver (whose layout is argument 3), info
 * untouched; want -11 (iter) is the simple drivers' alone.  `valid`, legal arguments, gives -1
 * from the expert driver without a context and -2 with each of mixt_bad_params. */
void mixt_check_illegal(mixt_family f, mix_context *ctx, const mixt_args *cases, size_t count,
                        const mixt_args *valid);
/* mix_cg_params_init's defaults with the storage precision and the preconditioner set. */
mix_cg_params mixt_cg_params(mix_prec storage, int precond);
/* A's handle on ctx (mix_sparse_create_csr of its n = nrows rows); the test stops if it fails. */
mix_sparse *mixt_sparse(mix_context *ctx, const mixm_csr *A);
/* A CG system: A, its handle on a context of mixt_backend, b and x of A's order (zeroed). */
typedef struct {
    mixm_csr A;
    mix_context *ctx;
    mix_sparse *S;
    double *b, *x;
} mixt_cg_sys;
/* Opens f around f->A, already built (the test stops if it cannot); closes all of it, A too. */
void mixt_cg_open(mixt_cg_sys *f);
/* Opens f around the bundled matrix `file` (matrices/data); the test stops if it cannot. */
void mixt_cg_open_bundled(mixt_cg_sys *f, const char *file);
void mixt_cg_close(mixt_cg_sys *f);
/* ||b - A x||_2 / ||b||_2 by mixm_csr_recheck (range-safe), NaN if anything is NaN/Inf. */
double mixt_cg_true_rel(const mixm_csr *A, const double *b, const double *x);

/* Registrars, one per test file: suites that run once ... */
void mixt_register_core(void);
void mixt_register_formats(void);
void mixt_register_matrices(void);
void mixt_register_cli(void);
void mixt_register_onednn(void);
void mixt_register_hostile(void); /* hostile-input corpus: reader and CLI (test_hostile.c) */
void mixt_register_sparse_format(void); /* the SELL-32 sloppy-matrix layout (test_sparse_format.c) */
void mixt_register_spmv_tune(void); /* CPU SpMV variants and their tuner (test_spmv_tune.c) */
/* ... and suites registered once per available backend. */
void mixt_register_gesv(mix_backend b);
void mixt_register_cg(mix_backend b);
void mixt_register_amg(mix_backend b); /* CG with the multigrid preconditioner (test_amg.c) */
void mixt_register_kernels(mix_backend b); /* backend kernels against the CPU reference */
void mixt_register_kernels_sparse(mix_backend b); /* sparse family, called by the above */
void mixt_register_posv(mix_backend b); /* Cholesky ops and the d?posv drivers */
void mixt_register_edge(mix_backend b); /* floating-point range edges (test_edge.c) */
void mixt_register_dense_probe(mix_backend b); /* the probe of issue 33 (test_dense_probe.c) */
void mixt_register_dropin(mix_backend b); /* what the LAPACK drop-in relies on */
void mixt_register_lu_steps(mix_backend b); /* the blocked LU's steps, block size, profile */
void mixt_register_resid_dd(mix_backend b); /* the accurate residual and its recheck */
void mixt_register_auto(mix_backend b); /* AUTO's choice and the give-up rules (test_auto.c) */
void mixt_register_sparse_lu(mix_backend b); /* mix_dgesv_sparse (test_sparse_lu.c) */
void mixt_register_sell_shift(mix_backend b); /* SELL's column shift (test_sell_shift.c) */

#endif
