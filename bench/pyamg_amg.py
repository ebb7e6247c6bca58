"""pyamg_amg.py: pyamg's smoothed aggregation as a reference for bench_amg's iteration counts
(benchmarks only, never a test dependency).  3-D Poisson (7-point) or -u_xx - u_yy - EPS u_zz,
random b, CG to tol 1e-10 with one V-cycle per iteration.
Usage: python3 bench/pyamg_amg.py [NX] [EPS]"""
import sys
import time

import numpy as np
import pyamg
import scipy.sparse as sp


def operator(nx, eps):
    if eps <= 0.0:
        return pyamg.gallery.poisson((nx, nx, nx), format="csr")
    one = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(nx, nx))
    eye = sp.identity(nx)
    return (sp.kron(sp.kron(eye, eye), one) + sp.kron(sp.kron(eye, one), eye)
            + eps * sp.kron(sp.kron(one, eye), eye)).tocsr()


def main():
    nx = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    eps = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    A = operator(nx, eps)
    b = np.random.default_rng(2024).uniform(-0.5, 0.5, A.shape[0])
    for name, kw in (("sa default", {}),
                     ("sa cheby", {"presmoother": ("chebyshev", {"degree": 2}),
                                   "postsmoother": ("chebyshev", {"degree": 2})})):
        t0 = time.time()
        ml = pyamg.smoothed_aggregation_solver(A, max_coarse=400, **kw)
        t1 = time.time()
        res = []
        ml.solve(b, tol=1e-10, accel="cg", residuals=res)
        t2 = time.time()
        print(f"| pyamg {name} | {nx}^3 eps {eps} | {len(res) - 1} | {res[-1] / res[0]:.2e} | "
              f"{t1 - t0:.2f} | {t2 - t1:.2f} | {ml.operator_complexity():.2f} | {len(ml.levels)} |")


if __name__ == "__main__":
    main()
