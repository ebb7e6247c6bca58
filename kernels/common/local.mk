# kernels/common/local.mk: host+device format headers (listed by their owners).
