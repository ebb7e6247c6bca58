# tools/local.mk: the mixsolve command.
bin_PROGRAMS += tools/mixsolve
tools_mixsolve_SOURCES = tools/mixsolve.c tools/cli.h tools/cli.c tools/cmd_info.c tools/cmd_solve.c tools/cmd_solve_sparse.c tools/solve_serial.c tools/solve_setup.c tools/cmd_gen.c \
	tools/bench.h tools/bench_run.h tools/cmd_bench.c tools/bench_inputs.c tools/bench_solve.c tools/bench_child.c \
	tools/bench_report.c tools/bench_amg.c \
	tools/bench_sparse_lu.h tools/bench_sparse_lu.c
# The installed data directory, expanded by make (configure's $datadir is a literal
# "${datarootdir}"); the source tree only serves a build that is not installed.
tools_mixsolve_CPPFLAGS = $(AM_CPPFLAGS) -DMIX_DATADIR='"$(pkgdatadir)"' -DMIX_SRCDIR='"$(abs_top_srcdir)"'
tools_mixsolve_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(LAPACKE_LIBS) $(OPENBLAS_LIBS) $(ZLIB_LIBS) -lm
# UMFPACK: the FP64 baseline of the main job's sparse LU rows (tools/bench_sparse_lu.c) only.
tools_mixsolve_CPPFLAGS += $(UMFPACK_CFLAGS)
tools_mixsolve_LDADD += $(UMFPACK_LIBS)
EXTRA_DIST += tools/run-bench.sh tools/install-deps.sh tools/run-tests.sh tools/ci-tsan.sh tools/tsan.supp tools/ci-asan.sh tools/reflapack-check.sh
# Where configure found MPI, mixsolve links libmixsolve_mpi and MPI (a conditional link, one
# binary): `mpirun -np P mixsolve solve FILE.mtx --method cg` solves across the ranks; run
# without a launcher it is the serial command and never initialises MPI.
EXTRA_DIST += tools/cmd_solve_mpi.c
if HAVE_MPI
tools_mixsolve_SOURCES += tools/cmd_solve_mpi.c
tools_mixsolve_CPPFLAGS += $(MPI_CFLAGS) -DMIX_CLI_MPI
tools_mixsolve_LDADD += lib/libmixsolve_mpi.la $(MPI_LIBS)
endif
