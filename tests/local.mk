# tests/local.mk: the CUnit runner (make check) and its suites.
if HAVE_CUNIT
check_PROGRAMS += tests/mixsolve_tests
TESTS += tests/mixsolve_tests
endif
tests_mixsolve_tests_SOURCES = tests/runner.c tests/mixt.h tests/mixt_util.c tests/test_core.c tests/test_formats.c tests/test_matrices.c tests/test_cli.c \
	tests/test_gesv.c tests/test_cg.c tests/test_kernels.c tests/test_auto.c
tests_mixsolve_tests_SOURCES += tests/test_sparse_lu.c tests/test_lu_steps.c
tests_mixsolve_tests_CPPFLAGS = $(AM_CPPFLAGS) $(CUNIT_CFLAGS) \
	-DMIXT_SRCDIR='"$(abs_top_srcdir)"' -DMIXT_BUILDDIR='"$(abs_top_builddir)"'
tests_mixsolve_tests_LDADD = libmixsolve_internal.la matrices/libmixmat.la $(MIX_DEP_LIBS) $(CUNIT_LIBS) -lm
tests_mixsolve_tests_LDFLAGS = $(OPENMP_CFLAGS)
# make installcheck: an outside program (tests/consumer.c) compiled and run against the INSTALLED
# library through its pkg-config file; prefix is redefined so a DESTDIR staging works too.
EXTRA_DIST += tests/consumer.c
CLEANFILES += tests/consumer$(EXEEXT)
installcheck-local:
	@$(MKDIR_P) tests
	PKG_CONFIG_PATH="$(DESTDIR)$(libdir)/pkgconfig" $(PKG_CONFIG) --exists mixsolve
	$(CC) $(CFLAGS) $(WARN_CFLAGS) -o tests/consumer$(EXEEXT) $(srcdir)/tests/consumer.c \
	  `PKG_CONFIG_PATH="$(DESTDIR)$(libdir)/pkgconfig" $(PKG_CONFIG) --define-variable=prefix="$(DESTDIR)$(prefix)" --cflags --libs mixsolve` -lm
	LD_LIBRARY_PATH="$(DESTDIR)$(libdir)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}" ./tests/consumer$(EXEEXT)
tests_mixsolve_tests_SOURCES += tests/test_kernels_sparse.c
tests_mixsolve_tests_SOURCES += tests/test_spmv_tune.c
tests_mixsolve_tests_SOURCES += tests/test_onednn.c
tests_mixsolve_tests_SOURCES += tests/test_posv.c
tests_mixsolve_tests_SOURCES += tests/test_amg.c
tests_mixsolve_tests_SOURCES += tests/test_edge.c
tests_mixsolve_tests_SOURCES += tests/test_dense_probe.c
tests_mixsolve_tests_SOURCES += tests/test_resid_dd.c
tests_mixsolve_tests_SOURCES += tests/test_dropin.c tests/lu_check.h
# The LAPACK drop-in's client: a plain LAPACK program (-llapack only), run with and without the
# drop-in preloaded by tests/dropin_lapack.sh.
if HAVE_LAPACK
check_PROGRAMS += tests/lapack_client
TESTS += tests/dropin_lapack.sh tests/dropin_numpy.sh tests/dropin_r.sh
endif
tests_lapack_client_SOURCES = tests/lapack_client.c tests/lu_check.h
tests_lapack_client_LDADD = $(LAPACK_LIBS) -lpthread -lm
# A LAPACK program that reuses the factors dgesv_/dposv_ leave, run by tests/dropin_keep.sh.
if HAVE_LAPACK
check_PROGRAMS += tests/dropin_keep
TESTS += tests/dropin_keep.sh
endif
# The registry of kept originals on its own (also under ASan and TSan: tools/ci-*.sh).
check_PROGRAMS += tests/dropin_keep_unit
TESTS += tests/dropin_keep_unit
tests_dropin_keep_unit_SOURCES = tests/dropin_keep_unit.c dropin/keep.c
tests_dropin_keep_unit_LDADD = -lpthread
# Own object names: dropin/keep.c is also built with libtool for the drop-in.
tests_dropin_keep_unit_CFLAGS = $(AM_CFLAGS)
tests_dropin_keep_SOURCES = tests/dropin_keep.c
tests_dropin_keep_LDADD = $(LAPACK_LIBS) -lm
EXTRA_DIST += tests/dropin_keep.sh
CLEANFILES += tests/dropin_keep.log tests/dropin_keep.out
EXTRA_DIST += tests/dropin_lapack.sh tests/dropin_numpy.sh tests/dropin_numpy.py tests/dropin_r.sh
check_PROGRAMS += tests/dropin_autoprec
tests_dropin_autoprec_SOURCES = tests/dropin_autoprec.c
tests_dropin_autoprec_LDADD = lib/libmixsolve.la
CLEANFILES += tests/dropin_lapack.log tests/dropin_lapack.out tests/dropin_numpy.log tests/dropin_r.log
tests_mixsolve_tests_SOURCES += tests/test_hostile.c
tests_mixsolve_tests_SOURCES += tests/test_sparse_format.c
tests_mixsolve_tests_SOURCES += tests/test_sell_shift.c
# The simple drivers and CG from several threads at once (CI also builds it with
# ThreadSanitizer: tools/ci-tsan.sh).
check_PROGRAMS += tests/threads
TESTS += tests/threads
tests_threads_SOURCES = tests/threads.c
tests_threads_LDADD = libmixsolve_internal.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lpthread -lm
tests_threads_LDFLAGS = $(OPENMP_CFLAGS)
# The Fortran module against mixsolve.h, and a Fortran program on it (skipped without FC).
TESTS += tests/fortran_module.sh
EXTRA_DIST += tests/fortran_module.sh tests/fortran_client.f90
TESTS_ENVIRONMENT = env FC='$(FC)' FCFLAGS='$(FCFLAGS)' CC='$(CC)' PYTHON='$(PYTHON)' MAKE='$(MAKE)' MPIRUN='$(MPIRUN)'
clean-local: clean-fortran-test
clean-fortran-test:
	rm -rf tests/fortran.tmp tests/readme.tmp tests/cmake.tmp tests/docex.tmp
