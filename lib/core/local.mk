# lib/core/local.mk: the bottom layer (context, allocator, clock) that kernels/, solvers/ and lib/ include.
noinst_HEADERS += lib/core/core.h lib/core/clock.h lib/core/comm.h lib/core/det_sum.h
libmixsolve_internal_la_SOURCES += lib/core/alloc.c lib/core/comm_serial.c lib/core/spare.c lib/core/env_list.c
