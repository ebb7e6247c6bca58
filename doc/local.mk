# doc/local.mk: man pages and the guide.
EXTRA_DIST += doc/benchmarks.md doc/benchmarks-history.md
dist_man_MANS += doc/man1/mixsolve.1
dist_man_MANS += doc/man3/mix_dsgesv.3 doc/man3/mix_dxgesv.3 doc/man3/mix_dhgesv.3 doc/man3/mix_dbgesv.3 \
	doc/man3/mix_dgesv_ir.3 doc/man3/mix_dgesv_ir_gpu.3 doc/man3/mix_gesv_params_init.3
EXTRA_DIST += doc/guide.md doc/HACKING.md doc/DESIGN.md doc/cg_precision_model.py
dist_man_MANS += doc/man3/mix_dcg.3 doc/man3/mix_dcg_gpu.3 doc/man3/mix_cg_params_init.3 doc/man3/mix_sparse_create_csr.3 doc/man3/mix_sparse_destroy.3 \
	doc/man3/mix_sparse_spmv_variant.3
dist_man_MANS += doc/man3/mix_dgesv_sparse.3 doc/man3/mix_sparse_lu_memory.3
dist_man_MANS += doc/man3/mix_context_create.3 doc/man3/mix_context_destroy.3 doc/man3/mix_context_backend.3 \
	doc/man3/mix_backend_caps.3 doc/man3/mix_strerror.3 doc/man3/mix_version.3 doc/man3/mix_prec_name.3 \
	doc/man3/mix_backend_name.3 doc/man3/mix_backend_list.3 doc/man3/mix_prec_list.3
dist_man_MANS += doc/man7/mixsolve_lapack.7 doc/man3/mix_gesv_auto_prec.3
dist_man_MANS += doc/man3/mix_dsposv.3 doc/man3/mix_dxposv.3 doc/man3/mix_dhposv.3 doc/man3/mix_dbposv.3 \
	doc/man3/mix_dposv_ir.3 doc/man3/mix_dposv_ir_gpu.3
