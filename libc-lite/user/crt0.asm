; crt0.asm: the entry point of a libc-lite program.
;
; Linux starts a static x86-64 program at _start with rsp pointing at
;   argc, argv[0..argc-1], NULL, envp[0..], NULL, auxv pairs, AT_NULL
; (System V AMD64 ABI, section 3.4.1). rsp is 16-byte aligned there, but
; we align it again rather than trust it. rdx may hold a function for
; atexit (a dynamic linker's); a static program gets 0 and ignores it.
;
; __libc_start(argc, argv, envp) never returns: it calls main and exit.

	bits 64
	default rel
	global _start
	extern __libc_start

	section .text
_start:
	xor ebp, ebp			; outermost frame: backtraces stop here
	mov rdi, [rsp]			; argc
	lea rsi, [rsp + 8]		; argv
	lea rdx, [rsi + rdi * 8 + 8]	; envp: past argv's NULL
	and rsp, -16			; the ABI's alignment at a call
	call __libc_start
	ud2				; not reached

	section .note.GNU-stack noalloc noexec nowrite progbits
