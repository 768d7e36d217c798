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
global uaccess_copy
uaccess_copy:
	UACCESS_BEGIN
	mov rcx, rdx
.copy:
	rep movsb
.done:
	UACCESS_END
	mov rax, rcx
	ret

; uint64_t uaccess_clear(void *dst, uint64_t n): bytes NOT cleared.
global uaccess_clear
uaccess_clear:
	UACCESS_BEGIN
	mov rcx, rsi
	xor eax, eax
.store:
	rep stosb
.done:
	UACCESS_END
	mov rax, rcx
	ret

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
	dq uaccess_copy.copy, uaccess_copy.done
	dq uaccess_clear.store, uaccess_clear.done
	dq uaccess_strncpy.load, uaccess_strncpy.fault
