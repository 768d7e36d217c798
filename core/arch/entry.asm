; Kernel entry from the UEFI loader (boot/loader.c).
; In:  long mode, interrupts off, CR3 = loader's tables (identity + direct
;      map + kernel), RDI = virtual address of struct boot_info.
; The loader's stack is not ours: switch to boot_stack before any call.

bits 64
section .text.entry
global _start
extern kmain

_start:
	cli
	cld
	lea rsp, [rel boot_stack_top]
	xor ebp, ebp
	push rbp                ; fake return address ends the backtrace
	push rbp
	mov rbp, rsp
	call kmain
.halt:
	hlt
	jmp .halt

section .bss
align 4096
boot_stack_guard:       ; unmapped by kmain once its tables are up (mm/kstack.h)
	resb 4096
global boot_stack, boot_stack_top
boot_stack:
	resb 32768
boot_stack_top:
