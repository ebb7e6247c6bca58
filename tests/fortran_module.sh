#!/bin/sh
# fortran_module.sh: the Fortran module `mixsolve` (fortran/mixsolve.f90) against mixsolve.h: an
# interface for every public function, every constant with C's value, every structure with C's
# size; then tests/fortran_client.f90 built on the module and run.  Skipped where configure found
# no Fortran compiler.  Environment from make: FC, FCFLAGS, CC, CPPFLAGS-style MIXT_CFLAGS.
set -u
if [ -z "${FC:-}" ]; then
  echo "SKIP: no Fortran compiler found by configure (install gfortran, or --enable-fortran)"
  exit 77
fi
hdr=$srcdir/lib/mixsolve.h
mod=$srcdir/fortran/mixsolve.f90
work=tests/fortran.tmp
rm -rf "$work" && mkdir -p "$work"
status=0
# Failures are repeated at the end: CI shows only the tail of a long log.
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }

for f in $(sed -n 's/^[a-z].*[ *]\(mix_[a-z0-9_]*\)(.*/\1/p' "$hdr"); do
  grep -q "name=\"$f\"" "$mod" || fail "$f has no interface in fortran/mixsolve.f90: add one"
done
consts=$(grep -o '\bMIX_[A-Z0-9_]*' "$hdr" | grep -v '_$' | sort -u)
consts="$consts MIX_ERR_COUNT_"
structs=$(awk '/^typedef struct \{/{s=1} s && /^\} mix_[a-z_]*;/{gsub(/[};]/,""); print $1; s=0}' "$hdr")

# The same lines printed by C (from the header) and by Fortran (from the module).
{
  echo '#include <stdio.h>'
  echo '#include "mixsolve.h"'
  echo 'int main(void) {'
  for c in $consts; do printf '  printf("%%s %%ld\\n", "%s", (long)%s);\n' "$c" "$c"; done
  for s in $structs; do printf '  printf("sizeof %%s %%zu\\n", "%s", sizeof(%s));\n' "$s" "$s"; done
  echo '  return 0; }'
} >"$work/c_side.c"
{
  echo 'program f_side'
  echo '  use, intrinsic :: iso_c_binding'
  echo '  use mixsolve'
  echo '  implicit none'
  for s in $structs; do echo "  type($s) :: v_$s"; done
  for c in $consts; do echo "  print '(A,1X,I0)', '$c', $c"; done
  for s in $structs; do echo "  print '(A,1X,I0)', 'sizeof $s', c_sizeof(v_$s)"; done
  echo 'end program f_side'
} >"$work/f_side.f90"
$CC -I"$srcdir/lib" -o "$work/c_side" "$work/c_side.c" || fail "C side does not compile"
$FC $FCFLAGS -Ifortran -o "$work/f_side" "$work/f_side.f90" || fail "Fortran side does not compile"
"$work/c_side" >"$work/c.txt" && "$work/f_side" >"$work/f.txt" || fail "constant/size programs"
if diff "$work/c.txt" "$work/f.txt"; then
  echo "ok   $(wc -l <"$work/c.txt") constants and structure sizes agree with mixsolve.h"
else
  fail "the module's constants or structure sizes differ from mixsolve.h (above: < C, > Fortran)"
fi

libdir=$PWD/lib/.libs
$FC $FCFLAGS -Ifortran -o "$work/fortran_client" "$srcdir/tests/fortran_client.f90" \
  -L"$libdir" -lmixsolve -Wl,-rpath,"$libdir" || fail "tests/fortran_client.f90 does not build"
"$work/fortran_client" || fail "tests/fortran_client"
[ $status = 0 ] && rm -rf "$work"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
