/* status.c: one sentence per status code (mix_strerror) and the names of enums. */
#include "mix_internal.h"
#include "kernels/common/prec_traits.h"

static const char *const status_text[MIX_ERR_COUNT_] = {
    [MIX_SUCCESS] = "Success.",
    [MIX_ERR_INVALID_ARG] = "An argument is illegal (see the info value for which one), or the parameters of a solve across MPI ranks differ between the ranks.",
    [MIX_ERR_ALLOC] = "Host or device memory could not be allocated.",
    [MIX_ERR_BACKEND] = "The requested backend is not compiled into this library or no device answers.",
    [MIX_ERR_SINGULAR] = "The matrix is exactly singular: a pivot of its LU factorization is zero.",
    [MIX_ERR_NOT_SPD] = "The matrix is not symmetric positive definite in FP64 (a Cholesky pivot, a diagonal entry or CG's p'Ap is not positive).",
    [MIX_ERR_NAN] = "NaN or Inf was found in the input or appeared during the computation.",
    [MIX_ERR_NOT_CONVERGED] = "The iteration did not reach the requested tolerance; the best answer found is returned.",
    [MIX_ERR_IO] = "A file could not be opened, read or written.",
    [MIX_ERR_PARSE] = "A file is malformed and could not be parsed.",
    [MIX_ERR_NOT_IMPLEMENTED] = "The operation is not available in this build of mixsolve.",
    [MIX_ERR_OVERFLOW] = "A value does not fit the requested precision (overflow).",
    [MIX_ERR_UNSUPPORTED] = "The backend does not support this precision or operation.",
    [MIX_ERR_INTERNAL] = "A library or device call failed unexpectedly.",
    [MIX_ERR_NOT_SYMMETRIC] = "The distributed matrix is not structurally symmetric: an entry (i, j) on one rank has no (j, i) on the rank owning row j.",
    [MIX_ERR_COMM] = "An MPI call failed; every rank of the communicator returns this status.",
};

/* The -i of an illegal argument i (LAPACK's INFO convention), for every argument position a
 * public function has (13 at most, mix_dposv_ir_gpu), with room to spare. */
#define ARG(i) [i] = "Argument " #i " of the call is illegal (LAPACK's convention: the status is -" #i ")."
static const char *const argument_text[] = {
    ARG(1),  ARG(2),  ARG(3),  ARG(4),  ARG(5),  ARG(6),  ARG(7),  ARG(8),
    ARG(9),  ARG(10), ARG(11), ARG(12), ARG(13), ARG(14), ARG(15), ARG(16),
};
#undef ARG

/* The other negative returns: those of the simple drivers (mix_dsgesv(3)), LAPACKE's values. */
static const char *negative_text(int status)
{
    if (status == -1010)
        return "Host or device memory could not be allocated (LAPACKE's LAPACK_WORK_MEMORY_ERROR).";
    if (status == -1011)
        return "A simple driver failed for another reason than memory: no backend could be used, a "
               "library or device call failed, or the solution does not fit FP64.";
    if (status >= -(int)(sizeof argument_text / sizeof argument_text[0]))
        return argument_text[-status];
    return "Unknown mixsolve status code.";
}

const char *mix_strerror(int status)
{
    if (status < 0) return negative_text(status);
    if (status >= MIX_ERR_COUNT_ || !status_text[status]) return "Unknown mixsolve status code.";
    return status_text[status];
}

const char *mix_version(void) { return PACKAGE_VERSION; }

const char *mix_prec_name(mix_prec p)
{
    return p == MIX_PREC_AUTO ? "auto" : mixk_prec_name(p);
}

int mix_prec_list(mix_prec_role role, mix_prec *list, int max)
{
    if (role != MIX_ROLE_ALL && role != MIX_ROLE_FACTOR && role != MIX_ROLE_STORAGE) return -1;
    int n = 0;
    for (int k = 0; k < MIX_NUM_PREC; k++) {
        const mix_prec p = (mix_prec)k;
        if ((role == MIX_ROLE_FACTOR && !mixk_prec_gemm(p)) ||
            (role == MIX_ROLE_STORAGE && !mixk_prec_storage(p)))
            continue;
        if (list && n < max) list[n] = p;
        n++;
    }
    return n;
}
