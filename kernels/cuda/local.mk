# kernels/cuda/local.mk: the CUDA backend (C host code and .cu kernels); included only with CUDA.
noinst_HEADERS += kernels/cuda/cuda_internal.h
libmixsolve_core_la_SOURCES += kernels/cuda/cuda_backend.c
libmixsolve_core_la_SOURCES += kernels/cuda/dense_cuda.c
libmixsolve_core_la_SOURCES += kernels/cuda/sparse_cuda.c
noinst_HEADERS += kernels/cuda/cuda_dense.h
libmixsolve_core_la_LIBADD += kernels/cuda/dense_kernels.lo
EXTRA_DIST += kernels/cuda/dense_kernels.cu
CLEANFILES += kernels/cuda/dense_kernels.lo kernels/cuda/dense_kernels.o kernels/cuda/.libs/dense_kernels.o
# Sparse family (issue 7).  sparse_kernels.cu has its own rule: -fmad=false keeps a*b+c rounded
# twice, as in the host C code, so GPU and CPU kernels agree bit for bit.
noinst_HEADERS += kernels/cuda/cuda_sparse.h
libmixsolve_core_la_LIBADD += kernels/cuda/sparse_kernels.lo
EXTRA_DIST += kernels/cuda/sparse_kernels.cu
CLEANFILES += kernels/cuda/sparse_kernels.lo kernels/cuda/sparse_kernels.o kernels/cuda/.libs/sparse_kernels.o
kernels/cuda/sparse_kernels.lo: kernels/cuda/sparse_kernels.cu kernels/cuda/cuda_sparse.h \
  kernels/common/spmv_row.h kernels/common/formats.h kernels/common/fixed16.h \
  kernels/common/fp16.h kernels/common/bf16.h kernels/common/fpbits.h
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/build-aux/cudalt.sh $@ $(NVCC) $(NVCCFLAGS) -fmad=false \
	  -I$(top_srcdir) -I$(top_srcdir)/lib -I$(top_builddir) -c $(top_srcdir)/kernels/cuda/sparse_kernels.cu
# The .cu rule has no automatic dependency tracking: list what dense_kernels.cu includes.
kernels/cuda/dense_kernels.lo: kernels/cuda/cuda_dense.h lib/mixsolve.h kernels/common/formats.h \
	kernels/common/mix_hd.h kernels/common/fpbits.h kernels/common/fp16.h kernels/common/bf16.h \
	kernels/common/tf32.h kernels/common/fixed16.h
