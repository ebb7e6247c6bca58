/* generators.h: test and benchmark matrices (randsvd, Hilbert, random, Poisson, anisotropic, Trefethen, convection-diffusion). */
#ifndef MIXMAT_GENERATORS_H
#define MIXMAT_GENERATORS_H

#include "matrices/mixmat.h"

/* All return 0 or a MIX_ERR_* status (INVALID_ARG for bad sizes, ALLOC). Dense outputs are
 * column-major n x n with leading dimension n, in caller memory. Same seed, same matrix. */

/* randsvd (Higham's gallery('randsvd')): A = U diag(sigma) V^T with Haar-random orthogonal U, V;
 * 2-norm condition number kappa; mode 1: one large sigma (others 1/kappa), 2: one small sigma
 * (others 1), 3: geometric, 4: arithmetic, 5: random with log-uniform distribution. */
int mixm_gen_randsvd(int n, double kappa, int mode, uint64_t seed, double *a);
/* The symmetric positive definite randsvd: A = Q diag(sigma) Q^T (Q Haar-random orthogonal, the
 * modes' sigma), exactly symmetric; eigenvalues 1 ... 1/kappa. */
int mixm_gen_randsvd_spd(int n, double kappa, int mode, uint64_t seed, double *a);
int mixm_gen_hilbert(int n, double *a);
int mixm_gen_random_dense(int n, uint64_t seed, double *a); /* entries uniform in [-1, 1) */

/* Sparse SPD model problems (CSR, symmetric storage of both triangles). */
int mixm_gen_poisson2d(int nx, mixm_csr *A);            /* 5-point, n = nx^2 */
int mixm_gen_poisson3d(int nx, mixm_csr *A);            /* 7-point, n = nx^3 */
/* -u_xx - eps u_yy, 5-point; eps in (0, DBL_MAX / 2] (the diagonal 2 + 2 eps finite), else
 * MIX_ERR_INVALID_ARG. */
int mixm_gen_anisotropic2d(int nx, double eps, mixm_csr *A);
/* Trefethen_N: primes on the diagonal, ones at offsets that are powers of two (SuiteSparse's
 * Trefethen_* matrices exactly). */
int mixm_gen_trefethen(int n, mixm_csr *A);
/* General (nonsymmetric) model problems: -lap u + b . grad u on the unit square / cube, nx^2 or
 * nx^3 interior points, Dirichlet boundary, 5- / 7-point diffusion and first-order upwind
 * convection with constant velocity b, scaled by h^2 (h = 1/(nx+1)); sorted rows.  An M-matrix,
 * diagonally dominant, for any b (its unsymmetry grows with the mesh Peclet number |b| h / 2);
 * b = 0 gives mixm_gen_poisson2d/3d's matrix bit for bit.  MIX_ERR_INVALID_ARG for nx <= 0, n
 * beyond INT32_MAX, a non-finite b or a diagonal 2 dim + h sum |b_d| that overflows.
 * convdiff3d (nx, 100, 50, 25) is bench/bench_sparse_lu's problem. */
int mixm_gen_convdiff2d(int nx, double bx, double by, mixm_csr *A);
int mixm_gen_convdiff3d(int nx, double bx, double by, double bz, mixm_csr *A);

#endif
