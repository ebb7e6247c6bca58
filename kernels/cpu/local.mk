# kernels/cpu/local.mk: CPU dense and sparse kernels.
noinst_HEADERS += kernels/backend_dense.h kernels/backend_sparse.h
libmixsolve_internal_la_SOURCES += kernels/cpu/dense_cpu.c kernels/cpu/dense_tiny.c kernels/cpu/dense_tiny.h
libmixsolve_internal_la_SOURCES += kernels/cpu/sparse_cpu.c kernels/cpu/sparse_portable.c kernels/cpu/sparse_avx2.c \
	kernels/cpu/sparse_avx512.c
noinst_HEADERS += kernels/cpu/sparse_cpu_impl.h kernels/cpu/sell_simd.h
libmixsolve_internal_la_SOURCES += kernels/cpu/spmv_tune.c kernels/cpu/spmv_tune.h
libmixsolve_internal_la_SOURCES += kernels/cpu/spmv_t_cpu.c kernels/cpu/tent_cpu.c kernels/cpu/tent_cpu.h
libmixsolve_internal_la_SOURCES += kernels/cpu/convert_cpu.c kernels/cpu/convert_cpu.h
noinst_HEADERS += kernels/cpu/sparse_cpu_t.h
noinst_HEADERS += kernels/cpu/sparse_cpu.h kernels/cpu/cpu_mem.h
noinst_HEADERS += kernels/cpu/onednn_gemm.h
if HAVE_ONEDNN
libmixsolve_internal_la_SOURCES += kernels/cpu/onednn_gemm.c
endif
noinst_HEADERS += kernels/cpu/avx2_lanes.h
libmixsolve_internal_la_SOURCES += kernels/cpu/chol_cpu.c kernels/cpu/chol_cpu.h
noinst_HEADERS += kernels/cpu/dense_loops.h
libmixsolve_internal_la_SOURCES += kernels/cpu/vec_cpu.c kernels/cpu/vec_cpu.h
libmixsolve_internal_la_SOURCES += kernels/cpu/resid_dd_cpu.c kernels/cpu/resid_dd_cpu.h
# The sparse direct family over sequential MUMPS: its own convenience library, so that only this
# file sees the MPI stub's mpi.h (lib/mpi builds against the real MPI).  MUMPS itself is opened
# at run time (dlopen, symbols local): never linked, its MPI stub would shadow the real MPI.
noinst_HEADERS += kernels/backend_sparse_lu.h kernels/cpu/sparse_lu_klu.h
if HAVE_MUMPS
noinst_LTLIBRARIES += kernels/cpu/libsparse_lu_cpu.la
kernels_cpu_libsparse_lu_cpu_la_SOURCES = kernels/cpu/sparse_lu_cpu.c
kernels_cpu_libsparse_lu_cpu_la_CPPFLAGS = $(AM_CPPFLAGS) $(MUMPS_CFLAGS) $(KLU_CFLAGS)
libmixsolve_internal_la_LIBADD += kernels/cpu/libsparse_lu_cpu.la
# KLU beside MUMPS (linked: it has no MPI stub) for the FP64 factors of low-fill matrices.
if HAVE_KLU
kernels_cpu_libsparse_lu_cpu_la_SOURCES += kernels/cpu/sparse_lu_klu.c
else
EXTRA_DIST += kernels/cpu/sparse_lu_klu.c
endif
else
EXTRA_DIST += kernels/cpu/sparse_lu_cpu.c kernels/cpu/sparse_lu_klu.c
endif
