; SYSCALL entry. The CPU arrives here from user mode with RCX = return
; RIP, R11 = RFLAGS, interrupts masked (IA32_FMASK) and the user's RSP and
; GS. We switch to the task's kernel stack (percpu.kernel_rsp) and build a
; struct trap_frame exactly like isr.asm's (vector = SYSCALL_VECTOR, error
; slot = the original RAX).
;
; The way out: syscall_dispatch returns true when nothing is pending for
; the return to user mode and SYSRET restores the frame exactly (its RCX
; and R11 equal its RIP and RFLAGS, the RIP is a safe user address):
; then SYSRET, else trap_return (IRETQ), which also serves signal
; delivery and execve changing every register. Interrupts stay off from
; syscall_dispatch's return to SYSRET.

bits 64
%include "frame.inc"
section .text
extern syscall_dispatch, trap_return

%define PERCPU_KERNEL_RSP 16
%define PERCPU_USER_RSP 24
%define USER_DS 0x1b
%define USER_CS 0x23
%define SYSCALL_VECTOR 0x100
; The user RSP in a frame after POP_GPRS: vector, error, rip, cs, rflags, rsp.
%define FRAME_TAIL_RSP (5 * 8)

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
	test al, al
	jz trap_return
	; SYSRET: RCX and R11 in the frame are the return RIP and RFLAGS.
	STAMP_TSC PERCPU_USER_EXIT_TSC
	POP_GPRS
	mov rsp, [rsp + FRAME_TAIL_RSP]
	swapgs
	o64 sysret
