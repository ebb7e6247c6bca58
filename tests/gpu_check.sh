#!/bin/sh
# gpu_check.sh: the CPU side of issue 36's device check (tools/gpu-check.sh --dry) on this CUDA
# build: the bundle holds every non-CUDA library the programs need (ldd with LD_LIBRARY_PATH set
# to it), fits the device tool's 64 MiB, its device-side script parses and its suite loop runs
# one quick CPU suite.  Skipped (77) without nvcc or in a build without the CUDA backend.  A few
# seconds (copies and gzip -1 of ~95 MB).
set -u
exec bash "${srcdir:-.}/tools/gpu-check.sh" --dry --build-dir .
