#!/usr/bin/env bash
# gpu-run-on-device.sh: issue 36's device check, run from the bundle tools/gpu-check.sh makes (as run-on-device.sh).
#
#   bash run-on-device.sh [STEP ...]        (default: every step, in the order below)
#
# Steps, each under its own `timeout`, clipped to what is left of GPU_CHECK_BUDGET (default 330 s)
# so that one hang cannot eat the device time; a step that would get under 15 s is skipped:
#   env        nvidia-smi, driver, glibc, where the CUDA libraries were found, ldd  (always)
#   lu16384    round 2 of issue 36 (doc/benchmarks.md), first: where our FP16 LU's time goes and
#   lu32768    which block size is best: bench_gpu_gesv -m fp16 (kappa 1e2, no IRS rows) once per
#              MIXSOLVE_LU_NB in $LU_NBS (default "256 512 1024") with MIXSOLVE_LU_PROFILE=1: each
#              of our rows is followed by a '# profile' line (phases of the factorization, and
#              the refinement per step: triangular solves and the rest); log lu.log
#   tests      the CUnit suites on the CUDA backend, each in its own process (see suites())
#   gesv8192   bench_gpu_gesv n = 8192   ] kappa 1e2 and 1e4, FP16/BF16/TF32 factors and AUTO
#   gesv32768  bench_gpu_gesv n = 32768  ] against cusolverDnDgetrf+getrs and cusolverDnIRSXgesv
#   cg150      bench_gpu_cg Poisson 150^3: FP64 and FIXED16 (and FP32/FP16/BF16) reliable-update
#              CG against FP64 CG on cuSPARSE, SpMV bandwidth against a device-to-device copy
#   gesv16384  bench_gpu_gesv n = 16384
#   cg200      bench_gpu_cg Poisson 200^3
#   cgmtx      bench_gpu_cg on the bundled SPD Matrix Market set (Jacobi)
#   amg150     bench_amg Poisson 150^3 on the CUDA context: CG + Jacobi FIXED16, CG + AMG in FP64,
#              FIXED16 and AUTO (the set-up on the host, the cycle on the device); log amg.log
# Logs under $OUT (at most 8 files come back): summary.txt (env and one line per step), lu.log,
# tests.log, gesv.log, gesv.csv, cg.log, amg.log.  The end of summary.txt and the benchmark tables go to stdout too.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
budget=${GPU_CHECK_BUDGET:-330}
start=$(date +%s)
summary=$OUT/summary.txt
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MIX_MATRIX_DIR="$here/matrices"
unset MIXT_SUITE MIXSOLVE_BACKEND

note() { echo "$*" | tee -a "$summary"; }

