"""test_sparse.py: mixsolve.cg against scipy.sparse.linalg.spsolve: storages, input kinds, info codes, errors."""
import inspect

import numpy as np
import pytest

import mixsolve
from conftest import poisson3d

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")

STORAGES = ["auto", "fixed16", "fp16", "bf16", "fp32", "fp64"]


@pytest.fixture(scope="module")
def system():
    A = poisson3d(12)
    b = np.random.default_rng(3).standard_normal(A.shape[0])
    return A, b, spla.spsolve(A.tocsc(), b)


def rel_residual(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize("precond", ["jacobi", "amg", None])
def test_every_storage(system, storage, precond):
    A, b, ref = system
    x, info = mixsolve.cg(A, b, rtol=1e-10, storage=storage, precond=precond)
    assert info == 0
    assert rel_residual(A, x, b) <= 1e-10
    assert np.linalg.norm(x - ref) <= 1e-8 * np.linalg.norm(ref)


def test_amg_fewer_iterations():
    """The multigrid V-cycle against Jacobi on a 2-D Laplacian: both to 1e-10, AMG in a
    fraction of the iterations (full_output's record)."""
    n = 60
    T = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    A = (sp.kron(sp.identity(n), T) + sp.kron(T, sp.identity(n))).tocsr()
    b = np.random.default_rng(3).standard_normal(n * n)
    _, rj = mixsolve.cg(A, b, precond="jacobi", storage="fp64", full_output=True)
    x, ra = mixsolve.cg(A, b, precond="amg", storage="fixed16", full_output=True)
    assert rel_residual(A, x, b) <= 1e-10
    assert ra.iter <= 0.2 * rj.iter


def kinds(A):
    """The same matrix as every input kind cg takes."""
    coo = A.tocoo()
    m = A.shape[0]
    perm = np.random.default_rng(1).permutation(coo.nnz)  # unsorted rows
    # Duplicates: every entry split in two halves, in shuffled order.
    r, c, v = coo.row[perm], coo.col[perm], coo.data[perm]
    dup = sp.coo_matrix((np.concatenate([v / 2, v / 2]), (np.concatenate([r, r]),
                        np.concatenate([c, c]))), shape=A.shape)
    csr64 = A.tocsr().copy()
    csr64.indptr, csr64.indices = csr64.indptr.astype(np.int64), csr64.indices.astype(np.int64)
    unsorted = sp.csr_matrix((v, (r, c)), shape=A.shape)
    # A CSR whose rows are unsorted and hold duplicates (SciPy keeps them as given).
    order = np.lexsort((np.random.default_rng(2).random(2 * coo.nnz), dup.row))
    raw = (np.searchsorted(dup.row[order], np.arange(m + 1)).astype(np.int32),
           dup.col[order].astype(np.int32), dup.data[order])
    out = {"csr": A.tocsr(), "csc": A.tocsc(), "coo": coo, "coo_dup": dup, "csr_int64": csr64,
           "csr_unsorted": unsorted, "tuple_unsorted_dup": raw,
           "csr_float32": A.astype(np.float32).tocsr()}
    if hasattr(sp, "csr_array"):
        out["csr_array"] = sp.csr_array(A)
    return out


@pytest.mark.parametrize("kind", ["csr", "csc", "coo", "coo_dup", "csr_int64", "csr_unsorted",
                                  "tuple_unsorted_dup", "csr_float32", "csr_array"])
def test_every_input_kind(system, kind):
    A, b, ref = system
    k = kinds(A)
    if kind not in k:
        pytest.skip("this SciPy has no sparse arrays")
    x, info = mixsolve.cg(k[kind], b, storage="fp32")
    assert info == 0
    assert rel_residual(A, x, b) <= 1e-10
    assert np.linalg.norm(x - ref) <= 1e-8 * np.linalg.norm(ref)


def test_int_and_float32_rhs_x0_and_tol_alias(system):
    A, b, ref = system
    bi = np.arange(A.shape[0]) % 7 - 3
    x, info = mixsolve.cg(A, bi.astype(np.float32), tol=1e-12)  # SciPy < 1.12's name
    assert info == 0 and rel_residual(A, x, bi) <= 1e-12
    x0 = ref + 1e-3
    x, rec = mixsolve.cg(A, b, x0=x0, full_output=True)
    assert rec.info == 0 and rec.converged and rec.true_rel_residual <= 1e-10
    assert x0[0] == ref[0] + 1e-3  # x0 is not written


def test_not_converged_returns_iteration_count(system):
    A, b, _ = system
    x, info = mixsolve.cg(A, b, maxiter=5, precond=None, storage="fp64")
    assert info > 0
    x, rec = mixsolve.cg(A, b, maxiter=5, precond=None, storage="fp64", full_output=True)
    assert rec.info == rec.iter > 0 and not rec.converged and rec.reason == "max_iter"
    assert rec.status == 7 and rec.message  # MIX_ERR_NOT_CONVERGED and its sentence


def test_full_output_record(system):
    A, b, _ = system
    x, rec = mixsolve.cg(A, b, storage="fixed16", full_output=True)
    assert isinstance(rec, mixsolve.CGInfo)
    assert rec.info == 0 and rec.status == 0 and rec.reason == "converged"
    assert rec.stages and rec.stages[0][0] == "fixed16"
    assert sum(s[1] for s in rec.stages) == rec.iter
    assert rec.t_solve >= 0 and rec.reliable_updates >= 1


def test_zero_rhs(system):
    A, _, _ = system
    x, info = mixsolve.cg(A, np.zeros(A.shape[0]))
    assert info == 0 and not x.any()


def test_not_symmetric_is_refused():
    A = sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [0.0, 4.0, 1.0], [0.0, 0.0, 4.0]]))
    with pytest.raises(mixsolve.NotSymmetricError) as e:
        mixsolve.cg(A, np.ones(3))
    assert isinstance(e.value, ValueError) and "symmetric" in str(e.value)
    # A value asymmetry with a symmetric structure too.
    B = sp.csr_matrix(np.array([[4.0, 1.0], [1.5, 4.0]]))
    with pytest.raises(mixsolve.NotSymmetricError):
        mixsolve.cg(B, np.ones(2))
    # Symmetric: explicit zeros and rounding-level differences are not asymmetry.
    C = sp.csr_matrix((np.array([4.0, 0.0, 1.0, 1.0 + 4e-16, 4.0]),
                       np.array([0, 1, 2, 0, 2]), np.array([0, 3, 3, 5])), shape=(3, 3))
    C = C + sp.diags([0.0, 4.0, 0.0])
    x, info = mixsolve.cg(C, np.ones(3))
    assert info == 0
    x, info = mixsolve.cg(A, np.ones(3), check_symmetric=False)  # the opt-out: no test made


