c     5x5 block operations of a block-tridiagonal line solve, each in its own
c     routine (external, so the compiler does not inline them into the sweep)
      subroutine mvsub(a, v, r)
      implicit none
      double precision a(5,5), v(5), r(5)
      integer i, j
      do j = 1, 5
        do i = 1, 5
          r(i) = r(i) - a(i,j)*v(j)
        end do
      end do
      end

      subroutine mmsub(a, b, c)
      implicit none
      double precision a(5,5), b(5,5), c(5,5)
      integer i, j, k
      do j = 1, 5
        do k = 1, 5
          do i = 1, 5
            c(i,j) = c(i,j) - a(i,k)*b(k,j)
          end do
        end do
      end do
      end

      subroutine gjsolve(b, c, r)
c     b := I, c := b^-1 c, r := b^-1 r by Gauss-Jordan without pivoting
      implicit none
      double precision b(5,5), c(5,5), r(5), p, f
      integer i, j, k
      do k = 1, 5
        p = 1.0d0/b(k,k)
        do j = k+1, 5
          b(k,j) = b(k,j)*p
        end do
        do j = 1, 5
          c(k,j) = c(k,j)*p
        end do
        r(k) = r(k)*p
        do i = 1, 5
          if (i .ne. k) then
            f = b(i,k)
            do j = k+1, 5
              b(i,j) = b(i,j) - f*b(k,j)
            end do
            do j = 1, 5
              c(i,j) = c(i,j) - f*c(k,j)
            end do
            r(i) = r(i) - f*r(k)
          end if
        end do
      end do
      end
