c     block-tridiagonal lines: for each line (j,k) and cell i, B(i) -= A(i) C(i-1),
c     r(i) -= A(i) r(i-1), then C(i) := B(i)^-1 C(i), r(i) := B(i)^-1 r(i)
      program gjline
      implicit none
      integer n, nsweep
      parameter (n = 8, nsweep = 2400)
      double precision aa(5,5,n,n,n), bb(5,5,n,n,n), cc(5,5,n,n,n)
      double precision rhs(5,n,n,n), s
      integer i, j, k, t, m, l
      s = 0.0d0
      do t = 1, nsweep
        do k = 1, n
          do j = 1, n
            do i = 1, n
              do m = 1, 5
                do l = 1, 5
                  aa(l,m,i,j,k) = -0.01d0
                  bb(l,m,i,j,k) = 0.01d0
                  cc(l,m,i,j,k) = -0.01d0
                end do
                bb(m,m,i,j,k) = 4.0d0 + 0.1d0*m
                rhs(m,i,j,k) = 1.0d0 + 1.0d-3*t
              end do
            end do
          end do
        end do
        do k = 1, n
          do j = 1, n
            call gjsolve(bb(1,1,1,j,k), cc(1,1,1,j,k), rhs(1,1,j,k))
            do i = 2, n
              call mmsub(aa(1,1,i,j,k), cc(1,1,i-1,j,k), bb(1,1,i,j,k))
              call mvsub(aa(1,1,i,j,k), rhs(1,i-1,j,k), rhs(1,i,j,k))
              call gjsolve(bb(1,1,i,j,k), cc(1,1,i,j,k), rhs(1,i,j,k))
            end do
          end do
        end do
        s = s + rhs(1,n,n,n)
      end do
      print *, 'checksum', s
      end
