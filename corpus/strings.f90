!=====================================================================
! strings.f90 - Character handling: builds sentences from a word
! list with an own LCG, then counts vowels, reverses words, tests
! palindromes, converts case, and does a Caesar cipher round trip
! and a tiny run-length encoding, all with SELECT CASE on characters.
! Exercises: character(len=*) dummies, substrings, len/len_trim/trim,
!   adjustl, index, iachar/achar, concatenation, SELECT CASE with
!   character ranges, character functions returning fixed length,
!   internal procedures (CONTAINS in the main program).
! Runtime class: branchy, integer/character.
!=====================================================================
program strings
  implicit none
  character(len=8), parameter :: words(12) = [character(len=8) :: &
       'level', 'fortran', 'radar', 'kernel', 'abba', 'stencil', &
       'noon', 'matrix', 'rotor', 'vector', 'civic', 'loop']
  integer, parameter :: nsent = 180000, wps = 9
  character(len=120) :: line, rev, enc, dec
  character(len=240) :: rle
  integer :: s, k, w, nv, npal, nup, chk, i, lrle
  integer :: seed

  seed = 2024
  nv = 0; npal = 0; nup = 0; chk = 0
  do s = 1, nsent
    line = ''
    do k = 1, wps
      seed = mod(seed * 75 + 74, 65537)
      w = mod(seed, 12) + 1
      if (k == 1) then
        line = trim(words(w))
      else
        line = trim(line) // ' ' // trim(words(w))
      end if
      if (is_pal(trim(words(w)))) npal = npal + 1
    end do
    nv = nv + count_vowels(line)
    call upcase(line)
    do i = 1, len_trim(line)
      if (line(i:i) >= 'A' .and. line(i:i) <= 'Z') nup = nup + 1
    end do
    rev = reverse(line)
    enc = caesar(rev, 3)
    dec = caesar(enc, 23)
    if (dec /= rev) chk = chk + 1000000
    call runlength(line, rle, lrle)
    chk = mod(chk + lrle * 7 + iachar(enc(1:1)) + index(line, 'OO'), 1000000)
  end do
  print '(a,i9,a,i9,a,i9,a,i8)', ' STRINGS vowels=', nv, ' pal=', npal, ' upper=', nup, ' chk=', chk
  print '(a,a)', ' STRINGS last=', trim(adjustl(line(1:60)))
contains
  integer function count_vowels(t)
    character(len=*), intent(in) :: t
    integer :: i
    count_vowels = 0
    do i = 1, len_trim(t)
      select case (t(i:i))
      case ('a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U')
        count_vowels = count_vowels + 1
      case default
      end select
    end do
  end function count_vowels

  logical function is_pal(t)
    character(len=*), intent(in) :: t
    integer :: i, n
    n = len(t)
    is_pal = .true.
    do i = 1, n / 2
      if (t(i:i) /= t(n+1-i:n+1-i)) then
        is_pal = .false.
        return
      end if
    end do
  end function is_pal

  subroutine upcase(t)
    character(len=*), intent(inout) :: t
    integer :: i
    do i = 1, len_trim(t)
      select case (t(i:i))
      case ('a':'z')
        t(i:i) = achar(iachar(t(i:i)) - 32)
      end select
    end do
  end subroutine upcase

  function reverse(t) result(r)
    character(len=*), intent(in) :: t
    character(len=len(t)) :: r
    integer :: i, n
    n = len_trim(t)
    r = ' '
    do i = 1, n
      r(i:i) = t(n+1-i:n+1-i)
    end do
  end function reverse

  function caesar(t, shift) result(r)
    character(len=*), intent(in) :: t
    integer, intent(in) :: shift
    character(len=len(t)) :: r
    integer :: i, c
    r = t
    do i = 1, len_trim(t)
      c = iachar(t(i:i))
      select case (c)
      case (65:90)
        r(i:i) = achar(65 + mod(c - 65 + shift, 26))
      case (97:122)
        r(i:i) = achar(97 + mod(c - 97 + shift, 26))
      case default
        r(i:i) = t(i:i)
      end select
    end do
  end function caesar

  subroutine runlength(t, out, lout)
    character(len=*), intent(in) :: t
    character(len=*), intent(out) :: out
    integer, intent(out) :: lout
    integer :: i, run, n
    character(len=4) :: num
    out = ''
    lout = 0
    n = len_trim(t)
    i = 1
    do while (i <= n)
      run = 1
      do while (i + run <= n)
        if (t(i+run:i+run) /= t(i:i)) exit
        run = run + 1
      end do
      num = itoa(run)
      out(lout+1:) = t(i:i) // trim(num)
      lout = lout + 1 + len_trim(num)
      i = i + run
    end do
  end subroutine runlength

  function itoa(v) result(r)
    integer, intent(in) :: v
    character(len=4) :: r
    integer :: x, p
    character(len=4) :: tmp
    x = v
    p = 4
    tmp = ' '
    do
      tmp(p:p) = achar(48 + mod(x, 10))
      x = x / 10
      p = p - 1
      if (x == 0 .or. p == 0) exit
    end do
    r = adjustl(tmp)
  end function itoa
end program strings
