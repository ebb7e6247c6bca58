# fortran/local.mk: the Fortran 2003 module `mixsolve' (interfaces only: programs link -lmixsolve).
# Compiled in the build's fortran/ directory, where every compiler writes its .mod file.
EXTRA_DIST += fortran/mixsolve.f90
if HAVE_FORTRAN
fmoddir = $(libdir)/mixsolve/fortran
fmod_DATA = fortran/mixsolve.mod
CLEANFILES += fortran/mixsolve.mod fortran/mixsolve.fo
fortran/mixsolve.mod: fortran/mixsolve.f90
	$(AM_V_GEN)$(MKDIR_P) fortran && cd fortran && \
	  $(FC) $(FCFLAGS) -c $(abs_top_srcdir)/fortran/mixsolve.f90 -o mixsolve.fo && touch mixsolve.mod
endif