# CUDA libraries our programs need that the loader does not find: one search of the machine.
find_cuda_libs() {
    local missing lib dirs expr=()
    missing=$(ldd "$here"/bin/* "$here"/lib/* 2>/dev/null | awk '/not found/ { print $1 }' | sort -u)
    [ -z "$missing" ] && { note "CUDA libraries: all found by the loader"; return; }
    for lib in $missing; do expr+=(${expr[0]+-o} -name "$lib"); done
    dirs=$(timeout 60 find / \( -path /proc -o -path /sys \) -prune -o \( "${expr[@]}" \) -print 2>/dev/null |
        xargs -r -n1 dirname | awk '!seen[$0]++' | paste -sd: -)
    [ -n "$dirs" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dirs"
    note "CUDA libraries missing at first: $(echo $missing); added: ${dirs:-none}"
    missing=$(ldd "$here"/bin/* 2>/dev/null | awk '/not found/ { print $1 }' | sort -u)
    [ -n "$missing" ] && note "STILL NOT FOUND: $(echo $missing)"
}

env_step() {
    {
        echo "== issue 36 device check, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), budget ${budget}s"
        cat "$here/MANIFEST" 2>/dev/null | sed -n '1,3p'
        timeout 20 nvidia-smi 2>&1
        timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv 2>&1
        uname -a; ldd --version 2>&1 | head -1; nproc
        command -v nvcc >/dev/null && nvcc --version | tail -1
        ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libcudart\.so|libcusolver\.so' | head -6
    } >> "$summary" 2>&1
    find_cuda_libs
    { echo "-- ldd bin/bench_gpu_gesv"; ldd "$here/bin/bench_gpu_gesv" 2>&1; } >> "$summary"
}

# step NAME TIMEOUT LOG COMMAND...: run it within the budget, one line in summary.txt.
step() {
    local name=$1 limit=$2 log=$3 left t0 rc secs
    shift 3
    left=$((budget - ($(date +%s) - start)))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 15 ]; then
        note "$(printf '%-10s skipped: %ss of the budget left' "$name" "$left")"
        return
    fi
    echo "== $name (timeout ${limit}s): $*" >> "$log"
    t0=$(date +%s)
    timeout -k 10 "$limit" "$@" >> "$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    case $rc in
        0) note "$(printf '%-10s ok      %4ss' "$name" "$secs")" ;;
        124 | 137) note "$(printf '%-10s TIMEOUT %4ss (limit %ss)' "$name" "$secs" "$limit")" ;;
        *) note "$(printf '%-10s FAILED  %4ss rc=%s' "$name" "$secs" "$rc")" ;;
    esac
}

# bench_gpu_gesv at one n; its CSV rows are appended to gesv.csv (one header).
gesv() {
    local n=$1 limit=$2 reps=$3 csv=/tmp/gesv-$1.csv
    rm -f "$csv"
    step "gesv$n" "$limit" "$OUT/gesv.log" "$here/bin/bench_gpu_gesv" -n "$n" -k 1e2,1e4 -g device \
        -r "$reps" -m fp16,bf16,tf32,auto -i fp16,bf16,tf32 -R classical,gmres -c "$csv"
    [ -f "$csv" ] || return 0
    if [ -s "$OUT/gesv.csv" ]; then tail -n +2 "$csv" >> "$OUT/gesv.csv"; else cat "$csv" > "$OUT/gesv.csv"; fi
}

# The LU study at one n: one bench_gpu_gesv per block size, FP16 factors, profiled.
lu() {
    local n=$1 limit=$2 nb
    for nb in ${LU_NBS:-256 512 1024}; do
        step "lu$n-nb$nb" "$limit" "$OUT/lu.log" env MIXSOLVE_LU_NB="$nb" MIXSOLVE_LU_PROFILE=1 \
            "$here/bin/bench_gpu_gesv" -n "$n" -k 1e2 -g device -r 1 -m fp16 -i ''
    done
}

# The CUnit suites of $TESTS_PREFIX (default cuda/), each in its own process (MIXT_SUITE==NAME,
# MIXT_VERBOSE=1) under its own timeout, within LIMIT seconds for them all: a crash or a hang in
# one suite (the first run's sparse-kernels crash hid every suite after it) costs only that
# suite.  One line per suite in summary.txt: its CUnit counts, or how it ended.
suites() {
    local limit=$1 prefix=${TESTS_PREFIX:-cuda/} list s one end left counts
    list=$(MIXT_LIST=1 MIXT_SUITE="$prefix" "$here/bin/mixsolve_tests" 2>&1)
    if ! grep -q "^$prefix" <<< "$list"; then
        # No device: the cuda/ suites are not registered and "0 failed" would mean nothing.
        note "tests      no $prefix suites: $(echo $list | cut -c1-200)"
        return
    fi
    end=$(($(date +%s) + limit))
    one=$OUT/.suite.log
    # The list on fd 3: the suites' processes inherit stdin, which must not be the list.
    while IFS= read -r s <&3; do
        left=$((end - $(date +%s)))
        [ "$left" -gt 90 ] && left=90
        rm -f "$one"
        step "t:$s" "$left" "$one" env MIXT_SUITE="=$s" MIXT_VERBOSE=1 "$here/bin/mixsolve_tests"
        [ -f "$one" ] || continue
        counts=$(awk '$1 == "tests" && NF == 6 { t = "tests " $2 ", failed " $5 }
                      $1 == "asserts" && NF == 6 { a = ", asserts failed " $5 }
                      END { if (t != "") print t a }' "$one")
        note "    ${counts:-no CUnit summary (crashed?): $(tail -n 2 "$one" | tr '\n' ' ' | cut -c1-160)}"
        cat "$one" >> "$OUT/tests.log"
        rm -f "$one"
    done 3< <(grep "^$prefix" <<< "$list")
}

cg() {
    step "$1" "$2" "$OUT/cg.log" "$here/bin/bench_gpu_cg" -r 3 -t 1e-10 "${@:3}"
}

run_step() {
    case $1 in
        lu16384) lu 16384 25 ;;
        lu32768) lu 32768 40 ;;
        tests) suites 150 ;;
        gesv8192) gesv 8192 45 3 ;;
        gesv16384) gesv 16384 60 3 ;;
        gesv32768) gesv 32768 150 2 ;;
        cg150) cg cg150 50 -p 150 -d '' ;;
        cg200) cg cg200 60 -p 200 -d '' ;;
        cgmtx) cg cgmtx 90 -p '' -d "$here/matrices" -s fp64,fp32,fixed16 ;;
        amg150) step amg150 60 "$OUT/amg.log" env OMP_NUM_THREADS=8 "$here/bin/bench_amg" 150 0 -1 cuda ;;
        *) note "unknown step $1" ;;
    esac
}

env_step
steps=${*:-lu16384 lu32768 tests gesv32768 cg150 gesv8192 gesv16384 cg200 cgmtx amg150}
note "-- steps: $steps"
for s in $steps; do run_step "$s"; done
note "-- done in $(($(date +%s) - start))s"
# The figures, in the call's output too.
[ -f "$OUT/tests.log" ] && { echo; echo "==== tests.log (failures)";
    grep -E '^Suite: |FAILED|^ +[0-9]+\. ' "$OUT/tests.log" | grep -B1 -E 'FAILED|^ +[0-9]+\. ' | cut -c1-240 | head -n 80; }
[ -f "$OUT/lu.log" ] && { echo; echo "==== lu.log (rows and profiles)"; grep -E '^(mixsolve|cusolver|# profile)' "$OUT/lu.log" | cut -c1-400; }
for f in cg.log gesv.log amg.log; do
    [ -f "$OUT/$f" ] && { echo; echo "==== $f"; grep -v '^generated ' "$OUT/$f" | cut -c1-200 | tail -n 60; }
done
echo; echo "==== summary.txt (steps)"; sed -n '/^-- steps/,$p' "$summary"
exit 0
