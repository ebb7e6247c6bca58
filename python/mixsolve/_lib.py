"""_lib.py: finds and loads libmixsolve, declares its C prototypes and structs, per-thread contexts."""
import ctypes
import ctypes.util
import math
import operator
import os
import shutil
import subprocess
import threading

from . import errors

SONAME_MAJOR = 1  # libmixsolve.so.1: the ABI these prototypes describe

# Statuses and enums of mixsolve.h.
MIX_ROW_MAJOR, MIX_COL_MAJOR = 101, 102
(MIX_SUCCESS, MIX_ERR_INVALID_ARG, MIX_ERR_ALLOC, MIX_ERR_BACKEND, MIX_ERR_SINGULAR,
 MIX_ERR_NOT_SPD, MIX_ERR_NAN, MIX_ERR_NOT_CONVERGED) = range(8)
MIX_ERR_OVERFLOW = 11
MIX_PREC_AUTO, MIX_CAPS_PREC_SLOTS = 256, 32
MIX_PRECOND_NONE, MIX_PRECOND_JACOBI, MIX_PRECOND_AMG = 0, 1, 2
MIX_BACKEND_AUTO, MIX_NUM_BACKENDS = 0, 3
MIX_ROLE_ALL, MIX_ROLE_FACTOR, MIX_ROLE_STORAGE = 0, 1, 2  # mix_prec_list's roles
REFINE = {"classical": 0, "gmres": 1, "auto": 2, "cg": 3}
FALLBACK_REASONS = ("none", "direct", "overflow", "factor_failed", "not_converged",
                    "nan_in_refinement", "too_slow")
CG_REASONS = ("converged", "max_iter", "stagnated", "breakdown_not_spd", "breakdown_nan",
              "zero_rhs", "out_of_range", "storage_overflow")

_c_int, _c_double, _p = ctypes.c_int, ctypes.c_double, ctypes.c_void_p
# Room after each struct the library fills: a later minor version may append fields.
_RESERVED = ("_reserved", ctypes.c_char * 256)


class GesvParams(ctypes.Structure):
    _fields_ = [("factor_prec", _c_int), ("refine", _c_int), ("tol", _c_double),
                ("max_iter", _c_int), ("gmres_restart", _c_int), ("fallback", _c_int),
                ("scale", _c_int), ("residual_history", ctypes.POINTER(_c_double)),
                ("history_capacity", _c_int), ("cost_fallback", _c_int), _RESERVED]


class GesvInfo(ctypes.Structure):
    _fields_ = [("status", _c_int), ("iter", _c_int), ("inner_iter", _c_int),
                ("fell_back", _c_int), ("reason", _c_int), ("factor_prec_used", _c_int),
                ("backward_error", _c_double), ("t_factor", _c_double),
                ("t_refine", _c_double), ("history_length", _c_int), _RESERVED]


class CGParams(ctypes.Structure):
    _fields_ = [("sloppy_prec", _c_int), ("tol", _c_double), ("max_iter", _c_int),
                ("delta", _c_double), ("precond", _c_int), ("x0_given", _c_int),
                ("escalate", _c_int), ("narrow_vectors", _c_int), _RESERVED]


class CGInfo(ctypes.Structure):
    _fields_ = [("status", _c_int), ("iter", _c_int), ("reliable_updates", _c_int),
                ("converged", _c_int), ("reason", _c_int), ("true_rel_residual", _c_double),
                ("t_setup", _c_double), ("t_solve", _c_double), ("stages", _c_int),
                ("stage_prec", _c_int * 3), ("stage_iter", _c_int * 3),
                ("stage_reason", _c_int * 3), _RESERVED]


class Caps(ctypes.Structure):
    _fields_ = [("compiled", _c_int), ("available", _c_int),
                ("gemm", _c_int * MIX_CAPS_PREC_SLOTS), ("storage", _c_int * MIX_CAPS_PREC_SLOTS),
                ("device", ctypes.c_char * 128), ("libraries", ctypes.c_char * 128), _RESERVED]


