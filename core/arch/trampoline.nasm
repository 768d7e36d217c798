; Application-processor start-up code, assembled as a flat binary for
; physical address 0x8000 (tools: nasm -f bin) and copied there by smp.c.
; A SIPI starts the AP here in real mode; it goes through protected mode
; into long mode with the kernel's page tables (which map this page 1:1
; while CPUs start) and jumps to ap_entry(ticket) on its own stack.
; Every AP runs this at the same time (smp.c starts them together): none
; touches memory but the shared GDT and parameters until it has taken a
; ticket, a number of its own that picks its stack from param_stacks.
; smp.c fills the parameters at the end before the start-up IPIs.

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
	mov edi, 1
	lock xadd [param_ticket], rdi   ; rdi = this AP's ticket
	cmp rdi, [param_nstacks]
	jae no_stack                    ; more APs than smp.c asked for
	mov rax, [param_stacks]         ; a kernel array: stack top per ticket
	mov rsp, [rax + rdi * 8]
	mov rax, [param_entry]
	xor ebp, ebp
	push rbp
	jmp rax

no_stack:
	cli
	hlt
	jmp no_stack

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
param_cr3:    dq 0
param_stacks: dq 0
param_entry:  dq 0
param_ticket: dq 0
param_nstacks: dq 0
