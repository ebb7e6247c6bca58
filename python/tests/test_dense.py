"""test_dense.py: mixsolve.solve and solve_spd against numpy.linalg.solve: precisions, layouts, dtypes, errors."""
import numpy as np
import pytest

import mixsolve
from conftest import backward_error, fp64_level

PRECS = ["auto", "fp64", "fp32", "tf32", "fp16", "bf16"]
N = 200


def well_conditioned(rng, n):
    return rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)


@pytest.mark.parametrize("prec", PRECS)
@pytest.mark.parametrize("order", ["C", "F"])
def test_solve_every_precision_and_order(rng, prec, order):
    A = np.asarray(well_conditioned(rng, N), order=order)
    b = rng.standard_normal(N)
    x, info = mixsolve.solve(A, b, prec, return_info=True)
    assert x.shape == (N,) and x.dtype == np.float64
    assert backward_error(A, x, b) <= fp64_level(N)
    assert info.backward_error <= fp64_level(N)
    if prec not in ("auto", "fp64") and not info.fell_back:
        assert info.precision == prec
    ref = np.linalg.solve(A, b)
    assert np.allclose(x, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("border", ["C", "F"])
@pytest.mark.parametrize("aorder", ["C", "F"])
def test_many_rhs_any_layout(rng, aorder, border):
    A = np.asarray(well_conditioned(rng, N), order=aorder)
    B = np.asarray(rng.standard_normal((N, 5)), order=border)
    X = mixsolve.solve(A, B, "fp32")
    assert X.shape == (N, 5)
    assert X.flags.c_contiguous if aorder == "C" else X.flags.f_contiguous
    assert backward_error(A, X, B) <= fp64_level(N)
    assert np.allclose(X, np.linalg.solve(A, B), rtol=1e-9, atol=1e-12)


def test_strided_views_and_a_left_unchanged(rng):
    big = rng.standard_normal((N + 7, N + 9)) + N ** 0.5 * np.eye(N + 7, N + 9)
    A = big[:N, :N]  # row-major with lda = N + 9: passed without a copy by the library's lda
    keep = A.copy()
    B = rng.standard_normal((2 * N, 3))[::2]  # non-unit row stride: copied
    b1 = rng.standard_normal(2 * N)[::2]
    for prec in ("fp64", "fp16"):  # fp64 writes LU factors into its copy of A
        X = mixsolve.solve(A, B, prec)
        assert backward_error(A, X, B) <= fp64_level(N)
        x = mixsolve.solve(A, b1, prec)
        assert backward_error(A, x, b1) <= fp64_level(N)
    assert np.array_equal(A, keep)
    Ft = big.T[:N, :N]  # column-major view with a leading dimension
    assert backward_error(Ft, mixsolve.solve(Ft, b1), b1) <= fp64_level(N)


def test_overwrite_a(rng):
    A = well_conditioned(rng, N)
    b = rng.standard_normal(N)
    keep = A.copy()
    x = mixsolve.solve(A, b, "fp64", overwrite_a=True)
    assert backward_error(keep, x, b) <= fp64_level(N)
    assert not np.array_equal(A, keep)  # the FP64 LU factors went into A itself


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32])
def test_converted_dtypes(rng, dtype):
    A = (10 * well_conditioned(rng, 50)).astype(dtype)
    b = (10 * rng.standard_normal(50)).astype(dtype)
    x = mixsolve.solve(A, b)
    assert x.dtype == np.float64
    assert backward_error(A, x, b) <= fp64_level(50)
    x = mixsolve.solve(A.tolist(), b.tolist())  # nested lists too
    assert backward_error(A, x, b) <= fp64_level(50)


def test_empty_system():
    assert mixsolve.solve(np.zeros((0, 0)), np.zeros(0)).shape == (0,)
    assert mixsolve.solve(np.eye(3), np.zeros((3, 0))).shape == (3, 0)


def spd(rng, n):
    G = rng.standard_normal((n, n))
    return G @ G.T + n * np.eye(n)


@pytest.mark.parametrize("prec", PRECS)
def test_solve_spd_reads_upper_triangle_by_default(rng, prec):
    S = spd(rng, N)
    b = rng.standard_normal((N, 2))
    junk = np.triu(S) + np.tril(np.full((N, N), np.pi), -1)  # the lower triangle is garbage
    x, info = mixsolve.solve_spd(junk, b, precision=prec, return_info=True)
    assert backward_error(S, x, b) <= fp64_level(N)
    junk = np.tril(S) + np.triu(np.full((N, N), -7.0), 1)
    x = mixsolve.solve_spd(np.asfortranarray(junk), b, lower=True, precision=prec, refine="cg")
    assert backward_error(S, x, b) <= fp64_level(N)
    assert np.allclose(x, np.linalg.solve(S, b), rtol=1e-9)


def test_singular_is_a_linalgerror():
    A = np.ones((4, 4))
    with pytest.raises(mixsolve.SingularError) as e:
        mixsolve.solve(A, np.ones(4), "fp64")
    assert isinstance(e.value, np.linalg.LinAlgError) and isinstance(e.value, mixsolve.Error)
    assert e.value.sentence and e.value.sentence in str(e.value)
    with pytest.raises(np.linalg.LinAlgError):  # what numpy users already catch
        mixsolve.solve(np.zeros((3, 3)), np.ones(3))


def test_not_spd():
    A = np.diag([1.0, -1.0, 2.0])
    with pytest.raises(mixsolve.NotSPDError) as e:
        mixsolve.solve_spd(A, np.ones(3))
    assert isinstance(e.value, np.linalg.LinAlgError)


def test_nan_and_inf():
    A = np.eye(3)
    A[1, 1] = np.nan
    with pytest.raises(mixsolve.NaNError):
        mixsolve.solve(A, np.ones(3))
    with pytest.raises(mixsolve.NaNError):
        mixsolve.solve(np.eye(3), np.array([1.0, np.inf, 0.0]))


@pytest.mark.parametrize("A, b, kw", [
    (np.eye(3), np.ones(4), {}),
    (np.ones((3, 4)), np.ones(3), {}),
    (np.ones((2, 3, 3)), np.ones(3), {}),
    (np.eye(3), np.ones((3, 2, 1)), {}),
    (np.eye(3, dtype=complex), np.ones(3), {}),
    (np.eye(3), np.ones(3), {"precision": "fp8"}),
    (np.eye(3), np.ones(3), {"precision": "fixed16"}),
    (np.eye(3), np.ones(3), {"refine": "cg"}),
    (np.eye(3), np.ones(3), {"backend": "tpu"}),
])
def test_illegal_arguments(A, b, kw):
    with pytest.raises(mixsolve.InvalidArgumentError) as e:
        mixsolve.solve(A, b, **kw)
    assert isinstance(e.value, ValueError)


def test_library_status_is_carried():
    with pytest.raises(mixsolve.InvalidArgumentError) as e:
        mixsolve.solve(np.eye(3), np.ones(3), max_iter=-5)  # the library refuses it: -i
    assert e.value.status < 0 and "illegal" in str(e.value)
