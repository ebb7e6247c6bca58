/* mixt_util.c: what the suites share: contexts, allocation, temporary files, random data and the FP64 re-checks. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/mixt.h"
#include "matrices/mmio.h"
#include "lib/api/mix_internal.h"
#include "tests/lu_check.h"

mix_context *mixt_context(void)
{
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    return ctx;
}

double *mixt_dalloc(size_t count)
{
    double *p = calloc(count ? count : 1, sizeof *p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

void *mixt_put(mix_context *ctx, const void *host, size_t bytes)
{
    void *p = NULL;
    if (ctx->ops->alloc(ctx->state, &p, bytes ? bytes : 1)) return NULL;
    int st = host ? ctx->ops->upload(ctx->state, p, host, bytes)
                  : ctx->ops->memset0(ctx->state, p, bytes);
    if (st) {
        ctx->ops->free(ctx->state, p);
        return NULL;
    }
    return p;
}

int mixt_get(mix_context *ctx, void *host, const void *dev, size_t bytes)
{
    return ctx->ops->download(ctx->state, host, dev, bytes);
}

void mixt_drop(mix_context *ctx, void *p) { ctx->ops->free(ctx->state, p); }

double *mixt_rand64(size_t count, uint64_t seed)
{
    double *x = malloc((count ? count : 1) * sizeof *x);
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (size_t i = 0; x && i < count; i++) x[i] = 2.0 * mixm_rng_uniform(&g) - 1.0;
    return x;
}

float *mixt_rand32(size_t count, uint64_t seed)
{
    float *x = malloc((count ? count : 1) * sizeof *x);
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (size_t i = 0; x && i < count; i++) x[i] = (float)(2.0 * mixm_rng_uniform(&g) - 1.0);
    return x;
}

/* ---- temporary files ------------------------------------------------------------------------ */

static char tmp_dir[256];
static pid_t tmp_owner;

static void remove_tmp_dir(void)
{
    if (getpid() != tmp_owner) return; /* a forked child leaves it to the runner */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0) fprintf(stderr, "mixt: could not remove %s\n", tmp_dir);
}

const char *mixt_tmp(const char *name)
{
    static char buf[8][512];
    static int k;
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/mixt_XXXXXX");
        if (mkdtemp(tmp_dir)) {
            tmp_owner = getpid();
            atexit(remove_tmp_dir);
        } else {
            snprintf(tmp_dir, sizeof tmp_dir, "/tmp"); /* never removed */
        }
    }
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", tmp_dir, name);
    return p;
}

void mixt_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
}

void mixt_write_text(const char *path, const char *text) { mixt_write_file(path, text, strlen(text)); }

void mixt_slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

int mixt_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* ---- the mixsolve tool ------------------------------------------------------------------------ */

char mixt_out[65536], mixt_err[65536];

int mixt_tool(const char *prefix, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s%s/tools/mixsolve %s > %s 2> %s", prefix, mixt_build_dir(), args,
             mixt_tmp("out.txt"), mixt_tmp("err.txt"));
    int st = system(cmd);
    mixt_slurp(mixt_tmp("out.txt"), mixt_out, sizeof mixt_out);
    mixt_slurp(mixt_tmp("err.txt"), mixt_err, sizeof mixt_err);
    return (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
}

void mixt_expect_tool_failure(const char *args, int rc, int code, const char *words)
{
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_EQUAL(mixt_count_lines(mixt_err), 1);
    CU_ASSERT_EQUAL(strncmp(mixt_err, "mixsolve: ", 10), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_err, words));
    if (rc != code || mixt_count_lines(mixt_err) != 1 || !strstr(mixt_err, words))
        fprintf(stderr, "\n  mixsolve %s: expected %d '%s', got %d '%s'\n", args, code, words, rc,
                mixt_err);
}

/* ---- FP64 re-checks ------------------------------------------------------------------------- */

double mixt_max_diff(size_t count, const double *x, const double *y)
{
    double d = 0;
    for (size_t k = 0; k < count; k++) d = fmax(d, fabs(x[k] - y[k]));
    return d;
}

double mixt_max_abs(size_t count, const double *x)
{
    double m = 0;
    for (size_t k = 0; k < count; k++) m = fmax(m, fabs(x[k]));
    return m;
}

double mixt_berr_bound(int n) { return 4.0 * DBL_EPSILON * sqrt((double)n); }

