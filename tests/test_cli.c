/* test_cli.c: CUnit suites for the cli area (filled in by the issue that builds it). */
#include "tests/mixt.h"

void mixt_register_cli(void)
{

}
