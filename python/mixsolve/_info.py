"""_info.py: the report of `mixsolve info`, made from the same C entry points as tools/cmd_info.c."""
import ctypes

from . import _lib


def _support(s):
    return "native" if s == 2 else "emulated" if s == 1 else "-"


def _precs(what, s):
    names = " ".join("%s:%s" % (_lib.prec_name(k), _support(s[k])) for k in _lib.prec_ids())
    return "  %-20s %s" % (what, names)


def _backend_lines(lib, b):
    name = lib.mix_backend_name(b).decode()
    caps = _lib.Caps()
    st = lib.mix_backend_caps(b, ctypes.byref(caps))
    if st:
        return ["backend %-5s: %s" % (name, _lib.strerror(st))], False
    if not caps.compiled:
        return ["backend %-5s: not compiled in this build" % name], False
    out = ["backend %-5s: compiled, %s" % (name, "available" if caps.available
                                           else "not available (no device answers)"),
           "  device              %s" % (caps.device.decode() or "-"),
           "  libraries           %s" % (caps.libraries.decode() or "-"),
           _precs("gemm (LU update)", caps.gemm), _precs("storage (CG)", caps.storage)]
    return out, bool(caps.available)


def info_text():
    """The text `mixsolve info` prints (same lines, same order), as one string."""
    lib = _lib.lib()
    lines = ["mixsolve %s" % lib.mix_version().decode()]
    backends = (ctypes.c_int * 16)()
    nb = lib.mix_backend_list(backends, 16)
    default = 0  # MIX_BACKEND_AUTO: the first available in the registry's order
    for k in range(min(nb, 16)):
        more, available = _backend_lines(lib, backends[k])
        lines += more
        if available and default == 0:
            default = backends[k]
    lines.append("default backend (auto): %s" % lib.mix_backend_name(default).decode())
    return "\n".join(lines) + "\n"


def info():
    """Print what ``mixsolve info`` prints: version, backends, devices, libraries, precisions."""
    print(info_text(), end="")
