; SYSCALL entry. The CPU arrives here from user mode with RCX = return
; RIP, R11 = RFLAGS, interrupts masked (IA32_FMASK) and the user's RSP and
; GS. We switch to the task's kernel stack (percpu.kernel_rsp).
;
; Two ways through:
;
; After the checks below, one indirect jump through syscall_path[nr]
; (proc/syscall.c fills it at boot) picks the way for the call: the
; quick, fast, lean or full path.
;
; The quick path, for a quick handler (syscall_quick[nr], proc/syscall.h):
; a C function that saves every register it uses itself
; (no_caller_saved_registers), so the entry calls it with the user's
; registers as they are and saves nothing more. It returns the call's
; value (never negative) or SYSCALL_QUICK_DECLINE(nr) (~nr, negative)
; having changed nothing: the call then goes the lean way (if nr has a
; lean handler) or the full way, with RAX = nr again.
;
; The lean path, for a fast call (syscall_fast[nr], proc/syscall.h's
; SYSCALL_DEFINE0_FAST) when nothing asks for the full one: save RCX,
; R11 and the argument registers the C handler may clobber (the
; callee-saved ones stay in their registers), call the handler, restore,
; SYSRET. Interrupts stay off throughout, so nothing can become pending
; for this CPU's return to user mode meanwhile (a signal's or wake-up's
; IPI is taken right after SYSRET, in user mode, and handled there), and
; nothing but an NMI sees the task inside: an NMI finds the GS base from
; the MSR (nmi_entry.asm) and the task's frame as its last full entry
; left it. No RIP check: RCX is the address after this SYSCALL, in a
; user page, so canonical (mm/uaccess.h's USER_TOP is below 2^47 - 4096).
; A lean handler (syscall_lean[nr], proc/syscall.h) takes the same path
; with the call's arguments, and may decline (SYSCALL_LEAN_DECLINE,
; having changed nothing): the registers are restored and the call
; goes the full way.
; The full path is taken instead while: the vpmu counts on this CPU (it
; must see every boundary; checked first, so the instructions before
; the full path's entry stamp are always the same 34, pmu/vpmu/icount.c),
; the trap flag is set (single-stepping: IRETQ's semantics), the task is
; traced with PTRACE_SYSCALL or has TASK_WORK_* bits, or a raw_syscalls
; tracepoint listens.
;
; The full path builds a struct trap_frame exactly like isr.asm's (vector
; = SYSCALL_VECTOR, error slot = the original RAX) and calls
; syscall_dispatch; that returns true when nothing is pending for the
; return to user mode and SYSRET restores the frame exactly (its RCX and
; R11 equal its RIP and RFLAGS, the RIP is a safe user address): then
; SYSRET, else trap_return (IRETQ), which also serves signal delivery and
; execve changing every register. Interrupts stay off from
; syscall_dispatch's return to SYSRET.

bits 64
%include "frame.inc"
%include "asm_offsets.inc"   ; TASK_WORK, TASK_PT_FLAGS (asm_offsets.c)
section .text
extern syscall_dispatch, trap_return, syscall_fast, syscall_lean, syscall_quick, syscall_path
extern vpmu_counting, tp_active
global syscall_path_quick, syscall_path_fast, syscall_path_lean, syscall_path_full

%define PERCPU_RUNNING 8
%define PERCPU_KERNEL_RSP 16
%define PERCPU_USER_RSP 24
%define PERCPU_ID 32
%define PT_SYSCALL 2
%define TP_SYS_ENTER 5          ; and TP_SYS_EXIT next to it
%define RFLAGS_TF (1 << 8)
%define MAX_SYSCALL 512
%define SYSCALL_LEAN_DECLINE -515  ; -ENOIOCTLCMD
%define USER_DS 0x1b
%define USER_CS 0x23
%define SYSCALL_VECTOR 0x100
; The user RSP in a frame after POP_GPRS: vector, error, rip, cs, rflags, rsp.
%define FRAME_TAIL_RSP (5 * 8)
; (syscall.c asserts the offsets and numbers above.)

global syscall_entry
syscall_entry:
	swapgs
	mov [gs:PERCPU_USER_RSP], rsp
	mov rsp, [gs:PERCPU_KERNEL_RSP]
	push r11                ; scratch registers for the checks
	push rcx
	mov ecx, [gs:PERCPU_ID]
	cmp byte [vpmu_counting + rcx], 0
	jne syscall_path_full
	test r11d, RFLAGS_TF
	jnz syscall_path_full
	cmp rax, MAX_SYSCALL
	jae syscall_path_full
	mov r11, [gs:PERCPU_RUNNING]
	test byte [r11 + TASK_PT_FLAGS], PT_SYSCALL
	jnz syscall_path_full
	cmp qword [r11 + TASK_WORK], 0
	jne syscall_path_full
	cmp qword [tp_active + TP_SYS_ENTER * 4], 0
	jne syscall_path_full
	jmp [syscall_path + rax * 8]

; The quick path: RSP is 16-aligned at the call (kernel_rsp is, 2 pushes).
syscall_path_quick:
	call [syscall_quick + rax * 8]
	test rax, rax
	js .quick_declined
	pop rcx
	pop r11
	mov rsp, [gs:PERCPU_USER_RSP]
	swapgs
	o64 sysret
.quick_declined:                ; ~nr: the lean or the full way
	not rax
	jmp syscall_path_lean

syscall_path_fast:
	mov r11, [syscall_fast + rax * 8]
	; A fast call: RSP is 16-aligned here (kernel_rsp is, 8 pushes).
	push rdi
	push rsi
	push rdx
	push r10
	push r8
	push r9
	call r11
	pop r9
	pop r8
	pop r10
	pop rdx
	pop rsi
	pop rdi
	pop rcx
	pop r11
	mov rsp, [gs:PERCPU_USER_RSP]
	swapgs
	o64 sysret

; A lean handler (syscall_lean[nr]) with the call's six arguments; RAX
; is saved too, for the full path when the handler declines. Ten pushes
; in all: RSP is 16-aligned at the call.
syscall_path_lean:
	mov r11, [syscall_lean + rax * 8]
	test r11, r11
	jz syscall_path_full
	push rdi
	push rsi
	push rdx
	push r10
	push r8
	push r9
	push rax
	push rax                ; alignment
	mov rcx, r10            ; the fourth argument, in the C convention
	call r11
	cmp rax, SYSCALL_LEAN_DECLINE
	je .declined
	add rsp, 16
	pop r9
	pop r8
	pop r10
	pop rdx
	pop rsi
	pop rdi
	pop rcx
	pop r11
	mov rsp, [gs:PERCPU_USER_RSP]
	swapgs
	o64 sysret
.declined:                      ; nothing changed: the full path
	pop rax
	pop rax
	pop r9
	pop r8
	pop r10
	pop rdx
	pop rsi
	pop rdi

syscall_path_full:
	pop rcx
	pop r11
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
