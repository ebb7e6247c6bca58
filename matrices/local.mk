# matrices/local.mk: Matrix Market I/O, containers and generators (libmixmat, used by tools, bench, tests).
matrices_libmixmat_la_CPPFLAGS = $(AM_CPPFLAGS) $(ZLIB_CFLAGS)
matrices_libmixmat_la_SOURCES += matrices/mixmat.h
matrices_libmixmat_la_SOURCES += matrices/generators.h
matrices_libmixmat_la_SOURCES += matrices/csr.c
matrices_libmixmat_la_SOURCES += matrices/safe_norm.c matrices/dense_check.c
# Bundled SuiteSparse matrices (CC-BY 4.0, see matrices/data/README.md): distributed and installed for mixsolve bench.
matricesdatadir = $(datadir)/mixsolve/matrices
dist_matricesdata_DATA = matrices/data/README.md matrices/data/MANIFEST.md \
	matrices/data/1138_bus.mtx \
	matrices/data/494_bus.mtx \
	matrices/data/685_bus.mtx \
	matrices/data/LF10.mtx \
	matrices/data/Trefethen_500.mtx \
	matrices/data/add32.mtx \
	matrices/data/arc130.mtx \
	matrices/data/bcsstk01.mtx \
	matrices/data/bcsstk02.mtx \
	matrices/data/bcsstk03.mtx \
	matrices/data/bcsstk05.mtx \
	matrices/data/bcsstk06.mtx \
	matrices/data/bcsstk09.mtx \
	matrices/data/bcsstk13.mtx \
	matrices/data/bcsstk16.mtx.gz \
	matrices/data/bcsstk21.mtx \
	matrices/data/bcsstk22.mtx \
	matrices/data/bcsstm07.mtx \
	matrices/data/bcsstm10.mtx \
	matrices/data/bcsstm12.mtx \
	matrices/data/bcsstm24.mtx \
	matrices/data/bp_0.mtx \
	matrices/data/cage5.mtx \
	matrices/data/cage8.mtx \
	matrices/data/cryg2500.mtx \
	matrices/data/dw2048.mtx \
	matrices/data/dw8192.mtx.gz \
	matrices/data/ex5.mtx \
	matrices/data/fs_183_6.mtx \
	matrices/data/gent113.mtx \
	matrices/data/gr_30_30.mtx \
	matrices/data/impcol_a.mtx \
	matrices/data/lund_a.mtx \
	matrices/data/mesh1e1.mtx \
	matrices/data/olm500.mtx \
	matrices/data/pde225.mtx \
	matrices/data/pde2961.mtx \
	matrices/data/pde900.mtx \
	matrices/data/pores_1.mtx \
	matrices/data/rajat11.mtx \
	matrices/data/rajat19.mtx \
	matrices/data/rdb1250.mtx \
	matrices/data/rdb2048.mtx \
	matrices/data/sherman1.mtx \
	matrices/data/sherman4.mtx \
	matrices/data/sherman5.mtx \
	matrices/data/tumorAntiAngiogenesis_2.mtx \
	matrices/data/utm300.mtx \
	matrices/data/west0067.mtx \
	matrices/data/west0479.mtx
matrices_libmixmat_la_SOURCES += matrices/gen_poisson.c
matrices_libmixmat_la_SOURCES += matrices/mmio.h matrices/mmio.c matrices/gen_dense.c matrices/gen_trefethen.c
matrices_libmixmat_la_SOURCES += matrices/randsvd.c
matrices_libmixmat_la_SOURCES += matrices/gen_convdiff.c
# libFuzzer harness of the Matrix Market reader, not part of make check: `make fuzz` (FUZZ_SECONDS, FUZZ_CC).
EXTRA_DIST += tests/fuzz_mmio.c tests/fuzz_mmio.dict
FUZZ_CC = clang
FUZZ_SECONDS = 600
FUZZ_SRC = $(top_srcdir)/tests/fuzz_mmio.c $(top_srcdir)/matrices/mmio.c $(top_srcdir)/matrices/csr.c
fuzz_mmio: $(FUZZ_SRC)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -I$(top_srcdir) -I$(top_srcdir)/lib $(FUZZ_SRC) $(ZLIB_LIBS) -lm -o $@
fuzz: fuzz_mmio
	mkdir -p fuzz-corpus fuzz-artifacts
	for f in LF10 ex5 pores_1 cage5 bcsstk01 west0067; do cp $(top_srcdir)/matrices/data/$$f.mtx fuzz-corpus/; done
	gzip -c $(top_srcdir)/matrices/data/LF10.mtx > fuzz-corpus/LF10.mtx.gz
	./fuzz_mmio -dict=$(top_srcdir)/tests/fuzz_mmio.dict -max_len=8192 -rss_limit_mb=2048 \
	  -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz-artifacts/ fuzz-corpus
.PHONY: fuzz
CLEANFILES += fuzz_mmio
# The whole `mixsolve solve` path (reader, checks, LU-IR or CG, re-check) under the fuzzer: the
# command's code and the reader instrumented, the built library linked as it is.  The first byte
# of an input picks the options.  `make fuzz-solve` (FUZZ_SECONDS, FUZZ_CC); needs `make` first.
EXTRA_DIST += tests/fuzz_solve.c
FUZZ_SOLVE_SRC = $(top_srcdir)/tests/fuzz_solve.c $(top_srcdir)/tools/cmd_solve.c $(top_srcdir)/tools/cmd_solve_sparse.c $(top_srcdir)/tools/cli.c \
	$(top_srcdir)/matrices/mmio.c $(top_srcdir)/matrices/csr.c $(top_srcdir)/matrices/safe_norm.c
fuzz_solve: $(FUZZ_SOLVE_SRC) lib/libmixsolve.la
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -I$(top_srcdir) -I$(top_srcdir)/lib $(FUZZ_SOLVE_SRC) -L$(abs_top_builddir)/lib/.libs -lmixsolve \
	  -Wl,-rpath,$(abs_top_builddir)/lib/.libs $(ZLIB_LIBS) -lm -o $@
fuzz-solve: fuzz_solve
	mkdir -p fuzz-solve-corpus fuzz-artifacts
	for f in LF10 ex5 pores_1 bcsstk01 west0067; do printf '\000' | cat - $(top_srcdir)/matrices/data/$$f.mtx > fuzz-solve-corpus/$$f-lu; \
	  printf '\001' | cat - $(top_srcdir)/matrices/data/$$f.mtx > fuzz-solve-corpus/$$f-cg; done
	MIXSOLVE_BACKEND=cpu ./fuzz_solve -dict=$(top_srcdir)/tests/fuzz_mmio.dict -max_len=8192 -rss_limit_mb=2048 \
	  -timeout=60 -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz-artifacts/ fuzz-solve-corpus
.PHONY: fuzz-solve
CLEANFILES += fuzz_solve
