/* env_list.c: one value of a "name=value,name=value" environment variable, read one way for every
 * variable of that form (MIXSOLVE_GEMM_RATES in solvers/dense, MIXSOLVE_SPMV_RATES in solvers/cg),
 * so that what counts as malformed cannot drift between them. */
#include <math.h>
#include <stdlib.h>
#include "lib/core/core.h"

double mixi_env_list_value(const char *var, const char *name)
{
    const char *e = getenv(var);
    const size_t len = strlen(name);
    for (const char *s = e; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
        if (strncmp(s, name, len) != 0 || s[len] != '=') continue;
        /* The whole value up to the next comma or the end: strtod alone takes a prefix and read
         * "2.5x" or "100 " as a number. */
        char *end = NULL;
        const double g = strtod(s + len + 1, &end);
        const int whole = end != s + len + 1 && (*end == ',' || *end == '\0');
        /* Bounded so that the cost models' products and quotients stay finite: fp32=1e308
         * made FP32's rate * 1e9 infinite, its predicted time 0, and AUTO took FP64. */
        return whole && g >= MIXI_ENV_LIST_MIN && g <= MIXI_ENV_LIST_MAX ? g : 0.0;
    }
    return 0.0;
}
