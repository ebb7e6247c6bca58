/* mixt.h: shared helpers of the CUnit suites (one runner, suites registered from a table). */
#ifndef MIXT_H
#define MIXT_H

#include <CUnit/CUnit.h>
#include "mixsolve.h"

typedef struct {
    const char *name;
    CU_TestFunc fn;
} mixt_test;

/* Adds a suite with the NULL-terminated test table; returns NULL on failure. */
CU_pSuite mixt_add_suite(const char *name, const mixt_test *tests);
/* Adds a per-backend suite named "<backend>/<name>"; while it runs, mixt_backend is `b`. */
CU_pSuite mixt_add_backend_suite(mix_backend b, const char *name, const mixt_test *tests);
extern mix_backend mixt_backend;

/* Directory of the bundled matrices (MIX_MATRIX_DIR, else $(top_srcdir)/matrices/data). */
const char *mixt_matrix_dir(void);
/* Directory of the built programs (the mixsolve tool), for CLI tests. */
const char *mixt_build_dir(void);

/* Registrars, one per test file: suites that run once ... */
void mixt_register_core(void);
void mixt_register_formats(void);
void mixt_register_matrices(void);
void mixt_register_cli(void);
void mixt_register_onednn(void);
void mixt_register_hostile(void); /* hostile-input corpus: reader and CLI (test_hostile.c) */
/* ... and suites registered once per available backend. */
void mixt_register_gesv(mix_backend b);
void mixt_register_cg(mix_backend b);
void mixt_register_kernels(mix_backend b); /* backend kernels against the CPU reference */
void mixt_register_kernels_sparse(mix_backend b); /* sparse family, called by the above */
void mixt_register_posv(mix_backend b); /* Cholesky ops and the d?posv drivers */
void mixt_register_edge(mix_backend b); /* floating-point range edges (test_edge.c) */
void mixt_register_dropin(mix_backend b); /* what the LAPACK drop-in relies on */

#endif
