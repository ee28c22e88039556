"""timed.py KERNEL: session 57's restrict3d.f90 with each of its two nests timed
(system_clock around each, summed over the cycles), printed to stdout."""
import sys
s = open(sys.argv[1]).read()
s = s.replace("integer :: i, j, k, t", "integer :: i, j, k, t\n  integer(8) :: c0,c1,c2,rate\n  real(8) :: t1=0,t2=0")
s = s.replace("  do t = 1, cycles\n    do k = 1, m", "  do t = 1, cycles\n    call system_clock(c0,rate)\n    do k = 1, m", 1)
s = s.replace("    end do\n    do k = 1, m", "    end do\n    call system_clock(c1)\n    do k = 1, m", 1)
s = s.replace("    end do\n  end do\n  print", "    end do\n    call system_clock(c2)\n    t1=t1+real(c1-c0,8)/rate; t2=t2+real(c2-c1,8)/rate\n  end do\n  print *, 'nest1',t1,'nest2',t2\n  print")
sys.stdout.write(s)
