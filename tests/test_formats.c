/* test_formats.c: CUnit suites for the formats area (filled in by the issue that builds it). */
#include "tests/mixt.h"

void mixt_register_formats(void)
{

}
