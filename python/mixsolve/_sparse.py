"""_sparse.py: mixsolve.cg over mix_sparse_create_csr and mix_dcg (scipy.sparse.linalg.cg's conventions)."""
import ctypes
from dataclasses import dataclass, field

import numpy as np

from . import _lib
from ._dense import _as_float64
from .errors import InvalidArgumentError, NotSymmetricError

_INT32_MAX = 2**31 - 1


@dataclass
class CGInfo:
    """The full record of a CG solve (``full_output=True``): ``mix_cg_info`` plus SciPy's info.

    Attributes
    ----------
    info : int
        What ``cg`` returns otherwise: 0 converged, > 0 the iteration count when the tolerance
        was not reached, < 0 breakdown or illegal data (-status: see :func:`cg`).
    status : int
        libmixsolve's status (0, or a positive ``MIX_ERR_*`` code).
    message : str
        ``mix_strerror(status)``.
    iter, reliable_updates : int
        Iterations (all stages) and reliable updates (FP64 true-residual recomputations).
    converged : bool
    reason : str
        Why it stopped: "converged", "max_iter", "stagnated", "breakdown_not_spd",
        "breakdown_nan", "zero_rhs", "out_of_range" or "storage_overflow".
    true_rel_residual : float
        ||b - A x||2 / ||b||2 recomputed in FP64.
    t_setup, t_solve : float
        Seconds (conversion to the storage precision, or the multigrid set-up; iterations).
    stages : list of (str, int, str)
        The storage precisions that ran, in order: (precision, iterations, reason).
    """
    info: int
    status: int
    message: str
    iter: int
    reliable_updates: int
    converged: bool
    reason: str
    true_rel_residual: float
    t_setup: float
    t_solve: float
    stages: list = field(default_factory=list)


def _reason(r):
    return _lib.CG_REASONS[r] if 0 <= r < len(_lib.CG_REASONS) else str(r)


def _csr_arrays(A):
    """(n, indptr int64, indices int32, data float64, (indptr, indices) for the symmetry test) of
    A: a scipy.sparse matrix or array (any format: converted to CSR, COO duplicates summed by
    SciPy) or a tuple (indptr, indices, data).  Index ranges are left to mix_sparse_create_csr,
    which checks them; only what the int32/int64 conversion could hide is checked here."""
    if isinstance(A, tuple):
        if len(A) != 3:
            raise InvalidArgumentError("A as a tuple must be (indptr, indices, data)")
        indptr, indices, data = (np.asarray(t) for t in A)
        n = indptr.shape[0] - 1
    elif hasattr(A, "tocsr") and hasattr(A, "shape"):
        if A.shape[0] != A.shape[1]:
            raise InvalidArgumentError("A must be square, got shape %s" % (A.shape,))
        if A.format != "csr":
            A = A.tocsr()  # any format; COO's duplicates are summed here
        indptr, indices, data = A.indptr, A.indices, A.data
        n = A.shape[0]
    else:
        raise InvalidArgumentError("A must be a scipy.sparse matrix or array, or a tuple "
                                   "(indptr, indices, data); use mixsolve.solve_spd for dense A")
    if indptr.ndim != 1 or n < 0 or indices.ndim != 1 or data.ndim != 1:
        raise InvalidArgumentError("indptr, indices and data must be 1-D arrays")
    # SciPy's own index arrays are int32 or int64 already: skip the generic dtype tests for them.
    if indices.dtype not in _INDEX_TYPES or indptr.dtype not in _INDEX_TYPES:
        if not (np.issubdtype(indptr.dtype, np.integer) and np.issubdtype(indices.dtype, np.integer)):
            raise InvalidArgumentError("indptr and indices must be integer arrays")
    nnz = int(indptr[-1]) if indptr.size else 0
    if indices.shape[0] < nnz or data.shape[0] < nnz:
        raise InvalidArgumentError("indices and data need indptr[-1] = %d entries" % nnz)
    if indices.shape[0] > nnz:
        indices = indices[:nnz]
    if data.shape[0] > nnz:
        data = data[:nnz]
    # A narrowing to int32 would wrap an index that does not fit: test before converting.
    if n > _INT32_MAX:
        raise InvalidArgumentError("n = %d does not fit int32 (libmixsolve's n)" % n)
    if indices.dtype != np.int32 and indices.size and (int(indices.min()) < 0 or
                                                       int(indices.max()) > _INT32_MAX):
        raise InvalidArgumentError(_csr_fault(n, indptr, indices))
    ip64 = _aligned(indptr, np.int64)
    ix32 = _aligned(indices, np.int32)
    data = _aligned(_as_float64(data, "A's data"), np.float64)
    if indptr.dtype == indices.dtype and indices.dtype in _INDEX_TYPES:
        check = (_aligned(indptr, indptr.dtype), _aligned(indices, indices.dtype))
    else:  # SciPy's kernels want both index arrays of one dtype, int32 or int64
        check = (ip64, ix32.astype(np.int64))
    return n, ip64, ix32, data, check


