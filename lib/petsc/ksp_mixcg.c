/* ksp_mixcg.c: the KSP type "mixcg" (mixsolve's reliable-update mixed-precision CG, mix_dcg(3))
 * and the registration PETSc runs when it opens libmixsolve_petsc.so with -dll_append: for a
 * library [path/]libNAME.so, PetscDLLibraryOpen looks up and calls PetscDLLibraryRegister_NAME
 * (src/sys/dll/dl.c), here PetscDLLibraryRegister_mixsolve_petsc. */
#include <string.h>
#include "lib/petsc/mixcg_petsc.h"

#define MIXCG_MAX_NAMES 8

/* -mixcg_storage's choices: the library's CG storages and AUTO, named by mix_prec_name, so they
 * are the CLI's and Python's. */
#define MIXCG_MAX_STORAGES 16

static int storage_list(mix_prec *list)
{
    int n = mix_prec_list(MIX_ROLE_STORAGE, list, MIXCG_MAX_STORAGES - 1);
    if (n > MIXCG_MAX_STORAGES - 1) n = MIXCG_MAX_STORAGES - 1;
    list[n] = MIX_PREC_AUTO;
    return n + 1;
}

/* -mixcg_backend's names from the library's registry (auto first). */
static int backend_names(mix_backend *list, const char **names)
{
    int n = mix_backend_list(list + 1, MIXCG_MAX_NAMES - 1);
    if (n > MIXCG_MAX_NAMES - 1) n = MIXCG_MAX_NAMES - 1;
    list[0] = MIX_BACKEND_AUTO;
    for (int i = 0; i <= n; i++) names[i] = mix_backend_name(list[i]);
    return n + 1;
}

static PetscErrorCode KSPSetFromOptions_MixCG(KSP ksp, PetscOptionItems *PetscOptionsObject)
{
    KSP_MixCG *mc = ksp->data;
    const char *snames[MIXCG_MAX_STORAGES], *bnames[MIXCG_MAX_NAMES];
    mix_prec storages[MIXCG_MAX_STORAGES];
    mix_backend blist[MIXCG_MAX_NAMES];
    const int ns = storage_list(storages), nb = backend_names(blist, bnames);
    PetscInt si = 0, bi = 0;

    PetscFunctionBegin;
    for (int i = 0; i < ns; i++) {
        snames[i] = mix_prec_name(storages[i]);
        if (storages[i] == mc->storage) si = i;
    }
    for (int i = 0; i < nb; i++)
        if (blist[i] == mc->backend) bi = i;
    PetscOptionsHeadBegin(PetscOptionsObject, "KSP mixcg options (mixsolve's mixed-precision CG)");
    PetscCall(PetscOptionsEList("-mixcg_storage", "Storage precision of the matrix in the sloppy "
                                "iterations", "mix_dcg", snames, ns, snames[si], &si, NULL));
    PetscCall(PetscOptionsEList("-mixcg_backend", "mixsolve backend", "mix_context_create",
                                bnames, nb, bnames[bi], &bi, NULL));
    PetscCall(PetscOptionsReal("-mixcg_delta", "Reliable-update threshold", "mix_dcg", mc->delta,
                               &mc->delta, NULL));
    PetscCall(PetscOptionsBool("-mixcg_escalate", "Go on in a wider storage when one stagnates",
                               "mix_dcg", mc->escalate, &mc->escalate, NULL));
    PetscCall(PetscOptionsBool("-mixcg_narrow_vectors", "16-bit sloppy vectors too (QUDA's half)",
                               "mix_dcg", mc->narrow, &mc->narrow, NULL));
    /* pc: what -pc_type says (jacobi or none); amg: mixsolve's multigrid V-cycle. */
    const char *pcs[2] = {"pc", "amg"};
    PetscInt pi = mc->amg ? 1 : 0;
    PetscCall(PetscOptionsEList("-mixcg_pc", "Preconditioner: pc (-pc_type jacobi or none) or amg "
                                "(mixsolve's smoothed-aggregation multigrid)", "mix_dcg", pcs, 2,
                                pcs[pi], &pi, NULL));
    mc->amg = pi == 1 ? PETSC_TRUE : PETSC_FALSE;
    PetscOptionsHeadEnd();
    mc->storage = storages[si];
    if (blist[bi] != mc->backend && (mc->ctx || mc->serial)) { /* a new backend: new contexts */
        PetscCall(mixi_petsc_release(ksp));
        mix_context_destroy(mc->ctx);
        mix_context_destroy(mc->serial);
        mc->ctx = mc->serial = NULL;
    }
    mc->backend = blist[bi];
    PetscFunctionReturn(0);
}

