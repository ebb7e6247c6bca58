# lib/core/local.mk: the bottom layer (context, allocator, clock) that kernels/, solvers/ and lib/ include.
noinst_HEADERS += lib/core/core.h lib/core/clock.h
libmixsolve_core_la_SOURCES += lib/core/alloc.c