_INDEX_TYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _aligned(a, dtype):
    """`a` as a C-contiguous, aligned array of `dtype` (ascontiguousarray alone keeps a
    contiguous but misaligned buffer, e.g. np.ndarray(buffer=..., offset=1))."""
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.flags.aligned else a.copy()


def _csr_fault(n, indptr, indices):
    """What mix_sparse_create_csr refuses in (indptr, indices), in words: indptr not from 0 or
    decreasing, or the first column index outside [0, n) with its row; None when none."""
    indptr = np.asarray(indptr)
    if indptr.size and int(indptr[0]) != 0:
        return "indptr[0] = %d: it must be 0" % int(indptr[0])
    drop = np.flatnonzero(np.diff(indptr) < 0)
    if drop.size:
        return "indptr decreases at row %d (indptr[%d] = %d > indptr[%d] = %d)" % (
            drop[0], drop[0], int(indptr[drop[0]]), drop[0] + 1, int(indptr[drop[0] + 1]))
    nnz = int(indptr[-1]) if indptr.size else 0
    cols = np.asarray(indices)[:nnz]
    bad = np.flatnonzero((cols < 0) | (cols >= n))
    if bad.size:
        k = int(bad[0])
        row = int(np.searchsorted(indptr, k, side="right")) - 1
        return "column index %d (entry %d, row %d) is outside [0, %d)" % (int(cols[k]), k, row, n)
    return None
_test_vectors = {}


def _test_vector(n):
    """A fixed pseudo-random w in [0.5, 1.5)^n, made once per n (read-only)."""
    w = _test_vectors.get(n)
    if w is None:
        w = np.random.default_rng(20261125).uniform(0.5, 1.5, n)
        w.flags.writeable = False
        if len(_test_vectors) > 8:
            _test_vectors.clear()
        _test_vectors[n] = w
    return w


try:  # SciPy's compiled CSR/CSC products: three of them are the whole test (see _check_symmetric)
    from scipy.sparse._sparsetools import csc_matvec as _csc_matvec, csr_matvec as _csr_matvec
except ImportError:  # NumPy only (tuple input without SciPy), or a SciPy that moved them
    _csr_matvec = _csc_matvec = None

_SYM_TOL = 128 * np.finfo(np.float64).eps


def _asymmetric_rows(n, indptr, indices, data, w):
    """(A w - A^T w, |A| w) through SciPy's compiled CSR kernels (y += A x for the CSR arrays,
    y += A^T x reading them as CSC), or None when A w and A^T w agree to the last bit.

    For sorted rows without duplicates, a symmetric A gives bit-identical A w and A^T w (both
    sum a_ij w_j over increasing j), so the common case costs two products and a compare; the
    third product (the rounding scale |A| w) is paid only when they differ."""
    y = np.zeros(2 * n)
    aw, atw = y[:n], y[n:]
    _csr_matvec(n, n, indptr, indices, data, w, aw)
    _csc_matvec(n, n, indptr, indices, data, w, atw)
    if aw.tobytes() == atw.tobytes():  # a bytes compare: cheaper than numpy.array_equal here
        return None
    aw -= atw
    atw.fill(0.0)
    _csr_matvec(n, n, indptr, indices, np.abs(data), w, atw)
    return aw, atw


