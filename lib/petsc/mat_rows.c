/* mat_rows.c: the rows a rank owns of an assembled PETSc matrix (any type with MatGetRow, or its
 * AIJ copy) as local CSR with global columns, the input of mix_sparse_create_dist_csr. */
#include "lib/petsc/mixcg_petsc.h"

/* The matrix whose rows are read: A, or its AIJ copy where A's rows cannot be read whole.
 * PETSc 3.18's MatGetRow calls a missing method unchecked (MPISELL: a segmentation fault), and
 * SBAIJ's gives the upper triangle only (under -mat_getrow_uppertriangular; an error otherwise),
 * which would be another, non-symmetric matrix; MatConvert mirrors it. */
static PetscErrorCode rows_source(Mat A, Mat *src)
{
    PetscBool has, sbaij;

    PetscFunctionBegin;
    PetscCall(MatHasOperation(A, MATOP_GET_ROW, &has));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &sbaij, MATSEQSBAIJ, MATMPISBAIJ, ""));
    if (has && !sbaij) {
        PetscCall(PetscObjectReference((PetscObject)A));
        *src = A;
    } else {
        PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, src));
    }
    PetscFunctionReturn(0);
}

/* Whether entry (i, j) = v is kept: an explicit zero off the diagonal is dropped.  PETSc keeps
 * the zeros MatSetValues inserted; one stored on one side only would fail the distributed
 * matrix's structural symmetry check (MIX_ERR_NOT_SYMMETRIC) although it changes no product. */
static int kept(PetscInt i, PetscInt j, PetscScalar v)
{
    return i == j || PetscRealPart(v) != 0.0;
}

/* The owned rows lo..hi-1 of S into c: sizes first, then one allocation for the entries. */
static PetscErrorCode fill_rows(Mat S, PetscInt lo, PetscInt hi, mixi_petsc_csr *c)
{
    PetscInt nc;
    const PetscInt *cols;
    const PetscScalar *vals;

    PetscFunctionBegin;
    PetscCall(PetscMalloc1(c->n_local + 1, &c->rowptr));
    c->rowptr[0] = 0;
    for (PetscInt i = lo; i < hi; i++) {
        int64_t m = 0;
        PetscCall(MatGetRow(S, i, &nc, &cols, &vals));
        for (PetscInt k = 0; k < nc; k++) m += kept(i, cols[k], vals[k]);
        c->rowptr[i - lo + 1] = c->rowptr[i - lo] + m;
        PetscCall(MatRestoreRow(S, i, &nc, &cols, &vals));
    }
    const int64_t nnz = c->rowptr[c->n_local];
    PetscCall(PetscMalloc2(nnz, &c->colind, nnz, &c->val));
    for (PetscInt i = lo; i < hi; i++) {
        int64_t w = c->rowptr[i - lo];
        PetscCall(MatGetRow(S, i, &nc, &cols, &vals));
        for (PetscInt k = 0; k < nc; k++) {
            if (!kept(i, cols[k], vals[k])) continue;
            c->colind[w] = cols[k];
            c->val[w++] = PetscRealPart(vals[k]);
        }
        PetscCall(MatRestoreRow(S, i, &nc, &cols, &vals));
    }
    PetscFunctionReturn(0);
}

PetscErrorCode mixi_petsc_get_rows(Mat A, mixi_petsc_csr *c)
{
    PetscInt M, N, lo, hi;
    PetscBool assembled;
    Mat S;

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
    PetscCall(rows_source(A, &S));
    PetscCall(fill_rows(S, lo, hi, c));
    PetscCall(MatDestroy(&S));
    PetscFunctionReturn(0);
}

PetscErrorCode mixi_petsc_free_rows(mixi_petsc_csr *c)
{
    PetscFunctionBegin;
    PetscCall(PetscFree(c->rowptr));
    PetscCall(PetscFree2(c->colind, c->val));
    PetscFunctionReturn(0);
}
