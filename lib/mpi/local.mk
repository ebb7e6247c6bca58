# lib/mpi/local.mk: libmixsolve_mpi (when configure finds MPI): contexts and matrices spanning
# MPI ranks, over libmixsolve.  Its sources and header travel in every tarball.
EXTRA_DIST += lib/mpi/mixsolve_mpi.pc.in
noinst_HEADERS += lib/mpi/mpi_internal.h
MIX_MPI_SOURCES = lib/mpi/agree.c lib/mpi/comm_mpi.c lib/mpi/wire.c lib/mpi/halo.c lib/mpi/dist_csr.c \
	lib/mpi/dist_spmv.c
if HAVE_MPI
include_HEADERS += lib/mpi/mixsolve_mpi.h
pkgconfig_DATA += lib/mpi/mixsolve_mpi.pc
lib_LTLIBRARIES += lib/libmixsolve_mpi.la
# The objects once, as a convenience archive (internal symbols visible, as libmixsolve_internal.la):
# the shared library, the MPI benchmarks and tests link it.
noinst_LTLIBRARIES += lib/mpi/libmixsolve_mpi_internal.la
lib_mpi_libmixsolve_mpi_internal_la_SOURCES = $(MIX_MPI_SOURCES)
lib_mpi_libmixsolve_mpi_internal_la_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
lib_libmixsolve_mpi_la_SOURCES =
nodist_EXTRA_lib_libmixsolve_mpi_la_SOURCES = dummy.c
lib_libmixsolve_mpi_la_LIBADD = lib/mpi/libmixsolve_mpi_internal.la lib/libmixsolve.la $(MPI_LIBS) -lm
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
bench_bench_mpi_halo_LDADD = lib/mpi/libmixsolve_mpi_internal.la libmixsolve_internal.la matrices/libmixmat.la \
	$(MIX_DEP_LIBS) $(MPI_LIBS) -lm
bench_bench_mpi_halo_LDFLAGS = $(OPENMP_CFLAGS)
endif
# The distributed CG per storage (doc/scaling.md's 2-rank table).
EXTRA_DIST += bench/bench_mpi_cg.c
if HAVE_MPI
noinst_PROGRAMS += bench/bench_mpi_cg
bench_bench_mpi_cg_SOURCES = bench/bench_mpi_cg.c
bench_bench_mpi_cg_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
bench_bench_mpi_cg_LDADD = lib/mpi/libmixsolve_mpi_internal.la libmixsolve_internal.la matrices/libmixmat.la \
	$(MIX_DEP_LIBS) $(MPI_LIBS) -lm
bench_bench_mpi_cg_LDFLAGS = $(OPENMP_CFLAGS)
endif
# Its manual page and the names of its functions, installed with the library.
MIX_MPI_MANS = doc/man3/mixsolve_mpi.3 doc/man3/mix_context_create_mpi.3 \
	doc/man3/mix_sparse_create_dist_csr.3
EXTRA_DIST += $(MIX_MPI_MANS)
if HAVE_MPI
man_MANS = $(MIX_MPI_MANS)
endif
# The scaling model (doc/scaling.md) and its script.
EXTRA_DIST += doc/scaling.md doc/scaling_model.py
# make installcheck: an outside MPI program (tests/mpi_consumer.c) built against the INSTALLED
# libmixsolve_mpi through its pkg-config file, run on 2 ranks.
EXTRA_DIST += tests/mpi_consumer.c
CLEANFILES += tests/mpi_consumer$(EXEEXT)
installcheck-local: installcheck-mpi
installcheck-mpi:
	@if test -n "$(MPIRUN)"; then \
	  $(MKDIR_P) tests && \
	  PKG_CONFIG_PATH="$(DESTDIR)$(libdir)/pkgconfig" $(PKG_CONFIG) --exists mixsolve_mpi && \
	  echo "$(CC) ... tests/mpi_consumer.c \`pkg-config --cflags --libs mixsolve_mpi\`" && \
	  $(CC) $(CFLAGS) $(WARN_CFLAGS) -o tests/mpi_consumer$(EXEEXT) $(srcdir)/tests/mpi_consumer.c \
	    `PKG_CONFIG_PATH="$(DESTDIR)$(libdir)/pkgconfig" $(PKG_CONFIG) --define-variable=prefix="$(DESTDIR)$(prefix)" --cflags --libs mixsolve_mpi` && \
	  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	  LD_LIBRARY_PATH="$(DESTDIR)$(libdir)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}" \
	    $(MPIRUN) -np 2 --oversubscribe ./tests/mpi_consumer$(EXEEXT); \
	else echo "installcheck-mpi: no MPI configured, skipped"; fi
.PHONY: installcheck-mpi