def _asymmetric_rows_numpy(n, indptr, indices, data, w):
    """(A w - A^T w, |A| w) with NumPy alone (numpy.repeat and three numpy.bincount)."""
    rows = np.repeat(np.arange(n, dtype=np.intp), np.diff(indptr))
    by_row = data * w[indices]
    diff = np.bincount(rows, weights=by_row, minlength=n)
    diff -= np.bincount(indices, weights=data * w[rows], minlength=n)
    return diff, np.bincount(rows, weights=np.abs(by_row), minlength=n)


def _check_symmetric(n, indptr, indices, data):
    """Raises NotSymmetricError unless A w = A^T w for a fixed pseudo-random w, to rounding.

    The arrays must already have passed mix_sparse_create_csr's checks (indptr from 0 and never
    decreasing, column indices in [0, n)), and indptr and indices must share a dtype.  Two or
    three O(nnz) passes, no sorting: duplicates and unsorted rows need no canonical form, explicit
    zeros count as absent, and a difference below the rounding of the products (relative
    128 eps of the row's |A| w) is not reported.
    """
    if n == 0 or indices.size == 0:
        return
    w = _test_vector(n)
    if _csr_matvec is not None:
        rows = _asymmetric_rows(n, indptr, indices, data, w)
        if rows is None:
            return
        diff, scale = rows
    else:
        diff, scale = _asymmetric_rows_numpy(n, indptr, indices, data, w)
    # For a symmetric A, |A| w is the same by rows and by columns: the rows' sum is the scale.
    bad = np.abs(diff) > _SYM_TOL * scale
    if bad.any():
        i = int(np.argmax(bad))
        raise NotSymmetricError(
            "cg needs a symmetric matrix: row %d of A differs from column %d ((A w - A^T w)_%d = "
            "%.3g for a test vector w, |A| w = %.3g); pass check_symmetric=False to skip this "
            "test" % (i, i, i, diff[i], scale[i]))


_params_cache = {}


def _params(rtol, maxiter, storage, precond, x0_given, escalate):
    """The mix_cg_params for these options; made once per set of options, then shared (mix_dcg
    only reads it), because building it is a visible part of a small solve's overhead."""
    try:
        key = (rtol, maxiter, storage, precond, x0_given, escalate)
        p = _params_cache.get(key)
    except TypeError:  # an unhashable option value: build it every time
        key, p = None, None
    if p is None:
        p = _make_params(rtol, maxiter, storage, precond, x0_given, escalate)
        if key is not None:
            if len(_params_cache) > 32:
                _params_cache.clear()
            _params_cache[key] = p
    return p


def _make_params(rtol, maxiter, storage, precond, x0_given, escalate):
    p = _lib.CGParams()
    _lib.lib().mix_cg_params_init(ctypes.byref(p))
    p.sloppy_prec = _lib.prec_code(storage, _lib.precisions(_lib.MIX_ROLE_STORAGE), "storage")
    p.tol = _lib.float_keyword(rtol, "rtol")
    if maxiter is not None:
        p.max_iter = _lib.c_int_keyword(maxiter, "maxiter")
    pc = "none" if precond is None else str(precond).lower()
    codes = {"none": _lib.MIX_PRECOND_NONE, "jacobi": _lib.MIX_PRECOND_JACOBI, "amg": _lib.MIX_PRECOND_AMG}
    if pc not in codes:
        raise InvalidArgumentError("precond=%r is not one of 'jacobi', 'amg', 'none', None" % (precond,))
    p.precond = codes[pc]
    p.x0_given = int(x0_given)
    p.escalate = int(bool(escalate))
    return p


