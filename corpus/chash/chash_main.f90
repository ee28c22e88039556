!=====================================================================
! chash/ - multi-file program mixing Fortran and C.
! Files (compile order): timer.c (gcc -c), hashmod.f90 (module),
! chash_main.f90 (this main program).
! Computes: word-frequency style counting of 800k integer keys drawn
! from a skewed distribution into a chained hash table whose hash
! function is the C routine augur_mix32, then look-ups and a
! frequency summary. The C timer is called but its value is only
! checked for monotonicity, never printed.
! Exercises: calls into C through bind(C) interfaces (value args),
!   module arrays (global data), linked-list traversal via DO WHILE,
!   iand, integer LCG, maxval/sum/count.
! Runtime class: call-bound, integer, irregular memory.
!=====================================================================
program chash_main
  use hashmod
  implicit none
  integer, parameter :: nins = 800000, nlook = 800000, nrep = 10
  integer :: i, k, rep, seed, found, chk
  real(8) :: t0, t1
  logical :: clock_ok

  t0 = augur_wtime()
  chk = 0
  found = 0
  do rep = 1, nrep
    call table_reset()
    seed = 1234 + rep
    do i = 1, nins
      seed = int(mod(int(seed, 8) * 48271_8, 2147483647_8))
      ! skewed: small keys are much more frequent
      k = mod(seed, 1000 + mod(seed / 7, 200000))
      call add(k)
    end do
    do i = 1, nlook
      k = mod(i * 37, 250000)
      if (lookup(k) > 0) found = found + 1
    end do
    chk = mod(chk + nent * 3 + maxval(cnt(1:nent)) + sum(cnt(1:nent:97)), 1000000007)
  end do
  t1 = augur_wtime()
  clock_ok = t1 >= t0
  print '(a,i8,a,i9,a,i10,a,l2)', ' CHASH entries=', nent, ' found=', found, ' chk=', chk, ' clock_ok=', clock_ok
end program chash_main
