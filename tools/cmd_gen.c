/* cmd_gen.c: `mixsolve gen KIND ARGS -o FILE`: writes a generated test matrix in Matrix Market form. */
#include <errno.h>
#include <float.h>
#include <math.h>
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
               "Kinds (dense ones are written in array format, sparse ones as coordinate symmetric,\n"
               "convdiff as coordinate general):\n"
               "  randsvd N KAPPA MODE   dense, 2-norm condition KAPPA; MODE 1 one large, 2 one small,\n"
               "                         3 geometric, 4 arithmetic, 5 random log-uniform singular values\n"
               "  hilbert N              dense Hilbert matrix 1/(i+j-1)\n"
               "  random N               dense, entries uniform in [-1, 1)\n"
               "  poisson2d NX           5-point Laplacian, n = NX^2 (SPD)\n"
               "  poisson3d NX           7-point Laplacian, n = NX^3 (SPD)\n"
               "  anisotropic NX EPS     -u_xx - EPS u_yy, 5-point, n = NX^2 (SPD), EPS in (0, 8.99e307]\n"
               "  trefethen N            SuiteSparse's Trefethen_N exactly\n"
               "  convdiff2d NX BX BY    -lap u + b . grad u, upwind, n = NX^2, velocity b = (BX, BY)\n"
               "  convdiff3d NX BX BY BZ the same on the unit cube, n = NX^3 (unsymmetric M-matrices)\n"
               "A FILE ending in .gz is gzip-compressed.  --seed (default 1) for randsvd and random.\n");
}

/* What the command line asks for. */
typedef struct {
    const char *out, *pos[5]; /* pos: KIND and its arguments */
    int npos;
    long seed;
} gen_opts;

/* The kinds, in the order gen_write's choices below rely on. */
enum { GEN_RANDSVD, GEN_HILBERT, GEN_RANDOM, GEN_POISSON2D, GEN_POISSON3D, GEN_ANISOTROPIC, GEN_TREFETHEN,
       GEN_CONVDIFF2D, GEN_CONVDIFF3D, GEN_KINDS };
static const struct { const char *name; int nargs, dense; long n_max; } kinds[GEN_KINDS] = {
    {"randsvd", 3, 1, DENSE_MAX}, {"hilbert", 1, 1, DENSE_MAX}, {"random", 1, 1, DENSE_MAX},
    {"poisson2d", 1, 0, 46340},   {"poisson3d", 1, 0, 1290},    {"anisotropic", 2, 0, 46340},
    {"trefethen", 1, 0, 1L << 26}, {"convdiff2d", 3, 0, 46340}, {"convdiff3d", 4, 0, 1290},
};

/* What the arguments after KIND say (those of the kind chosen). */
typedef struct {
    long n, mode;
    double kappa, eps, b[3]; /* b: convdiff's velocity */
} gen_params;

/* anisotropic's EPS: a number in (0, DBL_MAX / 2], so that the diagonal 2 + 2 EPS is finite
 * (1e308 wrote an `inf` that the reader refuses); a subnormal EPS is kept, as the reader keeps
 * one.  -1 to go on, else the exit status (said). */
static int parse_eps(const char *s, double *eps)
{
    char *e;
    errno = 0;
    const double x = strtod(s, &e);
    if (e == s || *e || isnan(x))
        return cli_error(CLI_USAGE, "gen anisotropic: EPS '%s' is not a number", s);
    if (x == 0.0 && errno == ERANGE)
        return cli_error(CLI_USAGE, "gen anisotropic: EPS '%s' underflows FP64 to 0", s);
    if (!(x > 0.0 && x <= DBL_MAX / 2))
        return cli_error(CLI_USAGE, "gen anisotropic: EPS '%s' must be a number in (0, %.6g] "
                         "(the diagonal 2 + 2 EPS must be finite in FP64)", s, DBL_MAX / 2);
    *eps = x;
    return -1;
}

/* -1 to go on, else the exit status (--help, an error). */
static int gen_args(int argc, char **argv, gen_opts *g)
{
    enum { OPT_SEED = 256 };
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"seed", required_argument, NULL, OPT_SEED},
                                             {NULL, 0, NULL, 0}};
    cli_args args;
    cli_args_init(&args, argc, argv, "ho:", longopts);
    args.numbers_are_args = 1; /* "gen poisson2d -3": a bad size, said as such */
    const char *v;
    for (int c; (c = cli_next(&args, &v)) != CLI_ARGS_END;) {
        switch (c) {
        case 'h':
            gen_usage(stdout);
            return CLI_OK;
        case 'o':
            g->out = v;
            break;
        case OPT_SEED:
            if (!cli_parse_long(v, 0, 0x7fffffffL, &g->seed)) return cli_error(CLI_USAGE, "bad --seed '%s'", v);
            break;
        case CLI_ARGS_POSITIONAL:
            if (g->npos == 5) return cli_error(CLI_USAGE, "gen: too many arguments (see mixsolve gen --help)");
            g->pos[g->npos++] = v;
            break;
        case CLI_ARGS_UNKNOWN:
            return cli_error(CLI_USAGE, "gen: unknown option '%s' (see mixsolve gen --help)", v);
        default: /* CLI_ARGS_ERROR: said */
            return CLI_USAGE;
        }
    }
    if (!g->npos) return cli_error(CLI_USAGE, "gen: no KIND given (see mixsolve gen --help)");
    if (!g->out) return cli_error(CLI_USAGE, "gen: no output file given (-o FILE)");
    return -1;
}

