! A table lookup with work between the lookups: each step hashes a key, reads a
! 64 MB table at the hashed slot, and folds the value into a running state with
! a few multiplies and adds (a Monte Carlo tally of this shape).
program lookup
  implicit none
  integer, parameter :: n = 16 * 1024 * 1024, steps = 20000000
  integer, allocatable :: table(:)
  integer(8) :: key, acc
  real(8) :: s, w
  integer :: i, slot
  allocate(table(n))
  do i = 1, n
    table(i) = mod(i * 7, 1001)
  end do
  key = 12345_8
  acc = 0
  s = 0.0d0
  do i = 1, steps
    key = mod(key * 1103515245_8 + 12345_8, 2147483648_8)
    slot = int(mod(key, int(n, 8))) + 1
    w = 1.0d0 + 1.0d-3 * table(slot)
    s = s * 0.999d0 + w * w - 0.5d0 * w
    acc = acc + table(slot)
  end do
  print *, acc, s
end program lookup
