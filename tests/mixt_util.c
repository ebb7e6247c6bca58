/* mixt_util.c: what the suites share: contexts, allocation, temporary files, random data and the FP64 re-checks. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "tests/mixt.h"
#include "lib/mix_internal.h"

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

/* ---- FP64 re-checks ------------------------------------------------------------------------- */

double mixt_berr_bound(int n) { return 4.0 * DBL_EPSILON * sqrt((double)n); }

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
