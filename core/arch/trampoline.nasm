; Application-processor start-up code, assembled as a flat binary for
; physical address 0x8000 (tools: nasm -f bin) and copied there by smp.c.
; A SIPI starts the AP here in real mode; it goes through protected mode
; into long mode with the kernel's page tables (which map this page 1:1
; while CPUs start) and jumps to ap_entry(cpu) on its own stack.
; smp.c fills the four parameters at the end before each start.

bits 16
org 0x8000

start16:
	cli
	cld
	xor ax, ax
	mov ds, ax
	mov es, ax
	mov ss, ax
	lgdt [gdt_ptr]
	mov eax, cr0
	or eax, 1               ; PE
	mov cr0, eax
	jmp 0x08:start32

bits 32
start32:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5          ; PAE
	mov cr4, eax
	mov eax, [param_cr3]
	mov cr3, eax
	mov ecx, 0xc0000080     ; MSR_EFER (msr-index.h)
	rdmsr
	or eax, (1 << 8) | (1 << 11)  ; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) ; PG, WP
	mov cr0, eax
	jmp 0x18:start64

bits 64
start64:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [param_stack]
	mov rdi, [param_cpu]
	mov rax, [param_entry]
	xor ebp, ebp
	push rbp
	jmp rax

align 8
gdt:
	dq 0
	dq 0x00cf9a000000ffff   ; 0x08: 32-bit code
	dq 0x00cf92000000ffff   ; 0x10: data
	dq 0x00af9a000000ffff   ; 0x18: 64-bit code
gdt_ptr:
	dw gdt_ptr - gdt - 1
	dd gdt

align 8
; Parameters, at the end of the image (smp.c writes them).
global_params:
param_cr3:   dq 0
param_stack: dq 0
param_entry: dq 0
param_cpu:   dq 0
