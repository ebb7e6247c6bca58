# kernels/cpu/local.mk: CPU dense and sparse kernels.
