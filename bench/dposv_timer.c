/* dposv_timer.c: an unmodified LAPACK program timing dposv_ (linked with -llapack only), for
 * bench/bench_dposv_dropin.sh to run with and without the drop-in preloaded.
 *   dposv_timer N [DIAG]   SPD A = symmetric uniform [-1, 1] + DIAG sqrt(N) on the diagonal
 *                          (default 2.5: kappa ~ 4), one right-hand side, UPLO = 'L'.
 * Prints "first best berr": the first call (the drop-in's setup included), the best of 3 more
 * (seconds), and the backward error of the last X. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, int *info, size_t uplo_len);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0, one = 1, info = 0;
    double diag = argc > 2 ? atof(argv[2]) : 2.5;
    if (n < 1) {
        fprintf(stderr, "usage: dposv_timer N [DIAG]\n");
        return 2;
    }
    size_t nn = (size_t)n * n;
    double *a0 = malloc(nn * sizeof *a0), *a = malloc(nn * sizeof *a),
           *b0 = malloc((size_t)n * sizeof *b0), *x = malloc((size_t)n * sizeof *x);
    if (!a0 || !a || !b0 || !x) return 2;
    unsigned long s = 88172645463325252UL; /* xorshift: reproducible */
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            double v = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
            if (i == j) v = diag * sqrt((double)n);
            a0[i + (size_t)j * n] = a0[j + (size_t)i * n] = v;
        }
    for (int i = 0; i < n; i++) b0[i] = cos(i);
    double first = 0, best = INFINITY;
    for (int k = 0; k < 4; k++) {
        memcpy(a, a0, nn * sizeof *a);
        memcpy(x, b0, (size_t)n * sizeof *x);
        double t = now();
        dposv_("L", &n, &one, a, &n, x, &n, &info, 1);
        t = now() - t;
        if (info) {
            fprintf(stderr, "dposv_timer: INFO = %d\n", info);
            return 1;
        }
        if (k == 0) first = t;
        else if (t < best) best = t;
    }
    double anrm = 0, rn = 0, xn = 0, bn = 0;
    for (int i = 0; i < n; i++) {
        double r = b0[i], row = 0;
        for (int j = 0; j < n; j++) {
            r -= a0[i + (size_t)j * n] * x[j];
            row += fabs(a0[i + (size_t)j * n]);
        }
        anrm = fmax(anrm, row);
        rn = fmax(rn, fabs(r));
        xn = fmax(xn, fabs(x[i]));
        bn = fmax(bn, fabs(b0[i]));
    }
    printf("%.4f %.4f %.2e\n", first, best, rn / (anrm * xn + bn));
    free(a0), free(a), free(b0), free(x);
    return 0;
}