_BREAKDOWN = (_lib.MIX_ERR_NOT_SPD, _lib.MIX_ERR_NAN, _lib.MIX_ERR_OVERFLOW)


def _scipy_info(st, ci, p, tol_name):
    """SciPy's info from a mix_dcg status: 0, the iteration count, or -status on breakdown."""
    if st == 0:
        return 0
    if st == _lib.MIX_ERR_NOT_CONVERGED:
        return max(1, ci.iter)
    if st in _BREAKDOWN:
        return -st
    _lib.raise_status(st, "mix_dcg", {2: lambda: _lib.illegal_tol_or_iter(
        p.tol, tol_name, p.max_iter, "maxiter")})


# mix_sparse_create_csr's refusals that cg reports as info < 0, with the CG reason that says why
# in the record (never "converged").
_CREATE_REASON = {_lib.MIX_ERR_NAN: "breakdown_nan", _lib.MIX_ERR_NOT_SPD: "breakdown_not_spd",
                  _lib.MIX_ERR_OVERFLOW: "out_of_range"}


def _record(info, st, ci):
    stages = [(_lib.prec_name(ci.stage_prec[k]), ci.stage_iter[k], _reason(ci.stage_reason[k]))
              for k in range(min(ci.stages, 3))]
    return CGInfo(info=info, status=st, message=_lib.strerror(st), iter=ci.iter,
                  reliable_updates=ci.reliable_updates, converged=bool(ci.converged),
                  reason=_reason(ci.reason), true_rel_residual=ci.true_rel_residual,
                  t_setup=ci.t_setup, t_solve=ci.t_solve, stages=stages)


