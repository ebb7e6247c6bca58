"""test_misc.py: threads solving at once, `python3 -m mixsolve info`, finding the library, the error classes."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import mixsolve
from conftest import backward_error, fp64_level, poisson3d


def test_two_threads_solve_at_once():
    """Both C calls are in flight together: the GIL is released and contexts are per thread."""
    rng = np.random.default_rng(5)
    n = 500
    A = [rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n) for _ in range(2)]
    b = [rng.standard_normal(n) for _ in range(2)]
    L = poisson3d(16)
    bs = np.ones(L.shape[0])
    barrier = threading.Barrier(2)
    results, errors = {}, []

    def work(k):
        try:
            barrier.wait()
            for rep in range(3):
                results[k, rep] = mixsolve.solve(A[k], b[k], ["fp32", "bf16"][k])
                results["cg", k, rep] = mixsolve.cg(L, bs, storage=["fp16", "fixed16"][k])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(2):
        for rep in range(3):
            assert backward_error(A[k], results[k, rep], b[k]) <= fp64_level(n)
            x, info = results["cg", k, rep]
            assert info == 0 and np.linalg.norm(bs - L @ x) <= 1e-10 * np.linalg.norm(bs)


def test_gil_is_released_during_the_call():
    """A Python thread keeps counting while the main thread is inside one long C solve."""
    import ctypes
    from mixsolve import _lib
    assert isinstance(_lib.lib(), ctypes.CDLL) and not isinstance(_lib.lib(), ctypes.PyDLL)
    n = 1500
    A = np.random.default_rng(6).standard_normal((n, n)) + n ** 0.5 * np.eye(n)
    count, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        before = count[0]
        mixsolve.solve(A, np.ones(n), "fp64")
        during = count[0] - before
    finally:
        stop.set()
        t.join()
    assert during > 1000


def run_module(*args, env=None):
    return subprocess.run([sys.executable, "-m", "mixsolve", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_info_prints_what_the_command_prints():
    out = run_module("info")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("mixsolve ") and "default backend (auto):" in out.stdout
    cli = os.environ.get("MIXSOLVE_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("MIXSOLVE_CLI (the mixsolve command of this build) not given")
    ref = subprocess.run([cli, "info"], capture_output=True, text=True, timeout=120)
    assert ref.returncode == 0
    assert out.stdout == ref.stdout
    assert mixsolve.info_text() == ref.stdout


def test_usage():
    assert run_module().returncode == 2
    assert run_module("--help").returncode == 0


def test_library_not_found_says_what_it_tried(tmp_path):
    env = dict(os.environ, MIXSOLVE_LIBRARY=str(tmp_path / "nowhere" / "libmixsolve.so.1"))
    out = run_module("info", env=env)
    assert out.returncode == 1
    assert "MIXSOLVE_LIBRARY" in out.stderr and "nowhere" in out.stderr
    # Without it: pkg-config (pointed at an empty folder) and the loader are tried and named.
    env = {k: v for k, v in os.environ.items() if k not in ("MIXSOLVE_LIBRARY", "LD_LIBRARY_PATH")}
    env["PKG_CONFIG_PATH"] = env["PKG_CONFIG_LIBDIR"] = str(tmp_path)
    code = ("import mixsolve._lib as l\n"
            "try:\n    l.lib(); print('loaded', l.library_path())\n"
            "except mixsolve.LibraryNotFoundError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", "import mixsolve\n" + code], capture_output=True,
                         text=True, env=env, timeout=120)
    if out.stdout.startswith("loaded"):
        pytest.skip("a libmixsolve is installed system-wide: " + out.stdout)
    for what in ("MIXSOLVE_LIBRARY: not set", "pkg-config", "find_library", "libmixsolve.so.1"):
        assert what in out.stdout, out.stdout


def test_error_classes():
    assert issubclass(mixsolve.SingularError, np.linalg.LinAlgError)
    assert issubclass(mixsolve.NotSPDError, np.linalg.LinAlgError)
    assert issubclass(mixsolve.NotSymmetricError, mixsolve.InvalidArgumentError)
    assert issubclass(mixsolve.InvalidArgumentError, ValueError)
    assert issubclass(mixsolve.OutOfMemoryError, MemoryError)
    for cls in (mixsolve.SingularError, mixsolve.NaNError, mixsolve.BackendError,
                mixsolve.NotConvergedError, mixsolve.LibraryNotFoundError):
        assert issubclass(cls, mixsolve.Error)
    assert mixsolve.library_version()


def test_found_through_pkg_config():
    """Without MIXSOLVE_LIBRARY, pkg-config's libdir (this tree's mixsolve-uninstalled.pc) is used."""
    builddir = os.environ.get("MIXSOLVE_BUILDDIR")
    if not builddir:
        pytest.skip("MIXSOLVE_BUILDDIR (set by tests/python.sh) not given")
    env = {k: v for k, v in os.environ.items() if k != "MIXSOLVE_LIBRARY"}
    env["PKG_CONFIG_PATH"] = os.path.join(builddir, "lib")
    code = "import mixsolve, mixsolve._lib as l; mixsolve.solve([[2.0]], [1.0]); print(l.library_path())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    if out.returncode != 0 and "pkg-config is not on PATH" in out.stderr:
        pytest.skip("no pkg-config")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == os.path.join(builddir, "lib", ".libs", "libmixsolve.so.1")
