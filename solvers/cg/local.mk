# solvers/cg/local.mk: the sparse CG family: reliable-update CG, its matrix and sloppy copies.
noinst_HEADERS += solvers/cg/cg.h solvers/cg/cg_impl.h
libmixsolve_internal_la_SOURCES += solvers/cg/cg.c
libmixsolve_internal_la_SOURCES += solvers/cg/cg_matrix.c solvers/cg/cg_range.c solvers/cg/cg_lanczos.c \
	solvers/cg/cg_storage.c solvers/cg/cg_auto.c solvers/cg/cg_rates.c solvers/cg/cg_dist.c solvers/cg/cg_vec.c
