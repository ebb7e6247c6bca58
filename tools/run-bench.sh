#!/usr/bin/env bash
# run-bench.sh: the README's main job: dependencies, build in _build/, `mixsolve bench` on the bundled set.
# Whole job (build included) stays within 10 minutes on 2 cores: the bench gets what the build left.
# Extra arguments go to mixsolve bench (e.g. a directory of other matrices, --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
start=$(date +%s)
budget=${MIX_BENCH_BUDGET:-570}  # seconds for the whole job, leaving margin under 10 minutes
bash tools/install-deps.sh
log=$top/_build/build.log
mkdir -p _build
quiet() { "$@" >>"$log" 2>&1 || { tail -30 "$log"; echo "run-bench: '$*' failed, see $log" >&2; exit 2; }; }
: >"$log"
[ -x configure ] || quiet autoreconf -fi
cd _build
[ -f Makefile ] || quiet ../configure
quiet make -j"$(nproc)"
echo "build done in $(( $(date +%s) - start )) s"
./tools/mixsolve info
left=$(( budget - ($(date +%s) - start) - 20 ))  # 20 s for the report and plots
[ "$left" -gt 60 ] || left=60
./tools/mixsolve bench -o "$top/bench-out" --max-time "$left" "$@"
echo "total $(( $(date +%s) - start )) s"
