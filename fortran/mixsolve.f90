! mixsolve.f90: Fortran 2003 module `mixsolve`, iso_c_binding interfaces to libmixsolve (mixsolve.h).
!
! Every public C function, constant and parameter/info structure, with the same names.  Arrays are
! column-major as Fortran stores them: pass MIX_COL_MAJOR and the leading dimension of the actual
! array.  Contexts and sparse matrices are type(c_ptr) handles.  Strings (mix_strerror, ...) come
! back as type(c_ptr) to a NUL-terminated C string.  CSR indices (mix_sparse_create_csr) are
! 0-based, as in C.  This module has no code of its own: link with -lmixsolve only.
module mixsolve
  use, intrinsic :: iso_c_binding
  implicit none
  private :: c_int, c_double, c_ptr, c_char, c_int32_t, c_int64_t

  ! ---- layouts, precisions, refinement, backends -------------------------------------------
  integer(c_int), parameter :: MIX_ROW_MAJOR = 101, MIX_COL_MAJOR = 102
  integer(c_int), parameter :: MIX_FP64 = 0, MIX_FP32 = 1, MIX_TF32 = 2, MIX_FP16 = 3, &
                               MIX_BF16 = 4, MIX_FIXED16 = 5, MIX_PREC_AUTO = 256
  integer(c_int), parameter :: MIX_NUM_PREC = 6, MIX_CAPS_PREC_SLOTS = 32
  integer(c_int), parameter :: MIX_REFINE_CLASSICAL = 0, MIX_REFINE_GMRES = 1, MIX_REFINE_AUTO = 2, &
                               MIX_REFINE_CG = 3
  integer(c_int), parameter :: MIX_BACKEND_AUTO = 0, MIX_BACKEND_CPU = 1, MIX_BACKEND_CUDA = 2
  integer(c_int), parameter :: MIX_NUM_BACKENDS = 3
  integer(c_int), parameter :: MIX_ROLE_ALL = 0, MIX_ROLE_FACTOR = 1, MIX_ROLE_STORAGE = 2

  ! ---- status codes --------------------------------------------------------------------------
  integer(c_int), parameter :: MIX_SUCCESS = 0, MIX_ERR_INVALID_ARG = 1, MIX_ERR_ALLOC = 2, &
                               MIX_ERR_BACKEND = 3, MIX_ERR_SINGULAR = 4, MIX_ERR_NOT_SPD = 5, &
                               MIX_ERR_NAN = 6, MIX_ERR_NOT_CONVERGED = 7, MIX_ERR_IO = 8, &
                               MIX_ERR_PARSE = 9, MIX_ERR_NOT_IMPLEMENTED = 10, &
                               MIX_ERR_OVERFLOW = 11, MIX_ERR_UNSUPPORTED = 12, &
                               MIX_ERR_INTERNAL = 13, MIX_ERR_NOT_SYMMETRIC = 14, &
                               MIX_ERR_COMM = 15, MIX_ERR_COUNT_ = 16

  ! ---- why the dense driver fell back / why CG stopped ---------------------------------------
  integer(c_int), parameter :: MIX_REASON_NONE = 0, MIX_REASON_DIRECT = 1, MIX_REASON_OVERFLOW = 2, &
                               MIX_REASON_FACTOR_FAILED = 3, MIX_REASON_NOT_CONVERGED = 4, &
                               MIX_REASON_NAN_IN_REFINEMENT = 5, MIX_REASON_TOO_SLOW = 6
  integer(c_int), parameter :: MIX_CG_CONVERGED = 0, MIX_CG_MAX_ITER = 1, MIX_CG_STAGNATED = 2, &
                               MIX_CG_BREAKDOWN_NOT_SPD = 3, MIX_CG_BREAKDOWN_NAN = 4, &
                               MIX_CG_ZERO_RHS = 5, MIX_CG_OUT_OF_RANGE = 6, &
                               MIX_CG_STORAGE_OVERFLOW = 7
  integer(c_int), parameter :: MIX_CG_MAX_STAGES = 3
  integer(c_int), parameter :: MIX_PRECOND_NONE = 0, MIX_PRECOND_JACOBI = 1, MIX_PRECOND_AMG = 2
  integer(c_int), parameter :: MIX_PREC_UNSUPPORTED = 0, MIX_PREC_EMULATED = 1, MIX_PREC_NATIVE = 2

  ! ---- structures (bind(C): the C layouts) ----------------------------------------------------
  type, bind(C) :: mix_caps
    integer(c_int) :: compiled, available
    integer(c_int) :: gemm(MIX_CAPS_PREC_SLOTS), storage(MIX_CAPS_PREC_SLOTS)
    character(kind=c_char) :: device(128), libraries(128)
  end type mix_caps

  type, bind(C) :: mix_gesv_params
    integer(c_int) :: factor_prec, refine
    real(c_double) :: tol
    integer(c_int) :: max_iter, gmres_restart, fallback, scale
    type(c_ptr) :: residual_history   ! c_loc of a caller's real(c_double) array, or c_null_ptr
    integer(c_int) :: history_capacity
    integer(c_int) :: cost_fallback
  end type mix_gesv_params

  type, bind(C) :: mix_gesv_info
    integer(c_int) :: status, iter, inner_iter, fell_back, reason
    integer(c_int) :: factor_prec_used
    real(c_double) :: backward_error, t_factor, t_refine
    integer(c_int) :: history_length
  end type mix_gesv_info

  type, bind(C) :: mix_cg_params
    integer(c_int) :: sloppy_prec
    real(c_double) :: tol
    integer(c_int) :: max_iter
    real(c_double) :: delta
    integer(c_int) :: precond, x0_given
    integer(c_int) :: escalate
    integer(c_int) :: narrow_vectors
  end type mix_cg_params

  type, bind(C) :: mix_cg_info
    integer(c_int) :: status, iter, reliable_updates, converged, reason
    real(c_double) :: true_rel_residual, t_setup, t_solve
    integer(c_int) :: stages
    integer(c_int) :: stage_prec(MIX_CG_MAX_STAGES), stage_iter(MIX_CG_MAX_STAGES), &
                      stage_reason(MIX_CG_MAX_STAGES)
    real(c_double) :: kappa
  end type mix_cg_info

  interface
    ! ---- contexts, errors, names, capabilities ----------------------------------------------
    integer(c_int) function mix_context_create(ctx, backend) bind(C, name="mix_context_create")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: ctx
      integer(c_int), value :: backend
    end function
    subroutine mix_context_destroy(ctx) bind(C, name="mix_context_destroy")
      import :: c_ptr
      type(c_ptr), value :: ctx
    end subroutine
    integer(c_int) function mix_context_backend(ctx) bind(C, name="mix_context_backend")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function
    type(c_ptr) function mix_strerror(status) bind(C, name="mix_strerror")
      import :: c_int, c_ptr
      integer(c_int), value :: status
    end function
    type(c_ptr) function mix_version() bind(C, name="mix_version")
      import :: c_ptr
    end function
    type(c_ptr) function mix_prec_name(p) bind(C, name="mix_prec_name")
      import :: c_int, c_ptr
      integer(c_int), value :: p
    end function
    type(c_ptr) function mix_backend_name(b) bind(C, name="mix_backend_name")
      import :: c_int, c_ptr
      integer(c_int), value :: b
    end function
    ! Up to max backends into list (MIX_BACKEND_AUTO's order); returns how many there are.
    integer(c_int) function mix_backend_list(list, max) bind(C, name="mix_backend_list")
      import :: c_int
      integer(c_int), intent(out) :: list(*)
      integer(c_int), value :: max
    end function
    ! Up to max precisions of a role (MIX_ROLE_*) into list; returns how many there are.
    integer(c_int) function mix_prec_list(role, list, max) bind(C, name="mix_prec_list")
      import :: c_int
      integer(c_int), value :: role
      integer(c_int), intent(out) :: list(*)
      integer(c_int), value :: max
    end function
    integer(c_int) function mix_backend_caps(backend, caps) bind(C, name="mix_backend_caps")
      import :: c_int, mix_caps
      integer(c_int), value :: backend
      type(mix_caps), intent(out) :: caps
    end function

    ! ---- simple dense drivers (LAPACKE_dsgesv's arguments; s/x/h/b = FP32/TF32/FP16/BF16) ----
    integer(c_int) function mix_dsgesv(layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dsgesv")
      import :: c_int, c_double
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: ipiv(*), iter
    end function
    integer(c_int) function mix_dxgesv(layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dxgesv")
      import :: c_int, c_double
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: ipiv(*), iter
    end function
    integer(c_int) function mix_dhgesv(layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dhgesv")
      import :: c_int, c_double
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: ipiv(*), iter
    end function
    integer(c_int) function mix_dbgesv(layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dbgesv")
      import :: c_int, c_double
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: ipiv(*), iter
    end function

    ! ---- expert dense driver ----------------------------------------------------------------
    subroutine mix_gesv_params_init(p) bind(C, name="mix_gesv_params_init")
      import :: mix_gesv_params
      type(mix_gesv_params), intent(out) :: p
    end subroutine
    integer(c_int) function mix_dgesv_ir(ctx, p, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, &
                                         info) bind(C, name="mix_dgesv_ir")
      import :: c_int, c_double, c_ptr, mix_gesv_params, mix_gesv_info
      type(c_ptr), value :: ctx
      type(mix_gesv_params), intent(in) :: p
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      real(c_double), intent(inout) :: a(*)
      integer(c_int), intent(out) :: ipiv(*)
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(mix_gesv_info), intent(out) :: info
    end function
    ! a, b, x in device memory (type(c_ptr) from the CUDA runtime); ipiv on the host.
    integer(c_int) function mix_dgesv_ir_gpu(ctx, p, layout, n, nrhs, d_a, lda, ipiv, d_b, ldb, &
                                             d_x, ldx, info) bind(C, name="mix_dgesv_ir_gpu")
      import :: c_int, c_ptr, mix_gesv_params, mix_gesv_info
      type(c_ptr), value :: ctx
      type(mix_gesv_params), intent(in) :: p
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      type(c_ptr), value :: d_a, d_b, d_x
      integer(c_int), intent(out) :: ipiv(*)
      type(mix_gesv_info), intent(out) :: info
    end function
    integer(c_int) function mix_gesv_auto_prec(ctx, n, nrhs, prec) bind(C, name="mix_gesv_auto_prec")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: n, nrhs
      integer(c_int), intent(out) :: prec
    end function

    ! ---- dense SPD: low-precision Cholesky + refinement (uplo 'L' or 'U') ----------------------
    integer(c_int) function mix_dsposv(layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dsposv")
      import :: c_int, c_double, c_char
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      character(kind=c_char), value :: uplo
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: iter
    end function
    integer(c_int) function mix_dxposv(layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dxposv")
      import :: c_int, c_double, c_char
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      character(kind=c_char), value :: uplo
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: iter
    end function
    integer(c_int) function mix_dhposv(layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dhposv")
      import :: c_int, c_double, c_char
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      character(kind=c_char), value :: uplo
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: iter
    end function
    integer(c_int) function mix_dbposv(layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter) &
        bind(C, name="mix_dbposv")
      import :: c_int, c_double, c_char
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      character(kind=c_char), value :: uplo
      real(c_double), intent(inout) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int), intent(out) :: iter
    end function
    integer(c_int) function mix_dposv_ir(ctx, p, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, &
                                         info) bind(C, name="mix_dposv_ir")
      import :: c_int, c_double, c_ptr, c_char, mix_gesv_params, mix_gesv_info
      type(c_ptr), value :: ctx
      type(mix_gesv_params), intent(in) :: p
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      character(kind=c_char), value :: uplo
      real(c_double), intent(inout) :: a(*)
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(mix_gesv_info), intent(out) :: info
    end function
    integer(c_int) function mix_dposv_ir_gpu(ctx, p, layout, uplo, n, nrhs, d_a, lda, d_b, ldb, &
                                             d_x, ldx, info) bind(C, name="mix_dposv_ir_gpu")
      import :: c_int, c_ptr, c_char, mix_gesv_params, mix_gesv_info
      type(c_ptr), value :: ctx
      type(mix_gesv_params), intent(in) :: p
      integer(c_int), value :: layout, n, nrhs, lda, ldb, ldx
      character(kind=c_char), value :: uplo
      type(c_ptr), value :: d_a, d_b, d_x
      type(mix_gesv_info), intent(out) :: info
    end function

    ! ---- sparse SPD: reliable-update mixed-precision CG ---------------------------------------
    integer(c_int) function mix_sparse_create_csr(ctx, n, rowptr, colind, val, a) &
        bind(C, name="mix_sparse_create_csr")
      import :: c_int, c_double, c_ptr, c_int32_t, c_int64_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: n
      integer(c_int64_t), intent(in) :: rowptr(*)
      integer(c_int32_t), intent(in) :: colind(*)
      real(c_double), intent(in) :: val(*)
      type(c_ptr), intent(out) :: a
    end function
    subroutine mix_sparse_destroy(a) bind(C, name="mix_sparse_destroy")
      import :: c_ptr
      type(c_ptr), value :: a
    end subroutine
    ! The SpMV body the tuner chose for a's copy in storage (c_null_ptr: none yet).
    type(c_ptr) function mix_sparse_spmv_variant(a, storage, jacobi) &
        bind(C, name="mix_sparse_spmv_variant")
      import :: c_int, c_ptr
      type(c_ptr), value :: a
      integer(c_int), value :: storage, jacobi
    end function
    subroutine mix_cg_params_init(p) bind(C, name="mix_cg_params_init")
      import :: mix_cg_params
      type(mix_cg_params), intent(out) :: p
    end subroutine
    integer(c_int) function mix_dcg(ctx, p, a, b, x, info) bind(C, name="mix_dcg")
      import :: c_int, c_double, c_ptr, mix_cg_params, mix_cg_info
      type(c_ptr), value :: ctx, a
      type(mix_cg_params), intent(in) :: p
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(mix_cg_info), intent(out) :: info
    end function
    integer(c_int) function mix_dgesv_sparse(ctx, p, a, nrhs, b, ldb, x, ldx, info) &
        bind(C, name="mix_dgesv_sparse")
      import :: c_int, c_double, c_ptr, mix_gesv_params, mix_gesv_info
      type(c_ptr), value :: ctx, a
      type(mix_gesv_params), intent(in) :: p
      integer(c_int), value :: nrhs, ldb, ldx
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(mix_gesv_info), intent(out) :: info
    end function
    integer(c_int) function mix_sparse_lu_memory(ctx, a, prec, factor_bytes, peak_bytes) &
        bind(C, name="mix_sparse_lu_memory")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: ctx, a
      integer(c_int), value :: prec
      integer(c_int64_t), intent(out) :: factor_bytes, peak_bytes
    end function
    integer(c_int) function mix_dcg_gpu(ctx, p, a, d_b, d_x, info) bind(C, name="mix_dcg_gpu")
      import :: c_int, c_ptr, mix_cg_params, mix_cg_info
      type(c_ptr), value :: ctx, a, d_b, d_x
      type(mix_cg_params), intent(in) :: p
      type(mix_cg_info), intent(out) :: info
    end function
  end interface
end module mixsolve