_PROTOTYPES = {
    "mix_version": (ctypes.c_char_p, []),
    "mix_strerror": (ctypes.c_char_p, [_c_int]),
    "mix_prec_name": (ctypes.c_char_p, [_c_int]),
    "mix_backend_name": (ctypes.c_char_p, [_c_int]),
    "mix_backend_list": (_c_int, [ctypes.POINTER(_c_int), _c_int]),
    "mix_prec_list": (_c_int, [_c_int, ctypes.POINTER(_c_int), _c_int]),
    "mix_backend_caps": (_c_int, [_c_int, ctypes.POINTER(Caps)]),
    "mix_context_create": (_c_int, [ctypes.POINTER(_p), _c_int]),
    "mix_context_destroy": (None, [_p]),
    "mix_context_backend": (_c_int, [_p]),
    "mix_gesv_params_init": (None, [ctypes.POINTER(GesvParams)]),
    "mix_dgesv_ir": (_c_int, [_p, ctypes.POINTER(GesvParams), _c_int, _c_int, _c_int, _p, _c_int,
                              _p, _p, _c_int, _p, _c_int, ctypes.POINTER(GesvInfo)]),
    "mix_dposv_ir": (_c_int, [_p, ctypes.POINTER(GesvParams), _c_int, ctypes.c_char, _c_int,
                              _c_int, _p, _c_int, _p, _c_int, _p, _c_int,
                              ctypes.POINTER(GesvInfo)]),
    "mix_sparse_create_csr": (_c_int, [_p, _c_int, _p, _p, _p, ctypes.POINTER(_p)]),
    "mix_sparse_destroy": (None, [_p]),
    "mix_cg_params_init": (None, [ctypes.POINTER(CGParams)]),
    "mix_dcg": (_c_int, [_p, ctypes.POINTER(CGParams), _p, _p, _p, ctypes.POINTER(CGInfo)]),
    "mix_dgesv_sparse": (_c_int, [_p, ctypes.POINTER(GesvParams), _p, _c_int, _p, _c_int, _p,
                                  _c_int, ctypes.POINTER(GesvInfo)]),
}


