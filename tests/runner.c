/* runner.c: the one CUnit runner of make check; exit status = number of failed tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/Basic.h>
#include "tests/mixt.h"
#include "lib/core/core.h"

mix_backend mixt_backend = MIX_BACKEND_CPU;

/* A backend suite ("NAME/...") sets mixt_backend to the backend it was registered for. */
static int init_backend(void)
{
    const CU_pSuite s = CU_get_current_suite();
    mix_backend all[16];
    const int n = mix_backend_list(all, 16);
    for (int k = 0; s && k < n && k < 16; k++) {
        const char *name = mix_backend_name(all[k]);
        const size_t len = strlen(name);
        if (!strncmp(s->pName, name, len) && s->pName[len] == '/') {
            mixt_backend = all[k];
            return 0;
        }
    }
    return 1;
}

/* MIXT_SUITE=WORD runs only the suites whose name contains WORD (e.g. "edge", "hostile");
 * MIXT_SUITE==NAME only the suite named NAME (cuda/posv without cuda/posv-ops). */
static int wanted(const char *name)
{
    const char *only = getenv("MIXT_SUITE");
    if (only && only[0] == '=') return !strcmp(name, only + 1);
    return !only || !*only || strstr(name, only);
}

CU_pSuite mixt_add_suite(const char *name, const mixt_test *tests)
{
    if (!wanted(name)) return NULL;
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    for (const mixt_test *t = tests; s && t->name; t++)
        if (!CU_add_test(s, t->name, t->fn)) return NULL;
    return s;
}

CU_pSuite mixt_add_backend_suite(mix_backend b, const char *name, const mixt_test *tests)
{
    static char names[64][96];
    static int used;
    if (used == 64) return NULL;
    char *full = names[used++];
    snprintf(full, sizeof names[0], "%s/%s", mix_backend_name(b), name);
    if (!wanted(full)) return NULL;
    CU_pSuite s = CU_add_suite(full, init_backend, NULL);
    for (const mixt_test *t = tests; s && t->name; t++)
        if (!CU_add_test(s, t->name, t->fn)) return NULL;
    return s;
}

const char *mixt_matrix_dir(void)
{
    const char *d = getenv("MIX_MATRIX_DIR");
    return d ? d : MIXT_SRCDIR "/matrices/data";
}

const char *mixt_build_dir(void) { return MIXT_BUILDDIR; }

static void (*const once_suites[])(void) = {
    mixt_register_core, mixt_register_formats, mixt_register_matrices, mixt_register_cli,
    mixt_register_onednn,
    mixt_register_hostile,
    mixt_register_sparse_format,
    mixt_register_spmv_tune,
};
static void (*const backend_suites[])(mix_backend) = {
    mixt_register_gesv, mixt_register_cg, mixt_register_kernels,
    mixt_register_amg,
    mixt_register_posv,
    mixt_register_edge,
    mixt_register_dense_probe,
    mixt_register_dropin,
    mixt_register_auto,
    mixt_register_sparse_lu,
    mixt_register_resid_dd,
    mixt_register_sell_shift,
    mixt_register_lu_steps,
};

int main(void)
{
    mixi_alloc_count(1); /* the leak tests read the live count: kept from the first allocation */
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    for (size_t i = 0; i < sizeof once_suites / sizeof once_suites[0]; i++) once_suites[i]();
    /* Backend suites run for every backend that answers here; a missing GPU simply has none. */
    mix_backend backends[16];
    const int nb = mix_backend_list(backends, 16);
    for (int k = nb < 16 ? nb - 1 : 15; k >= 0; k--) { /* the reference (last, CPU) first */
        mix_caps caps;
        if (mix_backend_caps(backends[k], &caps) != MIX_SUCCESS || !caps.available) {
            printf("backend %s: %s, its suites are not registered\n", mix_backend_name(backends[k]),
                   caps.compiled ? "compiled but no device answers" : "not compiled");
            continue;
        }
        for (size_t i = 0; i < sizeof backend_suites / sizeof backend_suites[0]; i++)
            backend_suites[i](backends[k]);
    }
    /* MIXT_LIST=1: the selected suites' names, one a line, and nothing run (the device check
     * runs each suite in its own process, so that a crash in one hides none of the others). */
    if (getenv("MIXT_LIST")) {
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) printf("%s\n", s->pName);
        CU_cleanup_registry();
        return 0;
    }
    /* MIXT_VERBOSE=1: each test's name before it runs (which test a crash is in). */
    CU_basic_set_mode(getenv("MIXT_VERBOSE") ? CU_BRM_VERBOSE : CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_tests_failed();
    unsigned suites_failed = CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    printf("\n");
    return (int)(failed + suites_failed) > 255 ? 255 : (int)(failed + suites_failed);
}
