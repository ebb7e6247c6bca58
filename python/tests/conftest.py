"""conftest.py: shared helpers of the mixsolve pytest suite (backward errors, test matrices)."""
import numpy as np
import pytest

EPS = np.finfo(np.float64).eps


def backward_error(A, x, b):
    """max over columns of ||b - A x||inf / (||A||inf ||x||inf + ||b||inf) (mix_gesv_info's)."""
    A = np.asarray(A, dtype=np.float64)
    x2, b2 = np.atleast_2d(x.T).T, np.atleast_2d(np.asarray(b, dtype=np.float64).T).T
    r = b2 - A @ x2
    an = np.abs(A).sum(axis=1).max()
    return max(np.abs(r[:, j]).max() / (an * np.abs(x2[:, j]).max() + np.abs(b2[:, j]).max())
               for j in range(b2.shape[1]))


def fp64_level(n):
    """LAPACK dsgesv's test with a margin: refined results reach sqrt(n) eps."""
    return 8 * np.sqrt(n) * EPS


@pytest.fixture
def rng():
    return np.random.default_rng(24)


def poisson3d(m):
    """The 7-point Laplacian on an m^3 grid, CSR (SPD)."""
    sp = pytest.importorskip("scipy.sparse")
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    I = sp.identity(m)
    return (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()
