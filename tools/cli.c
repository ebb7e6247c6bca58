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

void cli_args_init(cli_args *a, int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->shortopts = shortopts;
    a->longopts = longopts;
    optind = 0; /* glibc restarts: a process may parse more than once (tests/fuzz_solve.c) */
    opterr = 0; /* the messages are ours: one line "mixsolve: ..." */
}

/* "--NAME" for a long option typed as given or abbreviated, else the short option as typed. */
static const char *option_name(const cli_args *a, const char *typed, char *buf, size_t len)
{
    if (!strncmp(typed, "--", 2))
        for (const struct option *o = a->longopts; o->name; o++)
            if (o->val == optopt) {
                snprintf(buf, len, "--%s", o->name);
                return buf;
            }
    return typed;
}

/* A "--NAME[=VALUE]" that abbreviates more than one long option: getopt_long answers '?' as for
 * an unknown one, and "unknown option '--pre'" told the user nothing of --prec and --precond.
 * Says so (one line) and returns 1; 0 when `typed` is no such prefix. */
static int ambiguous(const cli_args *a, const char *typed)
{
    if (strncmp(typed, "--", 2) != 0) return 0;
    const char *name = typed + 2, *eq = strchr(name, '=');
    const size_t len = eq ? (size_t)(eq - name) : strlen(name);
    char list[256] = "";
    int hits = 0;
    for (const struct option *o = a->longopts; o->name && len > 0; o++) {
        if (strncmp(o->name, name, len) != 0) continue;
        if (strlen(o->name) == len) return 0; /* exact: not ambiguous */
        const size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s--%s", hits++ ? ", " : "", o->name);
    }
    if (hits < 2) return 0;
    cli_error(CLI_USAGE, "option '%.*s' is ambiguous (%s)", (int)(len + 2), typed, list);
    return 1;
}

int cli_next(cli_args *a, const char **val)
{
    int cur = optind ? optind : 1; /* the element getopt looks at next */
    if (a->only_args || (a->numbers_are_args && cur < a->argc && a->argv[cur][0] == '-' &&
                         a->argv[cur][1] >= '0' && a->argv[cur][1] <= '9')) {
        if (cur >= a->argc) return CLI_ARGS_END;
        optind = cur + 1;
        *val = a->argv[cur];
        return CLI_ARGS_POSITIONAL;
    }
    /* '-': arguments come back in order as option 1; ':': a missing value is ':', not '?'. */
    char opts[64];
    snprintf(opts, sizeof opts, "-:%s", a->shortopts);
    const int c = getopt_long(a->argc, a->argv, opts, a->longopts, NULL);
    switch (c) {
    case -1: /* the end, or "--": what follows are arguments */
        if (optind >= a->argc) return CLI_ARGS_END;
        a->only_args = 1;
        return cli_next(a, val);
    case 1:
        *val = optarg;
        return CLI_ARGS_POSITIONAL;
    case '?':
        *val = a->argv[cur];
        return ambiguous(a, *val) ? CLI_ARGS_ERROR : CLI_ARGS_UNKNOWN;
    case ':': {
        char buf[128];
        cli_error(CLI_USAGE, "option %s needs a value (see --help)",
                  option_name(a, a->argv[optind - 1], buf, sizeof buf));
        return CLI_ARGS_ERROR;
    }
    default:
        *val = optarg;
        return c;
    }
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

int cli_precs(mix_prec_role role, int low, int with_auto, mix_prec *out)
{
    mix_prec all[MIX_CAPS_PREC_SLOTS];
    int n = 0;
    const int m = mix_prec_list(role, all, MIX_CAPS_PREC_SLOTS);
    for (int k = 0; k < m && k < MIX_CAPS_PREC_SLOTS; k++)
        if (!low || all[k] != MIX_FP64) out[n++] = all[k];
    if (with_auto) out[n++] = MIX_PREC_AUTO;
    return n;
}

static void append(char *buf, size_t len, const char *name)
{
    const size_t used = strlen(buf);
    if (used < len) snprintf(buf + used, len - used, "%s%s", used ? "|" : "", name);
}

int cli_prec_has(mix_prec_role role, mix_prec p)
{
    mix_prec all[CLI_MAX_PRECS];
    const int n = cli_precs(role, 0, 1, all);
    for (int k = 0; k < n; k++)
        if (all[k] == p) return 1;
    return 0;
}

const char *cli_prec_choices(mix_prec_role role, char *buf, size_t len)
{
    mix_prec p[CLI_MAX_PRECS];
    const int n = cli_precs(role, 0, 1, p);
    buf[0] = 0;
    for (int k = 0; k < n; k++) append(buf, len, mix_prec_name(p[k]));
    return buf;
}

const char *cli_backend_choices(char *buf, size_t len)
{
    mix_backend all[16];
    const int n = mix_backend_list(all, 16);
    buf[0] = 0;
    for (int k = 0; k < n && k < 16; k++) append(buf, len, mix_backend_name(all[k]));
    append(buf, len, mix_backend_name(MIX_BACKEND_AUTO));
    return buf;
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
