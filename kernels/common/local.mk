# kernels/common/local.mk: host+device format headers (listed by their owners).
noinst_HEADERS += kernels/common/mix_hd.h kernels/common/fpbits.h kernels/common/formats.h \
	kernels/common/fp16.h kernels/common/bf16.h kernels/common/tf32.h kernels/common/fixed16.h
noinst_HEADERS += kernels/common/spmv_row.h kernels/common/sell.h kernels/common/sell_plan.h \
	kernels/common/spmv_t.h kernels/common/tent.h
noinst_HEADERS += kernels/common/prec_traits.h
noinst_HEADERS += kernels/common/cg_update.h kernels/common/resid_dd.h
