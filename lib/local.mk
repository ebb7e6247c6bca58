# lib/local.mk: the installed library: its bottom layer (lib/core) and its public API (lib/api).
include lib/core/local.mk
include lib/api/local.mk
lib_libmixsolve_la_SOURCES =
lib_libmixsolve_la_LIBADD = libmixsolve_internal.la $(MIX_DEP_LIBS) $(OPENMP_CFLAGS)
lib_libmixsolve_la_LDFLAGS = -version-info $(MIX_LT_VERSION) -export-symbols-regex '^mix_' $(OPENMP_CFLAGS)
# An empty source list still needs a linker choice; C is right (CUDA objects bring -lstdc++).
nodist_EXTRA_lib_libmixsolve_la_SOURCES = dummy.c
EXTRA_DIST += lib/mixsolve.pc.in
EXTRA_DIST += lib/mixsolve-uninstalled.pc.in
