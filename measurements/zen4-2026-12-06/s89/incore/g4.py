import sys
body = open(sys.argv[1]).read()
reg = len(sys.argv) > 2 and sys.argv[2] == "reg"
top = ("\tcmpl\t$1000, %ebx\n" if reg else "\tcmpl\t$1000, -4(%rbp)\n")
inc = ("\taddl\t$1, %ebx\n" if reg else ("\tmovl\t-4(%rbp), %r11d\n\taddl\t$1, %r11d\n\tmovl\t%r11d, -4(%rbp)\n" if len(sys.argv)>3 else "\taddl\t$1, -4(%rbp)\n"))
if reg: body = body.replace("movl\t-4(%rbp), %edx", "movl\t%ebx, %edx")
import os
A=os.environ.get("ALIGN","0")
print((r"""
	.file "t.f90"
	.text
	.globl body
	.type body, @function
body:
	.file 1 "t.f90"
	.loc 1 1 0
	pushq %rbp
	movq %rsp, %rbp
	subq $256, %rsp
	pushq %rbx
	movq %rsi, -208(%rbp)
	movq $0, -200(%rbp)
	movq %rdx, -112(%rbp)
	movq $0, -104(%rbp)
	movq $1000, -144(%rbp)
	movq $1000, -48(%rbp)
	movl $1, -12(%rbp)
	movl $1, -8(%rbp)
	movq %rdi, -240(%rbp)
.Louter:
	movl $1, -4(%rbp)
	movl $1, %ebx
	movl $1, -16(%rbp)
	.p2align 6
	.skip ALIGN, 0x90
.L21:
	.loc 1 19 0
""" + top + r"""	setg	%al
	movzbl	%al, %eax
	testl	%eax, %eax
	jne	.L32
""" + body + inc + r"""	.loc 1 18 0
	jmp	.L21
.L32:
	subq $1, -240(%rbp)
	jne .Louter
	popq %rbx
	leave
	ret
	.size body, .-body
	.section .note.GNU-stack,"",@progbits
""").replace("ALIGN", A))
