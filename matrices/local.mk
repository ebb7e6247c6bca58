# matrices/local.mk: Matrix Market I/O, containers and generators (libmixmat, used by tools, bench, tests).
matrices_libmixmat_la_CPPFLAGS = $(AM_CPPFLAGS) $(ZLIB_CFLAGS)
matrices_libmixmat_la_SOURCES += matrices/mixmat.h
matrices_libmixmat_la_SOURCES += matrices/generators.h
matrices_libmixmat_la_SOURCES += matrices/csr.c
