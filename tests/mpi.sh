#!/bin/sh
# mpi.sh: libmixsolve_mpi's test (tests/mpi_dist) on 1, 2, 3 and 4 ranks (oversubscribed: this
# may be a 2-core machine); skipped (77) where configure built no MPI.
set -u
prog=./tests/mpi_dist
[ -x "$prog" ] && [ -n "${MPIRUN:-}" ] || { echo "SKIP: libmixsolve_mpi not built"; exit 77; }
# Open MPI refuses root unless told; CI containers run as root.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
status=0
for np in 1 2 3 4; do
  # timeout: a rank left waiting would otherwise hang make check.
  timeout 300 "$MPIRUN" -np "$np" --oversubscribe "$prog" || { echo "FAIL: $np ranks"; status=1; }
done
exit $status
