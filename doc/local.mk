# doc/local.mk: man pages and the guide.
EXTRA_DIST += doc/benchmarks.md
dist_man_MANS += doc/man1/mixsolve.1
