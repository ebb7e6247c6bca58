# mix_mpi.m4: MIX_CHECK_MPI: find an MPI for libmixsolve_mpi (libmixsolve itself never needs it).
#
# --with-mpi=auto (default) builds libmixsolve_mpi when MPI is found and links; --with-mpi makes a
# failure an error; --without-mpi leaves it out.  Looks for pkg-config's ompi-c (Open MPI), then
# mpi-c, then the flags of the mpicc wrapper (Open MPI's --showme, MPICH's -compile-info).  Sets
# have_mpi (yes/no), substitutes MPI_CFLAGS, MPI_LIBS and MPIRUN, defines MIX_HAVE_MPI and the
# automake conditional HAVE_MPI.
AC_DEFUN([MIX_CHECK_MPI], [
AC_ARG_WITH([mpi],
  [AS_HELP_STRING([--with-mpi@<:@=auto|yes|no@:>@], [build libmixsolve_mpi, the distributed CG over MPI (default auto)])],
  [], [with_mpi=auto])
have_mpi=no
mix_mpi_how=
AS_IF([test "x$with_mpi" != xno], [
  PKG_CHECK_MODULES([MPI], [ompi-c], [mix_mpi_how="pkg-config ompi-c"], [
    PKG_CHECK_MODULES([MPI], [mpi-c], [mix_mpi_how="pkg-config mpi-c"], [
      AC_PATH_PROG([MPICC_WRAPPER], [mpicc])
      AS_IF([test -n "$MPICC_WRAPPER"], [
        AS_IF([MPI_CFLAGS=`$MPICC_WRAPPER --showme:compile 2>/dev/null` &&
               MPI_LIBS=`$MPICC_WRAPPER --showme:link 2>/dev/null`], [mix_mpi_how="$MPICC_WRAPPER --showme"],
              [MPI_CFLAGS=`$MPICC_WRAPPER -compile-info 2>/dev/null | cut -d' ' -f2-`
               MPI_LIBS=`$MPICC_WRAPPER -link-info 2>/dev/null | cut -d' ' -f2-`
               mix_mpi_how="$MPICC_WRAPPER -compile-info"])])])])
  AS_IF([test -n "$mix_mpi_how"], [
    save_CPPFLAGS=$CPPFLAGS; save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $MPI_CFLAGS"; LIBS="$MPI_LIBS $LIBS"
    AC_MSG_CHECKING([whether an MPI program links ($mix_mpi_how)])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
      [[MPI_Request r; int x = 0; MPI_Init(0, 0);
        MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
        MPI_Finalize();]])], [have_mpi=yes])
    AC_MSG_RESULT([$have_mpi])
    CPPFLAGS=$save_CPPFLAGS; LIBS=$save_LIBS])
  AS_IF([test "x$have_mpi" = xno && test "x$with_mpi" = xyes],
        [AC_MSG_ERROR([--with-mpi given but no working MPI was found (install libopenmpi-dev openmpi-bin)])])])
AS_IF([test "x$have_mpi" = xyes], [
  AC_DEFINE([MIX_HAVE_MPI], [1], [libmixsolve_mpi is built])
  AC_PATH_PROGS([MPIRUN], [mpirun mpiexec], [])], [MPI_CFLAGS=; MPI_LIBS=; mix_mpi_how=])
AC_SUBST([MPI_CFLAGS]) AC_SUBST([MPI_LIBS]) AC_SUBST([MPIRUN])
AM_CONDITIONAL([HAVE_MPI], [test "x$have_mpi" = xyes])
])