void mixt_check_default_fp64_factors(int n, const double *a, const double *lu, const int *ipiv,
                                     const double *lu_ref, const int *piv_ref)
{
    mix_context *dflt = NULL;
    CU_ASSERT_FATAL(mixi_default_context(&dflt) == MIX_SUCCESS);
    if (mix_context_backend(dflt) == MIX_BACKEND_CPU) {
        CU_ASSERT(memcmp(lu, lu_ref, (size_t)n * n * sizeof *lu) == 0);
        CU_ASSERT(memcmp(ipiv, piv_ref, (size_t)n * sizeof *ipiv) == 0);
        return;
    }
    const double fe = lu_factor_error(n, a, lu, ipiv);
    CU_ASSERT(fe >= 0 && fe <= 64 * n * DBL_EPSILON);
}

mix_cg_params mixt_cg_params(mix_prec storage, int precond)
{
    mix_cg_params p;
    mix_cg_params_init(&p);
    p.sloppy_prec = storage, p.precond = precond;
    return p;
}

mix_sparse *mixt_sparse(mix_context *ctx, const mixm_csr *A)
{
    mix_sparse *S = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, A->nrows, A->rowptr, A->colind, A->val, &S),
                          MIX_SUCCESS);
    return S;
}

void mixt_cg_open(mixt_cg_sys *f)
{
    f->ctx = mixt_context();
    f->S = mixt_sparse(f->ctx, &f->A);
    f->b = mixt_dalloc((size_t)f->A.nrows);
    f->x = mixt_dalloc((size_t)f->A.nrows);
}

void mixt_cg_open_bundled(mixt_cg_sys *f, const char *file)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", mixt_matrix_dir(), file);
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(path, &f->A, NULL, err, sizeof err), MIX_SUCCESS);
    mixt_cg_open(f);
}

void mixt_cg_close(mixt_cg_sys *f)
{
    free(f->b);
    free(f->x);
    mix_sparse_destroy(f->S);
    mix_context_destroy(f->ctx);
    mixm_csr_free(&f->A);
}

double mixt_cg_true_rel(const mixm_csr *A, const double *b, const double *x)
{
    double rel = NAN;
    if (mixm_csr_recheck(A, b, x, NULL, &rel)) return NAN;
    return rel;
}

mixt_prec_set mixt_precs(mix_prec_role role, int low)
{
    mixt_prec_set s = {0, {MIX_FP64}};
    mix_prec all[MIX_CAPS_PREC_SLOTS];
    const int n = mix_prec_list(role, all, MIX_CAPS_PREC_SLOTS);
    for (int k = 0; k < n && k < MIX_CAPS_PREC_SLOTS; k++)
        if (!low || all[k] != MIX_FP64) s.p[s.n++] = all[k];
    return s;
}

int mixt_device_pointers(void)
{
    const mixi_backend_ops *ops = mixi_backend_lookup(mixt_backend);
    return ops && (ops->flags & MIXI_BACKEND_DEVICE_POINTERS);
}

/* ---- dense drivers -------------------------------------------------------------------------- */

mix_gesv_params mixt_params(mix_prec factor, mix_refine refine)
{
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = factor, p.refine = refine;
    return p;
}

/* A precision of the library that no factorization takes (a CG storage format), else an
 * out-of-range value. */
static mix_prec storage_only_prec(void)
{
    const mixt_prec_set all = mixt_precs(MIX_ROLE_ALL, 0), f = mixt_precs(MIX_ROLE_FACTOR, 0);
    for (int i = 0; i < all.n; i++) {
        int factor = 0;
        for (int j = 0; j < f.n; j++) factor |= all.p[i] == f.p[j];
        if (!factor) return all.p[i];
    }
    return (mix_prec)42;
}

int mixt_bad_params(int k, mix_gesv_params *p)
{
    mix_gesv_params_init(p);
    switch (k) {
    case 0: p->factor_prec = storage_only_prec(); break;
    case 1: p->factor_prec = (mix_prec)42; break;
    case 2: p->refine = (mix_refine)5; break;
    case 3: p->refine = (mix_refine)9; break;
    case 4: p->tol = -1e-10; break;
    case 5: p->tol = -1.0; break;
    case 6: p->tol = NAN; break;
    case 7: p->max_iter = -1; break;
    case 8: p->gmres_restart = 0; break;
    case 9: p->history_capacity = 3; break; /* with a NULL history */
    case 10: p->history_capacity = 2; break;
    case 11: p->history_capacity = -1; break;
    default: return 0;
    }
    return 1;
}

