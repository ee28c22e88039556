! puts of a 60-character line, as bg_fasta writes its output: the cost of a call.
program pk
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function puts(s) bind(C, name='puts')
      import; character(kind=c_char) :: s(*)
    end function
  end interface
  integer :: i, istat, n
  character(1) :: line(61)
  real :: t0, t1
  n = 533333
  line = 'a'; line(61) = achar(0)
  call cpu_time(t0)
  do i = 1, n
    istat = puts(line)
  end do
  call cpu_time(t1)
  write (0, '(f8.1,a)') (t1 - t0) / n * 1e9, ' ns a puts'
end program pk
