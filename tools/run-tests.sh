#!/usr/bin/env bash
# run-tests.sh: the README's test command: dependencies, configure (-Werror), build, make check.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
[ -x configure ] || autoreconf -fi
mkdir -p _build && cd _build
[ -f Makefile ] || ../configure --enable-werror
make -j"$(nproc)"
make check
