#!/bin/sh
# readme_examples.sh: README.md's C programs, saved under the names its `cc` commands compile,
# built with exactly those commands (pkg-config finding lib/mixsolve-uninstalled.pc, i.e. this
# build tree) and run; then once more with -Wall -Wextra -Werror.  They cannot rot.
set -u
readme=$srcdir/README.md
work=$PWD/tests/readme.tmp
rm -rf "$work" && mkdir -p "$work"
status=0
fail() { echo "FAIL: $*"; status=1; }
# The fenced ```c blocks, in order, as block1.c, block2.c ...; the `cc` lines of ```sh blocks.
awk -v dir="$work" '
  /^```c$/ { n++; f = dir "/block" n ".c"; inc = 1; next }
  /^```sh$/ { insh = 1; next }
  /^```/ { inc = 0; insh = 0; next }
  inc { print > f }
  insh && /^cc / { print > (dir "/commands") }
' "$readme"
blocks=$(ls "$work"/block*.c 2>/dev/null | wc -l)
commands=$(wc -l <"$work/commands" 2>/dev/null || echo 0)
[ "$blocks" -ge 2 ] || fail "README.md has $blocks C examples, expected at least 2"
[ "$blocks" = "$commands" ] || fail "$blocks C blocks but $commands cc commands in README.md"
export PKG_CONFIG_PATH="$PWD/lib${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$PWD/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
i=0
while read -r cmd; do
  i=$((i + 1))
  name=$(echo "$cmd" | awk '{ print $2 }')
  case "$cmd" in *"pkg-config --cflags --libs mixsolve"*) ;; *) fail "'$cmd' does not use pkg-config" ;; esac
  mv "$work/block$i.c" "$work/$name"
  echo "== $cmd"
  (cd "$work" && sh -c "$cmd") || fail "README example $name: '$cmd'"
  (cd "$work" && ${CC:-cc} -Wall -Wextra -Werror -c "$name" $(pkg-config --cflags mixsolve)) ||
    fail "README example $name is not warning-free"
done <"$work/commands"
[ $status = 0 ] && rm -rf "$work"
exit $status
