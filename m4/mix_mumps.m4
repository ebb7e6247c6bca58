# mix_mumps.m4: MIX_CHECK_MUMPS: find sequential MUMPS (Debian's libmumps-seq-dev) for the sparse
# direct family of the CPU backend (kernels/cpu/sparse_lu_cpu.c, mix_dgesv_sparse(3)), and
# UMFPACK (libsuitesparse-dev), the FP64 baseline the benchmarks time it against (never linked
# into the library), and KLU (libsuitesparse-dev), linked into the library where MUMPS is: the
# FP64 factors of matrices whose analysis predicts little fill (kernels/cpu/sparse_lu_klu.c).
#
# --with-mumps=auto (default) builds the family when smumps_c.h and dmumps_c.h compile against
# the sequential MPI stub (-I/usr/include/mumps_seq) and smumps_c/dmumps_c link; --with-mumps
# makes a failure an error; --without-mumps leaves it out (mix_dgesv_sparse then answers
# MIX_ERR_UNSUPPORTED).  MUMPS_LIBS serves this check only: the library opens MUMPS at run time
# (kernels/cpu/sparse_lu_cpu.c), since its MPI stub linked in would shadow a real MPI.  Substitutes MUMPS_CFLAGS, MUMPS_LIBS, UMFPACK_CFLAGS, UMFPACK_LIBS;
# defines HAVE_MUMPS (config.h and conditional) and the conditional HAVE_UMFPACK; KLU_CFLAGS,
# KLU_LIBS, KLU_PC_LIBS and HAVE_KLU (config.h and conditional) likewise.
AC_DEFUN([MIX_CHECK_MUMPS], [
AC_ARG_WITH([mumps],
  [AS_HELP_STRING([--with-mumps@<:@=auto|yes|no@:>@], [sparse LU in FP32 and FP64 through sequential MUMPS for mix_dgesv_sparse (default auto)])],
  [], [with_mumps=auto])
have_mumps=no
AS_IF([test "x$with_mumps" != xno], [
  MUMPS_CFLAGS="-isystem /usr/include/mumps_seq"
  MUMPS_LIBS="-lsmumps_seq -ldmumps_seq -lmumps_common_seq -lmpiseq_seq -lpord_seq"
  save_CPPFLAGS=$CPPFLAGS; save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $MUMPS_CFLAGS"; LIBS="$MUMPS_LIBS $LIBS"
  AC_MSG_CHECKING([whether sequential MUMPS (smumps_c, dmumps_c) compiles and links])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <smumps_c.h>
#include <dmumps_c.h>]], [[SMUMPS_STRUC_C s; DMUMPS_STRUC_C d; s.job = d.job = -1;
    if (s.job) return 0; smumps_c(&s); dmumps_c(&d);]])], [have_mumps=yes])
  AC_MSG_RESULT([$have_mumps])
  CPPFLAGS=$save_CPPFLAGS; LIBS=$save_LIBS])
AS_IF([test "x$have_mumps" = xno && test "x$with_mumps" = xyes],
      [AC_MSG_ERROR([--with-mumps given but sequential MUMPS was not found (install libmumps-seq-dev)])])
AS_IF([test "x$have_mumps" = xno], [MUMPS_CFLAGS=; MUMPS_LIBS=],
      [AC_DEFINE([HAVE_MUMPS], [1], [sequential MUMPS: the CPU backend's sparse direct family])])
have_umfpack=no
UMFPACK_CFLAGS="-isystem /usr/include/suitesparse"
save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $UMFPACK_CFLAGS"
AC_CHECK_HEADER([umfpack.h], [AC_CHECK_LIB([umfpack], [umfpack_di_symbolic], [have_umfpack=yes])])
CPPFLAGS=$save_CPPFLAGS
AS_IF([test "x$have_umfpack" = xyes], [UMFPACK_LIBS=-lumfpack
  AC_DEFINE([HAVE_UMFPACK], [1], [UMFPACK: the FP64 baseline of the benchmarks' sparse LU rows])],
  [UMFPACK_CFLAGS=; UMFPACK_LIBS=])
have_klu=no
AS_IF([test "x$have_mumps" = xyes], [
  KLU_CFLAGS="-isystem /usr/include/suitesparse"
  save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $KLU_CFLAGS"
  AC_CHECK_HEADER([klu.h], [AC_CHECK_LIB([klu], [klu_factor], [have_klu=yes])])
  CPPFLAGS=$save_CPPFLAGS])
dnl KLU_PC_LIBS: what a static link needs beside libklu.a (mixsolve.pc's Libs.private).
AS_IF([test "x$have_klu" = xyes], [KLU_LIBS=-lklu
  KLU_PC_LIBS="-lklu -lbtf -lamd -lcolamd -lsuitesparseconfig"
  AC_DEFINE([HAVE_KLU], [1], [KLU: FP64 sparse LU of low-fill matrices beside MUMPS])],
  [KLU_CFLAGS=; KLU_LIBS=; KLU_PC_LIBS=])
AC_SUBST([MUMPS_CFLAGS]) AC_SUBST([MUMPS_LIBS]) AC_SUBST([UMFPACK_CFLAGS]) AC_SUBST([UMFPACK_LIBS])
AC_SUBST([KLU_CFLAGS]) AC_SUBST([KLU_LIBS]) AC_SUBST([KLU_PC_LIBS])
AM_CONDITIONAL([HAVE_MUMPS], [test "x$have_mumps" = xyes])
AM_CONDITIONAL([HAVE_UMFPACK], [test "x$have_umfpack" = xyes])
AM_CONDITIONAL([HAVE_KLU], [test "x$have_klu" = xyes])
])
