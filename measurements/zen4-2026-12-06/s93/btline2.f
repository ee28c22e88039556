c     block-tridiagonal lines, right-hand sides only: for each line (j,k) and each cell
c     i, r(i) -= A(i) r(i-1), then r(i) := B(i)^-1 r(i) (B upper triangular)
      program btline2
      implicit none
      integer n, nsweep
      parameter (n = 24, nsweep = 300)
      double precision aa(5,5,n,n,n), bb(5,5,n,n,n)
      double precision rhs(5,n,n,n), s
      integer i, j, k, t, m, l
      do k = 1, n
        do j = 1, n
          do i = 1, n
            do m = 1, 5
              do l = 1, 5
                aa(l,m,i,j,k) = -0.01d0
                bb(l,m,i,j,k) = 0.01d0
              end do
              bb(m,m,i,j,k) = 4.0d0 + 0.1d0*m
            end do
          end do
        end do
      end do
      s = 0.0d0
      do t = 1, nsweep
        do k = 1, n
          do j = 1, n
            do i = 1, n
              do m = 1, 5
                rhs(m,i,j,k) = 1.0d0 + 1.0d-3*t
              end do
            end do
            call rsolve(bb(1,1,1,j,k), rhs(1,1,j,k))
            do i = 2, n
              call mvsub(aa(1,1,i,j,k), rhs(1,i-1,j,k), rhs(1,i,j,k))
              call rsolve(bb(1,1,i,j,k), rhs(1,i,j,k))
            end do
          end do
        end do
        s = s + rhs(1,n,n,n)
      end do
      print *, 'checksum', s
      end
