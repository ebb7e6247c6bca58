# bench/local.mk: the standalone benchmark drivers (the `mixsolve bench` command lives in tools/).
if HAVE_CUDA
noinst_PROGRAMS += bench/bench_gpu_gesv
bench_bench_gpu_gesv_SOURCES = bench/bench_gpu_gesv.c
bench_bench_gpu_gesv_LDADD = libmixsolve_internal.la matrices/libmixmat.la $(MIX_DEP_LIBS) $(CUDA_BENCH_LIBS) -lm
endif
noinst_PROGRAMS += bench/bench_gesv
bench_bench_gesv_SOURCES = bench/bench_gesv.c bench/bench_dense.c
bench_bench_gesv_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
noinst_PROGRAMS += bench/bench_auto
bench_bench_auto_SOURCES = bench/bench_auto.c
bench_bench_auto_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
noinst_PROGRAMS += bench/small_calls
bench_small_calls_SOURCES = bench/small_calls.c
bench_small_calls_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
EXTRA_DIST += bench/small_n_callgrind.sh
if HAVE_CUDA
noinst_PROGRAMS += bench/bench_gpu_cg
bench_bench_gpu_cg_SOURCES = bench/bench_gpu_cg.c
bench_bench_gpu_cg_CPPFLAGS = $(AM_CPPFLAGS) -DMIXB_MATRIX_DIR='"$(abs_top_srcdir)/matrices/data"'
bench_bench_gpu_cg_LDADD = libmixsolve_internal.la matrices/libmixmat.la $(MIX_DEP_LIBS) $(CUDA_BENCH_LIBS) -lm
bench_bench_gpu_cg_LDFLAGS = $(OPENMP_CFLAGS)
endif
noinst_PROGRAMS += bench/bench_cg
bench_bench_cg_SOURCES = bench/bench_cg.c
bench_bench_cg_CPPFLAGS = $(AM_CPPFLAGS) -DMIXB_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_cg_LDADD = libmixsolve_internal.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
bench_bench_cg_LDFLAGS = $(OPENMP_CFLAGS)
noinst_HEADERS += bench/bench_gpu.h bench/bench_dense.h
# PETSc's KSPCG on the bench_cg problem, for comparison (optional: the script builds it only where
# PETSc and MPI are installed; never linked into anything here).
EXTRA_DIST += bench/petsc_cg.c bench/petsc_cg.sh
EXTRA_DIST += bench/petsc_amg.c bench/petsc_amg.sh bench/petsc_poisson.h
noinst_PROGRAMS += bench/bench_posv
bench_bench_posv_SOURCES = bench/bench_posv.c bench/bench_dense.c
bench_bench_posv_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
# numpy.linalg.solve with and without the LAPACK drop-in (Debian's python3-numpy).
EXTRA_DIST += bench/bench_numpy_dropin.sh bench/bench_r_dropin.sh
# dposv_ from an unmodified LAPACK program (-llapack only), with and without the LAPACK drop-in.
if HAVE_LAPACK
noinst_PROGRAMS += bench/dposv_timer
bench_dposv_timer_SOURCES = bench/dposv_timer.c
bench_dposv_timer_LDADD = $(LAPACK_LIBS) -lm
endif
EXTRA_DIST += bench/bench_dposv_dropin.sh
# Issue 20's cost envelope: routed dgesv_/dposv_ against LAPACK's own, call by call (-llapack and
# the matrix generators only; the drop-in is preloaded by the script).
if HAVE_LAPACK
noinst_PROGRAMS += bench/cost_timer
bench_cost_timer_SOURCES = bench/cost_timer.c
bench_cost_timer_LDADD = matrices/libmixmat.la $(LAPACK_LIBS) $(LAPACKE_LIBS) $(OPENBLAS_LIBS) $(ZLIB_LIBS) -ldl -lm
endif
EXTRA_DIST += bench/cost_envelope.sh
EXTRA_DIST += bench/auto_targets.sh

# CG with the multigrid preconditioner against Jacobi CG (solvers/amg; doc/benchmarks.md).
noinst_PROGRAMS += bench/bench_amg
bench_bench_amg_SOURCES = bench/bench_amg.c
bench_bench_amg_LDADD = libmixsolve_internal.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
bench_bench_amg_LDFLAGS = $(OPENMP_CFLAGS)

# General sparse systems: mix_dgesv_sparse against UMFPACK (linked here only, never by the library).
if HAVE_UMFPACK
if HAVE_MUMPS
noinst_PROGRAMS += bench/bench_sparse_lu
bench_bench_sparse_lu_SOURCES = bench/bench_sparse_lu.c
bench_bench_sparse_lu_CPPFLAGS = $(AM_CPPFLAGS) $(UMFPACK_CFLAGS)
bench_bench_sparse_lu_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(UMFPACK_LIBS) $(MIX_DEP_LIBS) -lm
endif
endif
EXTRA_DIST += bench/bench_sparse_lu.c
