# solvers/sparse_lu/local.mk: general sparse systems, sparse LU-IR over the sparse direct family.
libmixsolve_internal_la_SOURCES += solvers/sparse_lu/sparse_lu.c solvers/sparse_lu/sparse_lu_refine.c \
	solvers/sparse_lu/sparse_lu_range.c \
	solvers/sparse_lu/sparse_lu_policy.c
noinst_HEADERS += solvers/sparse_lu/sparse_lu.h solvers/sparse_lu/sparse_lu_internal.h
