/* cuda_libs.h: the cuBLAS, cuSOLVER and cuSPARSE functions the CUDA backend calls, through a
 * table filled by dlopen on the first CUDA context (cuda_libs.c).  Linked at load time, those
 * libraries cost every process of a CUDA build 0.2-0.3 s and 210-270 MB of relocated pages
 * before main, GPU or not (2-core Zen 3, CUDA 13); the runtime (libcudart, 1.5 MB) stays linked.
 * The backend's C files call the functions by their API names, which this header redirects to
 * the table; cuda_libs.c defines MIXI_CUDA_LIBS_LOADER to see the libraries' own names. */
#ifndef MIX_CUDA_LIBS_H
#define MIX_CUDA_LIBS_H

#include <cublas_v2.h>
#include <cusolverDn.h>
#include <cusparse.h>

/* Every function called: F(API name); the name's macro expansion (cublasDgemm -> cublasDgemm_v2)
 * is the symbol looked up, and its type the pointer's. */
#define MIXI_CUBLAS_FUNCS(F) \
    F(cublasCreate) \
    F(cublasDestroy) \
    F(cublasSetStream) \
    F(cublasSetPointerMode) \
    F(cublasGemmEx) \
    F(cublasDscal) \
    F(cublasDnrm2) \
    F(cublasDdot) \
    F(cublasDaxpy) \
    F(cublasDgemv) \
    F(cublasDsymv) \
    F(cublasDsymm) \
    F(cublasDgemm) \
    F(cublasDgeam) \
    F(cublasStrsm) \
    F(cublasSsyrk) \
    F(cublasSgemm)

#define MIXI_CUSOLVER_FUNCS(F) \
    F(cusolverDnCreate) \
    F(cusolverDnDestroy) \
    F(cusolverDnSetStream) \
    F(cusolverDnSpotrs) \
    F(cusolverDnSpotrf_bufferSize) \
    F(cusolverDnSpotrf) \
    F(cusolverDnSgetrs) \
    F(cusolverDnSgetrf_bufferSize) \
    F(cusolverDnSgetrf) \
    F(cusolverDnDpotrs) \
    F(cusolverDnDpotrf_bufferSize) \
    F(cusolverDnDpotrf) \
    F(cusolverDnDgetrs) \
    F(cusolverDnDgetrf_bufferSize) \
    F(cusolverDnDgetrf)

#define MIXI_CUSPARSE_FUNCS(F) \
    F(cusparseCreate) \
    F(cusparseDestroy) \
    F(cusparseSetStream)

#define MIXI_CUDA_FN_MEMBER(name) __typeof__(&name) p_##name;
typedef struct {
    MIXI_CUBLAS_FUNCS(MIXI_CUDA_FN_MEMBER)
    MIXI_CUSOLVER_FUNCS(MIXI_CUDA_FN_MEMBER)
    MIXI_CUSPARSE_FUNCS(MIXI_CUDA_FN_MEMBER)
} mixi_cuda_fn_table;

extern mixi_cuda_fn_table mixi_cuda_fn;

/* Opens the three libraries and fills mixi_cuda_fn, once per process: 0, or MIX_ERR_BACKEND
 * when one of them or one of its functions is missing (then mixi_cuda_libs_missing() names it). */
int mixi_cuda_libs_load(void);
const char *mixi_cuda_libs_missing(void);