def cg(A, b, x0=None, *, rtol=1e-10, tol=None, maxiter=None, storage="auto", precond="jacobi",
       escalate=True, check_symmetric=True, backend="auto", full_output=False):
    """Solve ``A x = b`` for sparse symmetric positive definite A by reliable-update mixed-precision CG.

    The signature and return convention of :func:`scipy.sparse.linalg.cg` where they overlap.
    A is stored in a low precision (``storage``) for the iterations, while the residual that
    decides convergence is recomputed in FP64: the answer satisfies ||b - A x||2 <= rtol ||b||2
    in FP64 arithmetic.

    Parameters
    ----------
    A : scipy.sparse matrix or array, or tuple (indptr, indices, data)
        Square, symmetric positive definite. CSR is used as is; CSC and COO are converted to
        CSR by SciPy (COO duplicates summed). int32 or int64 indices; rows may be unsorted and
        hold duplicates (summed, as SciPy does). Column indices are copied to int32 and indptr
        to int64 when they are not already (the C library's types); data that is not float64
        is converted to a float64 copy. The library keeps its own copy of the matrix.
        A that is not symmetric is refused (:class:`NotSymmetricError`).
    b : (n,) array_like
        Right-hand side; converted to float64 as A's data.
    x0 : (n,) array_like, optional
        Starting guess (default zero).
    rtol : float, optional
        Relative tolerance on the true FP64 residual (default 1e-10).
    tol : float, optional
        SciPy < 1.12's name for rtol; accepted, and wins when given.
    maxiter : int, optional
        Iteration limit over all stages (default: the library's, 10 n and at least 1000); an
        integer in 0..2**31 - 1 (a C int), else InvalidArgumentError naming the keyword.
    storage : {"auto", "fixed16", "fp16", "bf16", "fp32", "fp64"}, optional
        The precision A is stored in for the iterations; "auto" takes the cheapest the matrix
        fits.
    precond : {"jacobi", "amg", "none", None}, optional
        Diagonal (Jacobi) preconditioning, on by default.  "amg": CG with one
        smoothed-aggregation multigrid V-cycle per iteration, the hierarchy stored in
        `storage` (FP64 true residuals) and built at the first solve on A (kept with A's handle for later solves on
        the same matrix object; mix_dcg(3)).
    escalate : bool, optional
        When the storage precision stagnates, go on in the next wider one (default True).
    check_symmetric : bool, optional
        Test that A is symmetric before solving (default): A w against A^T w for a fixed
        random w, two O(nnz) products in SciPy's compiled code (a third when rows are unsorted
        or hold duplicates; NumPy passes when SciPy is absent), about 3% of a 1000-row Poisson
        solve (doc/benchmarks.md). False skips the test, and a non-symmetric A then gives
        meaningless results.
    backend : {"auto", "cpu", "cuda"}, optional
        The libmixsolve backend.
    full_output : bool, optional
        Return a :class:`CGInfo` record instead of the integer info.

    Returns
    -------
    x : ndarray
        The solution, float64 of shape (n,); the best iterate when not converged.
    info : int (or CGInfo with full_output=True)
        0: converged. > 0: the tolerance was not reached; the iteration count.
        < 0: breakdown or illegal data, minus libmixsolve's status: -5 (``MIX_ERR_NOT_SPD``)
        A is not positive definite (p'Ap <= 0 in FP64, or a diagonal entry <= 0 with Jacobi),
        -6 (``MIX_ERR_NAN``) NaN or Inf in A, b or x0, -11 (``MIX_ERR_OVERFLOW``) the solution
        does not fit FP64. ``CGInfo.message`` says it in words.

    Raises
    ------
    NotSymmetricError
        A is not symmetric (a :class:`ValueError`).
    InvalidArgumentError
        Shapes, index ranges or option names are illegal (a :class:`ValueError`, as SciPy
        raises for them), or a ``MIX_ERR_INVALID_ARG`` from the library.
    OutOfMemoryError, BackendError
        The library could not allocate, or the backend does not answer.

    Notes
    -----
    The C call releases the GIL; each thread uses its own context, so threads may solve at once.
    """
    if tol is not None:
        rtol = tol
    n, indptr, indices, data, check = _csr_arrays(A)
    b = _as_float64(b, "b").reshape(-1) if np.ndim(b) == 2 and np.shape(b)[1] == 1 else _as_float64(b, "b")
    if b.shape != (n,):
        raise InvalidArgumentError("b must have shape (%d,), got %s" % (n, b.shape))
    p = _params(rtol, maxiter, storage, precond, x0 is not None, escalate)
    x = np.zeros(n) if x0 is None else np.array(_as_float64(x0, "x0"), dtype=np.float64).reshape(-1)
    if x.shape != (n,):
        raise InvalidArgumentError("x0 must have shape (%d,), got %s" % (n, x.shape))
    b = _aligned(b, np.float64)
    if n == 0:
        return (x, _record(0, 0, _lib.CGInfo())) if full_output else (x, 0)
    lib, ctx = _lib.lib(), _lib.context(backend)
    mat = ctypes.c_void_p()
    # The library validates the arrays (index ranges, indptr) before the symmetry test reads them.
    st = lib.mix_sparse_create_csr(ctx, n, indptr.ctypes.data, indices.ctypes.data,
                                   data.ctypes.data, ctypes.byref(mat))
    if st:
        fault = _csr_fault(n, indptr, indices) if st == _lib.MIX_ERR_INVALID_ARG else None
        if fault:
            raise InvalidArgumentError("mix_sparse_create_csr: " + fault, st, _lib.strerror(st))
        if st not in _BREAKDOWN:
            _lib.raise_status(st, "mix_sparse_create_csr")
        rec = _record(-st, st, _lib.CGInfo(status=st))
        rec.reason, rec.true_rel_residual = _CREATE_REASON[st], float("nan")
        return (x, rec) if full_output else (x, -st)
    try:
        if check_symmetric:
            _check_symmetric(n, check[0], check[1], data)
        ci = _lib.CGInfo()
        st = lib.mix_dcg(ctx, ctypes.byref(p), mat, b.ctypes.data, x.ctypes.data, ctypes.byref(ci))
    finally:
        lib.mix_sparse_destroy(mat)
    info = _scipy_info(st, ci, p, "rtol" if tol is None else "tol")
    return (x, _record(info, st, ci)) if full_output else (x, info)
