# kernels/local.mk: backends behind the operations table (cpu always; cuda when configured).
noinst_HEADERS += kernels/backend.h kernels/cpu/cpu_features.h
libmixsolve_internal_la_SOURCES += kernels/backend_list.c kernels/cpu/cpu_backend.c kernels/cpu/cpu_features.c
include kernels/common/local.mk
include kernels/cpu/local.mk
if HAVE_CUDA
include kernels/cuda/local.mk
endif
