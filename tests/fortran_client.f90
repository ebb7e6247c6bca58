! fortran_client.f90: a Fortran program on the `mixsolve` module: mix_dsgesv, mix_dgesv_ir (with
! a residual history) and mix_dcg, checking answers and the bind(C) structures' fields.
program fortran_client
  use, intrinsic :: iso_c_binding
  use mixsolve
  implicit none
  integer :: failures = 0
  call dense()
  call sparse()
  call caps()
  print '(I0,A)', failures, ' failure(s)'
  if (failures /= 0) stop 1
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (ok) then
      print '(A,A)', 'ok   ', what
    else
      print '(A,A)', 'FAIL ', what
      failures = failures + 1
    end if
  end subroutine

  ! A C string (mix_strerror, mix_prec_name, ...) as a Fortran string.
  function fstring(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: c(:)
    integer :: k
    call c_f_pointer(p, c, [256])
    k = 0
    do while (c(k + 1) /= c_null_char)
      k = k + 1
    end do
    allocate(character(k) :: s)
    s = transfer(c(1:k), s)
  end function

  ! max |b - A x| / (||A||inf max|x| + max|b|)
  real(c_double) function berr(a, x, b)
    real(c_double), intent(in) :: a(:, :), x(:), b(:)
    berr = maxval(abs(b - matmul(a, x))) / (maxval(sum(abs(a), 2)) * maxval(abs(x)) + maxval(abs(b)))
  end function

  subroutine dense()
    ! Below 256, where mix_dsgesv's time budgets start: a loaded machine must not fall back.
    integer(c_int), parameter :: n = 200
    real(c_double), allocatable :: a(:, :), a0(:, :), b(:), x(:)
    real(c_double), target :: hist(40)
    integer(c_int) :: ipiv(n), iter, st, i
    type(c_ptr) :: ctx
    type(mix_gesv_params) :: p
    type(mix_gesv_info) :: info
    allocate(a(n, n), a0(n, n), b(n), x(n))
    call random_number(a0)
    a0 = a0 - 0.5d0
    do i = 1, n
      a0(i, i) = a0(i, i) + 4
      b(i) = sin(real(i, c_double))
    end do
    a = a0
    st = mix_dsgesv(MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, iter)
    call check(st == 0 .and. iter >= 0, 'mix_dsgesv: refined in FP32 (iter >= 0)')
    call check(all(a == a0), 'mix_dsgesv: A unchanged')
    call check(berr(a0, x, b) <= 1d-14, 'mix_dsgesv: FP64 backward error')

    call check(mix_context_create(ctx, MIX_BACKEND_CPU) == MIX_SUCCESS, 'mix_context_create')
    call check(mix_context_backend(ctx) == MIX_BACKEND_CPU, 'mix_context_backend')
    call mix_gesv_params_init(p)
    call check(p%factor_prec == MIX_PREC_AUTO .and. p%refine == MIX_REFINE_AUTO .and. &
               p%tol == 0 .and. p%max_iter == 30 .and. p%gmres_restart == 30 .and. &
               p%fallback == 1 .and. p%scale == 1 .and. p%history_capacity == 0 .and. &
               p%cost_fallback == 1 .and. &
               .not. c_associated(p%residual_history), 'mix_gesv_params_init: the defaults')
    p%factor_prec = MIX_BF16
    p%residual_history = c_loc(hist)
    p%history_capacity = size(hist)
    hist = -1
    st = mix_dgesv_ir(ctx, p, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, info)
    call check(st == 0 .and. info%status == 0 .and. info%iter >= 1 .and. info%fell_back == 0 .and. &
               info%reason == MIX_REASON_NONE .and. info%factor_prec_used == MIX_BF16, &
               'mix_dgesv_ir: BF16 factors refined, info fields')
    call check(berr(a0, x, b) <= 1d-14 .and. abs(info%backward_error - berr(a0, x, b)) <= 1d-15, &
               'mix_dgesv_ir: FP64 backward error, as info reports it')
    call check(info%history_length >= 1 .and. hist(info%history_length) == info%backward_error, &
               'mix_dgesv_ir: residual history through c_loc')
    call check(fstring(mix_prec_name(info%factor_prec_used)) == 'bf16', 'mix_prec_name')
    call check(mix_gesv_auto_prec(ctx, 8, 1, iter) == 0 .and. iter == MIX_FP64, 'mix_gesv_auto_prec')
    ! SPD: A' A + n I from the lower triangle.
    a0 = matmul(transpose(a0), a0)
    do i = 1, n
      a0(i, i) = a0(i, i) + n
    end do
    a = a0
    st = mix_dsposv(MIX_COL_MAJOR, 'L', n, 1, a, n, b, n, x, n, iter)
    call check(st == 0 .and. iter >= 0 .and. all(a == a0), 'mix_dsposv: refined, A unchanged')
    call check(berr(a0, x, b) <= 1d-14, 'mix_dsposv: FP64 backward error')
    call mix_context_destroy(ctx)
  end subroutine

  ! 1-D Poisson, tridiag(-1, 2, -1), in CSR with 0-based indices.
  subroutine sparse()
    integer(c_int), parameter :: n = 200
    integer(c_int64_t) :: rowptr(n + 1)
    integer(c_int32_t) :: colind(3 * n)
    real(c_double) :: val(3 * n), b(n), x(n), r(n)
    integer :: i, k
    type(c_ptr) :: ctx, a
    type(mix_cg_params) :: p
    type(mix_cg_info) :: info
    k = 0
    do i = 1, n
      rowptr(i) = k
      if (i > 1) then
        k = k + 1
        colind(k) = i - 2
        val(k) = -1
      end if
      k = k + 1
      colind(k) = i - 1
      val(k) = 2
      if (i < n) then
        k = k + 1
        colind(k) = i
        val(k) = -1
      end if
      b(i) = 1
    end do
    rowptr(n + 1) = k
    call check(mix_context_create(ctx, MIX_BACKEND_CPU) == 0, 'mix_context_create')
    call check(mix_sparse_create_csr(ctx, n, rowptr, colind, val, a) == 0, 'mix_sparse_create_csr')
    call mix_cg_params_init(p)
    call check(p%sloppy_prec == MIX_FIXED16 .and. p%tol == 1d-10 .and. p%delta == 0.1d0 .and. &
               p%precond == MIX_PRECOND_NONE .and. p%x0_given == 0 .and. p%escalate == 1, &
               'mix_cg_params_init: the defaults')
    p%sloppy_prec = MIX_FP32
    x = 0
    call check(mix_dcg(ctx, p, a, b, x, info) == 0, 'mix_dcg: '//fstring(mix_strerror(info%status)))
    do i = 1, n
      r(i) = b(i) - 2 * x(i)
      if (i > 1) r(i) = r(i) + x(i - 1)
      if (i < n) r(i) = r(i) + x(i + 1)
    end do
    call check(info%converged == 1 .and. info%reason == MIX_CG_CONVERGED .and. info%iter > 0 .and. &
               info%true_rel_residual <= p%tol .and. info%stages >= 1 .and. &
               info%stage_prec(1) == MIX_FP32 .and. info%stage_iter(1) >= 1, &
               'mix_dcg: converged, info fields')
    call check(abs(norm2(r) / norm2(b) - info%true_rel_residual) <= 1d-12 .and. &
               norm2(r) / norm2(b) <= 1d-10, 'mix_dcg: true residual below tol, as info reports it')
    call mix_sparse_destroy(a)
    call mix_context_destroy(ctx)
  end subroutine

  subroutine caps()
    type(mix_caps) :: c
    integer(c_int) :: list(8), count
    count = mix_backend_list(list, size(list))
    call check(count >= 1 .and. any(list(1:min(count, 8)) == MIX_BACKEND_CPU), &
               'mix_backend_list: the CPU backend listed')
    call check(mix_backend_caps(MIX_BACKEND_CPU, c) == 0 .and. c%compiled == 1 .and. &
               c%available == 1 .and. c%gemm(MIX_FP32 + 1) /= MIX_PREC_UNSUPPORTED .and. &
               c%device(1) /= c_null_char, 'mix_backend_caps: CPU compiled, available, named')
    call check(fstring(mix_backend_name(MIX_BACKEND_CUDA)) == 'cuda' .and. &
               len(fstring(mix_version())) > 0, 'mix_backend_name, mix_version')
  end subroutine
end program fortran_client
