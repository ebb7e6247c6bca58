#!/bin/sh
# man_pages.sh: every public function (lib/mixsolve.h, lib/mpi/mixsolve_mpi.h) has a manual page
# of its own name, installed by the build, whose NAME section names it (`man mix_sparse_lu_memory`
# found nothing: its page was mix_dgesv_sparse.3 alone); and every page renders without a groff
# warning where groff is installed.
set -u
LC_ALL=C; export LC_ALL
top=${srcdir:-.}
fail=0
funcs=$(cd "$top" && grep -ho '^[a-z_ ]*[ *]\(mix_[a-z0-9_]*\)(' lib/mixsolve.h lib/mpi/mixsolve_mpi.h |
        sed 's/.*\(mix_[a-z0-9_]*\)(/\1/' | sort -u)
[ -n "$funcs" ] || { echo "FAIL: no public functions found under $top/lib"; exit 1; }
mk=$(cat "$top/doc/local.mk" "$top/lib/mpi/local.mk")
for f in $funcs; do
  page="$top/doc/man3/$f.3"
  if [ ! -f "$page" ]; then echo "FAIL: $f has no doc/man3/$f.3"; fail=1; continue; fi
  case "$mk" in *"doc/man3/$f.3"*) ;; *) echo "FAIL: doc/man3/$f.3 is not installed (doc/local.mk)"; fail=1 ;; esac
  src=$(sed -n 's/^\.so man3\///p' "$page")
  [ -n "$src" ] || src="$f.3"
  if ! sed -n '/^\.SH NAME/,/^\.SH/p' "$top/doc/man3/$src" | grep -q "\\b$f\\b"; then
    echo "FAIL: the NAME section of doc/man3/$src does not name $f"; fail=1
  fi
done
if command -v groff >/dev/null 2>&1; then
  # From doc/, where the link pages' ".so man3/..." lines resolve.
  for p in $(cd "$top/doc" && ls man1/*.1 man3/*.3 man7/*.7); do
    w=$(cd "$top/doc" && groff -man -ww -z "$p" 2>&1)
    [ -z "$w" ] || { echo "FAIL: groff warns on $p:"; echo "$w"; fail=1; }
  done
fi
[ $fail = 0 ] && echo "man_pages.sh: $(echo "$funcs" | wc -l) public functions, each with its page"
exit $fail
