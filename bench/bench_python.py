#!/usr/bin/env python3
"""bench_python.py: mixsolve's Python package against NumPy/SciPy, and its overhead over the C call.

  dense     mixsolve.solve (AUTO) vs numpy.linalg.solve at n = 4096 (uniform random A), both
            re-checked by their FP64 backward error.  Run it under Debian's python3 (system
            OpenBLAS) and under a venv with pip's NumPy wheel (its own OpenBLAS) to compare both.
  cg        mixsolve.cg vs scipy.sparse.linalg.cg on 3D Poisson m^3 (7-point), to the SAME true
            residual: mixsolve at rtol 1e-10 first, then SciPy with its tolerance set to the true
            residual mixsolve reached (tightened until SciPy's true residual is as small).
  overhead  the Python call vs the bare C call (ctypes straight to mix_dgesv_ir / mix_dcg on
            prepared arrays) at n = 1000, for solve and cg, with and without cg's symmetry
            check: MEDIAN of max(--reps, 20) interleaved calls (solve), 10x that many (cg).

Usage: python3 bench/bench_python.py [dense|cg|overhead|all] [--n 4096] [--grid 100] [--reps 3]
Find the library as the package does (MIXSOLVE_LIBRARY, pkg-config, loader); put python/ on
PYTHONPATH to use the source tree's package.  Times: best of --reps (overhead: median), seconds
(wall clock).
"""
import argparse
import ctypes
import inspect
import os
import platform
import sys
import time

import numpy as np

import mixsolve
from mixsolve import _lib


def interleaved(fns, reps, stat=min):
    """stat (min: best, or median) of each of fns' times, called in turn (so that load from
    other jobs hits all alike)."""
    times = [[] for _ in fns]
    for _ in range(reps):
        for k, fn in enumerate(fns):
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    return [stat(t) for t in times]


def median(t):
    return float(np.median(t))


def best(fn, reps):
    out, times = None, []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def backward_error(A, x, b):
    r = b - A @ x
    return np.abs(r).max() / (np.abs(A).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())


def header():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print("# python %s (%s), numpy %s from %s" % (platform.python_version(), sys.executable,
                                                  np.__version__, os.path.dirname(np.__file__)))
    print("# libmixsolve %s from %s; cpu %s, %d cores" % (mixsolve.library_version(),
                                                         _lib.library_path(), cpu, os.cpu_count()))


def dense(n, reps):
    rng = np.random.default_rng(4096)
    A = rng.uniform(-1, 1, (n, n))
    b = rng.uniform(-1, 1, n)
    tn, xn = best(lambda: np.linalg.solve(A, b), reps)
    tm, (xm, info) = best(lambda: mixsolve.solve(A, b, return_info=True), reps)
    print("dense n=%d: numpy.linalg.solve %.3f s (backward error %.1e) | mixsolve.solve AUTO "
          "%.3f s (%s, iter %d, backward error %.1e) | speedup %.2fx"
          % (n, tn, backward_error(A, xn, b), tm, info.precision, info.iter,
             backward_error(A, xm, b), tn / tm))


