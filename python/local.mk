# python/local.mk: the Python package `mixsolve' (ctypes over libmixsolve), installed into
# Python's site-packages (pythondir) when configure found a python3 with NumPy; its pytest suite.
mixsolve_py_sources = python/mixsolve/__init__.py python/mixsolve/__main__.py \
	python/mixsolve/_lib.py python/mixsolve/_dense.py python/mixsolve/_sparse.py \
	python/mixsolve/_info.py python/mixsolve/errors.py python/mixsolve/_spsolve.py
if HAVE_PYTHON
pymixsolvedir = $(pythondir)/mixsolve
pymixsolve_PYTHON = $(mixsolve_py_sources)
endif
EXTRA_DIST += $(mixsolve_py_sources) python/pyproject.toml python/README.md \
	python/tests/conftest.py python/tests/test_dense.py python/tests/test_sparse.py \
	python/tests/test_misc.py
# issue 33's probe: misaligned arrays, C int keywords, index faults, NaN in A, overwrite_a.
EXTRA_DIST += python/tests/test_hostile.py python/tests/test_dense_probe.py python/tests/test_spsolve.py
# make check: the suite against this build tree's library (skipped without numpy/scipy/pytest).
TESTS += tests/python.sh
EXTRA_DIST += tests/python.sh bench/bench_python.py
