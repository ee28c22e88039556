c     forward elimination of block-tridiagonal lines: for each line (j,k) and each
c     cell i, r(i) -= A(i) r(i-1), B(i) -= A(i) C(i-1), then solve B(i) against C(i), r(i)
      program btline
      implicit none
      integer n, nsweep
      parameter (n = 24, nsweep = 100)
      double precision aa(5,5,n,n,n), bb(5,5,n,n,n), cc(5,5,n,n,n)
      double precision rhs(5,n,n,n), s
      integer i, j, k, t, m, l
      do t = 1, nsweep
        do k = 1, n
          do j = 1, n
            do i = 1, n
              do m = 1, 5
                do l = 1, 5
                  aa(l,m,i,j,k) = -0.01d0
                  cc(l,m,i,j,k) = -0.02d0
                  bb(l,m,i,j,k) = 0.0d0
                end do
                bb(m,m,i,j,k) = 4.0d0 + 0.1d0*m
                rhs(m,i,j,k) = 1.0d0
              end do
            end do
          end do
        end do
        do k = 1, n
          do j = 1, n
            call gjsolve(bb(1,1,1,j,k), cc(1,1,1,j,k), rhs(1,1,j,k))
            do i = 2, n
              call mvsub(aa(1,1,i,j,k), rhs(1,i-1,j,k), rhs(1,i,j,k))
              call mmsub(aa(1,1,i,j,k), cc(1,1,i-1,j,k), bb(1,1,i,j,k))
              call gjsolve(bb(1,1,i,j,k), cc(1,1,i,j,k), rhs(1,i,j,k))
            end do
          end do
        end do
      end do
      s = 0.0d0
      do k = 1, n
        do j = 1, n
          do i = 1, n
            s = s + rhs(1,i,j,k) + rhs(5,i,j,k)
          end do
        end do
      end do
      print *, 'checksum', s
      end
