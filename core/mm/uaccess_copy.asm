; User-memory copies that survive faults. Each instruction that touches
; user memory has an entry in .ex_table (fault address, where to resume);
; the page-fault handler (usermm.c) resumes there when the access cannot
; be satisfied, and these routines report how much was left undone.
; With SMAP on, STAC/CLAC open and close the window (smap_enabled).

bits 64
section .text
extern smap_enabled

%macro UACCESS_BEGIN 0
	cmp byte [rel smap_enabled], 0
	je %%no_smap
	stac
%%no_smap:
%endmacro

%macro UACCESS_END 0
	cmp byte [rel smap_enabled], 0
	je %%no_smap
	clac
%%no_smap:
%endmacro

; uint64_t uaccess_copy(void *dst, const void *src, uint64_t n)
; Returns the number of bytes NOT copied (0 on success).
; Words first (REP MOVSQ: one step per 8 bytes), then the bytes left. A
; fault among the words goes on byte by byte from the word that faulted
; (REP leaves RSI, RDI and RCX at it), so what is reported is exact.
global uaccess_copy
uaccess_copy:
	UACCESS_BEGIN
	mov rcx, rdx
	shr rcx, 3
	and edx, 7
.copy8:
	rep movsq
	mov rcx, rdx
.copy:
	rep movsb
.done:
	UACCESS_END
	mov rax, rcx
	ret
.fault8:
	lea rcx, [rcx * 8 + rdx]
	jmp .copy

; uint64_t uaccess_clear(void *dst, uint64_t n): bytes NOT cleared.
; Words, then bytes, with the same exact report as uaccess_copy.
global uaccess_clear
uaccess_clear:
	UACCESS_BEGIN
	mov rcx, rsi
	shr rcx, 3
	and esi, 7
	xor eax, eax
.store8:
	rep stosq
	mov rcx, rsi
.store:
	rep stosb
.done:
	UACCESS_END
	mov rax, rcx
	ret
.fault8:
	lea rcx, [rcx * 8 + rsi]
	jmp .store

; int64_t uaccess_strncpy(char *dst, const char *src, int64_t max)
; Returns the string length, max when no NUL came within max bytes, or -1
; on a fault.
global uaccess_strncpy
uaccess_strncpy:
	UACCESS_BEGIN
	xor eax, eax
.loop:
	cmp rax, rdx
	jae .out
.load:
	mov cl, [rsi + rax]
	mov [rdi + rax], cl
	test cl, cl
	jz .out
	inc rax
	jmp .loop
.fault:
	mov rax, -1
.out:
	UACCESS_END
	ret

section .ex_table
	dq uaccess_copy.copy8, uaccess_copy.fault8
	dq uaccess_copy.copy, uaccess_copy.done
	dq uaccess_clear.store8, uaccess_clear.fault8
	dq uaccess_clear.store, uaccess_clear.done
	dq uaccess_strncpy.load, uaccess_strncpy.fault
