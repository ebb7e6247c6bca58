/* cli.h: pieces shared by the subcommands of the mixsolve command (exit codes, option parsing). */
#ifndef MIXSOLVE_CLI_H
#define MIXSOLVE_CLI_H

#include <getopt.h>
#include "mixsolve.h"
#include "matrices/mixmat.h"

/* Exit statuses of the command (doc/DESIGN.md section 4). */
enum { CLI_OK = 0, CLI_SOLVER_FAILED = 1, CLI_USAGE = 2 };

/* Prints "mixsolve: MESSAGE" as one line on stderr and returns `code`. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The arguments of one subcommand (argv[0] is its name), read in order by getopt_long: options
 * anywhere, "--" ends them.  Long options take "--name VALUE" or "--name=VALUE" (or an unambiguous
 * prefix of the name); every subcommand has --help / -h. */
typedef struct {
    int argc;
    char **argv;
    const char *shortopts;         /* getopt's, e.g. "ho:" */
    const struct option *longopts; /* terminated by a zero entry */
    int numbers_are_args;          /* "-5" is an argument (a value gen refuses itself), not an option */
    int only_args;                 /* set after "--" */
} cli_args;
/* What cli_next returns besides an option's `val` (or short option character). */
enum {
    CLI_ARGS_END = -1,     /* nothing left */
    CLI_ARGS_POSITIONAL = -2, /* *val is an argument that is not an option */
    CLI_ARGS_UNKNOWN = -3, /* *val is an unknown option, as given: the caller says so (one line) */
    CLI_ARGS_ERROR = -4    /* a value is missing: the one stderr line is printed */
};
void cli_args_init(cli_args *a, int argc, char **argv, const char *shortopts, const struct option *longopts);
int cli_next(cli_args *a, const char **val);
int cli_is_help(const char *arg); /* "--help" or "-h" */
int cli_parse_prec(const char *s, mix_prec *p);         /* fp64 .. fixed16, auto */
int cli_parse_backend(const char *s, mix_backend *b);   /* cpu, cuda, auto */
/* The library's precisions of a role (mix_prec_list) in its order, FP64 first (left out when
 * `low`), then MIX_PREC_AUTO when `with_auto`; the count (out holds CLI_MAX_PRECS). */
#define CLI_MAX_PRECS (MIX_CAPS_PREC_SLOTS + 1)
int cli_precs(mix_prec_role role, int low, int with_auto, mix_prec *out);
/* "fp64|fp32|...|auto" and "cpu|cuda|auto" for usage lines, from the library's lists (buf). */
const char *cli_prec_choices(mix_prec_role role, char *buf, size_t len);
int cli_prec_has(mix_prec_role role, mix_prec p); /* p is of the role, or MIX_PREC_AUTO */
const char *cli_backend_choices(char *buf, size_t len);
int cli_parse_long(const char *s, long lo, long hi, long *v);
int cli_parse_double(const char *s, double *v);         /* finite */

/* Square, numerically symmetric (an entry missing on one side counts as 0) and with a positive
 * diagonal: the matrices CG is tried on.  Rows must be sorted (the reader and generators do so);
 * O(nnz log(row length)). */
int cli_spd_candidate(const mixm_csr *A);

int cmd_info(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
