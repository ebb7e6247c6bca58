#!/usr/bin/env bash
# ci-asan.sh: the whole test suite in a second build with AddressSanitizer + UndefinedBehaviorSanitizer
# (--enable-sanitizers, no CUDA): out-of-bounds accesses, use after free, leaks of our own code and
# undefined behaviour fail CI.  Called by .ci/run after the main tests; about 8-10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x configure ] || autoreconf -fi
mkdir -p _build-asan && cd _build-asan
[ -f Makefile ] || ../configure --without-cuda --enable-werror --enable-sanitizers CFLAGS="-O1 -g" >/dev/null
make -j"$(nproc)" >/dev/null
# Leaks inside OpenBLAS/oneDNN/libgomp thread pools are theirs, not ours: suppressed by library;
# so are MUMPS's and the gfortran runtime's own (mix_dgesv_sparse ends every instance, JOB = -2).
printf 'leak:libopenblas\nleak:libgomp\nleak:libdnnl\nleak:libsmumps_seq\nleak:libdmumps_seq\nleak:libmumps_common_seq\nleak:libgfortran\n' >lsan.supp
# The CUnit suite, the threads test and the drop-in's registry of kept originals on its own
# (dropin_keep_unit); the drop-in and client scripts are left out here: they
# LD_PRELOAD the library into, or link it with, programs built without ASan, which ASan refuses.
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" LSAN_OPTIONS="suppressions=$PWD/lsan.supp" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  make check TESTS="tests/mixsolve_tests tests/threads tests/dropin_keep_unit"
echo "ci-asan: the suite passes under ASan + UBSan"