def _pkg_config_libdir():
    """The libdir pkg-config gives for mixsolve, or (None, why not)."""
    exe = shutil.which(os.environ.get("PKG_CONFIG", "pkg-config"))
    if not exe:
        return None, "pkg-config is not on PATH"
    try:
        out = subprocess.run([exe, "--variable=libdir", "mixsolve"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "pkg-config failed: %s" % e
    if out.returncode != 0 or not out.stdout.strip():
        return None, "pkg-config does not know mixsolve (PKG_CONFIG_PATH=%r)" % \
            os.environ.get("PKG_CONFIG_PATH", "")
    return out.stdout.strip(), None


def _candidates():
    """(description, path or None, why it was skipped) in the order they are tried."""
    env = os.environ.get("MIXSOLVE_LIBRARY")
    if env:
        yield "MIXSOLVE_LIBRARY", env, None
        return  # an explicit choice wins: never fall back to another library silently
    yield "MIXSOLVE_LIBRARY", None, "not set"
    libdir, why = _pkg_config_libdir()
    if libdir:
        for name in ("libmixsolve.so.%d" % SONAME_MAJOR, "libmixsolve.dylib"):
            yield "pkg-config libdir", os.path.join(libdir, name), None
    else:
        yield "pkg-config", None, why
    found = ctypes.util.find_library("mixsolve")
    yield "ctypes.util.find_library('mixsolve')", found, None if found else "found nothing"
    yield "the loader's search path", "libmixsolve.so.%d" % SONAME_MAJOR, None


def _load():
    tried = []
    for where, path, why in _candidates():
        if path is None:
            tried.append("%s: %s" % (where, why))
            continue
        try:
            lib = ctypes.CDLL(path)  # CDLL, not PyDLL: calls release the GIL
        except OSError as e:
            tried.append("%s: %s: %s" % (where, path, e))
            continue
        if not hasattr(lib, "mix_dcg"):
            tried.append("%s: %s: not libmixsolve (no mix_dcg)" % (where, path))
            continue
        return lib, path
    raise errors.LibraryNotFoundError(
        "libmixsolve could not be loaded. Tried, in order:\n  " + "\n  ".join(tried) +
        "\nInstall libmixsolve (make install), or set MIXSOLVE_LIBRARY to the path of "
        "libmixsolve.so.%d, or PKG_CONFIG_PATH to the folder of its mixsolve.pc." % SONAME_MAJOR)


_state = {}
_lock = threading.Lock()


def lib():
    """The loaded library with its prototypes declared (loaded once, on first use)."""
    if "lib" not in _state:
        with _lock:
            if "lib" not in _state:
                handle, path = _load()
                for name, (res, args) in _PROTOTYPES.items():
                    fn = getattr(handle, name)
                    fn.restype, fn.argtypes = res, args
                _state["path"] = path
                _state["lib"] = handle
    return _state["lib"]


def library_path():
    """The path (or soname) libmixsolve was loaded from."""
    lib()
    return _state["path"]


def strerror(status):
    return lib().mix_strerror(status).decode()


def prec_name(p):
    return lib().mix_prec_name(p).decode()


def backends():
    """{name: mix_backend} of the library's backends (mix_backend_list), "auto" first."""
    ids = (_c_int * 16)()
    n = lib().mix_backend_list(ids, 16)
    out = {"auto": MIX_BACKEND_AUTO}
    for k in range(min(n, 16)):
        out[lib().mix_backend_name(ids[k]).decode()] = ids[k]
    return out


def prec_ids(role=MIX_ROLE_ALL):
    """The library's precisions (mix_prec values) of `role` (mix_prec_list)."""
    ids = (_c_int * MIX_CAPS_PREC_SLOTS)()
    n = lib().mix_prec_list(role, ids, MIX_CAPS_PREC_SLOTS)
    return tuple(ids[k] for k in range(min(n, MIX_CAPS_PREC_SLOTS)))


def precisions(role):
    """The names of the library's precisions of `role`, "auto" first."""
    return ("auto",) + tuple(prec_name(k) for k in prec_ids(role))


def prec_code(name, allowed, what):
    """The mix_prec of a precision name (mix_prec_name's spelling), limited to `allowed`."""
    key = str(name).lower()
    if key not in allowed:
        raise errors.InvalidArgumentError(
            "%s=%r is not one of %s" % (what, name, ", ".join(repr(a) for a in allowed)))
    if key == "auto":
        return MIX_PREC_AUTO
    for k in prec_ids():
        if prec_name(k) == key:
            return k
    raise errors.InvalidArgumentError("this libmixsolve does not know precision %r" % name)


C_INT_MIN, C_INT_MAX = -2**31, 2**31 - 1


def c_int_keyword(value, name):
    """`value` as a C int for the keyword `name`: an integer (or an integral float) that fits a
    C int, else InvalidArgumentError naming the keyword.  ctypes would keep the low 32 bits
    silently (maxiter=2**32 + 5 ran 5 iterations); the library refuses negative values itself."""
    try:
        v = operator.index(value)
    except TypeError:
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise errors.InvalidArgumentError("%s=%r is not an integer" % (name, value)) from None
        if not f.is_integer():
            raise errors.InvalidArgumentError("%s=%r is not an integer" % (name, value)) from None
        v = int(f)
    if not C_INT_MIN <= v <= C_INT_MAX:
        raise errors.InvalidArgumentError("%s=%d does not fit a C int (libmixsolve takes %d..%d)"
                                          % (name, v, C_INT_MIN, C_INT_MAX))
    return v


def float_keyword(value, name):
    """`value` as a float for the keyword `name` (range left to the library, then to
    illegal_tol's sentence), or InvalidArgumentError naming the keyword."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise errors.InvalidArgumentError("%s=%r is not a number" % (name, value)) from None


def illegal_tol_or_iter(tol, tol_name, max_iter, iter_name):
    """Why the library refused its parameters argument, in the caller's keywords: which of the
    tolerance and the iteration limit is out of range (None when both are in range)."""
    if not (tol >= 0.0 and math.isfinite(tol)):
        return "%s=%r is illegal: it must be a finite number >= 0" % (tol_name, tol)
    if max_iter < 0:
        return "%s=%d is illegal: it must be >= 0" % (iter_name, max_iter)
    return None


_ERRORS = {MIX_ERR_INVALID_ARG: errors.InvalidArgumentError, MIX_ERR_ALLOC: errors.OutOfMemoryError,
           MIX_ERR_BACKEND: errors.BackendError,
           MIX_ERR_SINGULAR: errors.SingularError, MIX_ERR_NOT_SPD: errors.NotSPDError,
           MIX_ERR_NAN: errors.NaNError, MIX_ERR_NOT_CONVERGED: errors.NotConvergedError,
           MIX_ERR_OVERFLOW: errors.RangeError}


def raise_status(status, call, why=None):
    """Raises the mixsolve.Error subclass for a nonzero status of `call`, with its sentence.  A
    status -i (argument i illegal) is said in the caller's terms: `why` maps i to a sentence
    naming the keyword, or to a function returning one (None: not known)."""
    if status < 0:
        sentence = strerror(MIX_ERR_INVALID_ARG)
        reason = (why or {}).get(-status)
        reason = reason() if callable(reason) else reason
        if reason:
            raise errors.InvalidArgumentError("%s: %s (argument %d)" % (call, reason, -status),
                                              status, sentence)
        raise errors.InvalidArgumentError("%s: argument %d is illegal" % (call, -status),
                                          status, sentence)
    sentence = strerror(status)
    cls = _ERRORS.get(status, errors.Error)
    raise cls("%s: %s" % (call, sentence), status, sentence)


class _Context:
    """One mix_context, destroyed with the thread-local holder (a context serves one thread)."""

    def __init__(self, backend):
        self.ptr = ctypes.c_void_p()
        self._lib = lib()
        st = self._lib.mix_context_create(ctypes.byref(self.ptr), backends()[backend])
        if st:
            raise_status(st, "mix_context_create(%s)" % backend)

    def __del__(self):
        if getattr(self, "ptr", None):
            self._lib.mix_context_destroy(self.ptr)
            self.ptr = None


_local = threading.local()


def context(backend="auto"):
    """This thread's context for `backend` ("auto", "cpu" or "cuda"), made on first use."""
    known = backends()
    if backend not in known:
        raise errors.InvalidArgumentError("backend=%r is not one of %s" % (backend, ", ".join(known)))
    ctxs = getattr(_local, "ctxs", None)
    if ctxs is None:
        ctxs = _local.ctxs = {}
    if backend not in ctxs:
        ctxs[backend] = _Context(backend)
    return ctxs[backend].ptr
