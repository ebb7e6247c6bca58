# doc/local.mk: man pages and the guide.
EXTRA_DIST += doc/benchmarks.md
