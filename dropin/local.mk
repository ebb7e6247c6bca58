# dropin/local.mk: libmixsolve_lapack.so, LAPACK's dgesv_/dsgesv_/dposv_/dsposv_ over mixsolve for unmodified programs,
# and the consumers of the factors dgesv_/dposv_ leave (dgetrs_, dpotrs_ ...), exact on kept originals.
# mixsolve's internals are linked in whole and kept private: the library exports the LAPACK names only,
# so it can be preloaded without libmixsolve beside it and never shadows anything else.
lib_LTLIBRARIES += dropin/libmixsolve_lapack.la
dropin_libmixsolve_lapack_la_SOURCES = dropin/dropin.h dropin/lapack.h dropin/env.c dropin/caller.c \
	dropin/lapack_drivers.c dropin/keep.h dropin/keep.c dropin/reuse.h dropin/reuse.c dropin/lapack_reuse.c
dropin_libmixsolve_lapack_la_LIBADD = libmixsolve_internal.la $(MIX_DEP_LIBS) $(DL_LIBS) $(OPENMP_CFLAGS)
dropin_libmixsolve_lapack_la_LDFLAGS = -shared -avoid-version \
	-export-symbols-regex '^d(s?gesv|s?posv|getrs|getri|gecon|gerfs|gesvx|potrs|potri|pocon|porfs|posvx)_$$' \
	$(OPENMP_CFLAGS)
