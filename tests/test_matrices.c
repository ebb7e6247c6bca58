/* test_matrices.c: CUnit suites for the matrices area (filled in by the issue that builds it). */
#include "tests/mixt.h"

void mixt_register_matrices(void)
{

}
