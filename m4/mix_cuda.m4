# mix_cuda.m4: MIX_CHECK_CUDA: find nvcc and the CUDA libraries, and check that nvcc compiles for the chosen architectures.
#
# --with-cuda=auto (default) turns the backend on when everything is found and works, off
# otherwise; --with-cuda or --with-cuda=DIR makes a failure an error; --without-cuda turns it off.
# Sets have_cuda (yes/no), defines MIX_HAVE_CUDA, substitutes NVCC, NVCCFLAGS, CUDA_CPPFLAGS,
# CUDA_LDFLAGS, CUDA_LIBS, CUDA_BENCH_LIBS and sets the automake conditional HAVE_CUDA.
AC_DEFUN([MIX_CHECK_CUDA], [
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [build the CUDA backend (default auto: on when nvcc and cuBLAS/cuSOLVER/cuSPARSE are found and nvcc compiles)])],
  [], [with_cuda=auto])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=LIST], [GPU architectures, e.g. "80 90" (default 80 90, plus PTX of the last)])],
  [], [with_cuda_arch="80 90"])
have_cuda=no
mix_cuda_why=
AS_IF([test "x$with_cuda" != xno], [
  NVCC=
  AS_CASE([$with_cuda],
    [yes|auto], [AS_IF([test -x /usr/local/cuda/bin/nvcc], [CUDA_HOME=/usr/local/cuda])],
    [CUDA_HOME=$with_cuda])
  AS_IF([test -n "$CUDA_HOME" && test -x "$CUDA_HOME/bin/nvcc"], [NVCC="$CUDA_HOME/bin/nvcc"])
  AS_IF([test -z "$NVCC"], [
    AC_PATH_PROG([NVCC_PATH], [nvcc])
    AS_IF([test -n "$NVCC_PATH"], [
      NVCC=$NVCC_PATH
      CUDA_HOME=`dirname "$NVCC_PATH"`
      CUDA_HOME=`dirname "$CUDA_HOME"`])])
  AS_IF([test -z "$NVCC"], [mix_cuda_why="nvcc not found"], [
    cuda_libdir="$CUDA_HOME/lib64"
    AS_IF([test -d "$cuda_libdir"], [], [cuda_libdir="$CUDA_HOME/lib"])
    CUDA_CPPFLAGS="-isystem $CUDA_HOME/include"
    CUDA_LDFLAGS="-L$cuda_libdir -Wl,-rpath,$cuda_libdir"
    save_CPPFLAGS=$CPPFLAGS; save_LDFLAGS=$LDFLAGS; save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"; LDFLAGS="$LDFLAGS $CUDA_LDFLAGS"
    cuda_ok=yes
    AC_CHECK_HEADERS([cuda_runtime_api.h cublas_v2.h cusolverDn.h cusparse.h], [], [cuda_ok=no])
    AC_CHECK_LIB([cudart], [cudaGetDeviceCount], [], [cuda_ok=no])
    AC_CHECK_LIB([cublas], [cublasGemmEx], [], [cuda_ok=no])
    AC_CHECK_LIB([cusolver], [cusolverDnSgetrf], [], [cuda_ok=no])
    AC_CHECK_LIB([cusparse], [cusparseSpMV], [], [cuda_ok=no])
    CPPFLAGS=$save_CPPFLAGS; LDFLAGS=$save_LDFLAGS; LIBS=$save_LIBS
    AS_IF([test "x$cuda_ok" = xyes], [], [mix_cuda_why="CUDA headers or libraries not found"])])
  AS_IF([test -n "$NVCC" && test -z "$mix_cuda_why"], [
    NVCCFLAGS="-O3 -std=c++17 --expt-relaxed-constexpr"
    last_arch=
    for a in $with_cuda_arch; do
      a=`echo $a | sed 's/^sm_//'`
      NVCCFLAGS="$NVCCFLAGS -gencode arch=compute_$a,code=sm_$a"
      last_arch=$a
    done
    NVCCFLAGS="$NVCCFLAGS -gencode arch=compute_$last_arch,code=compute_$last_arch"
    dnl nvcc found is not nvcc working: compile a kernel for the chosen architectures, as the build will.
    AC_MSG_CHECKING([whether $NVCC compiles for sm_$last_arch])
    cat > conftest.cu <<_MIXEOF
#include <cuda_runtime.h>
__global__ void k(float *x) { x[[threadIdx.x]] *= 2.0f; }
int main(void) { k<<<1, 1>>>(0); return cudaGetLastError() == cudaSuccess ? 0 : 1; }
_MIXEOF
    AS_IF([$NVCC $NVCCFLAGS -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1],
      [AC_MSG_RESULT([yes]); have_cuda=yes],
      [AC_MSG_RESULT([no]); mix_cuda_why="$NVCC does not compile for these architectures (see config.log)"])
    rm -f conftest.cu conftest.$OBJEXT])
  AS_IF([test "x$have_cuda" = xno && test "x$with_cuda" != xauto],
    [AC_MSG_ERROR([--with-cuda given but $mix_cuda_why])])])
AS_IF([test "x$have_cuda" = xyes], [
  dnl The library links the runtime only: cuBLAS, cuSOLVER and cuSPARSE are opened on the first
  dnl CUDA context (kernels/cuda/cuda_libs.c), by the sonames found here.  The GPU benchmarks
  dnl call them directly and link them (CUDA_BENCH_LIBS).
  CUDA_LIBS="-lcudart -lstdc++"
  CUDA_BENCH_LIBS="-lcusparse -lcusolver -lcublas"
  AC_CHECK_TOOL([OBJDUMP], [objdump], [false])
  for mix_lib in cublas cusolver cusparse; do
    mix_so=`$OBJDUMP -p "$cuda_libdir/lib$mix_lib.so" 2>/dev/null | sed -n 's/^ *SONAME *//p'`
    AS_IF([test -z "$mix_so"], [mix_so=lib$mix_lib.so])
    eval "mix_soname_$mix_lib=\$mix_so"
  done
  AC_DEFINE_UNQUOTED([MIX_CUBLAS_SONAME], ["$mix_soname_cublas"], [cuBLAS's soname, opened at run time])
  AC_DEFINE_UNQUOTED([MIX_CUSOLVER_SONAME], ["$mix_soname_cusolver"], [cuSOLVER's soname])
  AC_DEFINE_UNQUOTED([MIX_CUSPARSE_SONAME], ["$mix_soname_cusparse"], [cuSPARSE's soname])
  AC_DEFINE_UNQUOTED([MIX_CUDA_LIBDIR], ["$cuda_libdir"], [where configure found the CUDA libraries])
  AC_DEFINE([MIX_HAVE_CUDA], [1], [CUDA backend compiled])],
  [NVCCFLAGS=; CUDA_CPPFLAGS=; CUDA_LDFLAGS=; CUDA_LIBS=; CUDA_BENCH_LIBS=])
AC_SUBST([NVCC])
AC_SUBST([NVCCFLAGS])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LDFLAGS])
AC_SUBST([CUDA_LIBS])
AC_SUBST([CUDA_BENCH_LIBS])
AM_CONDITIONAL([HAVE_CUDA], [test "x$have_cuda" = xyes])
])
