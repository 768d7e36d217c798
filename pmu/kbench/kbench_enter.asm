; kbench_enter: call a benchmark function in ring 0 so that a fault inside
; it can resume here (pmu/kbench/kbench.c).
;
;   uint64_t kbench_enter(void (*fn)(void), uint64_t *saved_rsp)
;
; Saves the flags and the callee-saved registers, stores rsp in
; *saved_rsp and calls fn: returns 0 when fn returns. The fault handler
; resumes at kbench_recover with rsp = *saved_rsp, which unwinds the same
; frame and returns 1. fn itself keeps the callee-saved registers (the
; generated code's prologue), but a fault leaves them anywhere.

bits 64
section .text
global kbench_enter, kbench_recover

kbench_enter:
	pushfq
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	mov [rsi], rsp
	call rdi
	xor eax, eax
.unwind:
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	popfq
	ret

kbench_recover:
	mov eax, 1
	jmp kbench_enter.unwind
