# solvers/amg/local.mk: smoothed-aggregation multigrid under CG (MIX_PRECOND_AMG).
libmixsolve_internal_la_SOURCES += solvers/amg/amg_csr.c solvers/amg/amg_product.c solvers/amg/amg_setup.c \
	solvers/amg/amg_prolong.c \
	solvers/amg/amg_coarse.c solvers/amg/amg_store.c solvers/amg/amg_auto.c solvers/amg/amg_cycle.c solvers/amg/amg_pcg.c
noinst_HEADERS += solvers/amg/amg.h
