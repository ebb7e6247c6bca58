#!/bin/sh
# readme_examples.sh: README.md's C programs, saved under the names its `cc` commands compile,
# built with exactly those commands (pkg-config finding lib/mixsolve-uninstalled.pc, i.e. this
# build tree) and run, their output compared with the ```text block after an `<!-- output: NAME -->'
# line (on the CPU backend: a GPU's CG may take other iteration counts); then once more with
# -Wall -Wextra -Werror.  The ```python blocks run as
# their `python3 NAME.py' lines say (the package from the source tree, this tree's library; skipped
# without a python3 with NumPy and SciPy), and the ```cmake block as its `cmake' line says against
# a staged `make install' (skipped without cmake).  They cannot rot.
set -u
readme=$srcdir/README.md
work=$PWD/tests/readme.tmp
rm -rf "$work" && mkdir -p "$work"
status=0
# Failures are repeated at the end: CI shows only the tail of a long log.
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }
# The fenced ```c blocks, in order, as block1.c, block2.c ...; the `cc` lines of ```sh blocks.
awk -v dir="$work" '
  /^```c$/ { n++; f = dir "/block" n ".c"; inc = 1; next }
  /^```python$/ { np++; f = dir "/pyblock" np ".py"; inc = 1; next }
  /^```cmake$/ { nc++; f = dir "/CMakeLists" nc ".txt"; inc = 1; next }
  /^<!-- output: [A-Za-z0-9_.]+ -->$/ { out = $3; next }
  /^```text$/ && out != "" { f = dir "/" out ".expected"; out = ""; inc = 1; next }
  /^```sh$/ { insh = 1; next }
  /^```/ { inc = 0; insh = 0; next }
  inc { print > f }
  insh && /^cc / { print > (dir "/commands") }
  insh && /^python3 / { print > (dir "/pycommands") }
  insh && /^cmake / { print > (dir "/cmakecommands") }
' "$readme"
blocks=$(ls "$work"/block*.c 2>/dev/null | wc -l)
commands=$(wc -l <"$work/commands" 2>/dev/null || echo 0)
[ "$blocks" -ge 2 ] || fail "README.md has $blocks C examples, expected at least 2"
[ "$blocks" = "$commands" ] || fail "$blocks C blocks but $commands cc commands in README.md"
export PKG_CONFIG_PATH="$PWD/lib${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$PWD/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The outputs shown are the CPU backend's.
backend=$(./tools/mixsolve info 2>/dev/null | sed -n 's/^default backend (auto): //p')
i=0
while read -r cmd; do
  i=$((i + 1))
  name=$(echo "$cmd" | awk '{ print $2 }')
  case "$cmd" in *"pkg-config --cflags --libs mixsolve"*) ;; *) fail "'$cmd' does not use pkg-config" ;; esac
  mv "$work/block$i.c" "$work/$name"
  echo "== $cmd"
  (cd "$work" && sh -c "$cmd") >"$work/$name.out" || fail "README example $name: '$cmd'"
  cat "$work/$name.out"
  exe=${name%.c}
  if [ ! -f "$work/$exe.expected" ]; then
    fail "README.md shows no output of $name (a \`\`\`text block after '<!-- output: $exe -->')"
  elif [ "$backend" != cpu ]; then
    echo "SKIP: $name's output against README.md's (the default backend is ${backend:-unknown}, not cpu)"
  elif ! diff -u "$work/$exe.expected" "$work/$name.out"; then
    fail "README example $name prints other than README.md shows (diff above)"
  fi
  (cd "$work" && ${CC:-cc} -Wall -Wextra -Werror -c "$name" $(pkg-config --cflags mixsolve)) ||
    fail "README example $name is not warning-free"
done <"$work/commands"

abs_srcdir=$(cd "$srcdir" && pwd)
# Python: each `python3 NAME.py' line runs the next ```python block saved as NAME.py.
pyblocks=$(ls "$work"/pyblock*.py 2>/dev/null | wc -l)
pycommands=$(wc -l <"$work/pycommands" 2>/dev/null || echo 0)
[ "$pyblocks" -ge 1 ] || fail "README.md has no Python example"
[ "$pyblocks" = "$pycommands" ] || fail "$pyblocks Python blocks but $pycommands python3 commands"
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
  [ "$cand" = : ] && continue
  if "$cand" -c 'import numpy, scipy' 2>/dev/null; then py=$cand; break; fi
done
if [ -z "$py" ]; then
  echo "SKIP: the Python examples (no python3 with numpy and scipy)"
else
  i=0
  while read -r cmd; do
    i=$((i + 1))
    name=$(echo "$cmd" | awk '{ print $2 }')
    mv "$work/pyblock$i.py" "$work/$name"
    echo "== $cmd (python3 = $py)"
    (cd "$work" && MIXSOLVE_LIBRARY="$OLDPWD/lib/.libs/libmixsolve.so" \
      PYTHONPATH="$abs_srcdir/python" sh -c "$py ${cmd#python3 }") </dev/null ||
      fail "README Python example $name: '$cmd'"
  done <"$work/pycommands"
fi

# CMake: the ```cmake block as CMakeLists.txt beside the C examples, its `cmake' line run with
# CMAKE_PREFIX_PATH at a staged install of this build.
[ -f "$work/CMakeLists1.txt" ] || fail "README.md has no CMake example"
if ! command -v cmake >/dev/null 2>&1; then
  echo "SKIP: the CMake example (no cmake)"
elif [ -f "$work/CMakeLists1.txt" ]; then
  prefix=$(sed -n 's/^prefix = //p' Makefile)
  ${MAKE:-make} install DESTDIR="$work/root" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "make install DESTDIR=$work/root"; }
  mkdir -p "$work/cmake" && cp "$work"/*.c "$work/cmake/" && mv "$work/CMakeLists1.txt" "$work/cmake/CMakeLists.txt"
  while read -r cmd; do
    echo "== $cmd (CMAKE_PREFIX_PATH=$work/root$prefix)"
    (cd "$work/cmake" && CMAKE_PREFIX_PATH="$work/root$prefix" sh -c "$cmd") </dev/null ||
      fail "README CMake example: '$cmd'"
  done <"$work/cmakecommands"
fi
[ $status = 0 ] && rm -rf "$work"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
