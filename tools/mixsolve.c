/* mixsolve.c: entry point of the mixsolve command: dispatches to info, solve, gen and bench. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mixsolve COMMAND [ARGS]   (mixed-precision linear solvers, version %s)\n"
            "Commands:\n"
            "  info                       version, backends, devices, native/emulated precisions\n"
            "  solve FILE.mtx [OPTIONS]   solve A x = b with LU-IR or mixed-precision CG\n"
            "  gen KIND ARGS -o FILE      write a generated test matrix (Matrix Market)\n"
            "  bench [DIR|FILE...]        benchmark every matrix x method x precision against FP64\n"
            "Run 'mixsolve COMMAND --help' for the options of a command.\n"
            "Exit status: 0 success, 1 solver failure, 2 bad usage or input.\n",
            mix_version());
}

int main(int argc, char **argv)
{
    if (argc < 2) return cli_error(CLI_USAGE, "no command given (info, solve, gen, bench; see mixsolve --help)");
    const char *cmd = argv[1];
    if (cli_is_help(cmd) || !strcmp(cmd, "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("mixsolve %s\n", mix_version());
        return CLI_OK;
    }
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "solve")) return cmd_solve(argc - 1, argv + 1);
    if (!strcmp(cmd, "gen")) return cmd_gen(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 1, argv + 1);
    return cli_error(CLI_USAGE, "unknown command '%s' (try mixsolve --help)", cmd);
}
