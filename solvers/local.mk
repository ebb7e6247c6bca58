# solvers/local.mk: algorithms written once over the backend operations table.
libmixsolve_internal_la_SOURCES += solvers/cg.c
noinst_HEADERS += solvers/solvers.h solvers/dense_flow.h
libmixsolve_internal_la_SOURCES += solvers/blocked_lowprec.c solvers/scaling.c solvers/gmres.c solvers/refine.c solvers/berr.c solvers/policy.c
libmixsolve_internal_la_SOURCES += solvers/range.c
libmixsolve_internal_la_SOURCES += solvers/dense_flow.c solvers/lu_factor.c solvers/chol_factor.c solvers/matrix.c
libmixsolve_internal_la_SOURCES += solvers/precond_lu.c
libmixsolve_internal_la_SOURCES += solvers/widen.c
libmixsolve_internal_la_SOURCES += solvers/precond_chol.c solvers/pcg.c
libmixsolve_internal_la_SOURCES += solvers/cg_matrix.c solvers/cg_range.c solvers/cg_lanczos.c solvers/cg_storage.c solvers/cg_auto.c \
	solvers/cg_dist.c
noinst_HEADERS += solvers/cg.h
include solvers/sparse_lu/local.mk
