#!/usr/bin/env python3
"""cg_precision_model.py: a NumPy replica of the reliable-update CG of solvers/cg/cg.c (delta
rule, true-residual updates, re-projection of p, Polak-Ribiere beta), with each sloppy vector
(r, p, A p, the partial solution) kept in FP32 or FP64 on its own, to see which vector's
rounding costs FP32 CG its iterations on a smooth right-hand side (issue 21, item 4;
doc/benchmarks.md "The FP32 iteration tax").  FP64 row sums of the exact products of the
stored values, as the library's SpMV computes them.  It reproduces the library's counts on 3D
Poisson 60^3 without preconditioner, b = A 1: FP64 171, FP32 202.

    python3 doc/cg_precision_model.py [M [TOL]] [--trace]   (needs numpy and scipy)
"""
import sys

import numpy as np
import scipy.sparse as sp


def poisson3d(m):
    e = np.ones(m)
    t = sp.diags([-e[:-1], 2 * e, -e[:-1]], [-1, 0, 1])
    i = sp.identity(m)
    return (sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i) +
            sp.kron(sp.kron(i, i), t)).tocsr()


def fp32(v):
    return v.astype(np.float32).astype(np.float64)


def fp64(v):
    return v


def cg(A, b, rnd_r, rnd_p, rnd_ap, rnd_x, delta=0.1, tol=1e-10, max_iter=5000, trace=False):
    """Iterations, reliable updates and final true relative residual."""
    n = A.shape[0]
    y, r64 = np.zeros(n), b.copy()
    bn = np.linalg.norm(b)
    target, tnorm = tol * bn, bn
    it = updates = 0
    r = rnd_r(r64)
    rr = r @ r
    p = rnd_p(r.copy())
    xs = np.zeros(n)
    r0 = maxrr = np.sqrt(rr)
    while it < max_iter:
        Ap = A @ p
        pap = p @ Ap
        ap = rnd_ap(Ap)
        alpha = rr / pap
        rn = rnd_r(r - rnd_ap(alpha * ap))
        rr_new, rdot = rn @ rn, rn @ r
        xs = rnd_x(xs + rnd_x(alpha * p))
        it += 1
        rnorm = np.sqrt(rr_new)
        maxrr = max(maxrr, rnorm)
        near_done = rnorm / r0 * tnorm <= target
        if not (rnorm < delta * maxrr or rnorm < delta * r0 or near_done):
            num = rr_new - rdot
            beta = (num if num > 0 else rr_new) / rr
            p, r, rr = rnd_p(rn + beta * p), rn, rr_new
            continue
        y += xs
        xs[:] = 0
        r64 = b - A @ y
        tnorm = np.linalg.norm(r64)
        updates += 1
        if trace:
            print(f"    update {updates} at iteration {it}: true ||r||/||b|| {tnorm / bn:.3e}")
        if tnorm <= target:
            break
        rs = rnd_r(r64)
        rr_s = rs @ rs
        c = (rs @ p) / rr_s
        beta = rr_s / rr if rr_s <= 4 * rr_new else 0.0
        p, r, rr = rnd_p(rs + beta * (p - c * rs)), rs, rr_s
        r0 = maxrr = np.sqrt(rr_s)
    return it, updates, tnorm / bn


VARIANTS = {  # name: rounding of r, p, A p, partial solution
    "all FP64": (fp64, fp64, fp64, fp64),
    "all FP32": (fp32, fp32, fp32, fp32),
    "FP64 r": (fp64, fp32, fp32, fp32),
    "FP64 p": (fp32, fp64, fp32, fp32),
    "FP64 A p": (fp32, fp32, fp64, fp32),
    "FP64 x": (fp32, fp32, fp32, fp64),
    "FP64 r, p, A p": (fp64, fp64, fp64, fp32),
    "FP64 r and x": (fp64, fp32, fp32, fp64),
    "FP64 r and A p": (fp64, fp32, fp64, fp32),
}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    m = int(args[0]) if args else 60
    tol = float(args[1]) if len(args) > 1 else 1e-10
    trace = "--trace" in sys.argv
    A = poisson3d(m)
    rhs = {"b = A 1": A @ np.ones(A.shape[0]),
           "b random": np.random.default_rng(1).uniform(-0.5, 0.5, A.shape[0])}
    for bname, b in rhs.items():
        print(f"3D Poisson {m}^3, {bname}, tol {tol:g}, delta 0.1: iterations, updates")
        for name, rnd in VARIANTS.items():
            it, upd, rel = cg(A, b, *rnd, tol=tol, trace=trace)
            print(f"  {name:15s} {it:5d} {upd:3d}   true rel. residual {rel:.2e}")


if __name__ == "__main__":
    main()
