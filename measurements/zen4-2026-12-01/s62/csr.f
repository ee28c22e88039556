      program csrmv
      implicit none
      integer m, n, nz
      parameter (m = 400, n = m*m, nz = 5*n)
      integer rowptr(n+1), col(nz)
      double precision val(nz), x(n), y(n), s
      integer i, j, k, r, it
      k = 0
      do j = 1, m
        do i = 1, m
          r = i + (j-1)*m
          rowptr(r) = k + 1
          if (j .gt. 1) then
            k = k + 1
            col(k) = r - m
            val(k) = -1.0d0
          end if
          if (i .gt. 1) then
            k = k + 1
            col(k) = r - 1
            val(k) = -1.0d0
          end if
          k = k + 1
          col(k) = r
          val(k) = 4.01d0
          if (i .lt. m) then
            k = k + 1
            col(k) = r + 1
            val(k) = -1.0d0
          end if
          if (j .lt. m) then
            k = k + 1
            col(k) = r + m
            val(k) = -1.0d0
          end if
        end do
      end do
      rowptr(n+1) = k + 1
      do i = 1, n
        x(i) = 1.0d0 + 1.0d-3*mod(i, 7)
      end do
      do it = 1, 300
        do r = 1, n
          s = 0.0d0
          do k = rowptr(r), rowptr(r+1) - 1
            s = s + val(k)*x(col(k))
          end do
          y(r) = s
        end do
        do i = 1, n
          x(i) = 0.25d0*y(i) + 1.0d-3
        end do
      end do
      print *, x(1), x(n/2)
      end
