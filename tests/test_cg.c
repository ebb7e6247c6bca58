/* test_cg.c: CUnit suites for the cg area (filled in by the issue that builds it). */
#include "tests/mixt.h"

void mixt_register_cg(mix_backend b)
{
    (void)b;
}
