; The NMI entry (core/arch/nmi.h), on the IST_NMI stack. An NMI can land
; anywhere, between SYSCALL and its SWAPGS or after the way out's SWAPGS
; too, so the CS it interrupted does not say which GS base is loaded.
; As Linux's paranoid entry, read MSR_GS_BASE: the kernel's per-CPU
; areas are in the upper half (negative addresses), a user's GS base in
; the lower one. Swap only if needed, and swap back on the way out. The
; frame is a struct trap_frame, vector 2. Nothing here returns to user
; mode through the scheduler: the NMI goes back where it came from.

bits 64
%include "frame.inc"
section .text
extern nmi_dispatch

%define MSR_GS_BASE 0xc0000101

global nmi_entry
align 16
nmi_entry:
	push 0
	push 2
	PUSH_GPRS
	mov ecx, MSR_GS_BASE
	rdmsr
	xor ebx, ebx            ; rbx survives the call: did we swap?
	test edx, edx
	js .kernel_gs
	swapgs
	mov ebx, 1
.kernel_gs:
	mov rdi, rsp
	cld
	call nmi_dispatch
	test ebx, ebx
	jz .out
	swapgs
.out:
	POP_GPRS
	add rsp, 16
	iretq
