/* cmd_gen.c: `mixsolve gen KIND ARGS -o FILE`: writes a generated test matrix in Matrix Market form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/cli.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

#define DENSE_MAX 16384 /* 2 GiB of doubles */

static void gen_usage(FILE *f)
{
    fprintf(f, "Usage: mixsolve gen KIND ARGS -o FILE [--seed S]\n"
               "Kinds (dense ones are written in array format, sparse ones as coordinate symmetric):\n"
               "  randsvd N KAPPA MODE   dense, 2-norm condition KAPPA; MODE 1 one large, 2 one small,\n"
               "                         3 geometric, 4 arithmetic, 5 random log-uniform singular values\n"
               "  hilbert N              dense Hilbert matrix 1/(i+j-1)\n"
               "  random N               dense, entries uniform in [-1, 1)\n"
               "  poisson2d NX           5-point Laplacian, n = NX^2 (SPD)\n"
               "  poisson3d NX           7-point Laplacian, n = NX^3 (SPD)\n"
               "  anisotropic NX EPS     -u_xx - EPS u_yy, 5-point, n = NX^2 (SPD)\n"
               "  trefethen N            SuiteSparse's Trefethen_N exactly\n"
               "A FILE ending in .gz is gzip-compressed.  --seed (default 1) for randsvd and random.\n");
}

int cmd_gen(int argc, char **argv)
{
    const char *out = NULL, *pos[4];
    int npos = 0;
    long seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (cli_is_help(argv[i])) {
            gen_usage(stdout);
            return CLI_OK;
        }
        if ((r = cli_opt(argc, argv, &i, "-o", &v)) || (r = cli_opt(argc, argv, &i, "--output", &v))) {
            if (r < 0) return CLI_USAGE;
            out = v;
        } else if ((r = cli_opt(argc, argv, &i, "--seed", &v))) {
            if (r < 0) return CLI_USAGE;
            if (!cli_parse_long(v, 0, 0x7fffffffL, &seed)) return cli_error(CLI_USAGE, "bad --seed '%s'", v);
        } else if (argv[i][0] == '-' && argv[i][1] && !(argv[i][1] >= '0' && argv[i][1] <= '9')) {
            return cli_error(CLI_USAGE, "gen: unknown option '%s' (see mixsolve gen --help)", argv[i]);
        } else if (npos < 4) {
            pos[npos++] = argv[i];
        } else {
            return cli_error(CLI_USAGE, "gen: too many arguments (see mixsolve gen --help)");
        }
    }
    if (!npos) return cli_error(CLI_USAGE, "gen: no KIND given (see mixsolve gen --help)");
    if (!out) return cli_error(CLI_USAGE, "gen: no output file given (-o FILE)");
    const char *kind = pos[0];
    static const struct { const char *name; int nargs, dense; } kinds[] = {
        {"randsvd", 3, 1}, {"hilbert", 1, 1}, {"random", 1, 1}, {"poisson2d", 1, 0},
        {"poisson3d", 1, 0}, {"anisotropic", 2, 0}, {"trefethen", 1, 0},
    };
    int k = 0;
    while (k < 7 && strcmp(kinds[k].name, kind)) k++;
    if (k == 7) return cli_error(CLI_USAGE, "gen: unknown kind '%s' (see mixsolve gen --help)", kind);
    if (npos - 1 != kinds[k].nargs)
        return cli_error(CLI_USAGE, "gen %s takes %d argument%s, got %d", kind, kinds[k].nargs,
                         kinds[k].nargs > 1 ? "s" : "", npos - 1);
    long n;
    long hi = kinds[k].dense ? DENSE_MAX : (k == 4 ? 1290 : k == 6 ? (1L << 26) : 46340);
    if (!cli_parse_long(pos[1], 1, hi, &n))
        return cli_error(CLI_USAGE, "gen %s: size '%s' must be an integer in 1..%ld", kind, pos[1], hi);
    double kappa = 0, eps = 0;
    long mode = 0;
    if (k == 0) {
        if (!cli_parse_double(pos[2], &kappa) || kappa < 1.0)
            return cli_error(CLI_USAGE, "gen randsvd: KAPPA '%s' must be a number >= 1", pos[2]);
        if (!cli_parse_long(pos[3], 1, 5, &mode))
            return cli_error(CLI_USAGE, "gen randsvd: MODE '%s' must be 1..5", pos[3]);
    }
    if (k == 5 && (!cli_parse_double(pos[2], &eps) || eps <= 0))
        return cli_error(CLI_USAGE, "gen anisotropic: EPS '%s' must be a positive number", pos[2]);

    char err[512];
    int st;
    if (kinds[k].dense) {
        mixm_dense D = {(int)n, (int)n, malloc((size_t)n * (size_t)n * sizeof(double))};
        if (!D.a) return cli_error(CLI_SOLVER_FAILED, "gen %s: out of memory for n = %ld", kind, n);
        st = k == 0 ? mixm_gen_randsvd((int)n, kappa, (int)mode, (uint64_t)seed, D.a)
           : k == 1 ? mixm_gen_hilbert((int)n, D.a)
                    : mixm_gen_random_dense((int)n, (uint64_t)seed, D.a);
        if (st) {
            mixm_dense_free(&D);
            return cli_error(st == MIX_ERR_INVALID_ARG ? CLI_USAGE : CLI_SOLVER_FAILED, "gen %s: %s", kind,
                             mix_strerror(st));
        }
        st = mixm_mtx_write_dense(out, &D, err, sizeof err);
        mixm_dense_free(&D);
    } else {
        mixm_csr A;
        memset(&A, 0, sizeof A);
        st = k == 3 ? mixm_gen_poisson2d((int)n, &A)
           : k == 4 ? mixm_gen_poisson3d((int)n, &A)
           : k == 5 ? mixm_gen_anisotropic2d((int)n, eps, &A)
                    : mixm_gen_trefethen((int)n, &A);
        if (st)
            return cli_error(st == MIX_ERR_INVALID_ARG ? CLI_USAGE : CLI_SOLVER_FAILED, "gen %s: %s", kind,
                             mix_strerror(st));
        st = mixm_mtx_write_csr(out, &A, 1, err, sizeof err);
        mixm_csr_free(&A);
    }
    if (st) return cli_error(CLI_USAGE, "%s", err[0] ? err : mix_strerror(st));
    return CLI_OK;
}