static PetscErrorCode view_stages(PetscViewer v, const mix_cg_info *in)
{
    PetscFunctionBegin;
    PetscCall(PetscViewerASCIIPrintf(v, "last solve: %d iterations, %d reliable updates, true "
                                     "relative residual %g, setup %g s, solve %g s; stages:",
                                     in->iter, in->reliable_updates, in->true_rel_residual,
                                     in->t_setup, in->t_solve));
    PetscCall(PetscViewerASCIIUseTabs(v, PETSC_FALSE));
    for (int s = 0; s < in->stages && s < MIX_CG_MAX_STAGES; s++)
        PetscCall(PetscViewerASCIIPrintf(v, " %s (%d it)", mix_prec_name(in->stage_prec[s]),
                                         in->stage_iter[s]));
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    PetscCall(PetscViewerASCIIUseTabs(v, PETSC_TRUE));
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_MixCG(KSP ksp, PetscViewer v)
{
    KSP_MixCG *mc = ksp->data;
    PetscBool ascii;

    PetscFunctionBegin;
    PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &ascii));
    if (!ascii) PetscFunctionReturn(0);
    PetscCall(PetscViewerASCIIPrintf(v, "mixsolve %s, storage %s, backend %s, preconditioner %s, "
                                     "delta %g, escalate %s\n", mix_version(),
                                     mix_prec_name(mc->storage),
                                     mc->A_ctx ? mix_backend_name(mix_context_backend(mc->A_ctx))
                                               : mix_backend_name(mc->backend),
                                     mc->amg ? "AMG" : mc->jacobi ? "Jacobi" : "none", mc->delta,
                                     mc->escalate ? "yes" : "no"));
    if (mc->A)
        PetscCall(PetscViewerASCIIPrintf(v, "operator of order %" PetscInt_FMT " converted %d "
                                         "time(s), %s\n", mc->n_global, mc->builds,
                                         mc->distributed ? "distributed over the communicator"
                                                         : "serial (one process)"));
    if (mc->solved) PetscCall(view_stages(v, &mc->info));
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_MixCG(KSP ksp)
{
    KSP_MixCG *mc = ksp->data;

    PetscFunctionBegin;
    PetscCall(mixi_petsc_jacobi(ksp, &mc->jacobi));
    PetscCall(KSPSetWorkVecs(ksp, 1));
    PetscCall(mixi_petsc_sync(ksp));
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPReset_MixCG(KSP ksp)
{
    KSP_MixCG *mc = ksp->data;

    PetscFunctionBegin;
    PetscCall(mixi_petsc_release(ksp));
    mix_context_destroy(mc->ctx); /* collective, as KSPReset is */
    mix_context_destroy(mc->serial);
    mc->ctx = mc->serial = NULL;
    PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_MixCG(KSP ksp)
{
    PetscFunctionBegin;
    PetscCall(KSPReset_MixCG(ksp));
    PetscCall(KSPDestroyDefault(ksp));
    PetscFunctionReturn(0);
}

/*MC
   KSPMIXCG - "mixcg": mixsolve's reliable-update mixed-precision CG (mix_dcg(3)) on the
   operator's rows, for SPD matrices.  Options: -mixcg_storage, -mixcg_backend, -mixcg_delta,
   -mixcg_escalate, -mixcg_narrow_vectors, -mixcg_pc amg (mixsolve's multigrid; one process).
   PC: jacobi or none.  See mixsolve_petsc(7).
M*/
static PetscErrorCode KSPCreate_MixCG(KSP ksp)
{
    KSP_MixCG *mc;
    mix_cg_params p;

    PetscFunctionBegin;
    PetscCall(PetscNew(&mc));
    mix_cg_params_init(&p);
    mc->storage = p.sloppy_prec;
    mc->backend = MIX_BACKEND_AUTO;
    mc->delta = p.delta;
    mc->escalate = p.escalate ? PETSC_TRUE : PETSC_FALSE;
    mc->narrow = p.narrow_vectors ? PETSC_TRUE : PETSC_FALSE;
    ksp->data = mc;
    /* Its test is on the true residual ||b - A x||, whatever the PC side. */
    PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 3));
    PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_RIGHT, 2));
    PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_SYMMETRIC, 1));
    ksp->ops->setup = KSPSetUp_MixCG;
    ksp->ops->solve = mixi_petsc_solve;
    ksp->ops->destroy = KSPDestroy_MixCG;
    ksp->ops->reset = KSPReset_MixCG;
    ksp->ops->view = KSPView_MixCG;
    ksp->ops->setfromoptions = KSPSetFromOptions_MixCG;
    ksp->ops->buildsolution = KSPBuildSolutionDefault;
    ksp->ops->buildresidual = KSPBuildResidualDefault;
    PetscFunctionReturn(0);
}

/* What -dll_append runs (PetscDLLibraryOpen); a program linking the plugin may call it itself
 * after PetscInitialize. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_mixsolve_petsc(void)
{
    PetscFunctionBegin;
    PetscCall(KSPRegister("mixcg", KSPCreate_MixCG));
    PetscFunctionReturn(0);
}
