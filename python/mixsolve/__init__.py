"""mixsolve: mixed-precision linear solvers (ctypes over the installed libmixsolve; needs NumPy only).

Functions
---------
solve(A, b)       dense LU with low-precision factors and refinement (numpy.linalg.solve's shapes)
solve_spd(A, b)   dense Cholesky with refinement (reads the UPPER triangle unless lower=True)
cg(A, b)          sparse SPD reliable-update mixed-precision CG (scipy.sparse.linalg.cg's pair)
info()            what `mixsolve info` prints: version, backends, precisions

Finding the library
-------------------
1. MIXSOLVE_LIBRARY (a path); when set, nothing else is tried.
2. pkg-config's libdir for mixsolve (PKG_CONFIG_PATH is honoured).
3. The loader's search: ctypes.util.find_library("mixsolve"), then libmixsolve.so.1.
When all fail, LibraryNotFoundError lists every attempt and why it failed.

Errors
------
Every error is a mixsolve.Error carrying the library's status and mix_strerror's sentence.
SingularError and NotSPDError are also numpy.linalg.LinAlgError; InvalidArgumentError (and
NotSymmetricError) are also ValueError; OutOfMemoryError is also MemoryError; RangeError (a
solution beyond FP64's range) is also OverflowError.

Threads
-------
The C calls release the GIL (ctypes.CDLL), and each thread gets its own library context, so
several threads solve at once.
"""
from ._dense import SolveInfo, solve, solve_spd
from ._sparse import CGInfo, cg
from ._spsolve import spsolve
from ._info import info, info_text
from .errors import (BackendError, Error, InvalidArgumentError, LibraryNotFoundError, NaNError,
                     NotConvergedError, NotSPDError, NotSymmetricError, OutOfMemoryError,
                     RangeError, SingularError)

__version__ = "0.1.0"
__all__ = ["solve", "solve_spd", "cg", "spsolve", "info", "info_text", "library_version", "SolveInfo",
           "CGInfo", "Error", "InvalidArgumentError", "NotSymmetricError", "SingularError",
           "NotSPDError", "NaNError", "NotConvergedError", "RangeError", "BackendError",
           "OutOfMemoryError", "LibraryNotFoundError"]


def library_version():
    """The version string of the loaded libmixsolve (mix_version)."""
    from . import _lib
    return _lib.lib().mix_version().decode()
