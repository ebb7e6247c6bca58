# solvers/local.mk: algorithms written once over the backend operations table, one folder per family.
include solvers/dense/local.mk
include solvers/cg/local.mk
include solvers/amg/local.mk
include solvers/sparse_lu/local.mk
