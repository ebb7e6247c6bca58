#!/usr/bin/env bash
# ci-tsan.sh: builds the library and tests/threads with ThreadSanitizer (no CUDA) and runs it:
# the simple drivers and CG called from several threads at once must show no data race; so must
# the drop-in's registry of kept originals (tests/dropin_keep_unit).
# Called by .ci/run after the main tests; about 2-4 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x configure ] || autoreconf -fi
mkdir -p _build-tsan && cd _build-tsan
[ -f Makefile ] || ../configure --with-cuda=no --enable-werror \
  CFLAGS="-O1 -g -fsanitize=thread -fno-omit-frame-pointer" LDFLAGS="-fsanitize=thread" >/dev/null
make -j"$(nproc)" tests/threads tests/dropin_keep_unit >/dev/null
# One OpenMP thread: libgomp and OpenBLAS are not instrumented, and their worker teams would only
# add reports about code TSan cannot see into; the races under test are between our threads.
# OpenBLAS's buffer hand-over between callers is invisible to TSan: tools/tsan.supp.
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$PWD/../tools/tsan.supp" ./tests/threads
# The drop-in's registry of kept originals, shared by every thread calling dgesv_/dgetrs_ ...
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" ./tests/dropin_keep_unit >/dev/null
echo "ci-tsan: tests/threads and tests/dropin_keep_unit clean under ThreadSanitizer"
