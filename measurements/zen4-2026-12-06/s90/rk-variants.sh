# usage: bash rk-variants.sh DIR : writes session 90's variants of the kernels' rkstages.f into DIR
#   rknc.f   derms reads a constant array g (the chain between stages cut)
#   rkn6.f   rknc.f with every rkdot call at the longest stage (6)
#   rkv600.f rkn6.f's work in loops of 600 elements (a hundredth of the outer trips)
K=$(dirname "$0")/../../zen5-2026-11-30/s57/kernels/rkstages.f; D=${1:-.}
sed 's/          call derms(f,h(1,ni),6)/          call derms(g,h(1,ni),6)/; s/      dimension f(6),s(6),h(6,10)/      dimension f(6),s(6),h(6,10),g(6)/; s/        s(j)=f(j)$/        s(j)=f(j)\n        g(j)=f(j)/' "$K" > "$D/rknc.f"
sed 's/          call rkdot(f,s,h,6,ni)/          call rkdot(f,s,h,6,6)/' "$D/rknc.f" > "$D/rkn6.f"
sed 's/dimension f(6),s(6),h(6,10),g(6)/dimension f(600),s(600),h(600,10),g(600)/; s/do j=1,6/do j=1,600/g; s/h(1,ni),6)/h(1,ni),600)/; s/call rkdot(f,s,h,6,6)/call rkdot(f,s,h,600,6)/; s/do it=1,2000000/do it=1,20000/' "$D/rkn6.f" > "$D/rkv600.f"
