#!/bin/sh
# doc_examples.sh: the examples a user copies from doc/guide.md and the manual pages, against this
# build tree (lib/mixsolve-uninstalled.pc), as readme_examples.sh does for README.md's:
# - every C fragment (a ```c block after `<!-- fragment: NAMES -->' in the guide, the EXAMPLE
#   section of each man3 page written in C) compiled with -Wall -Wextra -Werror inside a main()
#   that declares the names fragments use (ctx n nrhs a ipiv b x rowptr colind val: a 100 x 100
#   SPD system, dense and CSR), and run; the fragments stop before their results are used, so
#   only unused-variable warnings are allowed;
# - the guide's ```fortran program built with the ```sh line after it ($FC for gfortran; skipped
#   without FC) and its output diffed against the ```text block after `<!-- output: solve.f90 -->'
#   on the CPU backend.
# mixsolve_mpi(3)'s EXAMPLE needs MPI and is left to tests/mpi.sh's programs.
set -u
top=$srcdir
work=$PWD/tests/docex.tmp
rm -rf "$work" && mkdir -p "$work"
status=0
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }
export PKG_CONFIG_PATH="$PWD/lib${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$PWD/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
backend=$(./tools/mixsolve info 2>/dev/null | sed -n 's/^default backend (auto): //p')

# The guide's blocks: fragments as guide_frag1.c ..., the Fortran program, its command, outputs.
awk -v dir="$work" '
  /^<!-- fragment: / { frag = 1; next }
  /^<!-- output: [A-Za-z0-9_.]+ -->$/ { out = $3; next }
  /^```c$/ && frag { nf++; f = dir "/guide_frag" nf ".c"; frag = 0; inc = 1; next }
  /^```fortran$/ { f = dir "/solve.f90"; inc = 1; next }
  /^```text$/ && out != "" { f = dir "/" out ".expected"; out = ""; inc = 1; next }
  /^```sh$/ { insh = 1; next }
  /^```/ { inc = 0; insh = 0; next }
  inc { print > f }
  insh && /^gfortran / { print > (dir "/fcommands") }
' "$top/doc/guide.md"
[ -f "$work/guide_frag1.c" ] || fail "doc/guide.md has no C fragment (a \`\`\`c block after '<!-- fragment: ... -->')"

# Each man3 page's EXAMPLE (.nf ... .fi), roff escapes undone.
for page in "$top"/doc/man3/*.3; do
  name=$(basename "$page" .3)
  [ "$name" = mixsolve_mpi ] && continue
  sed -n '/^\.SH EXAMPLE/,/^\.SH [^E]/p' "$page" | sed -n '/^\.nf/,/^\.fi/p' | sed '1d;$d' |
    sed -e 's/\\e/\\/g' -e "s/\\\\(aq/'/g" -e 's/\\-/-/g' >"$work/man_$name.c"
  [ -s "$work/man_$name.c" ] || rm -f "$work/man_$name.c"
done

cat >"$work/harness.h" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <mixsolve.h>
enum { N_ = 100 };
static double a_[N_ * N_], b_[N_], x_[N_], val_[3 * N_];
static int ipiv_[N_];
static int64_t rowptr_[N_ + 1];
static int32_t colind_[3 * N_];
static void harness_setup(void) /* A = diagonally dominant symmetric, CSR tridiag(-1, 2.5, -1) */
{
    for (int j = 0; j < N_; j++)
        for (int i = 0; i <= j; i++)
            a_[i + j * N_] = a_[j + i * N_] = i == j ? N_ : 1.0 / (1 + i + j);
    for (int i = 0, k = 0; i < N_; rowptr_[++i] = k, b_[i - 1] = 1)
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < N_) colind_[k] = j, val_[k++] = j == i ? 2.5 : -1;
}
EOF
n_frag=0
for frag in "$work"/guide_frag*.c "$work"/man_*.c; do
  [ -f "$frag" ] || continue
  n_frag=$((n_frag + 1))
  base=${frag%.c}
  {
    echo '#include "harness.h"'
    echo 'int main(void)'
    echo '{'
    echo '    harness_setup();'
    echo '    int n = N_, nrhs = 1, *ipiv = ipiv_;'
    echo '    double *a = a_, *b = b_, *x = x_, *val = val_;'
    echo '    int64_t *rowptr = rowptr_;'
    echo '    int32_t *colind = colind_;'
    echo '    mix_context *ctx = NULL;'
    echo '    if (mix_context_create(&ctx, MIX_BACKEND_AUTO)) return 1;'
    echo '    (void)n, (void)nrhs, (void)ipiv, (void)a, (void)b, (void)x, (void)val, (void)rowptr, (void)colind;'
    echo '    {'
    echo "#line 1 \"$(basename "$frag")\""
    cat "$frag"
    echo '    }'
    echo '    mix_context_destroy(ctx);'
    echo '    return 0;'
    echo '}'
  } >"$base.main.c"
  echo "== $(basename "$frag")"
  if ! ${CC:-cc} -std=c11 -Wall -Wextra -Werror -Wno-unused-variable -Wno-unused-but-set-variable \
       -I"$work" -o "$base" "$base.main.c" $(pkg-config --cflags --libs mixsolve) -lm; then
    fail "$(basename "$frag") does not compile warning-free (-Wall -Wextra -Werror)"
  elif ! "$base"; then
    fail "$(basename "$frag") fails when run"
  fi
done
[ "$n_frag" -ge 8 ] || fail "only $n_frag C examples found in doc/guide.md and doc/man3 (expected 8)"

# The guide's Fortran program, built and run with its own command.
fc=${FC:-}
[ -s "$work/fcommands" ] || fail "doc/guide.md has no gfortran command for its Fortran example"
[ -f "$work/solve.f90.expected" ] || fail "doc/guide.md shows no output of solve.f90 ('<!-- output: solve.f90 -->')"
if [ -z "$fc" ]; then
  echo "SKIP: the guide's Fortran example (no Fortran compiler configured)"
elif [ -s "$work/fcommands" ]; then
  cmd=$(head -n 1 "$work/fcommands")
  echo "== $cmd (gfortran = $fc)"
  if ! (cd "$work" && sh -c "$fc ${cmd#gfortran }") >"$work/solve.f90.out"; then
    fail "the guide's Fortran example: '$cmd'"
  else
    cat "$work/solve.f90.out"
    if [ "$backend" != cpu ]; then
      echo "SKIP: solve.f90's output (the default backend is ${backend:-unknown}, not cpu)"
    elif [ -f "$work/solve.f90.expected" ] && ! diff -u "$work/solve.f90.expected" "$work/solve.f90.out"; then
      fail "the guide's Fortran example prints other than doc/guide.md shows (diff above)"
    fi
  fi
fi
[ $status = 0 ] && rm -rf "$work"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
