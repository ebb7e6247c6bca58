#!/usr/bin/env bash
# gpu-check.sh: build the CUDA backend here (no GPU needed) and bundle what issue 36's device check runs.
#
#   tools/gpu-check.sh [--build-dir DIR] [--out FILE.tar.xz] [-j N]
#   tools/gpu-check.sh --dry [--build-dir DIR]
#
# Default: configures DIR (default _build-gpu beside this script's tree) with --with-cuda
# --with-cuda-arch=90 when it has no Makefile, builds the few targets the device needs, and packs
# into FILE (default device/gpu-bundle.tar.xz, git-ignored) the CUnit runner, bench_gpu_gesv,
# bench_gpu_cg, bench_amg, our shared library, every non-CUDA shared library ldd lists (the device has the
# CUDA libraries and none of our Debian packages), the bundled matrices and the device-side script
# (tools/gpu-run-on-device.sh).  It checks that, with LD_LIBRARY_PATH set to the bundle, ldd
# resolves every library from the bundle or the base system (glibc, libstdc++, libgcc_s) except
# the CUDA ones, and that the bundle and the working tree fit the device tool's 64 MiB; then it
# prints the `run` command and its carry list.
# --dry: no configure, no build, no archive: bundles an existing CUDA build (DIR) into a temporary
# folder, runs the same checks with a fast size estimate and the device script's suite loop on one
# quick CPU suite, removes it (make check: tests/gpu_check.sh).
# Exit status: 0 checks passed, 1 a check failed, 2 usage, 77 (--dry) no CUDA build or no nvcc.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/_build-gpu
out=$top/device/gpu-bundle.tar.xz
dry=0
jobs=2
limit=$((64 * 1024 * 1024))
# Libraries the device brings: the CUDA runtime and math libraries (and the driver), and the
# base system every Linux with a C++ compiler has.
cuda_re='^lib(cuda|cudart|cublas|cublasLt|cusolver|cusolverMg|cusparse|nvJitLink|nvrtc|curand|cufft)\.so'
base_re='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s)\.so'
targets="tests/mixsolve_tests bench/bench_gpu_gesv bench/bench_gpu_cg bench/bench_amg"

usage() { sed -n '4,5p' "$0" | sed 's/^# *//' >&2; exit 2; }

while [ $# -gt 0 ]; do
    case $1 in
        --dry) dry=1 ;;
        --build-dir) build=$(cd "$2" && pwd); shift ;;
        --out) out=$2; shift ;;
        -j) jobs=$2; shift ;;
        *) usage ;;
    esac
    shift
done

have_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }
cuda_build() { [ -f "$build/config.h" ] && grep -q '^#define MIX_HAVE_CUDA 1' "$build/config.h"; }

# Configure (when needed) and build the targets; ccache for the C compiler when there is one.
build_targets() {
    if [ ! -f "$build/Makefile" ]; then
        [ -x "$top/configure" ] || (cd "$top" && autoreconf -fi)
        local cc=${CC:-gcc}
        command -v ccache >/dev/null 2>&1 && [ -z "${CC:-}" ] && cc="ccache gcc"
        mkdir -p "$build"
        (cd "$build" && "$top/configure" --enable-werror --with-cuda --with-cuda-arch=90 CC="$cc")
    fi
    cuda_build || { echo "gpu-check: $build is configured without CUDA" >&2; exit 1; }
    make -C "$build" -j"$jobs" $targets
}

# The ELF file behind a libtool target (the wrapper script's .libs/ program, or the file itself).
real_file() {
    local d f
    d=$(dirname "$1") f=$(basename "$1")
    if [ -f "$build/$d/.libs/$f" ]; then echo "$build/$d/.libs/$f"; else echo "$build/$1"; fi
}

# "name path" per library ldd resolves for $1 ("name not" when not found).
ldd_pairs() { { ldd "$1" 2>/dev/null || true; } | awk '$2 == "=>" { print $1, $3 } $2 != "=>" { sub(/.*\//, "", $1); print $1, "base" }'; }

