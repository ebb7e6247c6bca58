# solvers/local.mk: algorithms written once over the backend operations table.