def poisson3d(m):
    import scipy.sparse as sp
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    I = sp.identity(m)
    return (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()


def scipy_cg(A, b, tol):
    import scipy.sparse.linalg as spla
    name = "rtol" if "rtol" in inspect.signature(spla.cg).parameters else "tol"
    count = [0]

    def cb(_):
        count[0] += 1
    x, info = spla.cg(A, b, **{name: tol}, atol=0.0, maxiter=100000, callback=cb)
    return x, info, count[0]


def cg(m, reps):
    A = poisson3d(m)
    n = A.shape[0]
    b = np.random.default_rng(100).uniform(-1, 1, n)
    nb = np.linalg.norm(b)
    tm, (xm, rec) = best(lambda: mixsolve.cg(A, b, rtol=1e-10, full_output=True), reps)
    target = np.linalg.norm(b - A @ xm) / nb
    tol = target
    for _ in range(4):  # SciPy stops on its recursive residual: tighten until the true one is met
        ts, (xs, info, its) = best(lambda: scipy_cg(A, b, tol), 1)
        true_s = np.linalg.norm(b - A @ xs) / nb
        if true_s <= target:
            break
        tol *= 0.5 * target / true_s
    stages = ", ".join("%s:%d" % (p, k) for p, k, _ in rec.stages)
    print("cg Poisson %d^3 (n=%d, nnz=%d): mixsolve.cg %.3f s (%d iterations [%s], true residual "
          "%.2e) | scipy cg %.3f s (%d iterations, tol %.2e, true residual %.2e) | speedup %.2fx"
          % (m, n, A.nnz, tm, rec.iter, stages, target, ts, its, tol, true_s, ts / tm))
    t0 = time.perf_counter()
    for _ in range(3):
        A @ b
    spmv = (time.perf_counter() - t0) / 3
    print("  scipy SpMV %.4f s each: %.1f GB/s of CSR (12 bytes/nnz + vectors); %d iterations "
          "of SpMV alone %.2f s" % (spmv, (A.nnz * 12 + 3 * n * 8) / spmv / 1e9, its, its * spmv))
    t_check, _ = best(lambda: mixsolve._sparse._check_symmetric(
        n, A.indptr, A.indices, A.data), reps)
    t_nock, _ = best(lambda: mixsolve.cg(A, b, rtol=1e-10, check_symmetric=False), reps)
    print("  symmetry check %.3f s = %.1f%% of mixsolve.cg (%.3f s without it)"
          % (t_check, 100 * t_check / tm, t_nock))


def c_dense(A, b):
    """mix_dgesv_ir straight through ctypes on prepared arrays (what a C caller pays)."""
    lib, ctx = _lib.lib(), _lib.context("auto")
    n = A.shape[0]
    p = _lib.GesvParams()
    lib.mix_gesv_params_init(ctypes.byref(p))
    a, x, ipiv, ci = np.array(A, order="C"), np.empty(n), np.empty(n, dtype=np.intc), _lib.GesvInfo()

    def call():
        # Row-major with one right-hand side: ldb = ldx = nrhs = 1.
        st = lib.mix_dgesv_ir(ctx, ctypes.byref(p), _lib.MIX_ROW_MAJOR, n, 1, a.ctypes.data, n,
                              ipiv.ctypes.data, b.ctypes.data, 1, x.ctypes.data, 1, ctypes.byref(ci))
        assert st == 0 and not ci.fell_back
        return x
    call()
    return call


def c_cg(A, b):
    """mix_sparse_create_csr + mix_dcg + mix_sparse_destroy through ctypes on prepared arrays."""
    lib, ctx = _lib.lib(), _lib.context("auto")
    n = A.shape[0]
    ip, ix, v = A.indptr.astype(np.int64), A.indices.astype(np.int32), A.data
    p, ci, x = _lib.CGParams(), _lib.CGInfo(), np.empty(n)
    lib.mix_cg_params_init(ctypes.byref(p))
    p.sloppy_prec, p.tol, p.precond = _lib.MIX_PREC_AUTO, 1e-10, _lib.MIX_PRECOND_JACOBI

    def call():
        mat = ctypes.c_void_p()
        assert lib.mix_sparse_create_csr(ctx, n, ip.ctypes.data, ix.ctypes.data, v.ctypes.data,
                                         ctypes.byref(mat)) == 0
        st = lib.mix_dcg(ctx, ctypes.byref(p), mat, b.ctypes.data, x.ctypes.data, ctypes.byref(ci))
        lib.mix_sparse_destroy(mat)
        assert st == 0
    call()
    return call


def overhead(reps):
    n = 1000
    rng = np.random.default_rng(1000)
    A = rng.uniform(-1, 1, (n, n)) + np.sqrt(n) * np.eye(n)  # AUTO's choice at n=1000 refines
    b = rng.uniform(-1, 1, n)
    reps = max(reps, 20)
    a_copy = A.copy()
    tc, tp, to = interleaved([c_dense(A, b), lambda: mixsolve.solve(A, b),
                              lambda: mixsolve.solve(a_copy, b, overwrite_a=True)], reps, median)
    _, info = mixsolve.solve(A, b, return_info=True)
    print("overhead solve n=%d (%s), medians: C call %.2f ms | mixsolve.solve %.2f ms "
          "(%+.1f%%) | "
          "overwrite_a=True %.2f ms (%+.1f%%)"
          % (n, info.precision, 1e3 * tc, 1e3 * tp, 100 * (tp / tc - 1), 1e3 * to,
             100 * (to / tc - 1)))
    L = poisson3d(10)  # 1000 unknowns
    bs = rng.uniform(-1, 1, 1000)
    tc, tp, tn = interleaved([c_cg(L, bs), lambda: mixsolve.cg(L, bs),
                              lambda: mixsolve.cg(L, bs, check_symmetric=False)], 10 * reps,
                             median)
    print("overhead cg Poisson 10^3 (n=1000), medians: C calls %.3f ms | mixsolve.cg %.3f ms "
          "(%+.1f%%) | "
          "check_symmetric=False %.3f ms (%+.1f%%)"
          % (1e3 * tc, 1e3 * tp, 100 * (tp / tc - 1), 1e3 * tn, 100 * (tn / tc - 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("part", nargs="?", default="all", choices=["dense", "cg", "overhead", "all"])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--grid", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    header()
    if args.part in ("dense", "all"):
        dense(args.n, args.reps)
    if args.part in ("cg", "all"):
        cg(args.grid, args.reps)
    if args.part in ("overhead", "all"):
        overhead(args.reps)


if __name__ == "__main__":
    main()
