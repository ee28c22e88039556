	.text
	.globl body_chain
body_chain:
	mov $1, %rax
1:	imul %rax, %rax
	dec %rdi
	jnz 1b
	ret
# body_base(a, n, off, trip): n/trip entries of an inner loop of `trip` iterations
	.globl body_base
body_base:
	mov %rcx, %r8
	xorpd %xmm1, %xmm1
	movsd (%rdi), %xmm3
	movsd (%rdi), %xmm4
2:	mov %rdi, %rax
	lea 8192(%rdi), %rdx
	mov %r8, %rcx
	movsd (%rax), %xmm1
1:	movapd	%xmm1, %xmm0
	movsd	8(%rax), %xmm1
	movsd	(%rax), %xmm2
	addq	$8, %rdx
	addsd	%xmm1, %xmm0
	addsd	512(%rax), %xmm0
	mulsd	%xmm3, %xmm2
	addsd	576(%rax), %xmm0
	addsd	640(%rax), %xmm0
	addsd	704(%rax), %xmm0
	addq	$16, %rax
	mulsd	%xmm4, %xmm0
	addsd	%xmm2, %xmm0
	movsd	%xmm0, -8(%rdx)
	subq	$1, %rcx
	jne	1b
	sub %r8, %rsi
	jg 2b
	ret
