#!/usr/bin/env bash
# install-deps.sh: installs mixsolve's build and run dependencies from Debian's packages (idempotent).
set -euo pipefail
pkgs="build-essential autoconf automake libtool pkg-config libopenblas-openmp-dev liblapacke-dev
      libcunit1-dev zlib1g-dev libdnnl-dev gnuplot-nox
      liblapack-dev python3-numpy gfortran python3-scipy python3-pytest cmake
      libopenmpi-dev openmpi-bin libpetsc-real-dev libmumps-seq-dev libsuitesparse-dev
      r-base-core"
missing=
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

# OpenBLAS's OpenMP build shares libgomp's one thread pool with oneDNN and our OpenMP loops; the
# pthreads build's spinning workers fight them for the cores (doc/benchmarks.md).  Debian picks
# the pthreads build by alternatives priority whenever both are installed: point every BLAS and
# LAPACK alternative at the OpenMP build.
omp=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/openblas-openmp
if [ -d "$omp" ]; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  for name in libopenblas.so.0 libopenblas.so libblas.so.3 libblas.so liblapack.so.3 liblapack.so; do
    alt="$name-$(basename "$(dirname "$omp")")"
    [ -e "$omp/$name" ] && update-alternatives --query "$alt" >/dev/null 2>&1 &&
      $SUDO update-alternatives --set "$alt" "$omp/$name" >/dev/null
  done
fi
