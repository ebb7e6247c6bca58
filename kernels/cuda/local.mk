# kernels/cuda/local.mk: the CUDA backend (C host code and .cu kernels); included only with CUDA.
noinst_HEADERS += kernels/cuda/cuda_internal.h
libmixsolve_core_la_SOURCES += kernels/cuda/cuda_backend.c
libmixsolve_core_la_SOURCES += kernels/cuda/dense_cuda.c
libmixsolve_core_la_SOURCES += kernels/cuda/sparse_cuda.c
noinst_HEADERS += kernels/cuda/cuda_dense.h
libmixsolve_core_la_LIBADD += kernels/cuda/dense_kernels.lo
EXTRA_DIST += kernels/cuda/dense_kernels.cu
CLEANFILES += kernels/cuda/dense_kernels.lo kernels/cuda/dense_kernels.o kernels/cuda/.libs/dense_kernels.o
