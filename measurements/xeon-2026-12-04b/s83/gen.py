tests = {
 "add x4": ["addsd %xmm15,%xmm0"]*4,
 "mul x4": ["mulsd %xmm14,%xmm0"]*4,
 "max x4": ["maxsd %xmm15,%xmm0"]*4,
 "div x4": ["divsd %xmm14,%xmm0"]*4,
 "add,mul x2": ["addsd %xmm15,%xmm0","mulsd %xmm14,%xmm0"]*2,
 "add,add,mul,mul": ["addsd %xmm15,%xmm0"]*2+["mulsd %xmm14,%xmm0"]*2,
 "add,max x2": ["addsd %xmm15,%xmm0","maxsd %xmm15,%xmm0"]*2,
 "mul,max x2": ["mulsd %xmm14,%xmm0","maxsd %xmm15,%xmm0"]*2,
 "add,div x2": ["addsd %xmm15,%xmm0","divsd %xmm14,%xmm0"]*2,
 "mul,div x2": ["mulsd %xmm14,%xmm0","divsd %xmm14,%xmm0"]*2,
 "orpd x4": ["orpd %xmm15,%xmm0"]*4,
 "mul,orpd x2": ["mulsd %xmm14,%xmm0","orpd %xmm15,%xmm0"]*2,
 "add,orpd x2": ["addsd %xmm15,%xmm0","orpd %xmm15,%xmm0"]*2,
 "add,paddd x2": ["addsd %xmm15,%xmm0","paddq %xmm15,%xmm0"]*2,
 "cvt rt x2": ["cvttsd2si %xmm1,%rax","cvtsi2sd %rax,%xmm1"]*2,
 "cvt rt,add x2": ["cvttsd2si %xmm1,%rax","cvtsi2sd %rax,%xmm1","addsd %xmm15,%xmm1"]*2,
 "cvt rt,mul x2": ["cvttsd2si %xmm1,%rax","cvtsi2sd %rax,%xmm1","mulsd %xmm14,%xmm1"]*2,
 "imul x4": ["imulq %rsi,%rdx"]*4,
}
out=[".text"]
names=list(tests)
for k,n in enumerate(names):
    out += [f".globl t{k}", f"t{k}:", "mov $1,%esi","mov $1,%edx", "movsd one(%rip),%xmm14","xorpd %xmm15,%xmm15","movsd one(%rip),%xmm0","movsd five(%rip),%xmm1", "1:"]
    out += ["\t"+i for i in tests[n]*12]
    out += ["dec %rdi","jnz 1b","ret"]
out += [".section .rodata","one: .double 1.0","five: .double 5.0", '.section .note.GNU-stack,"",@progbits']
open("t.s","w").write("\n".join(out)+"\n")
c=['#include <stdio.h>','#include <time.h>','static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}']
c+=[f'void t{k}(long);' for k in range(len(names))]
c+=['int main(){ long n=2000000; double best[64]; for(int k=0;k<64;k++)best[k]=1e9;',' void (*f[])(long)={'+','.join(f't{k}' for k in range(len(names)))+'};',
 f' for(int rep=0;rep<5;rep++) for(int k=0;k<{len(names)};k++){{ double t0=now(); f[k](n); double t=(now()-t0)/n/12; if(t<best[k])best[k]=t; }}',
 f' double cyc=best[{names.index("imul x4")}]/12;', ' printf("cycle %.4f ns\\n",cyc*1e9);']
c+=[f' printf("%-20s %6.2f cycles\\n","{n}",best[{k}]/cyc);' for k,n in enumerate(names)]
c+=[' return 0;}']
open("t.c","w").write("\n".join(c)+"\n")
