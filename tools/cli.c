/* cli.c: pieces shared by the subcommands of the mixsolve command (messages, option parsing, the SPD test). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/cli.h"

int cli_error(int code, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *c = line; *c; c++) /* one line, whatever the message contains */
        if (*c == '\n') *c = ' ';
    fprintf(stderr, "mixsolve: %s\n", line);
    return code;
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n)) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n]) return 0;
    if (*i + 1 >= argc) {
        cli_error(CLI_USAGE, "option %s needs a value (see --help)", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int cli_is_help(const char *arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

int cli_parse_prec(const char *s, mix_prec *p)
{
    if (!strcmp(s, "auto")) {
        *p = MIX_PREC_AUTO;
        return 1;
    }
    for (int k = 0; k < MIX_NUM_PREC; k++)
        if (!strcmp(s, mix_prec_name((mix_prec)k))) {
            *p = (mix_prec)k;
            return 1;
        }
    return 0;
}

int cli_parse_backend(const char *s, mix_backend *b)
{
    if (!strcmp(s, mix_backend_name(MIX_BACKEND_AUTO))) {
        *b = MIX_BACKEND_AUTO;
        return 1;
    }
    mix_backend all[16];
    const int n = mix_backend_list(all, 16);
    for (int k = 0; k < n && k < 16; k++)
        if (!strcmp(s, mix_backend_name(all[k]))) {
            *b = all[k];
            return 1;
        }
    return 0;
}

int cli_parse_long(const char *s, long lo, long hi, long *v)
{
    char *e;
    errno = 0;
    long x = strtol(s, &e, 10);
    if (e == s || *e || errno || x < lo || x > hi) return 0;
    *v = x;
    return 1;
}

int cli_parse_double(const char *s, double *v)
{
    char *e;
    errno = 0;
    double x = strtod(s, &e);
    if (e == s || *e || errno || !isfinite(x)) return 0;
    *v = x;
    return 1;
}

/* A(i, j) by binary search in the sorted row i; 0 when not stored. */
static double entry(const mixm_csr *A, int i, int j)
{
    int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->colind[mid] == j) return A->val[mid];
        if (A->colind[mid] < j) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0.0;
}

int cli_spd_candidate(const mixm_csr *A)
{
    if (A->nrows != A->ncols) return 0;
    for (int i = 0; i < A->nrows; i++)
        if (!(entry(A, i, i) > 0)) return 0;
    for (int i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] != i && entry(A, A->colind[k], i) != A->val[k]) return 0;
    return 1;
}
