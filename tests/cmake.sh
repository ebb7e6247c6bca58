#!/bin/sh
# cmake.sh: `make install' into a staging folder (DESTDIR), then tests/cmake, an outside CMake
# project, finds it with find_package(mixsolve 0.1 REQUIRED), builds tests/consumer.c against
# mixsolve::mixsolve and runs it; the installed Python package runs `info'.  Skips (77) without cmake.
set -u
command -v cmake >/dev/null 2>&1 || { echo "SKIP: cmake not found (Debian package cmake)"; exit 77; }
stage=$PWD/tests/cmake.tmp
rm -rf "$stage" && mkdir -p "$stage"
prefix=$(sed -n 's/^prefix = //p' Makefile)
have_fortran=$(sed -n 's/^FC = //p' Makefile)
${MAKE:-make} install DESTDIR="$stage/root" >"$stage/install.log" 2>&1 ||
  { cat "$stage/install.log"; echo "FAIL: make install DESTDIR=$stage/root"; exit 1; }
cmake -S "$srcdir/tests/cmake" -B "$stage/build" -DCMAKE_PREFIX_PATH="$stage/root$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_PACKAGE_NO_SYSTEM_PACKAGE_REGISTRY=ON \
  -DMIX_CONSUMER_SRC="$(cd "$srcdir/tests" && pwd)/consumer.c" \
  -DMIX_EXPECT_FORTRAN=$([ -n "$have_fortran" ] && echo ON || echo OFF) >"$stage/cmake.log" 2>&1 ||
  { cat "$stage/cmake.log"; echo "FAIL: cmake configure"; exit 1; }
cat "$stage/cmake.log"
grep -q "^-- mixsolve [0-9.]* from $stage/root" "$stage/cmake.log" ||
  { echo "FAIL: found another mixsolve than the staged one"; exit 1; }
cmake --build "$stage/build" || { echo "FAIL: cmake --build"; exit 1; }
"$stage/build/consumer" || { echo "FAIL: the consumer built by CMake"; exit 1; }
# The same staged install holds the Python package where configure found a python3 with NumPy.
if [ -n "${PYTHON:-}" ] && [ "$PYTHON" != : ]; then
  init=$(find "$stage/root" -path '*/mixsolve/__init__.py' | head -n 1)
  [ -n "$init" ] || { echo "FAIL: make install put no Python package mixsolve"; exit 1; }
  echo "python package: $init"
  (cd "$stage" && PYTHONPATH=$(dirname "$(dirname "$init")") \
    MIXSOLVE_LIBRARY=$(ls "$stage/root$prefix"/lib*/libmixsolve.so.1 | head -n 1) \
    "$PYTHON" -m mixsolve info) || { echo "FAIL: the installed Python package"; exit 1; }
fi
rm -rf "$stage"
