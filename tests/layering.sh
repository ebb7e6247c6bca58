#!/bin/sh
# layering.sh: the include and call rules of doc/HACKING.md section 1, checked so they cannot
# regress.  Layers, bottom up, one per folder: lib/core <- kernels (common <- tables <- one folder
# per backend) <- solvers (one folder per family) <- lib/api <- lib/mpi, dropin <- lib/petsc, tools.  A file includes only its own layer and those below;
# lib/ never names a backend; no library object calls a function defined in a layer above it.
set -u
LC_ALL=C; export LC_ALL # one collation for sort and comm
top=${srcdir:-.}
status=0
# Failures are repeated at the end: CI shows only the tail of a long log.
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }

# The file a quoted include names, relative to the top of the tree: the including file's
# directory first, then -I$(top_srcdir) and -I$(top_srcdir)/lib, as the compiler searches.
resolve() { # including-file included-name
  d=$(dirname "$1")
  if [ -f "$top/$d/$2" ]; then echo "$d/$2"
  elif [ -f "$top/$2" ]; then echo "$2"
  elif [ -f "$top/lib/$2" ]; then echo "lib/$2"
  else echo "$2"; fi # config.h and other generated headers
}

# Whether a header is a solver family's entry, solvers/F/F.h (solvers/cg/cg.h), which is what the
# layers above see of the family (its files share the rest, such as solvers/cg/cg_impl.h).
family_entry() { f=${1#solvers/}; f=${f%%/*}; [ "$1" = "solvers/$f/$f.h" ]; }

# Whether including-file may include target (both relative to the top).
allowed() { # file target
  case $2 in config.h|lib/mixsolve.h) return 0 ;; esac # configuration and public types: everyone
  case $1 in
    lib/core/*) case $2 in lib/core/*) return 0 ;; esac ;;
    kernels/common/*) case $2 in kernels/common/*) return 0 ;; esac ;; # host + device: no core
    kernels/*/*) # a backend: its folder, the tables, the common formats, the core
      b=${1#kernels/}; b=${b%%/*}
      case $2 in kernels/"$b"/*|kernels/common/*|lib/core/*) return 0 ;;
                 kernels/*/*) return 1 ;;
                 kernels/*) return 0 ;; esac ;;
    kernels/*) case $2 in kernels/*/*) case $2 in kernels/common/*) return 0 ;; esac; return 1 ;;
                          kernels/*|lib/core/*) return 0 ;; esac ;;
    solvers/*/*) # a family: its folder, CG's sparse matrix object, the tables, common, the core
      fam=${1#solvers/}; fam=${fam%%/*}
      case $2 in solvers/"$fam"/*|kernels/common/*|lib/core/*) return 0 ;;
                 solvers/*/*) family_entry "$2"; return ;; # another family's entry (CG -> AMG); nm keeps calls acyclic
                 solvers/*|kernels/*/*) return 1 ;;
                 kernels/*) return 0 ;; esac ;;
    solvers/*) return 1 ;; # every solver lives in its family's folder
    lib/api/*) case $2 in lib/api/*|lib/core/*|kernels/common/*) return 0 ;;
                          solvers/*/*) family_entry "$2"; return ;; # never a family's private parts
                          kernels/*/*) return 1 ;;
                          kernels/*) return 0 ;; esac ;;
    lib/mpi/*) case $2 in lib/mpi/*|lib/core/*|solvers/cg/cg.h|kernels/common/*) return 0 ;; esac ;;
    lib/petsc/*) case $2 in lib/petsc/*|lib/mpi/mixsolve_mpi.h) return 0 ;; esac ;; # public API
    lib/*) ;; # the public header alone: nothing of ours but config.h
    dropin/*) case $2 in dropin/*|lib/api/*|lib/core/*) return 0 ;; esac ;;
    matrices/*) case $2 in matrices/*|lib/core/clock.h) return 0 ;; esac ;; # the header-only clock
    tools/*) case $2 in tools/*|matrices/*|lib/mpi/mixsolve_mpi.h) return 0 ;; esac ;; # the public API only (MPI's too)
    *) return 0 ;; # tests/ and bench/ may look inside
  esac
  return 1
}

files=$(cd "$top" && find lib kernels solvers dropin matrices tools -type f \
          \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)
[ -n "$files" ] || fail "no sources found under $top"
for f in $files; do
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$top/$f"); do
    t=$(resolve "$f" "$inc")
    allowed "$f" "$t" || fail "$f includes $t (doc/HACKING.md section 1)"
  done
done

# lib/ asks the table's flags and the registry, never a backend by name (the public header
# lists the backend enum and documents it; it is exempt).
for f in $(cd "$top" && find lib -type f \( -name '*.c' -o -name '*.h' \) ! -name mixsolve.h | sort); do
  grep -n -i -E 'cuda|cpu' "$top/$f" | sed "s|^|FAIL: $f names a backend: |" | grep . && status=1
done

# Calls: no object of a layer calls a function defined in a layer above it (a header may be
# allowed and still declare a function of a higher layer, as mixsolve.h does).  Needs the built
# objects (make check builds them first); skipped where they or nm are missing.
objs() { # the objects of the sources now in these directories (stale ones of moved files left out)
  for d in "$@"; do
    for src in $(cd "$top" && ls $d/*.c $d/*.cu 2>/dev/null); do
      o=$(dirname "$src")/.libs/$(basename "${src%.*}").o # libtool's PIC object
      [ -f "$o" ] || o=${src%.*}.o                        # --disable-shared
      [ -f "$o" ] && echo "$o"
    done
  done
}
defined() { [ -n "$1" ] && nm -g --defined-only $1 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }
undefined() { [ -n "$1" ] && nm -g --undefined-only $1 2>/dev/null | awk '{ print $NF }' | sort -u; }
core=$(objs lib/core)
kern=$(objs kernels $(cd "$top" && find kernels -mindepth 1 -maxdepth 1 -type d | sort))
solv=$(objs $(cd "$top" && find solvers -mindepth 1 -maxdepth 1 -type d | sort))
api=$(objs lib/api)
if command -v nm >/dev/null 2>&1 && [ -n "$core" ] && [ -n "$kern" ] && [ -n "$solv" ] && [ -n "$api" ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/mixsolve-layering.XXXXXX") || exit 1
  defined "$kern" >"$tmp/kernels"
  defined "$solv" >"$tmp/solvers"
  defined "$api" >"$tmp/lib"
  check_calls() { # layer-name its-objects symbol-lists-of-the-layers-above...
    name=$1; o=$2; shift 2
    cat "$@" | sort -u >"$tmp/above"
    for s in $(undefined "$o" | comm -12 - "$tmp/above"); do
      fail "$name calls $s, defined in a layer above it"
    done
  }
  check_calls lib/core "$core" "$tmp/kernels" "$tmp/solvers" "$tmp/lib"
  check_calls kernels "$kern" "$tmp/solvers" "$tmp/lib"
  check_calls solvers "$solv" "$tmp/lib"
  rm -rf "$tmp"
else
  echo "layering.sh: objects or nm not found, calls not checked"
fi
# No call circles: file A using a symbol file B defines, and B (through any others) one of A's.
# The edges come from nm over the objects of every source of the library, the MPI and PETSc
# libraries, the drop-in and the command; tsort names the files of a loop.
obj_of() { # source -> its object in this build (libtool's PIC one, or one named per target)
  d=$(dirname "$1"); b=$(basename "${1%.*}")
  for o in "$d/.libs/$b.o" "$d/$b.o" "$d"/.libs/*-"$b".o "$d"/*-"$b".o; do
    [ -f "$o" ] && { echo "$o"; return; }
  done
}
if command -v nm >/dev/null 2>&1 && command -v tsort >/dev/null 2>&1 && [ -n "$core" ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/mixsolve-circles.XXXXXX") || exit 1
  : >"$tmp/def"; : >"$tmp/use"
  for src in $(cd "$top" && find lib kernels solvers dropin tools matrices -type f \( -name '*.c' -o -name '*.cu' \) | sort); do
    o=$(obj_of "$src")
    [ -n "$o" ] || continue
    nm -g --defined-only "$o" 2>/dev/null | awk -v f="$src" 'NF == 3 { print $3, f }' >>"$tmp/def"
    nm -g --undefined-only "$o" 2>/dev/null | awk -v f="$src" '{ print $NF, f }' >>"$tmp/use"
  done
  sort -k1,1 "$tmp/def" >"$tmp/def.s"
  sort -k1,1 "$tmp/use" >"$tmp/use.s"
  join "$tmp/use.s" "$tmp/def.s" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"
  if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/loops"; then
    # One line per loop tsort found (it breaks each and goes on).
    awk '/contains a loop/ { if (l != "") print l; l = ""; next }
         { sub(/^tsort: /, ""); l = l (l == "" ? "" : " <-> ") $0 }
         END { if (l != "") print l }' "$tmp/loops" >"$tmp/circles"
    [ -s "$tmp/circles" ] || echo "(tsort failed)" >"$tmp/circles"
    while read -r loop; do
      fail "call circle: $loop (doc/HACKING.md section 1)"
    done <"$tmp/circles"
  fi
  rm -rf "$tmp"
else
  echo "layering.sh: objects, nm or tsort not found, call circles not checked"
fi

[ $status = 0 ] && echo "layering.sh: includes and calls follow doc/HACKING.md section 1"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
