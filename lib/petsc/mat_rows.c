/* mat_rows.c: the rows a rank owns of an assembled PETSc matrix (AIJ, or any type with MatGetRow)
 * as local CSR with global columns, the input of mix_sparse_create_dist_csr. */
#include "lib/petsc/mixcg_petsc.h"

PetscErrorCode mixi_petsc_get_rows(Mat A, mixi_petsc_csr *c)
{
    PetscInt M, N, lo, hi, nc;
    const PetscInt *cols;
    const PetscScalar *vals;
    PetscBool assembled;

    PetscFunctionBegin;
    PetscCall(PetscMemzero(c, sizeof *c));
    PetscCall(MatGetSize(A, &M, &N));
    PetscCheck(M == N, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ,
               "KSP mixcg needs a square operator, not %" PetscInt_FMT " x %" PetscInt_FMT, M, N);
    PetscCall(MatAssembled(A, &assembled));
    PetscCheck(assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE,
               "KSP mixcg needs an assembled operator");
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    c->n_local = hi - lo;
    c->row_start = lo;
    c->n_global = M;
    PetscCall(PetscMalloc1(c->n_local + 1, &c->rowptr));
    c->rowptr[0] = 0;
    for (PetscInt i = lo; i < hi; i++) { /* sizes first: one allocation for the entries */
        PetscCall(MatGetRow(A, i, &nc, NULL, NULL));
        c->rowptr[i - lo + 1] = c->rowptr[i - lo] + nc;
        PetscCall(MatRestoreRow(A, i, &nc, NULL, NULL));
    }
    const int64_t nnz = c->rowptr[c->n_local];
    PetscCall(PetscMalloc2(nnz, &c->colind, nnz, &c->val));
    for (PetscInt i = lo; i < hi; i++) {
        const int64_t k0 = c->rowptr[i - lo];
        PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
        for (PetscInt k = 0; k < nc; k++) {
            c->colind[k0 + k] = cols[k];
            c->val[k0 + k] = PetscRealPart(vals[k]);
        }
        PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
    }
    PetscFunctionReturn(0);
}

PetscErrorCode mixi_petsc_free_rows(mixi_petsc_csr *c)
{
    PetscFunctionBegin;
    PetscCall(PetscFree(c->rowptr));
    PetscCall(PetscFree2(c->colind, c->val));
    PetscFunctionReturn(0);
}
