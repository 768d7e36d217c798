; SYSCALL entry. The CPU arrives here from user mode with RCX = return
; RIP, R11 = RFLAGS, interrupts masked (IA32_FMASK) and the user's RSP and
; GS. We switch to the task's kernel stack (percpu.kernel_rsp), build a
; struct trap_frame exactly like isr.asm's (vector = SYSCALL_VECTOR, error
; slot = the original RAX) and leave through trap_return (IRETQ), which
; also serves signal delivery and execve changing every register.

bits 64
%include "frame.inc"
section .text
extern syscall_dispatch, trap_return

%define PERCPU_KERNEL_RSP 16
%define PERCPU_USER_RSP 24
%define USER_DS 0x1b
%define USER_CS 0x23
%define SYSCALL_VECTOR 0x100

global syscall_entry
syscall_entry:
	swapgs
	mov [gs:PERCPU_USER_RSP], rsp
	mov rsp, [gs:PERCPU_KERNEL_RSP]
	push USER_DS
	push qword [gs:PERCPU_USER_RSP]
	push r11
	push USER_CS
	push rcx
	push rax                ; error slot: the system call number
	push SYSCALL_VECTOR
	PUSH_GPRS
	STAMP_TSC PERCPU_USER_ENTRY_TSC
	mov rdi, rsp
	xor ebp, ebp
	call syscall_dispatch
	jmp trap_return