/* The sparse kind k (arguments checked) into A: the generator's status. */
static int gen_sparse(int k, const gen_params *a, mixm_csr *A)
{
    const int n = (int)a->n;
    switch (k) {
    case GEN_POISSON2D: return mixm_gen_poisson2d(n, A);
    case GEN_POISSON3D: return mixm_gen_poisson3d(n, A);
    case GEN_ANISOTROPIC: return mixm_gen_anisotropic2d(n, a->eps, A);
    case GEN_CONVDIFF2D: return mixm_gen_convdiff2d(n, a->b[0], a->b[1], A);
    case GEN_CONVDIFF3D: return mixm_gen_convdiff3d(n, a->b[0], a->b[1], a->b[2], A);
    default: return mixm_gen_trefethen(n, A);
    }
}

/* Generates kind k (arguments checked) and writes it: the exit status. */
static int gen_write(const gen_opts *g, int k, const gen_params *a)
{
    const char *kind = kinds[k].name;
    const long n = a->n;
    char err[512] = "";
    int st, wst = 0; /* the generator's status, the writer's */
    if (kinds[k].dense) {
        mixm_dense D = {(int)n, (int)n, malloc((size_t)n * (size_t)n * sizeof(double))};
        if (!D.a) return cli_error(CLI_SOLVER_FAILED, "gen %s: out of memory for n = %ld", kind, n);
        st = k == GEN_RANDSVD ? mixm_gen_randsvd((int)n, a->kappa, (int)a->mode, (uint64_t)g->seed, D.a)
           : k == GEN_HILBERT ? mixm_gen_hilbert((int)n, D.a)
                              : mixm_gen_random_dense((int)n, (uint64_t)g->seed, D.a);
        if (!st) wst = mixm_mtx_write_dense(g->out, &D, err, sizeof err);
        mixm_dense_free(&D);
    } else {
        mixm_csr A;
        memset(&A, 0, sizeof A);
        st = gen_sparse(k, a, &A);
        const int general = k == GEN_CONVDIFF2D || k == GEN_CONVDIFF3D;
        if (!st) wst = mixm_mtx_write_csr(g->out, &A, !general, err, sizeof err);
        mixm_csr_free(&A);
        if (general && st == MIX_ERR_INVALID_ARG) /* the velocities are finite: the diagonal overflowed */
            return cli_error(CLI_USAGE, "gen %s: velocity too large for NX %ld: the diagonal "
                             "2 dim + h sum |b_d| (h = 1/(NX+1)) overflows FP64", kind, n);
    }
    if (st)
        return cli_error(st == MIX_ERR_INVALID_ARG ? CLI_USAGE : CLI_SOLVER_FAILED, "gen %s: %s", kind, mix_strerror(st));
    if (wst) return cli_error(CLI_USAGE, "%s", err[0] ? err : mix_strerror(wst));
    return CLI_OK;
}

/* KIND's arguments after NX into *a: -1 to go on, else the exit status (said). */
static int gen_kind_args(const gen_opts *g, int k, gen_params *a)
{
    int rc;
    if (k == GEN_RANDSVD) {
        if (!cli_parse_double(g->pos[2], &a->kappa) || a->kappa < 1.0)
            return cli_error(CLI_USAGE, "gen randsvd: KAPPA '%s' must be a number >= 1", g->pos[2]);
        if (!cli_parse_long(g->pos[3], 1, 5, &a->mode))
            return cli_error(CLI_USAGE, "gen randsvd: MODE '%s' must be 1..5", g->pos[3]);
    }
    if (k == GEN_ANISOTROPIC && (rc = parse_eps(g->pos[2], &a->eps)) >= 0) return rc;
    for (int d = 0; d < kinds[k].nargs - 1 && (k == GEN_CONVDIFF2D || k == GEN_CONVDIFF3D); d++)
        if (!cli_parse_double(g->pos[2 + d], &a->b[d]))
            return cli_error(CLI_USAGE, "gen %s: velocity '%s' must be a finite number", kinds[k].name, g->pos[2 + d]);
    return -1;
}

int cmd_gen(int argc, char **argv)
{
    gen_opts g = {NULL, {NULL}, 0, 1};
    int rc = gen_args(argc, argv, &g);
    if (rc >= 0) return rc;
    const char *kind = g.pos[0];
    int k = 0;
    while (k < GEN_KINDS && strcmp(kinds[k].name, kind)) k++;
    if (k == GEN_KINDS) return cli_error(CLI_USAGE, "gen: unknown kind '%s' (see mixsolve gen --help)", kind);
    if (g.npos - 1 != kinds[k].nargs)
        return cli_error(CLI_USAGE, "gen %s takes %d argument%s, got %d", kind, kinds[k].nargs,
                         kinds[k].nargs > 1 ? "s" : "", g.npos - 1);
    gen_params a;
    memset(&a, 0, sizeof a);
    if (!cli_parse_long(g.pos[1], 1, kinds[k].n_max, &a.n))
        return cli_error(CLI_USAGE, "gen %s: size '%s' must be an integer in 1..%ld", kind, g.pos[1], kinds[k].n_max);
    if ((rc = gen_kind_args(&g, k, &a)) >= 0) return rc;
    return gen_write(&g, k, &a);
}
