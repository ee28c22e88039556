      subroutine touch(c)
      double precision c(5,5)
      integer k, j
      do j = 1, 5
        do k = 1, 5
          c(k,j) = c(k,j)*1.0000001d0
        end do
      end do
      end
