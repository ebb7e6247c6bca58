# lib/local.mk: the public API layer and the installed library.
libmixsolve_internal_la_SOURCES += lib/status.c lib/context.c lib/backend_lookup.c
include lib/core/local.mk
noinst_HEADERS += lib/mix_internal.h
lib_libmixsolve_la_SOURCES =
lib_libmixsolve_la_LIBADD = libmixsolve_internal.la $(MIX_DEP_LIBS) $(OPENMP_CFLAGS)
lib_libmixsolve_la_LDFLAGS = -version-info $(MIX_LT_VERSION) -export-symbols-regex '^mix_' $(OPENMP_CFLAGS)
# An empty source list still needs a linker choice; C is right (CUDA objects bring -lstdc++).
nodist_EXTRA_lib_libmixsolve_la_SOURCES = dummy.c
EXTRA_DIST += lib/mixsolve.pc.in
libmixsolve_internal_la_SOURCES += lib/sparse.c lib/cg_api.c
libmixsolve_internal_la_SOURCES += lib/dense_api.c
EXTRA_DIST += lib/mixsolve-uninstalled.pc.in
libmixsolve_internal_la_SOURCES += lib/sparse_lu_api.c
