"""test_dense_probe.py: solve and solve_spd on what a hostile probe found silently wrong (issue 33)."""
import numpy as np
import pytest

import mixsolve

PRECS = ["fp64", "fp32", "tf32", "fp16", "bf16", "auto"]


def _matrices(n=40):
    rng = np.random.default_rng(33)
    A = rng.standard_normal((n, n)) + 2 * np.sqrt(n) * np.eye(n)
    S = 0.5 * (A + A.T)
    return A, S, rng.standard_normal(n)


@pytest.mark.parametrize("big", [1e300, 1e20])
@pytest.mark.parametrize("prec", PRECS)
def test_rhs_of_very_different_size(prec, big):
    """B = [A x big, A x 1e-300]: each column is accurate, as numpy.linalg.solve's."""
    A, S, x = _matrices()
    for M, solver in ((A, lambda M, B: mixsolve.solve(M, B, prec)),
                      (S, lambda M, B: mixsolve.solve_spd(M, B, precision=prec))):
        B = np.column_stack([M @ x * big, M @ x * 1e-300])
        X = solver(M, B)
        for j, s in enumerate((big, 1e-300)):
            assert np.abs(X[:, j] / s - x).max() <= 1e-10 * np.abs(x).max()


def test_not_spd_message_fits_the_dense_cholesky():
    with pytest.raises(mixsolve.NotSPDError) as e:
        mixsolve.solve_spd(np.diag([1.0, -1.0, 2.0]), np.ones(3))
    assert "p'Ap" not in str(e.value) and "Cholesky" in str(e.value)
    assert e.value.sentence  # the library's own sentence is still carried


@pytest.mark.parametrize("prec", PRECS)
def test_semidefinite_is_not_spd(prec):
    """A = G G^T of rank 30 of 60: scipy's cho_factor fails, and so must solve_spd, in every
    precision (the shifted 16-bit Cholesky refined it to |x| ~ 1e15), for any b."""
    rng = np.random.default_rng(35)
    G = rng.standard_normal((60, 30))
    A = G @ G.T
    for b in (rng.standard_normal(60), A @ np.ones(60)):
        with pytest.raises(mixsolve.NotSPDError):
            mixsolve.solve_spd(A, b, precision=prec)


def _wide_blocks():
    rng = np.random.default_rng(37)
    A = np.zeros((20, 20))
    for k, s in enumerate((1e300, 1e-20)):
        G = rng.standard_normal((10, 10))
        A[10 * k:10 * k + 10, 10 * k:10 * k + 10] = (G @ G.T / 10 + np.eye(10)) * s
    return A


@pytest.mark.parametrize("prec", PRECS)
def test_entries_spanning_more_than_the_range(prec):
    """Block-diagonal [1e300 S1, 0; 0, 1e-20 S2] and diag(1e300, 1, 1, 1, 1, 1e-300): solved as
    scipy/LAPACK solve them (one power of two lost block 2's digits, or gave NaNError)."""
    for A in (_wide_blocks(), np.diag([1e300, 1, 1, 1, 1, 1e-300]), np.diag([1e300, 1, 1, 1, 1, 1e-20])):
        b = A @ np.ones(A.shape[0])
        for x in (mixsolve.solve(A, b, prec), mixsolve.solve_spd(A, b, precision=prec)):
            assert np.abs(x - 1).max() <= 1e-12


def test_cg_jacobi_on_entries_spanning_more_than_the_range():
    sp = pytest.importorskip("scipy.sparse")
    d = np.array([1e300, 1, 1, 1, 1, 1e-300])
    x, info = mixsolve.cg(sp.diags(d).tocsr(), d, precond="jacobi")
    assert info == 0 and abs(x[0] - 1) <= 1e-15
