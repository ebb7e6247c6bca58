# bench/local.mk: benchmark drivers.
if HAVE_CUDA
noinst_PROGRAMS += bench/bench_gpu_gesv
bench_bench_gpu_gesv_SOURCES = bench/bench_gpu_gesv.c
bench_bench_gpu_gesv_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
endif
noinst_PROGRAMS += bench/bench_gesv
bench_bench_gesv_SOURCES = bench/bench_gesv.c
bench_bench_gesv_LDADD = lib/libmixsolve.la matrices/libmixmat.la $(MIX_DEP_LIBS) -lm
