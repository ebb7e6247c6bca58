/* small_calls.c: CALLS calls of one dense driver on randsvd kappa 1e2 (mode 3) of order N (the
 * Cholesky drivers: its SPD form), each on a fresh copy of A, untimed:
 * bench/small_n_callgrind.sh counts their instructions.
 *   small_calls dgesv|dsgesv|mix_dsgesv|auto|dposv|dsposv|mix_dsposv|chol_auto N CALLS
 * One call before them pays the one-time costs (default context, first touch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "mixsolve.h"
#include "matrices/generators.h"

int main(int argc, char **argv)
{
    const int n = argc == 4 ? atoi(argv[2]) : 0, calls = argc == 4 ? atoi(argv[3]) : 0;
    const char *m = argc == 4 ? argv[1] : "";
    static const char *names[8] = {"dgesv", "dsgesv", "mix_dsgesv", "auto",
                                   "dposv", "dsposv", "mix_dsposv", "chol_auto"};
    int which = -1;
    for (int w = 0; w < 8; w++)
        if (!strcmp(m, names[w])) which = w;
    if (which < 0 || n < 1 || calls < 0) {
        fprintf(stderr, "usage: small_calls dgesv|dsgesv|mix_dsgesv|auto|dposv|dsposv|"
                        "mix_dsposv|chol_auto N CALLS\n");
        return 2;
    }
    const int chol = which >= 4;
    const size_t nn = (size_t)n * n;
    double *a0 = malloc(nn * sizeof *a0), *a = malloc(nn * sizeof *a), *b = malloc(n * sizeof *b),
           *x = malloc(n * sizeof *x);
    int *ipiv = malloc(n * sizeof *ipiv), iter, st = 0;
    mix_context *ctx = NULL;
    if (!a0 || !a || !b || !x || !ipiv ||
        (chol ? mixm_gen_randsvd_spd(n, 1e2, 3, 2026, a0) : mixm_gen_randsvd(n, 1e2, 3, 2026, a0)) ||
        mix_context_create(&ctx, MIX_BACKEND_CPU))
        return 1;
    for (int k = 0; k <= calls; k++) {
        memcpy(a, a0, nn * sizeof *a);
        for (int i = 0; i < n; i++) b[i] = 1.0 + (double)(i % 7);
        switch (which) {
        case 0:
            memcpy(x, b, n * sizeof *x);
            st |= LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, a, n, ipiv, x, n);
            break;
        case 1: st |= LAPACKE_dsgesv(LAPACK_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, &iter); break;
        case 2: st |= mix_dsgesv(MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, &iter); break;
        case 3: st |= mix_dgesv_ir(ctx, NULL, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, NULL); break;
        case 4:
            memcpy(x, b, n * sizeof *x);
            st |= LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, a, n, x, n);
            break;
        case 5: st |= LAPACKE_dsposv(LAPACK_COL_MAJOR, 'L', n, 1, a, n, b, n, x, n, &iter); break;
        case 6: st |= mix_dsposv(MIX_COL_MAJOR, 'L', n, 1, a, n, b, n, x, n, &iter); break;
        default: st |= mix_dposv_ir(ctx, NULL, MIX_COL_MAJOR, 'L', n, 1, a, n, b, n, x, n, NULL);
        }
    }
    mix_context_destroy(ctx);
    free(a0), free(a), free(b), free(x), free(ipiv);
    return st != 0;
}
