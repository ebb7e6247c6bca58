"""_dense.py: mixsolve.solve and mixsolve.solve_spd over mix_dgesv_ir and mix_dposv_ir."""
import ctypes
from dataclasses import dataclass

import numpy as np

from . import _lib
from .errors import InvalidArgumentError, NotSPDError



@dataclass
class SolveInfo:
    """What a dense solve did (``return_info=True``); the fields of ``mix_gesv_info``.

    Attributes
    ----------
    precision : str
        The factor precision used ("fp64" when the FP64 path solved the system).
    iter : int
        LAPACK dsgesv's ``iter``: >= 0 refinement iterations; < 0 the FP64 path was taken
        (-1 chosen directly, -2 overflow, -3 low-precision factorization failed,
        -(max_iter+1) refinement did not converge; with max_iter 0 to 2 that code equals
        one of the others, and ``reason`` tells them apart).
    inner_iter : int
        GMRES (or CG) inner iterations, all outer iterations together.
    fell_back : bool
        True when the FP64 factorization solved the system.
    reason : str
        Why it fell back: "none", "direct", "overflow", "factor_failed", "not_converged",
        "nan_in_refinement" or "too_slow".
    backward_error : float
        max over columns of ||b - A x||inf / (||A||inf ||x||inf + ||b||inf).
    t_factor, t_refine : float
        Seconds spent factorizing and refining.
    """
    precision: str
    iter: int
    inner_iter: int
    fell_back: bool
    reason: str
    backward_error: float
    t_factor: float
    t_refine: float


def _layout(a):
    """(layout, leading dimension) under which the 2-D float64 array `a` can be passed as is, or None."""
    if not a.flags.aligned or a.dtype != np.float64:
        return None
    rows, cols = a.shape
    if a.flags.c_contiguous:
        return _lib.MIX_ROW_MAJOR, max(1, cols)
    if a.flags.f_contiguous:
        return _lib.MIX_COL_MAJOR, max(1, rows)
    s0, s1 = a.strides
    if s1 == 8 and s0 > 0 and s0 % 8 == 0 and s0 // 8 >= cols:
        return _lib.MIX_ROW_MAJOR, s0 // 8
    if s0 == 8 and s1 > 0 and s1 % 8 == 0 and s1 // 8 >= rows:
        return _lib.MIX_COL_MAJOR, s1 // 8
    return None


def _as_float64(x, what):
    """`x` as a float64 ndarray: the same object when it already is one, else a converted copy."""
    arr = np.asarray(x)
    if np.iscomplexobj(arr):
        raise InvalidArgumentError("%s is complex: mixsolve solves real systems only" % what)
    if arr.dtype != np.float64:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError("%s cannot be converted to float64: %s" % (what, e)) from None
    return arr


def _order(layout):
    return "C" if layout == _lib.MIX_ROW_MAJOR else "F"


def _prepare_a(A, overwrite_a):
    """(array, layout, lda): A as the library will read and may overwrite (the FP64 fallback
    leaves its factors in A), copied only when the dtype, strides or overwrite_a=False demand it."""
    src = np.asarray(A)
    a = _as_float64(src, "A")
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise InvalidArgumentError("A must be a square 2-D array, got shape %s" % (a.shape,))
    lay = _layout(a)
    converted = a is not src
    if lay is None:  # a fresh C-ordered copy: also for a contiguous but misaligned A
        a, converted = np.array(a, order="C"), True
        lay = _layout(a)
    if not overwrite_a and not converted:
        a = a.copy(order=_order(lay[0]))
        lay = _layout(a)
    elif overwrite_a and not a.flags.writeable:
        a = a.copy(order=_order(lay[0]))
        lay = _layout(a)
    return a, lay[0], lay[1]


def _prepare_b(b, n, layout):
    """(b, nrhs, ldb, x, ldx): b readable in `layout`, and the output x in the same layout."""
    b = _as_float64(b, "b")
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise InvalidArgumentError("b must have shape (%d,) or (%d, k) for A of shape (%d, %d), "
                                   "got %s" % (n, n, n, n, b.shape))
    if b.ndim == 1:
        if b.strides[0] != 8 or not b.flags.aligned:
            b = np.array(b, order="C")  # a copy: ascontiguousarray keeps a misaligned buffer
        nrhs = 1
        ldb = max(1, n) if layout == _lib.MIX_COL_MAJOR else 1
    else:
        nrhs = b.shape[1]
        lay = _layout(b)
        if lay is None or lay[0] != layout:
            b = np.asarray(b, order=_order(layout)).copy(order=_order(layout))
            lay = _layout(b)
        ldb = lay[1]
    x = np.empty(b.shape, dtype=np.float64, order=_order(layout))
    ldx = ldb if b.ndim == 1 else _layout(x)[1]
    return b, nrhs, ldb, x, ldx


