/* cmd_solve.c: `mixsolve solve FILE.mtx`: reads A and b, then solves on one process
 * (solve_serial.c) or, under mpirun, across the ranks (cmd_solve_mpi.c). */
#include <stdlib.h>
#include <string.h>
#include "tools/cli.h"

int cmd_solve(int argc, char **argv)
{
#ifdef MIX_CLI_MPI
    if (cli_mpi_launched()) return cmd_solve_mpi(argc, argv); /* under mpirun: across the ranks */
#endif
    solve_opts o = CLI_SOLVE_DEFAULTS;
    int rc = cli_solve_args(argc, argv, &o);
    if (rc >= 0) return rc;
    solve_problem p;
    memset(&p, 0, sizeof p);
    if (!(rc = cli_solve_load_matrix(&o, &p)) && !(rc = cli_solve_load_rhs(&o, &p)))
        rc = cli_solve_serial(&o, &p, NULL);
    mixm_csr_free(&p.A);
    free(p.b);
    free(p.x);
    return rc;
}
