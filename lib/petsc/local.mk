# lib/petsc/local.mk: libmixsolve_petsc.so, the KSP type "mixcg" a PETSc program loads at run time
# (-dll_append .../libmixsolve_petsc.so -ksp_type mixcg; mixsolve_petsc(7)), built when configure
# finds PETSc and MPI.  Its sources travel in every tarball.
MIX_PETSC_SOURCES = lib/petsc/ksp_mixcg.c lib/petsc/mixcg_setup.c lib/petsc/mixcg_solve.c \
	lib/petsc/mat_rows.c
noinst_HEADERS += lib/petsc/mixcg_petsc.h
EXTRA_DIST += doc/man7/mixsolve_petsc.7
if HAVE_PETSC
# A module without a version suffix: the file PETSc opens is libmixsolve_petsc.so, whose base
# name gives the registration function PetscDLLibraryRegister_mixsolve_petsc, its one export.
lib_LTLIBRARIES += lib/libmixsolve_petsc.la
lib_libmixsolve_petsc_la_SOURCES = $(MIX_PETSC_SOURCES)
lib_libmixsolve_petsc_la_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS) $(PETSC_CFLAGS)
lib_libmixsolve_petsc_la_LIBADD = lib/libmixsolve_mpi.la lib/libmixsolve.la $(PETSC_LIBS) $(MPI_LIBS)
lib_libmixsolve_petsc_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^PetscDLLibraryRegister_mixsolve_petsc$$'
man7_MANS = doc/man7/mixsolve_petsc.7
else
EXTRA_DIST += $(MIX_PETSC_SOURCES)
endif
# The side-by-side benchmark with KSPCG (doc/benchmarks.md).
EXTRA_DIST += bench/petsc_mixcg.sh
