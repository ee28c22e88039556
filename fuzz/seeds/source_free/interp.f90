!=====================================================================
! interp.f90 - A small stack-machine bytecode interpreter: a program
! of integer opcodes (push, add, sub, mul, mod, dup, swap, jump if
! zero, jump, load/store of registers, halt) computing sums of
! digit-reversals, run through a SELECT CASE dispatch loop.
! Exercises: SELECT CASE with many arms, integer stack arrays,
!   indirect control flow (program counter), DO with EXIT on halt,
!   module with named constants for opcodes, derived type for the
!   machine state.
! Runtime class: branchy (dispatch-bound).
!=====================================================================
module vm
  implicit none
  integer, parameter :: op_push = 1, op_add = 2, op_sub = 3, op_mul = 4, op_mod = 5, &
       op_div = 6, op_dup = 7, op_swap = 8, op_jz = 9, op_jmp = 10, op_ld = 11, &
       op_st = 12, op_halt = 13, op_pop = 14, op_lt = 15
  type :: machine
    integer :: stack(64), sp
    integer :: reg(8)
    integer :: pc
    integer(8) :: steps
  end type machine
contains
  subroutine run(code, ncode, m)
    integer, intent(in) :: ncode, code(ncode)
    type(machine), intent(inout) :: m
    integer :: op, a, b
    m%sp = 0
    m%pc = 1
    do
      op = code(m%pc)
      m%pc = m%pc + 1
      m%steps = m%steps + 1
      select case (op)
      case (op_push)
        m%sp = m%sp + 1
        m%stack(m%sp) = code(m%pc)
        m%pc = m%pc + 1
      case (op_add, op_sub, op_mul, op_mod, op_div, op_lt)
        b = m%stack(m%sp)
        a = m%stack(m%sp - 1)
        m%sp = m%sp - 1
        select case (op)
        case (op_add)
          m%stack(m%sp) = a + b
        case (op_sub)
          m%stack(m%sp) = a - b
        case (op_mul)
          m%stack(m%sp) = a * b
        case (op_mod)
          m%stack(m%sp) = mod(a, b)
        case (op_div)
          m%stack(m%sp) = a / b
        case default
          m%stack(m%sp) = merge(1, 0, a < b)
        end select
      case (op_dup)
        m%sp = m%sp + 1
        m%stack(m%sp) = m%stack(m%sp - 1)
      case (op_swap)
        a = m%stack(m%sp)
        m%stack(m%sp) = m%stack(m%sp - 1)
        m%stack(m%sp - 1) = a
      case (op_pop)
        m%sp = m%sp - 1
      case (op_jz)
        a = m%stack(m%sp)
        m%sp = m%sp - 1
        if (a == 0) then
          m%pc = code(m%pc)
        else
          m%pc = m%pc + 1
        end if
      case (op_jmp)
        m%pc = code(m%pc)
      case (op_ld)
        m%sp = m%sp + 1
        m%stack(m%sp) = m%reg(code(m%pc))
        m%pc = m%pc + 1
      case (op_st)
        m%reg(code(m%pc)) = m%stack(m%sp)
        m%sp = m%sp - 1
        m%pc = m%pc + 1
      case (op_halt)
        exit
      case default
        stop 'bad opcode'
      end select
    end do
  end subroutine run
end module vm

program interp
  use vm
  implicit none
  integer :: code(200), nc, rep
  type(machine) :: m
  integer :: l_outer, l_inner, l_done, l_idone, fix1, fix2, fix3, fix4
  integer(8) :: total
  ! registers: 1 = i (counter), 2 = limit, 3 = acc, 4 = n, 5 = rev
  nc = 0
  call emit2(op_push, 0);  call emit2(op_st, 3)          ! acc = 0
  call emit2(op_push, 1);  call emit2(op_st, 1)          ! i = 1
  l_outer = nc + 1
  call emit2(op_ld, 1); call emit2(op_ld, 2); call emit1(op_lt)   ! i < limit ?
  call emit1(op_jz); fix1 = nc + 1; call emit1(0)
  call emit2(op_ld, 1); call emit2(op_st, 4)              ! n = i
  call emit2(op_push, 0); call emit2(op_st, 5)            ! rev = 0
  l_inner = nc + 1
  call emit2(op_ld, 4); call emit1(op_jz); fix2 = nc + 1; call emit1(0)   ! while n /= 0
  call emit2(op_ld, 5); call emit2(op_push, 10); call emit1(op_mul)
  call emit2(op_ld, 4); call emit2(op_push, 10); call emit1(op_mod); call emit1(op_add)
  call emit2(op_st, 5)                                    ! rev = rev*10 + n mod 10
  call emit2(op_ld, 4); call emit2(op_push, 10); call emit1(op_div); call emit2(op_st, 4)
  call emit1(op_jmp); fix3 = nc + 1; call emit1(l_inner)
  l_idone = nc + 1
  call emit2(op_ld, 3); call emit2(op_ld, 5); call emit1(op_add)
  call emit2(op_push, 1000003); call emit1(op_mod); call emit2(op_st, 3)
  call emit2(op_ld, 1); call emit2(op_push, 1); call emit1(op_add); call emit2(op_st, 1)
  call emit1(op_jmp); fix4 = nc + 1; call emit1(l_outer)
  l_done = nc + 1
  call emit1(op_halt)
  code(fix1) = l_done
  code(fix2) = l_idone

  total = 0
  m%steps = 0
  m%reg = 0
  do rep = 1, 18
    m%reg(2) = 100000 + 1000 * rep
    call run(code, nc, m)
    total = total + m%reg(3)
  end do
  print '(a,i12,a,i14,a,i4)', ' INTERP total=', total, ' steps=', m%steps, ' codelen=', nc
contains
  subroutine emit1(op)
    integer, intent(in) :: op
    nc = nc + 1
    code(nc) = op
  end subroutine emit1
  subroutine emit2(op, arg)
    integer, intent(in) :: op, arg
    nc = nc + 2
    code(nc - 1) = op
    code(nc) = arg
  end subroutine emit2
end program interp
