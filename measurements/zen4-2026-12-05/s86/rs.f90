program rs
  ! a sum restarted at each grid point over r*r weights: mode 0 two nested loops of r, mode 1 one loop of r*r
  implicit none
  integer, parameter :: n = 1000, r = 2, reps = 20
  real(8), allocatable :: a(:,:), b(:,:), w(:,:), w1(:)
  integer :: i, j, ii, jj, k, rep, mode, it, jt
  real(8) :: t0, t1
  character(8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(a(n,n), b(n,n), w(-r:r,-r:r), w1((2*r+1)**2))
  call random_number(a); call random_number(w); b = 0
  w1 = reshape(w, [(2*r+1)**2])
  call cpu_time(t0)
  do rep = 1, reps
    if (mode == 0) then
      do j = r, n-r-1
        do i = r, n-r-1
          do jj = -r, r
            do ii = -r, r
              b(i+1,j+1) = b(i+1,j+1) + w(ii,jj) * a(i+ii+1,j+jj+1)
            end do
          end do
        end do
      end do
    else if (mode == 2) then
      do jt = r, n-r-1, 32
        do it = r, n-r-1, 32
          do j = jt, min(n-r-1, jt+31)
            do i = it, min(n-r-1, it+31)
              do jj = -r, r
                do ii = -r, r
                  b(i+1,j+1) = b(i+1,j+1) + w(ii,jj) * a(i+ii+1,j+jj+1)
                end do
              end do
            end do
          end do
        end do
      end do
    else
      do j = r, n-r-1
        do i = r, n-r-1
          do k = 1, (2*r+1)**2
            b(i+1,j+1) = b(i+1,j+1) + w1(k) * a(i+mod(k-1,2*r+1)-r+1, j+(k-1)/(2*r+1)-r+1)
          end do
        end do
      end do
    end if
  end do
  call cpu_time(t1)
  print '(a,i2,a,f8.3,a,es12.4)', 'mode', mode, ' ns/point-weight', (t1-t0)/(reps*dble(n-2*r)**2*(2*r+1)**2)*1d9, ' ', sum(b)
end program
