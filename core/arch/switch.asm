; Kernel context switch and the first run of a new task.

bits 64
section .text
extern task_first_run, trap_return, kthread_exit

; void context_switch(uint64_t *prev_ksp, uint64_t next_ksp)
; Saves the callee-saved registers on the old stack, stores its rsp in
; *prev_ksp, switches to next_ksp and restores the same registers there.
global context_switch
context_switch:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; Where a new task's first context_switch returns to (see sched.c,
; task_prepare_stack): r12 = kernel function or 0, r13 = its argument.
; With r12 = 0 the task goes to user mode through the trap frame at the
; top of its kernel stack.
global task_trampoline
task_trampoline:
	call task_first_run
	test r12, r12
	jz .to_user
	mov rdi, r13
	call r12
	mov edi, eax
	call kthread_exit
.to_user:
	jmp trap_return

; void jump_to_user(struct trap_frame *f): leave the kernel through f,
; which sits at the top of the current kernel stack.
global jump_to_user
jump_to_user:
	cli
	mov rsp, rdi
	jmp trap_return
