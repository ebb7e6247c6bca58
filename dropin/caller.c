/* caller.c: who called dgesv_/dposv_, and so whether anybody can see the factors left in A. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"

/* Wrappers whose use of the factors was read in their source.  The calling shared object's path,
 * as dladdr(3) reports it, contains folder and its file name starts with file (R reports ".../modules//lapack.so").
 * - NumPy, numpy/linalg/umath_linalg.cpp: solve, solve1 and inv copy A into a private buffer,
 *   call dgesv and free the buffer: nobody sees the factors.
 * - R, src/modules/lapack/Lapack.c, La_solve (solve.default): dgesv on a private copy of A,
 *   then, when tol > 0 (the default), dgecon on those factors to refuse a computationally
 *   singular system, then the copy is dropped.  The factors are seen by dgecon only, which the
 *   drop-in intercepts.
 * Not listed, because they never call dgesv_/dposv_ or hand the factors to the user: Octave's
 * A\b (liboctave: dgetrf, dgecon, dgetrs), SciPy's scipy.linalg.solve (getrf/getrs/gecon,
 * potrf/potrs/pocon), and scipy.linalg.lapack.dgesv (returns the factors: must not be routed). */
static const struct {
    const char *folder, *file;
    mixd_factor_use use;
} known_wrappers[] = {
    {"/numpy/linalg/", "/_umath_linalg", MIXD_FACTORS_DISCARDED},
    {"/R/modules/", "/lapack.so", MIXD_FACTORS_CONDITION_ONLY},
};

static int file_name_starts(const char *path, const char *file)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return 0;
    /* NumPy's module carries the interpreter's tag after its name: match the name's start. */
    return strncmp(slash, file, strlen(file)) == 0;
}

/* MIXSOLVE_LAPACK_CALLERS: colon-separated path parts of further objects the user vouches
 * for: they discard the factors. */
static int listed_by_user(const char *path, const char *list)
{
    if (!list) return 0;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0) {
            for (const char *s = path; (s = strchr(s, p[0])) != NULL; s++)
                if (strncmp(s, p, len) == 0) return 1;
        }
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

mixd_factor_use mixd_caller_factor_use(const void *return_address, const char *user_list)
{
    Dl_info where;
    if (!return_address || !dladdr(return_address, &where) || !where.dli_fname)
        return MIXD_FACTORS_SEEN;
    for (size_t i = 0; i < sizeof known_wrappers / sizeof known_wrappers[0]; i++)
        if (strstr(where.dli_fname, known_wrappers[i].folder) &&
            file_name_starts(where.dli_fname, known_wrappers[i].file))
            return known_wrappers[i].use;
    return listed_by_user(where.dli_fname, user_list) ? MIXD_FACTORS_DISCARDED : MIXD_FACTORS_SEEN;
}
