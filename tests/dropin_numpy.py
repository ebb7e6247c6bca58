# dropin_numpy.py: numpy.linalg.solve on a random n x n system; prints the backward error
# max|b - A x| / (||A||inf max|x| + max|b|) and writes x to the file given, for comparison.
import sys
import numpy as np

n = int(sys.argv[1])
rng = np.random.default_rng(20261123)
a = rng.standard_normal((n, n))
b = rng.standard_normal(n)
x = np.linalg.solve(a, b)
r = b - a @ x
berr = np.abs(r).max() / (np.abs(a).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())
np.save(sys.argv[2], x)
print("%.3e" % berr)
