dnl mix_python.m4: MIX_CHECK_PYTHON: a python3 that imports NumPy, for the Python package `mixsolve'.
dnl Tries $PYTHON, then python3 on PATH, then /usr/bin/python3 (a pyenv python3 first on PATH may
dnl lack NumPy while Debian's has it).  --enable-python=auto (default) | yes | no.  Sets PYTHON,
dnl pythondir (AM_PATH_PYTHON: `make install' puts the package there) and the HAVE_PYTHON conditional.
AC_DEFUN([MIX_CHECK_PYTHON], [
AC_ARG_ENABLE([python],
  [AS_HELP_STRING([--enable-python@<:@=auto|yes|no@:>@], [install the Python package mixsolve when a python3 with NumPy is found (default auto)])],
  [], [enable_python=auto])
have_python=no
AS_IF([test "x$enable_python" != xno], [
  AC_MSG_CHECKING([for a python3 with NumPy])
  mix_python=
  for mix_cand in "$PYTHON" python3 /usr/bin/python3; do
    test -n "$mix_cand" || continue
    AS_IF(["$mix_cand" -c 'import sys, numpy; sys.exit(sys.version_info < (3, 6))' >/dev/null 2>&1],
          [mix_python=`command -v "$mix_cand"`; break])
  done
  AC_MSG_RESULT([${mix_python:-no}])
  AS_IF([test -n "$mix_python"], [PYTHON=$mix_python; have_python=yes],
        [AS_IF([test "x$enable_python" = xyes],
               [AC_MSG_ERROR([--enable-python given but no python3 with NumPy was found (install python3-numpy)])])])])
dnl Always expanded (automake needs it for the _PYTHON primary); `:' when no Python is wanted.
AS_IF([test "x$have_python" = xno], [PYTHON=:])
AM_PATH_PYTHON([3.6], [], [:])
dnl Debian's python3 (default scheme posix_local) reads /usr/local/lib/python3.X/dist-packages,
dnl not the site-packages automake chooses: install where it looks (only over automake's default).
AS_IF([test "x$have_python" = xyes &&
       "$PYTHON" -c 'import sys, sysconfig; sys.exit(sysconfig.get_default_scheme() != "posix_local")' 2>/dev/null],
  [AS_CASE([$pythondir], [['${PYTHON_PREFIX}/lib/python'*'/site-packages']],
     [pythondir='${PYTHON_PREFIX}'/lib/python$PYTHON_VERSION/dist-packages
      AC_MSG_NOTICE([Debian's Python: the package goes to $pythondir])])])
AM_CONDITIONAL([HAVE_PYTHON], [test "x$have_python" = xyes])
])
