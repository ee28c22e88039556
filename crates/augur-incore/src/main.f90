! augur-incore's main program: runs the kernels named by its two arguments
! (first, one past the last) through the C driver.
program augur_incore
  use iso_c_binding, only: c_int
  implicit none
  interface
    subroutine augur_incore_run(first, last) bind(c, name='augur_incore_run')
      import :: c_int
      integer(c_int), value :: first, last
    end subroutine augur_incore_run
  end interface
  character(len=32) :: word
  integer :: first, last
  call get_command_argument(1, word)
  read (word, *) first
  call get_command_argument(2, word)
  read (word, *) last
  call augur_incore_run(int(first, c_int), int(last, c_int))
end program augur_incore
