/* cli.h: pieces shared by the subcommands of the mixsolve command (exit codes, option parsing). */
#ifndef MIXSOLVE_CLI_H
#define MIXSOLVE_CLI_H

#include "mixsolve.h"
#include "matrices/mixmat.h"

/* Exit statuses of the command (DESIGN.md section 4). */
enum { CLI_OK = 0, CLI_SOLVER_FAILED = 1, CLI_USAGE = 2 };

/* Prints "mixsolve: MESSAGE" as one line on stderr and returns `code`. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Option matching "--name VALUE" or "--name=VALUE": 1 and *val set (i advanced), 0 if argv[*i] is
 * not this option, -1 (message printed) when the value is missing. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **val);
int cli_is_help(const char *arg);
int cli_parse_prec(const char *s, mix_prec *p);         /* fp64 .. fixed16, auto */
int cli_parse_backend(const char *s, mix_backend *b);   /* cpu, cuda, auto */
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
