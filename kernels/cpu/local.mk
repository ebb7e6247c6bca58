# kernels/cpu/local.mk: CPU dense and sparse kernels.
noinst_HEADERS += kernels/backend_dense.h kernels/backend_sparse.h
libmixsolve_internal_la_SOURCES += kernels/cpu/dense_cpu.c
libmixsolve_internal_la_SOURCES += kernels/cpu/sparse_cpu.c kernels/cpu/sparse_portable.c kernels/cpu/sparse_avx2.c \
	kernels/cpu/sparse_avx512.c
noinst_HEADERS += kernels/cpu/sparse_cpu_impl.h kernels/cpu/sell_simd.h
libmixsolve_internal_la_SOURCES += kernels/cpu/spmv_tune.c kernels/cpu/spmv_tune.h
libmixsolve_internal_la_SOURCES += kernels/cpu/convert_cpu.c kernels/cpu/convert_cpu.h
noinst_HEADERS += kernels/cpu/sparse_cpu_t.h
noinst_HEADERS += kernels/cpu/sparse_cpu.h
noinst_HEADERS += kernels/cpu/onednn_gemm.h
if HAVE_ONEDNN
libmixsolve_internal_la_SOURCES += kernels/cpu/onednn_gemm.c
endif
noinst_HEADERS += kernels/cpu/avx2_lanes.h
libmixsolve_internal_la_SOURCES += kernels/cpu/chol_cpu.c kernels/cpu/chol_cpu.h
noinst_HEADERS += kernels/cpu/dense_loops.h
libmixsolve_internal_la_SOURCES += kernels/cpu/vec_cpu.c kernels/cpu/vec_cpu.h
