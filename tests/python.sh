#!/bin/sh
# python.sh: the pytest suite of the mixsolve Python package (python/tests) against THIS build
# tree's libmixsolve (MIXSOLVE_LIBRARY), with the package from the source tree.  Skips (77) when
# no python3 with NumPy, SciPy and pytest is found (tools/install-deps.sh installs them).
set -u
lib=$PWD/lib/.libs/libmixsolve.so
[ -f "$lib" ] || { echo "FAIL: $lib was not built"; exit 1; }
# The python3 configure chose (PYTHON), then python3 on PATH, then Debian's: pyenv's python3 on
# PATH may lack NumPy while /usr/bin/python3 has it.
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
  [ "$cand" = : ] && continue  # configure's PYTHON when it found none
  if "$cand" -c 'import numpy, scipy, pytest' 2>/dev/null; then py=$cand; break; fi
done
if [ -z "$py" ]; then
  echo "SKIP: no python3 with numpy, scipy and pytest (Debian: python3-numpy python3-scipy python3-pytest)"
  exit 77
fi
echo "python: $py ($("$py" -c 'import sys, numpy, scipy; print(sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__)'))"
MIXSOLVE_LIBRARY=$lib PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}" \
  MIXSOLVE_CLI="$PWD/tools/mixsolve" MIXSOLVE_BUILDDIR="$PWD" PYTHONDONTWRITEBYTECODE=1 \
  exec "$py" -m pytest -q -p no:cacheprovider "$srcdir/python/tests"
