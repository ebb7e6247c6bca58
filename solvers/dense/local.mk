# solvers/dense/local.mk: the dense family: one flow over LU and Cholesky, refinement, policy.
noinst_HEADERS += solvers/dense/dense.h solvers/dense/dense_flow.h solvers/dense/lu_profile.h
libmixsolve_internal_la_SOURCES += solvers/dense/blocked_lowprec.c solvers/dense/scaling.c solvers/dense/gmres.c \
	solvers/dense/refine.c solvers/dense/berr.c solvers/dense/policy.c
libmixsolve_internal_la_SOURCES += solvers/dense/dense_range.c solvers/dense/equilibrate.c
libmixsolve_internal_la_SOURCES += solvers/dense/dense_flow.c solvers/dense/dense_small.c solvers/dense/lu_factor.c solvers/dense/chol_factor.c \
	solvers/dense/dense_matrix.c
libmixsolve_internal_la_SOURCES += solvers/dense/precond_lu.c
libmixsolve_internal_la_SOURCES += solvers/dense/widen.c solvers/dense/lu_profile.c
libmixsolve_internal_la_SOURCES += solvers/dense/precond_chol.c solvers/dense/pcg.c