def _params(precision, refine, tol, max_iter, refine_allowed):
    p = _lib.GesvParams()
    _lib.lib().mix_gesv_params_init(ctypes.byref(p))
    p.factor_prec = _lib.prec_code(precision, _lib.precisions(_lib.MIX_ROLE_FACTOR), "precision")
    if refine not in refine_allowed:
        raise InvalidArgumentError("refine=%r is not one of %s" % (refine, ", ".join(refine_allowed)))
    p.refine = _lib.REFINE[refine]
    if tol is not None:
        p.tol = _lib.float_keyword(tol, "tol")
    if max_iter is not None:
        p.max_iter = _lib.c_int_keyword(max_iter, "max_iter")
    return p


def _info(ci):
    return SolveInfo(precision=_lib.prec_name(ci.factor_prec_used), iter=ci.iter,
                     inner_iter=ci.inner_iter, fell_back=bool(ci.fell_back),
                     reason=_lib.FALLBACK_REASONS[ci.reason] if 0 <= ci.reason < 7 else str(ci.reason),
                     backward_error=ci.backward_error, t_factor=ci.t_factor, t_refine=ci.t_refine)


def _run(name, A, b, overwrite_a, backend, params, call):
    """Shared body of solve and solve_spd: arrays in, C call (GIL released), x and info out."""
    a, layout, lda = _prepare_a(A, overwrite_a)
    if overwrite_a and np.may_share_memory(a, b):
        b = np.array(b)  # b is read after the factors overwrite A: a view of A is copied first
    n = a.shape[0]
    b, nrhs, ldb, x, ldx = _prepare_b(b, n, layout)
    ci = _lib.GesvInfo()
    if n == 0 or nrhs == 0:
        return x, None
    ctx = _lib.context(backend)
    st = call(ctx, ctypes.byref(params), layout, n, nrhs, a.ctypes.data, lda,
              b.ctypes.data, ldb, x.ctypes.data, ldx, ctypes.byref(ci))
    if st == _lib.MIX_ERR_NOT_SPD:  # the library's sentence names every solver; this one is dense
        raise NotSPDError("%s: A is not positive definite in FP64: its Cholesky factorization "
                          "(as LAPACK's dpotrf) met a pivot that is not positive" % name,
                          st, _lib.strerror(st))
    if st:
        _lib.raise_status(st, name, {2: lambda: _lib.illegal_tol_or_iter(
            params.tol, "tol", params.max_iter, "max_iter")})
    return x, _info(ci)


def solve(A, b, precision="auto", *, refine="auto", tol=None, max_iter=None, overwrite_a=False,
          backend="auto", return_info=False):
    """Solve the linear system ``A x = b`` by mixed-precision LU and iterative refinement.

    The shapes of :func:`numpy.linalg.solve`; the answer has FP64 accuracy (backward error
    about sqrt(n) eps, LAPACK dsgesv's stopping test) whatever the factor precision, because
    the library falls back to an FP64 LU when the low-precision path does not get there.

    Parameters
    ----------
    A : (n, n) array_like
        The matrix. A C-ordered array is passed as row-major layout and a Fortran-ordered one
        as column-major (no transpose); a 2-D view with unit stride along one axis is passed
        with its leading dimension. float32, integer or bool input is converted to a float64
        copy; complex input is refused. A itself is copied once unless ``overwrite_a=True``,
        because the FP64 fallback writes its LU factors into the array it is given.
    b : (n,) or (n, k) array_like
        Right-hand side(s). Converted to float64 as A is; a 2-D b whose layout differs from A's
        is copied into A's layout. b is never written.
    precision : {"auto", "fp64", "fp32", "tf32", "fp16", "bf16"}, optional
        The LU factor precision. "auto" (default) lets the library choose from the size and the
        backend (FP64 when no low precision is predicted to pay).
    refine : {"auto", "classical", "gmres"}, optional
        Refinement: classical, GMRES-IR, or classical switching to GMRES-IR when it stalls.
    tol : float, optional
        Stopping test on the backward error; default LAPACK's ||r|| <= ||x|| ||A|| eps sqrt(n).
    max_iter : int, optional
        Outer refinement iterations before falling back (default 30); an integer in
        0..2**31 - 1 (a C int), else InvalidArgumentError naming the keyword.
    overwrite_a : bool, optional
        Let the library use A's memory (no copy) when A is float64 with usable strides; A then
        holds garbage or FP64 LU factors afterwards. A b that shares memory with A (a view of
        A, such as ``A[:, 0]``) is read after A is overwritten: it is copied first, where
        :func:`scipy.linalg.solve` with ``overwrite_a=True`` returns a wrong answer for it.
    backend : {"auto", "cpu", "cuda"}, optional
        The libmixsolve backend (a context per thread and backend).
    return_info : bool, optional
        Also return a :class:`SolveInfo`.

    Returns
    -------
    x : ndarray
        float64, the shape of b, in A's memory order.
    info : SolveInfo
        Only with ``return_info=True`` (None when n or k is 0).

    Raises
    ------
    SingularError
        A is exactly singular (also a :class:`numpy.linalg.LinAlgError`).
    NaNError
        NaN or Inf in A or b.
    RangeError
        The solution does not fit FP64 (also an :class:`OverflowError`).
    InvalidArgumentError
        Bad shapes, complex input, or an unknown option (also a :class:`ValueError`).

    Notes
    -----
    The C call releases the GIL: threads may solve at once (each thread gets its own context).
    """
    params = _params(precision, refine, tol, max_iter, ("auto", "classical", "gmres"))
    lib = _lib.lib()

    def call(ctx, p, layout, n, nrhs, a, lda, b_, ldb, x, ldx, info):
        ipiv = np.empty(n, dtype=np.intc)
        return lib.mix_dgesv_ir(ctx, p, layout, n, nrhs, a, lda, ipiv.ctypes.data, b_, ldb,
                                x, ldx, info)

    x, info = _run("mix_dgesv_ir", A, b, overwrite_a, backend, params, call)
    return (x, info) if return_info else x


def solve_spd(A, b, lower=False, precision="auto", *, refine="auto", tol=None, max_iter=None,
              overwrite_a=False, backend="auto", return_info=False):
    """Solve ``A x = b`` for symmetric positive definite A by mixed-precision Cholesky and refinement.

    Parameters
    ----------
    A : (n, n) array_like
        Symmetric positive definite. Only ONE triangle is read: the upper one by default
        (``lower=False``, as :func:`scipy.linalg.cho_factor`), the lower one with
        ``lower=True``; the other triangle is never looked at, so it is not checked for
        symmetry. Layout, dtype conversion and copies as in :func:`solve`.
    b : (n,) or (n, k) array_like
        Right-hand side(s), as in :func:`solve`.
    lower : bool, optional
        Read the lower triangle instead of the upper one.
    precision : {"auto", "fp64", "fp32", "tf32", "fp16", "bf16"}, optional
        The Cholesky factor precision ("auto": the library chooses).
    refine : {"auto", "classical", "gmres", "cg"}, optional
        Refinement: classical, GMRES-IR, CG-IR, or "auto" (stalled columns move to CG-IR).
    tol, max_iter, overwrite_a, backend, return_info
        As in :func:`solve`.

    Returns
    -------
    x : ndarray
        float64, the shape of b.
    info : SolveInfo
        Only with ``return_info=True``.

    Raises
    ------
    NotSPDError
        A is not positive definite in FP64 (also a :class:`numpy.linalg.LinAlgError`).
    NaNError, RangeError, InvalidArgumentError
        As in :func:`solve`.
    """
    params = _params(precision, refine, tol, max_iter, ("auto", "classical", "gmres", "cg"))
    lib = _lib.lib()
    uplo = b"L" if lower else b"U"

    def call(ctx, p, layout, n, nrhs, a, lda, b_, ldb, x, ldx, info):
        return lib.mix_dposv_ir(ctx, p, layout, uplo, n, nrhs, a, lda, b_, ldb, x, ldx, info)

    x, info = _run("mix_dposv_ir", A, b, overwrite_a, backend, params, call)
    return (x, info) if return_info else x
