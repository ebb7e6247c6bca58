"""_spsolve.py: mixsolve.spsolve over mix_dgesv_sparse (scipy.sparse.linalg.spsolve's shapes)."""
import ctypes

import numpy as np

from . import _lib
from ._dense import _as_float64, _info
from ._sparse import _csr_arrays
from .errors import InvalidArgumentError

_SPARSE_PRECISIONS = ("auto", "fp32", "fp64")


def _rhs(b, n):
    """(B as a Fortran-ordered float64 (n, k) array, whether b was sparse, whether a vector)."""
    sparse = hasattr(b, "toarray") and hasattr(b, "shape")
    if sparse:
        b = b.toarray()
    b = _as_float64(b, "b")
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise InvalidArgumentError("b must have shape (%d,) or (%d, k), got %s" % (n, n, b.shape))
    vector = b.ndim == 1 or (b.shape[1] == 1 and not sparse)
    return np.asfortranarray(b.reshape(n, -1)), sparse, vector


def spsolve(A, b, precision="auto", *, refine="auto", tol=None, max_iter=None, backend="auto",
            return_info=False):
    """Solve ``A x = b`` for a general sparse square A: sparse LU in FP32 (or FP64) refined in FP64.

    The shapes of :func:`scipy.sparse.linalg.spsolve`: b of shape (n,) or (n, 1) gives x of
    shape (n,); b of shape (n, k) gives (n, k); a sparse b gives a sparse (CSC) x.  The answer
    has FP64 accuracy (LAPACK's stopping test per column): the library falls back to FP64
    factors, reusing the analysis, when the FP32 path does not get there (mix_dgesv_sparse(3)).

    Parameters
    ----------
    A : scipy.sparse matrix or array, or tuple (indptr, indices, data)
        Square; any format (converted to CSR by SciPy). Data that is not float64 is converted
        to a float64 copy; the library keeps its own copy.
    b : (n,) or (n, k) array_like, or a scipy.sparse matrix
        Right-hand side(s); converted to float64 as A's data; never written.
    precision : {"auto", "fp32", "fp64"}, optional
        The LU factor precision ("auto": FP32 for large systems, FP64 for small ones).
    refine : {"auto", "classical", "gmres"}, optional
        Classical refinement, GMRES-IR, or classical switching to GMRES-IR when it stalls.
    tol, max_iter : optional
        As :func:`mixsolve.solve`.
    backend : {"auto", "cpu"}, optional
        The backend; only the CPU has the sparse direct libraries (MUMPS, KLU).
    return_info : bool, optional
        Also return a :class:`SolveInfo`.

    Raises
    ------
    SingularError
        A is structurally or numerically singular (also a :class:`numpy.linalg.LinAlgError`).
    NaNError
        NaN or Inf in A or b.
    RangeError
        The solution does not fit FP64 (also an :class:`OverflowError`).
    NotConvergedError
        Underflow in the solution cost it the accuracy asked for.
    InvalidArgumentError
        Bad shapes or options (also a :class:`ValueError`).
    """
    if refine not in ("auto", "classical", "gmres"):
        raise InvalidArgumentError("refine=%r is not one of auto, classical, gmres" % (refine,))
    n, indptr, indices, data, _ = _csr_arrays(A)
    B, sparse, vector = _rhs(b, n)
    lib = _lib.lib()
    p = _lib.GesvParams()
    lib.mix_gesv_params_init(ctypes.byref(p))
    p.factor_prec = _lib.prec_code(precision, _SPARSE_PRECISIONS, "precision")
    p.refine = _lib.REFINE[refine]
    if tol is not None:
        p.tol = float(tol)
    if max_iter is not None:
        p.max_iter = int(max_iter)
    X = np.zeros_like(B, order="F")
    info = None
    if n > 0 and B.shape[1] > 0:
        ctx = _lib.context(backend)
        mat = ctypes.c_void_p()
        st = lib.mix_sparse_create_csr(ctx, n, indptr.ctypes.data, indices.ctypes.data,
                                       data.ctypes.data, ctypes.byref(mat))
        if st:
            _lib.raise_status(st, "mix_sparse_create_csr")
        ci = _lib.GesvInfo()
        try:
            st = lib.mix_dgesv_sparse(ctx, ctypes.byref(p), mat, B.shape[1], B.ctypes.data, n,
                                      X.ctypes.data, n, ctypes.byref(ci))
        finally:
            lib.mix_sparse_destroy(mat)
        if st:
            _lib.raise_status(st, "mix_dgesv_sparse")
        info = _info(ci)
    if sparse:
        import scipy.sparse
        x = scipy.sparse.csc_matrix(X)
    else:
        x = X.reshape(n) if vector else X
    return (x, info) if return_info else x
