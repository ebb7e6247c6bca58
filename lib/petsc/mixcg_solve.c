/* mixcg_solve.c: KSPSolve for KSP mixcg: KSP's tolerances as mix_cg_params, one mix_dcg on the
 * local slices of b and x, and its report as KSP's iterations, residual norm and converged
 * reason (so -ksp_monitor, -ksp_converged_reason and KSPGetIterationNumber work). */
#include <math.h>
#include "lib/petsc/mixcg_petsc.h"

/* mix_dcg's reason as KSP's; `atol`: the absolute tolerance was the binding one. */
static KSPConvergedReason ksp_reason(int reason, PetscBool atol)
{
    switch (reason) {
    case MIX_CG_CONVERGED: return atol ? KSP_CONVERGED_ATOL : KSP_CONVERGED_RTOL;
    case MIX_CG_ZERO_RHS: return KSP_CONVERGED_ATOL;
    case MIX_CG_MAX_ITER: return KSP_DIVERGED_ITS;
    case MIX_CG_BREAKDOWN_NOT_SPD: return KSP_DIVERGED_INDEFINITE_MAT;
    case MIX_CG_BREAKDOWN_NAN:
    case MIX_CG_OUT_OF_RANGE: return KSP_DIVERGED_NANORINF;
    default: return KSP_DIVERGED_BREAKDOWN; /* stagnated at the storage's floor, no escalation */
    }
}

/* ||b - A x0|| for a nonzero initial guess (KSP's default test is relative to it), else ||b||. */
static PetscErrorCode initial_norm(KSP ksp, PetscReal bnorm, PetscReal *r0)
{
    Mat A;
    Vec w = ksp->work[0];

    PetscFunctionBegin;
    *r0 = bnorm;
    if (ksp->guess_zero) PetscFunctionReturn(0);
    PetscCall(KSPGetOperators(ksp, &A, NULL));
    PetscCall(MatMult(A, ksp->vec_sol, w));
    PetscCall(VecAYPX(w, -1.0, ksp->vec_rhs));
    PetscCall(VecNorm(w, NORM_2, r0));
    PetscFunctionReturn(0);
}

static void fill_params(const KSP ksp, const KSP_MixCG *mc, double tol, mix_cg_params *p)
{
    mix_cg_params_init(p);
    p->sloppy_prec = mc->storage;
    p->tol = tol;
    p->max_iter = (int)PetscMin(ksp->max_it, (PetscInt)INT32_MAX);
    p->delta = mc->delta;
    p->precond = mc->amg ? MIX_PRECOND_AMG : mc->jacobi ? MIX_PRECOND_JACOBI : MIX_PRECOND_NONE;
    p->x0_given = !ksp->guess_zero;
    p->escalate = mc->escalate ? 1 : 0;
    p->narrow_vectors = mc->narrow ? 1 : 0;
}

static PetscErrorCode run_dcg(KSP ksp, KSP_MixCG *mc, const mix_cg_params *p)
{
    const PetscScalar *bv;
    PetscScalar *xv;

    PetscFunctionBegin;
    PetscCall(VecGetArrayRead(ksp->vec_rhs, &bv));
    PetscCall(VecGetArray(ksp->vec_sol, &xv));
    const int st = mix_dcg(mc->A_ctx, p, mc->A, bv, xv, &mc->info);
    PetscCall(VecRestoreArray(ksp->vec_sol, &xv));
    PetscCall(VecRestoreArrayRead(ksp->vec_rhs, &bv));
    /* Not converging, breaking down on an indefinite matrix or NaN are KSP reasons; the rest
     * (illegal input, memory, MPI) are errors.  The status is the same on every rank. */
    PetscCheck(st == 0 || st == MIX_ERR_NOT_CONVERGED || st == MIX_ERR_NOT_SPD || st == MIX_ERR_NAN,
               PetscObjectComm((PetscObject)ksp), PETSC_ERR_LIB, "KSP mixcg: mix_dcg: %s (status %d)",
               st > 0 ? mix_strerror(st) : "illegal argument", st);
    PetscFunctionReturn(0);
}

PetscErrorCode mixi_petsc_solve(KSP ksp)
{
    KSP_MixCG *mc = ksp->data;
    PetscReal bnorm, r0, target;

    PetscFunctionBegin;
    PetscCall(mixi_petsc_jacobi(ksp, &mc->jacobi));
    PetscCall(mixi_petsc_sync(ksp));
    PetscCall(VecNorm(ksp->vec_rhs, NORM_2, &bnorm));
    PetscCall(initial_norm(ksp, bnorm, &r0));
    ksp->its = 0;
    ksp->rnorm = r0;
    PetscCall(KSPLogResidualHistory(ksp, r0));
    PetscCall(KSPMonitor(ksp, 0, r0));
    /* KSP's default test, ||r|| <= max(rtol ||r0||, abstol), as mix_dcg's ||r|| <= tol ||b||. */
    target = PetscMax(ksp->rtol * r0, ksp->abstol);
    if (!ksp->guess_zero && r0 <= ksp->abstol) { /* already there: no iteration */
        ksp->reason = KSP_CONVERGED_ATOL;
        PetscFunctionReturn(0);
    }
    mix_cg_params p;
    fill_params(ksp, mc, bnorm > 0 ? target / bnorm : ksp->rtol, &p);
    PetscCall(run_dcg(ksp, mc, &p));
    mc->solved = 1;
    ksp->its = mc->info.iter;
    ksp->rnorm = mc->info.true_rel_residual * bnorm;
    PetscCall(KSPLogResidualHistory(ksp, ksp->rnorm));
    PetscCall(KSPMonitor(ksp, ksp->its, ksp->rnorm));
    ksp->reason = ksp_reason(mc->info.reason, ksp->abstol > ksp->rtol * r0 ? PETSC_TRUE : PETSC_FALSE);
    PetscFunctionReturn(0);
}
