c     the block operations written out statement by statement, as codes of the 1990s do
      subroutine mvsub(a, v, r)
      implicit none
      double precision a(5,5), v(5), r(5)
      r(1) = r(1) - a(1,1)*v(1) - a(1,2)*v(2) - a(1,3)*v(3)
     >            - a(1,4)*v(4) - a(1,5)*v(5)
      r(2) = r(2) - a(2,1)*v(1) - a(2,2)*v(2) - a(2,3)*v(3)
     >            - a(2,4)*v(4) - a(2,5)*v(5)
      r(3) = r(3) - a(3,1)*v(1) - a(3,2)*v(2) - a(3,3)*v(3)
     >            - a(3,4)*v(4) - a(3,5)*v(5)
      r(4) = r(4) - a(4,1)*v(1) - a(4,2)*v(2) - a(4,3)*v(3)
     >            - a(4,4)*v(4) - a(4,5)*v(5)
      r(5) = r(5) - a(5,1)*v(1) - a(5,2)*v(2) - a(5,3)*v(3)
     >            - a(5,4)*v(4) - a(5,5)*v(5)
      end

      subroutine rsolve(b, r)
c     r := b^-1 r, b upper triangular after elimination: back substitution written out
      implicit none
      double precision b(5,5), r(5)
      r(5) = r(5)/b(5,5)
      r(4) = (r(4) - b(4,5)*r(5))/b(4,4)
      r(3) = (r(3) - b(3,4)*r(4) - b(3,5)*r(5))/b(3,3)
      r(2) = (r(2) - b(2,3)*r(3) - b(2,4)*r(4) - b(2,5)*r(5))/b(2,2)
      r(1) = (r(1) - b(1,2)*r(2) - b(1,3)*r(3) - b(1,4)*r(4)
     >        - b(1,5)*r(5))/b(1,1)
      end
