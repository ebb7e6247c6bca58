# bench/local.mk: benchmark drivers.
