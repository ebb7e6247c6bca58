#!/usr/bin/env bash
# install-deps.sh: installs mixsolve's build and run dependencies from Debian's packages (idempotent).
set -euo pipefail
pkgs="build-essential autoconf automake libtool pkg-config libopenblas-dev liblapacke-dev
      libcunit1-dev zlib1g-dev libdnnl-dev gnuplot-nox"
missing=
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
