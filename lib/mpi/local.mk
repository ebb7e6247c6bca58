# lib/mpi/local.mk: libmixsolve_mpi (when configure finds MPI): contexts and matrices spanning
# MPI ranks, over libmixsolve.  Its sources and header travel in every tarball.
EXTRA_DIST += lib/mpi/mixsolve_mpi.pc.in
noinst_HEADERS += lib/mpi/mpi_internal.h
MIX_MPI_SOURCES = lib/mpi/comm_mpi.c lib/mpi/wire.c lib/mpi/halo.c lib/mpi/dist_csr.c \
	lib/mpi/dist_spmv.c
if HAVE_MPI
include_HEADERS += lib/mpi/mixsolve_mpi.h
pkgconfig_DATA += lib/mpi/mixsolve_mpi.pc
lib_LTLIBRARIES += lib/libmixsolve_mpi.la
# The objects once, as a convenience archive: the shared library and the MPI tests link it.
noinst_LTLIBRARIES += lib/mpi/libmixsolve_mpi_core.la
lib_mpi_libmixsolve_mpi_core_la_SOURCES = $(MIX_MPI_SOURCES)
lib_mpi_libmixsolve_mpi_core_la_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
lib_libmixsolve_mpi_la_SOURCES =
nodist_EXTRA_lib_libmixsolve_mpi_la_SOURCES = dummy.c
lib_libmixsolve_mpi_la_LIBADD = lib/mpi/libmixsolve_mpi_core.la lib/libmixsolve.la $(MPI_LIBS) -lm
lib_libmixsolve_mpi_la_LDFLAGS = -version-info $(MIX_LT_VERSION) \
	-export-symbols-regex '^mix_(context_create_mpi|sparse_create_dist_csr)$$'
else
EXTRA_DIST += lib/mpi/mixsolve_mpi.h $(MIX_MPI_SOURCES)
endif
# The local rates of doc/scaling.md: ping-pong, allreduce, distributed SpMV per halo wire.
EXTRA_DIST += bench/bench_mpi_halo.c
if HAVE_MPI
noinst_PROGRAMS += bench/bench_mpi_halo
bench_bench_mpi_halo_SOURCES = bench/bench_mpi_halo.c
bench_bench_mpi_halo_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
bench_bench_mpi_halo_LDADD = lib/mpi/libmixsolve_mpi_core.la libmixsolve_core.la matrices/libmixmat.la \
	$(MIX_DEP_LIBS) $(MPI_LIBS) -lm
bench_bench_mpi_halo_LDFLAGS = $(OPENMP_CFLAGS)
endif
# Its manual page, installed with the library.
EXTRA_DIST += doc/man3/mixsolve_mpi.3
if HAVE_MPI
man_MANS = doc/man3/mixsolve_mpi.3
endif
# The scaling model (doc/scaling.md) and its script.
EXTRA_DIST += doc/scaling.md doc/scaling_model.py
