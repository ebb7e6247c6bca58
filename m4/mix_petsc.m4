# mix_petsc.m4: MIX_CHECK_PETSC: find PETSc for libmixsolve_petsc.so, the KSP type "mixcg" that
# PETSc programs load with -dll_append (mixsolve_petsc(7)).  Neither libmixsolve nor
# libmixsolve_mpi ever needs PETSc.
#
# --with-petsc=auto (default) builds the plugin when libmixsolve_mpi is built and pkg-config finds
# PETSc (Debian's libpetsc-real-dev: PETSc.pc; upstream installs petsc.pc) whose KSP private
# header compiles with real double scalars (a complex or single build would hand mix_dcg the
# wrong data) and whose KSPRegister links; --with-petsc makes a failure an error;
# --without-petsc leaves it out.  Substitutes PETSC_CFLAGS (its -I as -isystem: PETSc's headers
# are not held to our warnings) and PETSC_LIBS, defines the conditional HAVE_PETSC.
AC_DEFUN([MIX_CHECK_PETSC], [
AC_ARG_WITH([petsc],
  [AS_HELP_STRING([--with-petsc@<:@=auto|yes|no@:>@], [build libmixsolve_petsc.so, the KSP type mixcg for PETSc programs (default auto; needs MPI)])],
  [], [with_petsc=auto])
have_petsc=no
mix_petsc_version=
AS_IF([test "x$with_petsc" != xno && test "x$have_mpi" = xyes], [
  PKG_CHECK_MODULES([PETSC], [PETSc], [mix_petsc_pc=PETSc],
    [PKG_CHECK_MODULES([PETSC], [petsc], [mix_petsc_pc=petsc], [mix_petsc_pc=])])
  AS_IF([test -n "$mix_petsc_pc"], [
    PETSC_CFLAGS=`echo " $PETSC_CFLAGS" | sed 's/ -I/ -isystem /g'`
    mix_petsc_version=`$PKG_CONFIG --modversion $mix_petsc_pc 2>/dev/null`
    save_CPPFLAGS=$CPPFLAGS; save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $MPI_CFLAGS $PETSC_CFLAGS"; LIBS="$PETSC_LIBS $MPI_LIBS $LIBS"
    AC_MSG_CHECKING([whether a PETSc KSP type with real double scalars compiles and links ($mix_petsc_pc $mix_petsc_version)])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <petsc/private/kspimpl.h>
#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
#error "mixcg hands PETSc's arrays to mix_dcg as double"
#endif]],
      [[KSP k = 0; (void)k->ops; return (int)KSPRegister("conftest", 0);]])], [have_petsc=yes])
    AC_MSG_RESULT([$have_petsc])
    CPPFLAGS=$save_CPPFLAGS; LIBS=$save_LIBS])])
AS_IF([test "x$have_petsc" = xno && test "x$with_petsc" = xyes],
      [AC_MSG_ERROR([--with-petsc given but PETSc with real double scalars and its private headers (libpetsc-real-dev) and MPI were not both found])])
AS_IF([test "x$have_petsc" = xno], [PETSC_CFLAGS=; PETSC_LIBS=; mix_petsc_version=])
AC_SUBST([PETSC_CFLAGS]) AC_SUBST([PETSC_LIBS])
AM_CONDITIONAL([HAVE_PETSC], [test "x$have_petsc" = xyes])
])
