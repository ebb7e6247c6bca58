"""test_spsolve.py: mixsolve.spsolve against scipy.sparse.linalg.spsolve: shapes, precisions, bundled matrices, errors."""
import os

import numpy as np
import pytest

import mixsolve

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")
sio = pytest.importorskip("scipy.io")

MATRICES = os.path.join(os.path.dirname(__file__), "..", "..", "matrices", "data")


def convdiff(m, b=(100.0, 50.0, 25.0)):
    """3-D upwind convection-diffusion on an m^3 grid (matrices/gen_convdiff.c's), CSR."""
    h = 1.0 / (m + 1)
    I = sp.identity(m, format="csr")
    blocks = []
    for d in range(3):
        lo = -1.0 - h * max(b[d], 0.0)
        up = -1.0 + h * min(b[d], 0.0)
        T = sp.diags([np.full(m - 1, lo), np.full(m, 2.0 + h * abs(b[d])), np.full(m - 1, up)],
                     [-1, 0, 1], format="csr")
        ops = [I, I, I]
        ops[2 - d] = T
        blocks.append(sp.kron(sp.kron(ops[0], ops[1]), ops[2], format="csr"))
    return (blocks[0] + blocks[1] + blocks[2]).tocsr()


def berr(A, x, b):
    x2, b2 = x.reshape(A.shape[0], -1), b.reshape(A.shape[0], -1)
    r = b2 - A @ x2
    an = abs(A).sum(axis=1).max()
    return max(np.abs(r[:, j]).max() / (an * np.abs(x2[:, j]).max() + np.abs(b2[:, j]).max())
               for j in range(b2.shape[1]))


@pytest.mark.parametrize("precision", ["fp32", "fp64", "auto"])
@pytest.mark.parametrize("refine", ["auto", "classical", "gmres"])
def test_agrees_with_scipy(precision, refine):
    A = convdiff(10)
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    x, info = mixsolve.spsolve(A, b, precision, refine=refine, return_info=True)
    ref = spla.spsolve(A.tocsc(), b)
    assert x.shape == ref.shape == (A.shape[0],)
    assert berr(A, x, b) <= 1e-12
    assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()
    assert info.precision == ("fp64" if precision == "auto" else precision)


def test_shapes_like_scipy():
    A = convdiff(6).tocsc()
    n = A.shape[0]
    rng = np.random.default_rng(2)
    for b in (rng.standard_normal(n), rng.standard_normal((n, 1)), rng.standard_normal((n, 3))):
        x, ref = mixsolve.spsolve(A, b), spla.spsolve(A, b)
        assert x.shape == ref.shape
        assert berr(A, x, b) <= 1e-12
    B = sp.random(n, 2, density=0.3, format="csc", random_state=4)
    X = mixsolve.spsolve(A, B)
    assert sp.issparse(X) and X.shape == (n, 2)
    assert berr(A, X.toarray(), B.toarray()) <= 1e-12


@pytest.mark.parametrize("name", ["west0479", "sherman5", "add32", "rdb2048", "utm300"])
def test_bundled(name):
    A = sio.mmread(os.path.join(MATRICES, name + ".mtx")).tocsr()
    b = A @ np.ones(A.shape[0])
    x = mixsolve.spsolve(A, b, "fp32")
    assert berr(A, x, b) <= 1e-12


def test_errors():
    A = sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]]))
    with pytest.raises(mixsolve.SingularError):
        mixsolve.spsolve(A, np.ones(3))
    with pytest.raises(np.linalg.LinAlgError):
        mixsolve.spsolve(sp.csr_matrix(np.array([[1.0, 0.0], [2.0, 0.0]])), np.ones(2))
    with pytest.raises(mixsolve.NaNError):
        mixsolve.spsolve(convdiff(3), np.full(27, np.nan))
    with pytest.raises(ValueError):
        mixsolve.spsolve(convdiff(3), np.ones(5))
    with pytest.raises(ValueError):
        mixsolve.spsolve(convdiff(3), np.ones(27), "fp16")
