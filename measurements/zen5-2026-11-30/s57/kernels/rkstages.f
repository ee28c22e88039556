c     short loops of a Runge-Kutta step: each call's loop of nvec iterations
c     feeds the next call (mineos's rkdot kind)
      program rkstages
      implicit real*8(a-h,o-z)
      common/shanks/b(46)
      dimension f(6),s(6),h(6,10)
      do i=1,46
        b(i)=1.d0/dble(i+3)
      enddo
      do j=1,6
        f(j)=1.d0+0.01d0*j
        s(j)=f(j)
      enddo
      do it=1,2000000
        do ni=1,6
          call derms(f,h(1,ni),6)
          call rkdot(f,s,h,6,ni)
        enddo
        do j=1,6
          s(j)=f(j)*0.999999d0
        enddo
      enddo
      print *, f(1), s(6)
      end

      subroutine derms(f,hh,n)
      implicit real*8(a-h,o-z)
      dimension f(n),hh(n)
      do j=1,n
        hh(j)=0.5d0*f(j)-0.25d0
      enddo
      end

      subroutine rkdot(f,s,h,nvec,ni)
      implicit real*8(a-h,o-z)
      common/shanks/b(46)
      dimension s(*),f(*),h(nvec,*)
      goto (1,2,3,4,5,6),ni
    1 do 21 j=1,nvec
   21 f(j)=s(j)+b(1)*h(j,1)
      return
    2 do 22 j=1,nvec
   22 f(j)=s(j)+b(2)*(h(j,1)+b(3)*h(j,2))
      return
    3 do 23 j=1,nvec
   23 f(j)=s(j)+b(4)*(h(j,1)+b(5)*h(j,2)+b(6)*h(j,3))
      return
    4 do 24 j=1,nvec
   24 f(j)=s(j)+b(7)*(h(j,1)+b(8)*h(j,2)+b(9)*h(j,3)+b(10)*h(j,4))
      return
    5 do 25 j=1,nvec
   25 f(j)=s(j)+b(11)*(h(j,1)+b(12)*h(j,2)+b(13)*h(j,3)+b(14)*h(j,4)+
     +b(15)*h(j,5))
      return
    6 do 26 j=1,nvec
   26 f(j)=s(j)+b(16)*(h(j,1)+b(17)*h(j,2)+b(18)*h(j,3)+b(19)*h(j,4)+
     +b(20)*h(j,5)+b(21)*h(j,6))
      return
      end
