#!/bin/sh
# extension.sh: the extension recipes of doc/HACKING.md (sections 3 and 4) stay true.  A precision
# or a backend is named only in the files allowed to name it; everywhere else code iterates the
# precision table (kernels/common/prec_traits.h), mix_prec_list or mix_backend_list.  So adding a
# precision or a backend edits the files HACKING.md counts, and no hidden list goes stale.
#
# The names checked come from lib/mixsolve.h, so a new MIX_FP8 or MIX_BACKEND_HIP is checked as
# soon as it exists: every mix_prec but MIX_FP64 and MIX_FP32 (the working precision and the
# factors' storage, named on purpose throughout), every mix_backend but MIX_BACKEND_CPU (the
# fallback and the tests' reference backend, always compiled), as identifiers and as their
# lower-case names in string literals ("fp16", "cuda").  Comments may name anything.
set -u
LC_ALL=C; export LC_ALL
top=${srcdir:-.}
status=0
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }

hdr=$top/lib/mixsolve.h
[ -f "$hdr" ] || { echo "extension.sh: $hdr not found"; exit 1; }
enum_body() { # the enumerators of `typedef enum { ... } NAME;` in mixsolve.h
  awk -v name="$1" '
    /typedef enum/ { on = 1; text = "" }
    on { text = text " " $0 }
    on && /}/ { on = 0
      if (text ~ ("} *" name ";")) {
        gsub(/\/\*[^*]*\*\//, "", text); sub(/.*\{/, "", text); sub(/}.*/, "", text)
        n = split(text, e, ",")
        for (i = 1; i <= n; i++) { sub(/=.*/, "", e[i]); gsub(/[[:space:]]/, "", e[i]); if (e[i] != "") print e[i] }
      } }' "$hdr"
}
precs=$(enum_body mix_prec | grep -v -x -e MIX_PREC_AUTO -e MIX_FP64 -e MIX_FP32)
backends=$(enum_body mix_backend | grep -v -x -e MIX_BACKEND_AUTO -e MIX_BACKEND_CPU)
[ -n "$precs" ] && [ -n "$backends" ] || fail "no precision or backend found in lib/mixsolve.h"

# Files that may name precisions, each for a reason.
prec_allowed() {
  case $1 in
    lib/mixsolve.h) ;;                 # the enum and the documentation of the parameters
    kernels/common/*) ;;               # the table and each format's conversions and row bodies
    kernels/cpu/*|kernels/cuda/*|kernels/*/*) ;; # a backend says which formats it runs, and how
    lib/api/dense_api.c) ;;            # the simple drivers are named for one precision each
    lib/api/cg_api.c) ;;               # the default storage of mix_cg_params_init
    lib/mpi/wire.c) ;;                 # the halo's wire formats (a new storage needs one: HACKING.md)
    tests/test_formats.c) ;;           # conversions against an independent reference, per format
    tests/test_core.c) ;;              # the names themselves (mix_prec_name)
    tests/consumer.c) ;;               # the ABI: the enum's values
    tests/test_spmv_tune.c) ;;         # the tuner's cases, made for given formats
    tests/test_kernels.c|tests/test_onednn.c) ;; # per-precision GEMM rounding bounds
    tests/test_gesv.c|tests/test_posv.c|tests/test_cg.c|tests/test_amg.c) ;; # expected bounds per precision
    tests/test_sparse_format.c|tests/test_kernels_sparse.c|tests/test_sell_shift.c) ;; # error bounds per format
    tests/test_edge.c|tests/test_hostile.c|tests/test_dropin.c|tests/test_lu_steps.c) ;; # cases made for one format
    tests/fuzz_solve.c|tests/lapack_client.c|tests/mpi_dist.c) ;;  # inputs and bounds per format
    tools/bench_report.c) ;;           # the convergence plot follows FP16 LU-IR (rows and curves: the table)
    bench/*) ;;                        # benchmarks of given formats
    *) return 1 ;;
  esac
}
# Files that may name backends.
backend_allowed() {
  case $1 in
    lib/mixsolve.h) ;;                 # the enum
    kernels/backend_list.c) ;;             # the list itself
    kernels/common/*) ;;               # device-pass macros (mix_hd.h)
    tests/test_core.c) ;;              # the names and the registry themselves
    tests/test_kernels_sparse.c) ;;    # a backend's own lane setting (mixi_cuda_spmat_set_lanes)
    bench/*) ;;                        # GPU benchmarks
    *) return 1 ;;
  esac
}
for b in $backends; do # a backend's own folder may name it
  folder=$(echo "${b#MIX_BACKEND_}" | tr 'A-Z' 'a-z')
  eval "own_$folder=1"
done

files=$(cd "$top" && find lib kernels solvers dropin tools tests bench matrices -type f \
          \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)
strip_comments() { # the file without C comments, line numbers kept (strings kept)
  awk '{
    out = ""; s = $0; i = 1; n = length(s)
    while (i <= n) {
      c = substr(s, i, 1); d = substr(s, i, 2)
      if (inc) { if (d == "*/") { inc = 0; i += 2 } else i++; continue }
      if (instr) { out = out c
                   if (c == "\\") { out = out substr(s, i + 1, 1); i += 2; continue }
                   if (c == "\"") instr = 0
                   i++; continue }
      if (d == "/*") { inc = 1; i += 2; continue }
      if (d == "//") break
      if (c == "\"") instr = 1
      if (c == "'"'"'" && substr(s, i + 2, 1) == "'"'"'") { out = out substr(s, i, 3); i += 3; continue }
      out = out c; i++
    }
    instr = 0
    print out
  }' "$1"
}
pattern() { # identifiers and their lower-case names in quotes, as one ERE
  p=
  for id in "$@"; do
    low=$(echo "$id" | sed 's/^MIX_BACKEND_//; s/^MIX_//' | tr 'A-Z' 'a-z')
    p="$p${p:+|}\\b$id\\b|\"$low\""
  done
  printf "%s\n" "$p"
}
pp=$(pattern $precs)
bp=$(pattern $backends)
for f in $files; do
  code=$(strip_comments "$top/$f")
  if ! prec_allowed "$f"; then
    printf "%s\n" "$code" | grep -a -n -E "$pp" | while IFS= read -r line; do
      echo "FAIL: $f:${line%%:*} names a precision: ${line#*:}"
    done | grep . && fail "$f names a precision (iterate mix_prec_list or the table's traits)"
  fi
  if ! backend_allowed "$f"; then
    case $f in kernels/*/*) d=${f#kernels/}; d=${d%%/*}; eval "[ -n \"\${own_$d:-}\" ]" && continue ;; esac
    printf "%s\n" "$code" | grep -a -n -E "$bp" | while IFS= read -r line; do
      echo "FAIL: $f:${line%%:*} names a backend: ${line#*:}"
    done | grep . && fail "$f names a backend (iterate mix_backend_list or ask the table's flags)"
  fi
done
[ $status = 0 ] && echo "extension.sh: precisions and backends are named only where HACKING.md says"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
