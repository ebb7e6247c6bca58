/* status.c: one sentence per status code (mix_strerror) and the names of enums. */
#include "mix_internal.h"
#include "kernels/common/prec_traits.h"

static const char *const status_text[MIX_ERR_COUNT_] = {
    [MIX_SUCCESS] = "Success.",
    [MIX_ERR_INVALID_ARG] = "An argument is illegal (see the info value for which one), or the parameters of a solve across MPI ranks differ between the ranks.",
    [MIX_ERR_ALLOC] = "Host or device memory could not be allocated.",
    [MIX_ERR_BACKEND] = "The requested backend is not compiled into this library or no device answers.",
    [MIX_ERR_SINGULAR] = "The matrix is exactly singular: a pivot of its LU factorization is zero.",
    [MIX_ERR_NOT_SPD] = "The matrix is not symmetric positive definite (CG found p'Ap <= 0).",
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

const char *mix_strerror(int status)
{
    if (status < 0 || status >= MIX_ERR_COUNT_ || !status_text[status])
        return "Unknown mixsolve status code.";
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
