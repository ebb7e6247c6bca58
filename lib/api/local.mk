# lib/api/local.mk: the public API layer: argument checks, defaults, staging, contexts, statuses.
libmixsolve_internal_la_SOURCES += lib/api/status.c lib/api/context.c lib/api/backend_lookup.c
noinst_HEADERS += lib/api/mix_internal.h
libmixsolve_internal_la_SOURCES += lib/api/sparse.c lib/api/cg_api.c
libmixsolve_internal_la_SOURCES += lib/api/dense_api.c lib/api/alias.c
libmixsolve_internal_la_SOURCES += lib/api/sparse_lu_api.c