#ifndef MIXI_CUDA_LIBS_LOADER
#undef cublasCreate
#define cublasCreate (mixi_cuda_fn.p_cublasCreate)
#undef cublasDestroy
#define cublasDestroy (mixi_cuda_fn.p_cublasDestroy)
#undef cublasSetStream
#define cublasSetStream (mixi_cuda_fn.p_cublasSetStream)
#undef cublasSetPointerMode
#define cublasSetPointerMode (mixi_cuda_fn.p_cublasSetPointerMode)
#undef cublasGemmEx
#define cublasGemmEx (mixi_cuda_fn.p_cublasGemmEx)
#undef cublasDscal
#define cublasDscal (mixi_cuda_fn.p_cublasDscal)
#undef cublasDnrm2
#define cublasDnrm2 (mixi_cuda_fn.p_cublasDnrm2)
#undef cublasDdot
#define cublasDdot (mixi_cuda_fn.p_cublasDdot)
#undef cublasDaxpy
#define cublasDaxpy (mixi_cuda_fn.p_cublasDaxpy)
#undef cublasDgemv
#define cublasDgemv (mixi_cuda_fn.p_cublasDgemv)
#undef cublasDsymv
#define cublasDsymv (mixi_cuda_fn.p_cublasDsymv)
#undef cublasDsymm
#define cublasDsymm (mixi_cuda_fn.p_cublasDsymm)
#undef cublasDgemm
#define cublasDgemm (mixi_cuda_fn.p_cublasDgemm)
#undef cublasDgeam
#define cublasDgeam (mixi_cuda_fn.p_cublasDgeam)
#undef cublasStrsm
#define cublasStrsm (mixi_cuda_fn.p_cublasStrsm)
#undef cublasSsyrk
#define cublasSsyrk (mixi_cuda_fn.p_cublasSsyrk)
#undef cublasSgemm
#define cublasSgemm (mixi_cuda_fn.p_cublasSgemm)
#undef cusolverDnCreate
#define cusolverDnCreate (mixi_cuda_fn.p_cusolverDnCreate)
#undef cusolverDnDestroy
#define cusolverDnDestroy (mixi_cuda_fn.p_cusolverDnDestroy)
#undef cusolverDnSetStream
#define cusolverDnSetStream (mixi_cuda_fn.p_cusolverDnSetStream)
#undef cusolverDnSpotrs
#define cusolverDnSpotrs (mixi_cuda_fn.p_cusolverDnSpotrs)
#undef cusolverDnSpotrf_bufferSize
#define cusolverDnSpotrf_bufferSize (mixi_cuda_fn.p_cusolverDnSpotrf_bufferSize)
#undef cusolverDnSpotrf
#define cusolverDnSpotrf (mixi_cuda_fn.p_cusolverDnSpotrf)
#undef cusolverDnSgetrs
#define cusolverDnSgetrs (mixi_cuda_fn.p_cusolverDnSgetrs)
#undef cusolverDnSgetrf_bufferSize
#define cusolverDnSgetrf_bufferSize (mixi_cuda_fn.p_cusolverDnSgetrf_bufferSize)
#undef cusolverDnSgetrf
#define cusolverDnSgetrf (mixi_cuda_fn.p_cusolverDnSgetrf)
#undef cusolverDnDpotrs
#define cusolverDnDpotrs (mixi_cuda_fn.p_cusolverDnDpotrs)
#undef cusolverDnDpotrf_bufferSize
#define cusolverDnDpotrf_bufferSize (mixi_cuda_fn.p_cusolverDnDpotrf_bufferSize)
#undef cusolverDnDpotrf
#define cusolverDnDpotrf (mixi_cuda_fn.p_cusolverDnDpotrf)
#undef cusolverDnDgetrs
#define cusolverDnDgetrs (mixi_cuda_fn.p_cusolverDnDgetrs)
#undef cusolverDnDgetrf_bufferSize
#define cusolverDnDgetrf_bufferSize (mixi_cuda_fn.p_cusolverDnDgetrf_bufferSize)
#undef cusolverDnDgetrf
#define cusolverDnDgetrf (mixi_cuda_fn.p_cusolverDnDgetrf)
#undef cusparseCreate
#define cusparseCreate (mixi_cuda_fn.p_cusparseCreate)
#undef cusparseDestroy
#define cusparseDestroy (mixi_cuda_fn.p_cusparseDestroy)
#undef cusparseSetStream
#define cusparseSetStream (mixi_cuda_fn.p_cusparseSetStream)
#endif

#endif
