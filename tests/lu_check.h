/* lu_check.h: the check of dgetrf-style factors shared by the drop-in's unit tests
 * (test_dropin.c) and its plain LAPACK client (lapack_client.c, which links no mixsolve code). */
#ifndef MIXT_LU_CHECK_H
#define MIXT_LU_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* max |P L U - A| / max |A| for column-major n x n factors lu with pivots ipiv (1-based, as
 * dgetrf's); -1 if ipiv is out of range or there is no memory. */
static inline double lu_factor_error(int n, const double *a, const double *lu, const int *ipiv)
{
    for (int i = 0; i < n; i++)
        if (ipiv[i] < i + 1 || ipiv[i] > n) return -1.0;
    double *pa = malloc((size_t)n * n * sizeof *pa), amax = 0, emax = 0;
    if (!pa) return -1.0;
    memcpy(pa, a, (size_t)n * n * sizeof *pa);
    for (int k = 0; k < n; k++) /* P^T A: the interchanges in order */
        if (ipiv[k] - 1 != k)
            for (int j = 0; j < n; j++) {
                double t = pa[k + (size_t)j * n];
                pa[k + (size_t)j * n] = pa[ipiv[k] - 1 + (size_t)j * n];
                pa[ipiv[k] - 1 + (size_t)j * n] = t;
            }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int kmax = i < j ? i : j;
            double s = i <= j ? lu[i + (size_t)j * n] : lu[i + (size_t)j * n] * lu[j + (size_t)j * n];
            for (int k = 0; k < kmax; k++) s += lu[i + (size_t)k * n] * lu[k + (size_t)j * n];
            emax = fmax(emax, fabs(s - pa[i + (size_t)j * n]));
            amax = fmax(amax, fabs(pa[i + (size_t)j * n]));
        }
    free(pa);
    return emax / amax;
}

#endif
