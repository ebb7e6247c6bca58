"""errors.py: the exceptions of mixsolve, one per libmixsolve status, carrying mix_strerror's sentence."""
import numpy as np

__all__ = ["Error", "InvalidArgumentError", "NotSymmetricError", "SingularError", "NotSPDError",
           "NaNError", "NotConvergedError", "BackendError", "OutOfMemoryError",
           "LibraryNotFoundError"]


class Error(Exception):
    """Base class of every mixsolve error.

    Attributes
    ----------
    status : int
        The libmixsolve status (a positive ``MIX_ERR_*`` code), or ``-i`` when the C library
        found argument ``i`` illegal; 0 for errors raised by the Python layer itself.
    sentence : str
        ``mix_strerror(status)``: the library's own sentence for that status.
    """

    def __init__(self, message, status=0, sentence=""):
        super().__init__(message)
        self.status = status
        self.sentence = sentence


class InvalidArgumentError(Error, ValueError):
    """An argument is illegal (shape, dtype, option name, or a value the library refuses)."""


class NotSymmetricError(InvalidArgumentError):
    """``cg`` was given a matrix that is not symmetric."""


class SingularError(Error, np.linalg.LinAlgError):
    """The matrix is exactly singular (also a :class:`numpy.linalg.LinAlgError`)."""


class NotSPDError(Error, np.linalg.LinAlgError):
    """The matrix is not symmetric positive definite (also a :class:`numpy.linalg.LinAlgError`)."""


class NaNError(Error, ValueError):
    """NaN or Inf in the input, or appearing in the computation."""


class NotConvergedError(Error):
    """The iteration did not reach the tolerance."""


class RangeError(Error, OverflowError):
    """A value, such as the solution, does not fit the precision asked for or FP64 (also an
    :class:`OverflowError`); the library keeps what it computed in the output."""


class BackendError(Error):
    """The backend asked for is not compiled in or no device answers."""


class OutOfMemoryError(Error, MemoryError):
    """Host or device memory could not be allocated (also a :class:`MemoryError`)."""


class LibraryNotFoundError(Error, OSError):
    """libmixsolve could not be loaded; the message lists every place that was tried."""
