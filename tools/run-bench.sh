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
# Claims are against OpenBLAS at this CPU's best kernels: one older than the CPU model runs
# generic ones (mixsolve info names the core, e.g. Prescott on a Xeon of model 207, where its
# dgesv is 3-4x slower), and the library's FP32 factors would then race a handicapped baseline.
# So unless the caller chose a core, kernels that mixsolve info calls older than this CPU's are
# replaced by the best the CPU's flags allow.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  core=$(./tools/mixsolve info | sed -n "s/.*OpenBLAS ([^,]*, \([A-Za-z0-9]*\) kernels, older than this CPU's).*/\1/p")
  flags=" $(grep -m1 '^flags' /proc/cpuinfo || true) "
  if [ -n "$core" ]; then
    case "$flags" in
      *" avx512f "*) export OPENBLAS_CORETYPE=SkylakeX ;;
      *" avx2 "*) export OPENBLAS_CORETYPE=Haswell ;;
    esac
  fi
  [ -n "${OPENBLAS_CORETYPE:-}" ] && echo "OpenBLAS ran $core kernels: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE"
fi
./tools/mixsolve info
left=$(( budget - ($(date +%s) - start) - 20 ))  # 20 s for the report and plots
[ "$left" -gt 60 ] || left=60
./tools/mixsolve bench -o "$top/bench-out" --max-time "$left" "$@"
echo "total $(( $(date +%s) - start )) s"
