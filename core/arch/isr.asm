; Interrupt and exception entry stubs for all 256 vectors.
; Each stub makes the stack look the same (an error code, real or 0, then
; the vector number), saves the general registers into a struct trap_frame
; (core/arch/trap.h) and calls trap_dispatch(frame). Entries from user mode
; swap GS so the kernel's per-CPU base is active. A #DB from user mode
; may be the software PMU model's own single step: vpmu_step_fast
; (pmu/vpmu/step_fast.c) handles that one and it returns at once.

bits 64
%include "frame.inc"
section .text
extern trap_dispatch, vpmu_step_fast

; Vectors where the CPU pushes an error code itself.
%define HAS_ERROR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

%macro STUB 1
align 16
isr_stub_%1:
%if !HAS_ERROR(%1)
	push 0
%endif
	push %1
	jmp isr_common
%endmacro

%assign v 0
%rep 256
	STUB v
%assign v v+1
%endrep

isr_common:
	; stack: vector, error, rip, cs, rflags, rsp, ss
	test qword [rsp + 24], 3
	jz .kernel_entry
	swapgs
	PUSH_GPRS
	STAMP_TSC PERCPU_USER_ENTRY_TSC
	cmp qword [rsp + 15 * 8], 1 ; #DB (after the stamp: the stub counts hold)
	je .debug_user
	jmp .saved
.debug_user:
	mov rdi, rsp
	cld
	call vpmu_step_fast
	test al, al
	jnz trap_return
	jmp .saved
.kernel_entry:
	PUSH_GPRS
.saved:
	mov rdi, rsp
	cld
	call trap_dispatch
global trap_return
trap_return:
	test qword [rsp + FRAME_CS], 3
	jz .kernel_exit
	STAMP_TSC PERCPU_USER_EXIT_TSC
	POP_GPRS
	swapgs
	add rsp, 16
	iretq
.kernel_exit:
	POP_GPRS
	add rsp, 16
	iretq

; The table of stub addresses, read by trap.c to fill the IDT.
section .rodata
global isr_stubs
align 8
isr_stubs:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v+1
%endrep