# Programs, our library and the non-CUDA, non-base libraries they need, the matrices, the script.
stage() {
    local st=$1 t name path
    mkdir -p "$st/bin" "$st/lib" "$st/matrices"
    for t in $targets; do cp "$(real_file "$t")" "$st/bin/"; done
    for t in "$st"/bin/*; do
        LD_LIBRARY_PATH="$build/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd_pairs "$t"
    done | sort -u | while read -r name path; do
        [[ $name =~ $cuda_re || $name =~ $base_re ]] && continue
        [ "$path" = not ] && { echo "gpu-check: $name not found here" >&2; continue; }
        [ -e "$st/lib/$name" ] || cp -L "$path" "$st/lib/$name"
    done
    strip --strip-unneeded "$st"/bin/* "$st"/lib/libmixsolve* 2>/dev/null || true
    cp "$top"/matrices/data/* "$st/matrices/"
    cp "$top/tools/gpu-run-on-device.sh" "$st/run-on-device.sh"
    chmod +x "$st/run-on-device.sh"
    { echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)";
      (cd "$top" && git log -1 --format='commit %h %s' 2>/dev/null) || true
      sed -n 's/^  \$ \(.*configure.*\)/configure: \1/p' "$build/config.log" | head -1
      (cd "$st" && ls -l bin lib); } > "$st/MANIFEST"
}

# Every ELF of the bundle resolves its libraries from the bundle, the base system or CUDA.
check_ldd() {
    local st=$1 f name path bad=0 cuda_missing=""
    for f in "$st"/bin/* "$st"/lib/*; do
        while read -r name path; do
            if [[ $name =~ $cuda_re ]]; then
                [ "$path" = not ] && cuda_missing="$cuda_missing $name"
            elif [[ $name =~ $base_re ]] || [ "$path" = base ]; then
                [ "$path" = not ] && { echo "FAIL: $(basename "$f"): base library $name not found"; bad=1; }
            elif [ "$path" = not ]; then
                echo "FAIL: $(basename "$f"): $name not found in the bundle"; bad=1
            elif [ "${path#"$st"/}" = "$path" ]; then
                echo "FAIL: $(basename "$f"): $name resolves outside the bundle ($path)"; bad=1
            fi
        done < <(LD_LIBRARY_PATH="$st/lib" ldd_pairs "$f")
    done
    [ $bad = 0 ] && echo "ldd: every non-CUDA library resolves in the bundle or the base system" \
         "(CUDA libraries left to the device${cuda_missing:+; not found here:$(echo "$cuda_missing" | tr ' ' '\n' | sort -u | tr '\n' ' ')})"
    # The base system there must be at least this new (Ubuntu 24.04: GLIBC_2.39, GLIBCXX_3.4.33).
    echo "symbol versions needed from the base system:" \
         "$(objdump -T "$st"/bin/* "$st"/lib/* 2>/dev/null | grep -o 'GLIBC_2\.[0-9.]*' | sort -uV | tail -1)" \
         "$(objdump -T "$st"/bin/* "$st"/lib/* 2>/dev/null | grep -o 'GLIBCXX_3\.[0-9.]*' | sort -uV | tail -1)"
    return $bad
}

# Bytes of what the device tool sends besides the carry list (tracked and untracked-not-ignored).
tree_bytes() {
    { (cd "$top" && git ls-files -z -co --exclude-standard 2>/dev/null |
        xargs -0 -r stat -c %s 2>/dev/null) || true; } | awk '{ s += $1 } END { print s + 0 }'
}

check_size() {
    local bundle=$1 tree
    tree=$(tree_bytes)
    [ "$tree" -gt 0 ] || tree=$((16 * 1024 * 1024)) # no git here: assume a 16 MiB tree
    echo "size: bundle $((bundle / 1024)) KiB + working tree $((tree / 1024)) KiB of $((limit / 1024)) KiB"
    [ $((bundle + tree)) -le $limit ] || { echo "FAIL: over the device tool's 64 MiB"; return 1; }
}

print_run() {
    local rel=${out#"$top"/}
    cat <<EOF

Device check (issue 36), one call of the device tool's run:
  command:   set -o pipefail; mkdir -p /tmp/gpu && (tar -xJf $rel -C /tmp/gpu || python3 -c 'import sys,tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' $rel /tmp/gpu) && bash /tmp/gpu/gpu/run-on-device.sh
  carry:     ["$rel"]
  timeout_s: 400   (the script keeps to GPU_CHECK_BUDGET=330 s; a rerun of some steps: append their
             names, e.g. "... run-on-device.sh tests gesv32768"; logs come back from \$OUT)
EOF
    case $out in "$top"/*) ;; *) echo "warning: $out is outside $top: carry only takes paths of the checkout the tool sends" ;; esac
}

if [ $dry = 1 ]; then
    have_nvcc || { echo "SKIP: no nvcc"; exit 77; }
    cuda_build || { echo "SKIP: $build is not a CUDA build"; exit 77; }
    for t in $targets; do [ -x "$build/$t" ] || { echo "SKIP: $build/$t not built"; exit 77; }; done
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    stage "$tmp/gpu"
    status=0
    check_ldd "$tmp/gpu" || status=1
    # gzip -1 is quick and larger than the xz archive: a safe estimate.
    check_size "$(tar -C "$tmp" -cf - gpu | gzip -1 | wc -c)" || status=1
    bash -n "$tmp/gpu/run-on-device.sh" || { echo "FAIL: run-on-device.sh does not parse"; status=1; }
    # Its suite loop as the device runs it (list, one process per suite, counts in the summary),
    # here on one quick CPU suite.
    nvcc_dir=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
    OUT=$tmp/out TESTS_PREFIX=cpu/resid-dd GPU_CHECK_BUDGET=120 \
        LD_LIBRARY_PATH="$nvcc_dir/../lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        bash "$tmp/gpu/run-on-device.sh" tests > "$tmp/run.log" 2>&1
    if grep -Eq '^ +tests [1-9][0-9]*, failed 0, asserts failed 0$' "$tmp/out/summary.txt" 2>/dev/null; then
        echo "run-on-device.sh: its suite loop ran cpu/resid-dd and counted it"
    else
        echo "FAIL: run-on-device.sh's suite loop on cpu/resid-dd:"; tail -n 15 "$tmp/run.log"; status=1
    fi
    exit $status
fi

have_nvcc || { echo "gpu-check: no nvcc here" >&2; exit 1; }
build_targets
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage "$tmp/gpu"
check_ldd "$tmp/gpu"
mkdir -p "$(dirname "$out")"
tar -C "$tmp" -cf - gpu | xz -6 -T"$jobs" > "$out.part"
mv "$out.part" "$out"
check_size "$(stat -c %s "$out")"
print_run