@pytest.mark.parametrize("kernel", ["scipy", "numpy"])
def test_symmetry_test_both_kernels(system, kernel, monkeypatch):
    """SciPy's compiled products and the NumPy fallback give the same verdicts: every symmetric
    input kind passes (the exact fast path for sorted rows, the rounding test for unsorted rows
    and duplicates), one entry off by 1e-8 relative in a 1000-row matrix is refused."""
    from mixsolve import _sparse
    if kernel == "numpy":
        monkeypatch.setattr(_sparse, "_csr_matvec", None)
    A, b, _ = system
    for kind, M in kinds(A).items():
        x, info = mixsolve.cg(M, b, storage="fp32")
        assert info == 0, kind
    # indptr int64 with indices int32 (the library's own types) as a tuple.
    C = A.tocsr()
    x, info = mixsolve.cg((C.indptr.astype(np.int64), C.indices, C.data), b)
    assert info == 0
    D = C.copy()
    row5 = np.arange(D.indptr[5], D.indptr[6])
    k = row5[D.indices[row5] != 5][-1]  # an off-diagonal entry of row 5
    D.data[k] *= 1 + 1e-8
    with pytest.raises(mixsolve.NotSymmetricError) as e:
        mixsolve.cg(D, b)
    assert "row 5 " in str(e.value) or "row %d " % D.indices[k] in str(e.value)


def test_breakdown_and_nan_are_negative_info():
    indefinite = sp.diags([1.0, -2.0, 3.0]).tocsr()
    x, info = mixsolve.cg(indefinite, np.ones(3), precond=None)
    assert info == -5  # -MIX_ERR_NOT_SPD
    x, rec = mixsolve.cg(indefinite, np.ones(3), full_output=True)  # Jacobi: diagonal <= 0
    assert rec.info == -5 and "positive definite" in rec.message
    x, info = mixsolve.cg(sp.identity(3, format="csr"), np.array([1.0, np.nan, 0.0]))
    assert info == -6  # -MIX_ERR_NAN
    bad = sp.csr_matrix(np.array([[1.0, np.inf], [np.inf, 1.0]]))
    x, info = mixsolve.cg(bad, np.ones(2), check_symmetric=False)
    assert info == -6


@pytest.mark.parametrize("args, kw", [
    ((sp.identity(3, format="csr"), np.ones(4)), {}),
    ((sp.csr_matrix(np.ones((2, 3))), np.ones(2)), {}),
    ((np.eye(3), np.ones(3)), {}),
    (((np.array([0, 1, 2]), np.array([0, 5]), np.array([1.0, 1.0])), np.ones(2)), {}),
    ((sp.identity(3, format="csr"), np.ones(3)), {"storage": "tf32"}),
    ((sp.identity(3, format="csr"), np.ones(3)), {"precond": "ilu"}),
    ((sp.identity(3, format="csr"), np.ones(3)), {"x0": np.ones(2)}),
    ((sp.identity(3, format="csr", dtype=complex), np.ones(3)), {}),
])
def test_illegal_input_raises_valueerror(args, kw):
    with pytest.raises(mixsolve.InvalidArgumentError) as e:
        mixsolve.cg(*args, **kw)
    assert isinstance(e.value, ValueError) and isinstance(e.value, mixsolve.Error)


def test_scipy_cg_agrees_with_either_keyword(system):
    """SciPy >= 1.12 calls it rtol, older ones tol (Debian 12 has 1.10): same answer both ways."""
    A, b, ref = system
    name = "rtol" if "rtol" in inspect.signature(spla.cg).parameters else "tol"
    xs, info = spla.cg(A, b, **{name: 1e-10, "atol": 0.0}) if name == "rtol" else \
        spla.cg(A, b, tol=1e-10, atol=0.0)
    assert info == 0
    xm, info = mixsolve.cg(A, b, **{name: 1e-10})
    assert info == 0
    assert np.linalg.norm(xm - xs) <= 1e-7 * np.linalg.norm(xs)