mixt_outcome mixt_outcome_of(int st, const mix_gesv_info *info, int n, int nrhs, const double *a,
                             const double *b, const double *x)
{
    mixt_outcome o = {st, info->iter, info->reason, info->fell_back,
                      mixm_dense_backward_error(n, nrhs, a, n, b, n, x, n)};
    CU_ASSERT_EQUAL(info->status, st);
    if (st == MIX_SUCCESS) CU_ASSERT(o.berr <= mixt_berr_bound(n));
    return o;
}

typedef int (*gesv_fn)(int, int, int, double *, int, int *, double *, int, double *, int, int *);
typedef int (*posv_fn)(int, char, int, int, double *, int, double *, int, double *, int, int *);

int mixt_call_simple(mixt_family f, int s, const mixt_args *c)
{
    static const gesv_fn lu[4] = {mix_dsgesv, mix_dxgesv, mix_dhgesv, mix_dbgesv};
    static const posv_fn spd[4] = {mix_dsposv, mix_dxposv, mix_dhposv, mix_dbposv};
    if (f == MIXT_LU)
        return lu[s](c->layout, c->n, c->nrhs, c->a, c->lda, c->ipiv, c->b, c->ldb, c->x, c->ldx,
                     c->iter);
    return spd[s](c->layout, c->uplo, c->n, c->nrhs, c->a, c->lda, c->b, c->ldb, c->x, c->ldx,
                  c->iter);
}

int mixt_call_expert(mixt_family f, mix_context *ctx, const mix_gesv_params *p,
                     const mixt_args *c, mix_gesv_info *info)
{
    if (f == MIXT_LU)
        return mix_dgesv_ir(ctx, p, c->layout, c->n, c->nrhs, c->a, c->lda, c->ipiv, c->b, c->ldb,
                            c->x, c->ldx, info);
    return mix_dposv_ir(ctx, p, c->layout, c->uplo, c->n, c->nrhs, c->a, c->lda, c->b, c->ldb,
                        c->x, c->ldx, info);
}

void mixt_check_illegal(mixt_family f, mix_context *ctx, const mixt_args *cases, size_t count,
                        const mixt_args *valid)
{
    for (const mixt_args *c = cases; c < cases + count; c++) {
        for (int s = 0; s < 4; s++) CU_ASSERT_EQUAL(mixt_call_simple(f, s, c), c->want);
        if (c->want == -11) continue; /* the expert driver has no iter */
        mix_gesv_info info = {.status = 1234};
        CU_ASSERT_EQUAL(mixt_call_expert(f, ctx, NULL, c, &info), c->want - 2);
        CU_ASSERT_EQUAL(info.status, 1234);
    }
    mix_gesv_params p;
    mix_gesv_info info;
    CU_ASSERT_EQUAL(mixt_call_expert(f, NULL, NULL, valid, &info), -1);
    for (int k = 0; mixt_bad_params(k, &p); k++)
        CU_ASSERT_EQUAL(mixt_call_expert(f, ctx, &p, valid, &info), -2);
}

void mixt_alloc_sweep(mixt_dense_job j)
{
    const size_t nn = (size_t)j.n * j.n;
    j.ctx = mixt_context();
    j.ac = mixt_dalloc(nn);
    j.x = mixt_dalloc((size_t)j.n * j.nrhs);
    j.ipiv = calloc((size_t)j.n, sizeof *j.ipiv);
    const int ld = j.layout == MIX_COL_MAJOR ? j.n : j.nrhs;
    long live0 = mixi_alloc_live();
    int st = MIX_ERR_ALLOC, k;
    for (k = 0; k < 200 && st == MIX_ERR_ALLOC; k++) {
        memcpy(j.ac, j.a, nn * sizeof *j.ac);
        mixi_alloc_fail_after(k);
        mix_gesv_info info;
        st = j.drive(&j, ld, &info);
        mixi_alloc_fail_after(-1);
        CU_ASSERT(st == MIX_ERR_ALLOC || st == MIX_SUCCESS);
        if (st == MIX_ERR_ALLOC && j.keeps_a) CU_ASSERT(memcmp(j.ac, j.a, nn * sizeof *j.ac) == 0);
        CU_ASSERT_EQUAL(mixi_alloc_live(), live0);
    }
    CU_ASSERT_EQUAL(st, MIX_SUCCESS);
    /* Several allocations were made to fail: at least the two of the leanest path, Cholesky's
     * FP64 chosen directly on a row-major call (the copies of B and X). */
    CU_ASSERT(k > 2);
    free(j.ac); free(j.x); free(j.ipiv);
    mix_context_destroy(j.ctx);
}
