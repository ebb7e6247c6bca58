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

/* ||b - A x|| by PETSc's own product. */
static PetscErrorCode petsc_residual(KSP ksp, PetscReal *rn)
{
    Mat A;
    Vec w = ksp->work[0];

    PetscFunctionBegin;
    PetscCall(KSPGetOperators(ksp, &A, NULL));
    PetscCall(MatMult(A, ksp->vec_sol, w));
    PetscCall(VecAYPX(w, -1.0, ksp->vec_rhs));
    PetscCall(VecNorm(w, NORM_2, rn));
    PetscFunctionReturn(0);
}

/* ||b - A x0|| for a nonzero initial guess, else ||b||. */
static PetscErrorCode initial_norm(KSP ksp, PetscReal bnorm, PetscReal *r0)
{
    PetscFunctionBegin;
    *r0 = bnorm;
    if (!ksp->guess_zero) PetscCall(petsc_residual(ksp, r0));
    PetscFunctionReturn(0);
}

/* KSPConvergedDefault's context where it is the KSP's test (another test is not consulted). */
static const KSPConvergedDefaultCtx *default_test(KSP ksp)
{
    return ksp->converged == KSPConvergedDefault ? (const KSPConvergedDefaultCtx *)ksp->cnvP : NULL;
}

/* Under -ksp_converged_maxits reaching max_it is CONVERGED_ITS (a fixed iteration count, as a
 * smoother asks), as KSPConvergedDefault says it. */
static KSPConvergedReason at_max_its(KSP ksp, KSPConvergedReason r)
{
    const KSPConvergedDefaultCtx *c = default_test(ksp);

    return r == KSP_DIVERGED_ITS && c && c->convmaxits ? KSP_CONVERGED_ITS : r;
}

/* The norm rtol is relative to, as KSPConvergedDefault takes it (src/ksp/ksp/interface/
 * iterativ.c): ||b|| even for a nonzero initial guess (a good guess must not make the test
 * stricter: from the previous time step's x, rtol ||r0|| may lie below what FP64 reaches), ||r0||
 * with -ksp_converged_use_initial_residual_norm, the smaller of the two with
 * -ksp_converged_use_min_initial_residual_norm, and ||r0|| when b = 0. */
static PetscReal reference_norm(KSP ksp, PetscReal bnorm, PetscReal r0)
{
    const KSPConvergedDefaultCtx *c = default_test(ksp);

    if (ksp->guess_zero || bnorm == 0.0 || (c && c->initialrtol)) return r0;
    return c && c->mininitialrtol ? PetscMin(bnorm, r0) : bnorm;
}

/* No iteration to run: x0 already passes the test, or -ksp_max_it 0 (which mix_dcg would read as
 * its default limit). */
static PetscErrorCode no_iteration(KSP ksp, PetscReal r0, PetscReal ref)
{
    PetscFunctionBegin;
    if (ksp->guess_zero) PetscCall(VecSet(ksp->vec_sol, 0.0));
    if (r0 <= PetscMax(ksp->rtol * ref, ksp->abstol))
        ksp->reason = ksp->abstol > ksp->rtol * ref ? KSP_CONVERGED_ATOL : KSP_CONVERGED_RTOL;
    else
        ksp->reason = at_max_its(ksp, KSP_DIVERGED_ITS);
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

/* mix_dcg, then the residual KSP reports, ||b - A x|| by PETSc's product: the converted copy may
 * no longer be the operator when its product changed without raising the object state that
 * mixi_petsc_sync watches (a MATSHELL's context, a matrix's arrays written in place).  A
 * converged solve whose residual says so is converted again and goes on from x, once; a second
 * mismatch is a breakdown (*rn above 2 target, the caller's test). */
static PetscErrorCode solve_checked(KSP ksp, KSP_MixCG *mc, mix_cg_params *p, PetscReal target,
                                    PetscReal *rn)
{
    PetscFunctionBegin;
    PetscCall(run_dcg(ksp, mc, p));
    PetscCall(petsc_residual(ksp, rn));
    if (mc->info.reason != MIX_CG_CONVERGED || *rn <= 2 * target) PetscFunctionReturn(0);
    const int its = mc->info.iter;
    PetscCall(PetscInfo(ksp, "||b - A x|| %g against mix_dcg's %g: the operator changed without "
                        "a new state; converted again\n", (double)*rn, mc->info.true_rel_residual));
    PetscCall(mixi_petsc_release(ksp));
    PetscCall(mixi_petsc_sync(ksp));
    p->x0_given = 1;
    PetscCall(run_dcg(ksp, mc, p));
    mc->info.iter += its;
    PetscCall(petsc_residual(ksp, rn));
    PetscFunctionReturn(0);
}

PetscErrorCode mixi_petsc_solve(KSP ksp)
{
    KSP_MixCG *mc = ksp->data;
    PetscReal bnorm, r0, ref, target, rn;

    PetscFunctionBegin;
    PetscCall(mixi_petsc_jacobi(ksp, &mc->jacobi));
    PetscCall(mixi_petsc_sync(ksp));
    PetscCall(VecNorm(ksp->vec_rhs, NORM_2, &bnorm));
    PetscCall(initial_norm(ksp, bnorm, &r0));
    ksp->its = 0;
    ksp->rnorm = r0;
    PetscCall(KSPLogResidualHistory(ksp, r0));
    PetscCall(KSPMonitor(ksp, 0, r0));
    /* KSP's default test, ||r|| <= max(rtol ref, abstol), as mix_dcg's ||r|| <= tol ||b||. */
    ref = reference_norm(ksp, bnorm, r0);
    target = PetscMax(ksp->rtol * ref, ksp->abstol);
    if (r0 <= target || ksp->max_it <= 0) {
        PetscCall(no_iteration(ksp, r0, ref));
        PetscFunctionReturn(0);
    }
    mix_cg_params p;
    fill_params(ksp, mc, bnorm > 0 ? target / bnorm : ksp->rtol, &p);
    PetscCall(solve_checked(ksp, mc, &p, target, &rn));
    mc->solved = 1;
    ksp->its = mc->info.iter;
    ksp->rnorm = rn;
    PetscCall(KSPLogResidualHistory(ksp, ksp->rnorm));
    PetscCall(KSPMonitor(ksp, ksp->its, ksp->rnorm));
    ksp->reason = ksp_reason(mc->info.reason, ksp->abstol > ksp->rtol * ref ? PETSC_TRUE : PETSC_FALSE);
    if (ksp->reason > 0 && rn > 2 * target) ksp->reason = KSP_DIVERGED_BREAKDOWN;
    ksp->reason = at_max_its(ksp, ksp->reason);
    PetscFunctionReturn(0);
}
