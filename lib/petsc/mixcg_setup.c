/* mixcg_setup.c: KSP mixcg's operator: the contexts, the conversion of the PETSc matrix into a
 * mixsolve matrix (distributed, or serial on one process while libmixsolve_mpi has no
 * distributed CG) and its cache, rebuilt when the operator or its state changes. */
#include <limits.h>
#include "lib/petsc/mixcg_petsc.h"

/* A mixsolve status as a PETSc error on comm (every rank has the same status: collective). */
#define MIXCG_CHECK(comm, st, what)                                                           \
    PetscCheck((st) == 0, comm, PETSC_ERR_LIB, "KSP mixcg: %s: %s (status %d)", what,         \
               (st) > 0 ? mix_strerror(st) : "illegal argument", (int)(st))

PetscErrorCode mixi_petsc_jacobi(KSP ksp, int *jacobi)
{
    PC pc;
    PetscBool none, jac;
    PCJacobiType jt = PC_JACOBI_DIAGONAL;
    const char *type;

    PetscFunctionBegin;
    if (((KSP_MixCG *)ksp->data)->amg) { /* -mixcg_pc amg: mixsolve preconditions itself */
        *jacobi = 0;
        PetscFunctionReturn(0);
    }
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCGetType(pc, &type));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCNONE, &none));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCJACOBI, &jac));
    if (jac) PetscCall(PCJacobiGetType(pc, &jt));
    PetscCheck(none || (jac && jt == PC_JACOBI_DIAGONAL), PetscObjectComm((PetscObject)ksp),
               PETSC_ERR_SUP,
               "KSP mixcg applies Jacobi scaling itself and accepts only -pc_type jacobi (diagonal) "
               "or -pc_type none, not %s%s (PETSc's default PC is ilu on one process and bjacobi "
               "on several: add -pc_type jacobi)",
               type ? type : "an unset PC", jac ? " of another -pc_jacobi_type" : "");
    *jacobi = jac ? 1 : 0;
    PetscFunctionReturn(0);
}

static PetscErrorCode create_contexts(KSP ksp, KSP_MixCG *mc)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);

    PetscFunctionBegin;
    if (!mc->ctx) {
        const int st = mix_context_create_mpi(&mc->ctx, mc->backend, comm);
        MIXCG_CHECK(comm, st, "mix_context_create_mpi");
    }
    PetscFunctionReturn(0);
}

/* One process, no distributed CG yet: the same rows through the serial API. */
static PetscErrorCode create_serial(KSP ksp, KSP_MixCG *mc, const mixi_petsc_csr *c)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    int32_t *col32;
    const int64_t nnz = c->rowptr[c->n_local];
    int st;

    PetscFunctionBegin;
    PetscCheck(c->n_global <= INT_MAX, comm, PETSC_ERR_SUP, "KSP mixcg: order beyond INT_MAX");
    if (!mc->serial) {
        st = mix_context_create(&mc->serial, mc->backend);
        MIXCG_CHECK(comm, st, "mix_context_create");
    }
    PetscCall(PetscMalloc1(nnz, &col32));
    for (int64_t k = 0; k < nnz; k++) col32[k] = (int32_t)c->colind[k];
    st = mix_sparse_create_csr(mc->serial, (int)c->n_global, c->rowptr, col32, c->val, &mc->A);
    PetscCall(PetscFree(col32));
    MIXCG_CHECK(comm, st, "mix_sparse_create_csr");
    mc->A_ctx = mc->serial;
    mc->distributed = PETSC_FALSE;
    PetscFunctionReturn(0);
}

static PetscErrorCode convert(KSP ksp, KSP_MixCG *mc, Mat A)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)ksp);
    PetscMPIInt size;
    mixi_petsc_csr c;

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(mixi_petsc_get_rows(A, &c));
    if (c.n_local > INT_MAX) PetscCall(mixi_petsc_free_rows(&c)); /* 64-bit PetscInt builds */
    PetscCheck(c.n_local <= INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "KSP mixcg: a rank owning more than INT_MAX rows");
    int st = mix_sparse_create_dist_csr(mc->ctx, (int)c.n_local, c.rowptr, c.colind, c.val, &mc->A);
    if (st == MIX_ERR_NOT_IMPLEMENTED && size == 1) {
        PetscCall(PetscInfo(ksp, "mix_sparse_create_dist_csr: %s; serial mixsolve matrix\n",
                            mix_strerror(st)));
        PetscCall(create_serial(ksp, mc, &c));
        st = 0;
    } else if (!st) {
        mc->A_ctx = mc->ctx;
        mc->distributed = PETSC_TRUE;
    }
    PetscCall(mixi_petsc_free_rows(&c));
    PetscCheck(st != MIX_ERR_NOT_IMPLEMENTED, comm, PETSC_ERR_SUP,
               "KSP mixcg on %d MPI processes: this libmixsolve_mpi has no distributed CG yet "
               "(mix_sparse_create_dist_csr: %s)", (int)size, mix_strerror(st));
    MIXCG_CHECK(comm, st, "mix_sparse_create_dist_csr");
    mc->n_global = c.n_global;
    mc->builds++;
    PetscFunctionReturn(0);
}

PetscErrorCode mixi_petsc_release(KSP ksp)
{
    KSP_MixCG *mc = ksp->data;

    PetscFunctionBegin;
    mix_sparse_destroy(mc->A); /* collective, like KSPReset */
    mc->A = NULL;
    mc->A_ctx = NULL;
    mc->A_id = 0;
    PetscFunctionReturn(0);
}

/* The operator KSP solves with (Amat) converted once, and again only when it is another matrix
 * or its state moved (MatSetValues, MatScale, ... all raise it). */
PetscErrorCode mixi_petsc_sync(KSP ksp)
{
    KSP_MixCG *mc = ksp->data;
    Mat A;
    PetscObjectId id;
    PetscObjectState state;

    PetscFunctionBegin;
    PetscCall(KSPGetOperators(ksp, &A, NULL));
    PetscCall(PetscObjectGetId((PetscObject)A, &id));
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    if (mc->A && id == mc->A_id && state == mc->A_state) PetscFunctionReturn(0);
    PetscCall(mixi_petsc_release(ksp));
    PetscCall(create_contexts(ksp, mc));
    PetscCall(convert(ksp, mc, A));
    mc->A_id = id;
    mc->A_state = state;
    PetscFunctionReturn(0);
}
