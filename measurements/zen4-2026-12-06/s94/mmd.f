      program mmd
      implicit none
      double precision a(5,5), c(5,5), b(5,5,64), s
      integer t, i, mode
      character*8 arg
      call getarg(1, arg)
      read(arg,*) mode
      a = 0.001d0
      c = 0.002d0
      b = 1.0d0
      do t = 1, 2000000
        i = iand(t, 63) + 1
        if (mode .eq. 1) call touch(c)
        if (mode .eq. 2) call touch(b(1,1,i))
        call mmsub(a, c, b(1,1,i))
      end do
      s = sum(b)
      print *, s
      end
