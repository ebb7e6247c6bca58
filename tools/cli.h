/* cli.h: pieces shared by the subcommands of the mixsolve command (exit codes, option parsing). */
#ifndef MIXSOLVE_CLI_H
#define MIXSOLVE_CLI_H

#include <getopt.h>
#include "mixsolve.h"
#include "matrices/mixmat.h"
#include "matrices/mmio.h"

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

/* mixsolve solve's options and system (tools/cmd_solve.c, solve_serial.c), shared with its MPI form. */
typedef struct {
    const char *file, *rhs, *out;
    int method; /* 0 auto, 1 lu, 2 cg, 3 chol */
    mix_prec prec;
    mix_refine refine;
    mix_backend backend;
    double tol;
    long max_iter;
    int precond; /* MIX_PRECOND_* (default MIX_PRECOND_JACOBI, 1) */
    long dense_max; /* lu beyond this order: sparse LU-IR (mix_dgesv_sparse) */
    unsigned given; /* CLI_GIVEN_*: method-specific options the command line set */
} solve_opts;
#define CLI_GIVEN_REFINE 1u
#define CLI_GIVEN_PRECOND 2u
#define CLI_GIVEN_DENSE_MAX 4u
#define CLI_DENSE_MAX 16384 /* dense LU of larger matrices needs > 2 GiB */
#define CLI_SOLVE_DEFAULTS \
    {NULL, NULL, NULL, 0, MIX_PREC_AUTO, MIX_REFINE_AUTO, MIX_BACKEND_AUTO, 0, 0, 1, CLI_DENSE_MAX, 0}
/* The system as read: A, b (from --rhs or A * ones) and the solution x. */
typedef struct {
    mixm_csr A;
    mixm_mtx_header h;
    double *b, *x;
    double t_read;
} solve_problem;
/* The options and the matrix file: -1 to go on, else the exit status (--help, an error). */
int cli_solve_args(int argc, char **argv, solve_opts *o);
/* A read and checked; b (and x = 0): 0 or the exit status, its one line printed. */
int cli_solve_load_matrix(const solve_opts *o, solve_problem *p);
int cli_solve_load_rhs(const solve_opts *o, solve_problem *p);
void cli_cg_params(const solve_opts *o, mix_cg_params *prm);
/* tools/solve_serial.c: the serial command once A and b are loaded: its context, lines, method (auto's LU-IR fallback
 * included) and --out; `note` (NULL: none) printed after the right-hand side's line.  Also rank
 * 0's whole run under mpirun where auto takes LU-IR.  The exit status. */
int cli_solve_serial(const solve_opts *o, solve_problem *p, const char *note);
/* Whether auto falls back to LU-IR when CG finds A not positive definite (n within dense LU's
 * limit), and that fallback's note and run on ctx (x reset first): the exit status. */
int cli_solve_auto_falls_back(const solve_opts *o, int n);
int cli_solve_lu_instead(mix_context *ctx, const solve_opts *o, solve_problem *p);
/* --out: x written (and said) when asked for: the exit status. */
int cli_solve_write_x(const solve_opts *o, const solve_problem *p);
/* Sparse LU-IR of a general A (tools/cmd_solve_sparse.c): 0 solved, else the exit status. */
int cli_run_sparse_lu(mix_context *ctx, const solve_opts *o, const mixm_csr *A, const double *b,
                      double *x);
/* The CG run's lines on stdout (S: the matrix, for its SpMV bodies; res: recomputed here). */
void cli_report_cg(mix_context *ctx, const mix_cg_params *prm, const mix_sparse *S, int st,
                   const mix_cg_info *info, double res, double t);

#ifdef MIX_CLI_MPI
/* Built where configure found MPI (tools/cmd_solve_mpi.c): whether an MPI launcher (mpirun)
 * started this process, and `mixsolve solve` across its ranks. */
int cli_mpi_launched(void);
int cmd_solve_mpi(int argc, char **argv);
#endif

int cmd_info(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
