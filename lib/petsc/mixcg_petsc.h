/* mixcg_petsc.h: libmixsolve_petsc's internals: the state of one KSP of type mixcg and the steps
 * its files share.  Never installed; the plugin exports only its registration function. */
#ifndef MIX_PETSC_MIXCG_H
#define MIX_PETSC_MIXCG_H

#include <stdint.h>
#include <petsc/private/kspimpl.h>
#include "lib/mpi/mixsolve_mpi.h"

/* PETSc's vectors and matrices reach mix_dcg as double arrays (configure checks it too). */
#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
#error "libmixsolve_petsc needs a PETSc built with real double scalars"
#endif

/* The rows this rank owns, as CSR with global 0-based columns (ascending within a row). */
typedef struct {
    PetscInt n_local, row_start, n_global;
    int64_t *rowptr, *colind;
    double *val;
} mixi_petsc_csr;

typedef struct {
    /* Options (-mixcg_*). */
    mix_prec storage;
    mix_backend backend;
    double delta;
    PetscBool escalate, narrow;
    PetscBool amg;           /* -mixcg_pc amg: mixsolve's multigrid, PETSc's PC unused */
    /* The contexts: over the KSP's communicator, and a serial one for the one-process fallback
     * while libmixsolve_mpi has no distributed CG (mix_sparse_create_dist_csr answering
     * MIX_ERR_NOT_IMPLEMENTED). */
    mix_context *ctx, *serial;
    /* The cached operator: whose (PetscObjectId) at which state, in which context. */
    mix_sparse *A;
    mix_context *A_ctx;
    PetscObjectId A_id;
    PetscObjectState A_state;
    PetscInt n_global;
    PetscBool distributed;
    int builds;              /* conversions so far (KSPView) */
    mix_cg_info info;        /* of the last solve (KSPView) */
    int jacobi, solved;
} KSP_MixCG;

/* mat_rows.c */
PetscErrorCode mixi_petsc_get_rows(Mat A, mixi_petsc_csr *c);
PetscErrorCode mixi_petsc_free_rows(mixi_petsc_csr *c);
/* mixcg_setup.c: the matrix converted again when the operator or its state changed. */
PetscErrorCode mixi_petsc_sync(KSP ksp);
PetscErrorCode mixi_petsc_release(KSP ksp);
PetscErrorCode mixi_petsc_jacobi(KSP ksp, int *jacobi);
/* mixcg_solve.c */
PetscErrorCode mixi_petsc_solve(KSP ksp);

#endif
