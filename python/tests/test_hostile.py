"""test_hostile.py: what a hostile probe of the package found (issue 33): misaligned arrays,
integers beyond C int, illegal values said by their keyword, index faults said clearly, NaN in A
reported in the full record, overwrite_a with b a view of A, and a solution beyond FP64 said as
RangeError."""
import numpy as np
import pytest

import mixsolve
from conftest import backward_error, fp64_level, poisson3d


def misaligned(a, order="C"):
    """A copy of `a` in a buffer one byte off its natural alignment (flags: contiguous, not aligned)."""
    a = np.asarray(a)
    buf = bytearray(a.nbytes + 1)
    m = np.ndarray(a.shape, dtype=a.dtype, buffer=buf, offset=1, order=order)
    m[...] = a
    assert not m.flags.aligned and (m.flags.c_contiguous if order == "C" else m.flags.f_contiguous)
    return m


def spd(n, rng):
    G = rng.standard_normal((n, n))
    return G @ G.T + n * np.eye(n)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("overwrite_a", [False, True])
def test_misaligned_dense(rng, order, overwrite_a):
    n = 30
    A0 = spd(n, rng)
    b0 = rng.standard_normal(n)
    B0 = rng.standard_normal((n, 3))
    for f in (mixsolve.solve, mixsolve.solve_spd):
        for b in (b0, B0, misaligned(b0), misaligned(B0, order)):
            A = misaligned(A0, order)
            x = f(A, b, overwrite_a=overwrite_a)
            assert backward_error(A0, x, b) <= fp64_level(n), f.__name__


def test_misaligned_cg():
    A = poisson3d(6)
    n = A.shape[0]
    b = np.arange(1.0, n + 1)
    ref, info = mixsolve.cg(A, b)
    assert info == 0
    arrays = (misaligned(A.indptr), misaligned(A.indices), misaligned(A.data))
    for x0 in (None, misaligned(np.zeros(n))):
        x, info = mixsolve.cg(arrays, misaligned(b), x0=x0)
        assert info == 0 and np.array_equal(x, ref)


@pytest.mark.parametrize("call, keyword", [
    (lambda A, S, b, v: mixsolve.cg(S, b, maxiter=v), "maxiter"),
    (lambda A, S, b, v: mixsolve.solve(A, b, max_iter=v), "max_iter"),
    (lambda A, S, b, v: mixsolve.solve_spd(A, b, max_iter=v), "max_iter"),
])
@pytest.mark.parametrize("value", [2**32 + 5, 2**32 + 1, 2**31, -2**31 - 1, 2.5, "many"])
def test_integers_beyond_c_int(call, keyword, value):
    """ctypes kept the low 32 bits: maxiter=2**32 + 5 ran 5 iterations, max_iter=2**32 + 1 was 1."""
    S = poisson3d(4)
    A = S.toarray()
    with pytest.raises(ValueError) as e:
        call(A, S, np.ones(A.shape[0]), value)
    assert isinstance(e.value, mixsolve.InvalidArgumentError) and keyword + "=" in str(e.value)


def test_integral_keywords_still_taken():
    S = poisson3d(4)
    b = np.ones(S.shape[0])
    _, rec = mixsolve.cg(S, b, maxiter=np.int64(3), precond=None, storage="fp64", full_output=True)
    assert rec.iter == 3 and rec.reason == "max_iter"
    _, rec = mixsolve.cg(S, b, maxiter=3.0, precond=None, storage="fp64", full_output=True)
    assert rec.iter == 3


@pytest.mark.parametrize("kw, keyword", [
    ({"rtol": -1e-3}, "rtol"), ({"rtol": float("nan")}, "rtol"), ({"tol": float("inf")}, "tol"),
    ({"maxiter": -1}, "maxiter")])
def test_cg_illegal_keyword_named(kw, keyword):
    """The library's -2 ("argument 2 is illegal") said as the keyword that made it."""
    with pytest.raises(mixsolve.InvalidArgumentError) as e:
        mixsolve.cg(poisson3d(4), np.ones(64), **kw)
    msg = str(e.value)
    assert e.value.status == -2 and msg.startswith("mix_dcg: %s=" % keyword), msg
    assert "info value" not in msg


@pytest.mark.parametrize("f", [mixsolve.solve, mixsolve.solve_spd])
@pytest.mark.parametrize("kw, keyword", [({"tol": -1.0}, "tol"), ({"max_iter": -5}, "max_iter")])
def test_dense_illegal_keyword_named(f, kw, keyword):
    with pytest.raises(mixsolve.InvalidArgumentError) as e:
        f(np.eye(3), np.ones(3), **kw)
    assert e.value.status == -2 and (": %s=" % keyword) in str(e.value), str(e.value)


@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("bad", [64, 1000, -1])
def test_column_index_out_of_range_said(itype, bad):
    """A column >= n was "An argument is illegal (see the info value ...)" while a negative one
    (int64) got a sentence of its own: both name the index, its entry and its row now."""
    S = poisson3d(4)
    indptr, indices, data = S.indptr.astype(itype), S.indices.astype(itype), S.data.copy()
    indices[9] = bad
    with pytest.raises(mixsolve.InvalidArgumentError) as e:
        mixsolve.cg((indptr, indices, data), np.ones(64))
    msg = str(e.value)
    row = int(np.searchsorted(indptr, 9, side="right")) - 1
    assert "column index %d (entry 9, row %d) is outside [0, 64)" % (bad, row) in msg, msg


def test_indptr_faults_said():
    S = poisson3d(3)
    indptr = S.indptr.copy()
    indptr[5], indptr[6] = indptr[6], indptr[5]
    with pytest.raises(mixsolve.InvalidArgumentError) as e:
        mixsolve.cg((indptr, S.indices, S.data), np.ones(27))
    assert "indptr decreases at row 5" in str(e.value)


def test_nan_in_a_full_output():
    """NaN in A: the record said reason 'converged' with residual 0.0."""
    S = poisson3d(4).tocsr()
    S.data[7] = np.nan
    for check in (True, False):
        x, rec = mixsolve.cg(S, np.ones(64), full_output=True, check_symmetric=check)
        assert rec.info == -6 and rec.status == 6 and not rec.converged
        assert rec.reason == "breakdown_nan" and np.isnan(rec.true_rel_residual)
        assert mixsolve.cg(S, np.ones(64), check_symmetric=check)[1] == -6


@pytest.mark.parametrize("f", [mixsolve.solve, mixsolve.solve_spd])
def test_overwrite_a_with_b_a_view_of_a(rng, f):
    """b read after the factors overwrote A: SciPy's overwrite_a answers wrongly; ours copies b."""
    n = 40
    A0 = spd(n, rng)
    for order in ("C", "F"):
        A = np.array(A0, order=order)
        b = A[:, 3] if order == "F" else A[3, :]  # a contiguous view; A0 symmetric: column 3
        x = f(A, b, overwrite_a=True)
        e = np.zeros(n)
        e[3] = 1.0
        assert np.abs(x - e).max() <= 1e-10, (f.__name__, order)


def test_solution_beyond_fp64_is_range_error():
    """A solution of 1e600 does not fit FP64: RangeError (an OverflowError), dense and sparse."""
    import scipy.sparse as sp
    A, b = 1e-300 * np.eye(3), np.full(3, 1e300)
    for call in (lambda: mixsolve.solve(A, b), lambda: mixsolve.spsolve(sp.csr_matrix(A), b)):
        with pytest.raises(mixsolve.RangeError) as e:
            call()
        assert isinstance(e.value, OverflowError) and e.value.status == 11