.PHONY: clean-fortran-test
# README.md's examples, compiled with its own commands against this build tree.
TESTS += tests/readme_examples.sh
EXTRA_DIST += tests/readme_examples.sh
# doc/guide.md's C fragment and Fortran program and every man3 page's EXAMPLE, -Wall -Wextra -Werror.
TESTS += tests/doc_examples.sh
EXTRA_DIST += tests/doc_examples.sh
# The layers of doc/HACKING.md section 1: who includes whom, who calls whom (grep and nm).
TESTS += tests/layering.sh
EXTRA_DIST += tests/layering.sh
# No function over 60 lines in lib/, solvers/, kernels/, dropin/, tools/ (doc/HACKING.md section 2).
TESTS += tests/func_length.sh
EXTRA_DIST += tests/func_length.sh
# Every public function has a manual page of its name, installed, and the pages render cleanly.
TESTS += tests/man_pages.sh
EXTRA_DIST += tests/man_pages.sh
# The extension recipes of doc/HACKING.md: precisions and backends named only where allowed.
TESTS += tests/extension.sh
EXTRA_DIST += tests/extension.sh
# The CPU kernels under MIXSOLVE_CPU_ISA=avx2|portable: the same bits, no body the cap removed.
TESTS += tests/isa_cap.sh
EXTRA_DIST += tests/isa_cap.sh
# The SpMV bodies' software prefetches survive compilation (objdump of the built library).
TESTS += tests/prefetch_emitted.sh
EXTRA_DIST += tests/prefetch_emitted.sh
# find_package(mixsolve) from a staged `make install', by an outside CMake project.
TESTS += tests/cmake.sh
EXTRA_DIST += tests/cmake.sh tests/cmake/CMakeLists.txt
# libmixsolve_mpi on 1..4 ranks (tests/mpi.sh; skipped without MPI).
TESTS += tests/mpi.sh
EXTRA_DIST += tests/mpi.sh tests/mpi_dist.c
if HAVE_MPI
check_PROGRAMS += tests/mpi_dist
tests_mpi_dist_SOURCES = tests/mpi_dist.c
tests_mpi_dist_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS) -DMIXT_SRCDIR='"$(abs_top_srcdir)"'
tests_mpi_dist_LDADD = lib/mpi/libmixsolve_mpi_internal.la libmixsolve_internal.la matrices/libmixmat.la \
	$(MIX_DEP_LIBS) $(MPI_LIBS) -lm
tests_mpi_dist_LDFLAGS = $(OPENMP_CFLAGS)
endif
# libmixsolve_petsc.so through an unmodified PETSc program (tests/petsc.sh; skipped without PETSc).
TESTS += tests/petsc.sh
EXTRA_DIST += tests/petsc.sh tests/petsc_client.c
if HAVE_PETSC
check_PROGRAMS += tests/petsc_client
tests_petsc_client_SOURCES = tests/petsc_client.c
tests_petsc_client_CPPFLAGS = $(MPI_CFLAGS) $(PETSC_CFLAGS)
tests_petsc_client_LDADD = $(PETSC_LIBS) $(MPI_LIBS) -lm
endif
# Issue 36: the CPU side of the GPU device check (tools/gpu-check.sh --dry): the bundle's ldd and
# size on a CUDA build; skipped without nvcc or without the CUDA backend.
TESTS += tests/gpu_check.sh
EXTRA_DIST += tests/gpu_check.sh tools/gpu-check.sh tools/gpu-run-on-device.sh
