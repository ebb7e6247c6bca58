# kernels/cuda/local.mk: the CUDA backend (C host code and .cu kernels); included only with CUDA.
noinst_HEADERS += kernels/cuda/cuda_internal.h kernels/cuda/cuda_libs.h
libmixsolve_internal_la_SOURCES += kernels/cuda/cuda_libs.c
libmixsolve_internal_la_SOURCES += kernels/cuda/cuda_backend.c kernels/cuda/cuda_status.c kernels/cuda/cuda_memory.c
libmixsolve_internal_la_SOURCES += kernels/cuda/dense_cuda.c
libmixsolve_internal_la_SOURCES += kernels/cuda/sparse_cuda.c
noinst_HEADERS += kernels/cuda/cuda_dense.h
libmixsolve_internal_la_LIBADD += kernels/cuda/dense_kernels.lo
EXTRA_DIST += kernels/cuda/dense_kernels.cu
CLEANFILES += kernels/cuda/dense_kernels.lo kernels/cuda/dense_kernels.o kernels/cuda/.libs/dense_kernels.o
# Sparse family.
noinst_HEADERS += kernels/cuda/cuda_sparse.h
libmixsolve_internal_la_LIBADD += kernels/cuda/sparse_kernels.lo
EXTRA_DIST += kernels/cuda/sparse_kernels.cu
CLEANFILES += kernels/cuda/sparse_kernels.lo kernels/cuda/sparse_kernels.o kernels/cuda/.libs/sparse_kernels.o
# What each .cu includes, as nvcc -MD wrote it at its last compilation (none before the first).
-include kernels/cuda/.deps/dense_kernels.Pcu kernels/cuda/.deps/sparse_kernels.Pcu
CLEANFILES += kernels/cuda/.deps/dense_kernels.Pcu kernels/cuda/.deps/sparse_kernels.Pcu
