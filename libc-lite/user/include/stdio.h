/*
 * stdio.h for user programs: libc-lite/include/stdio.h (vformat,
 * snprintf...) plus output streams (libc-lite/user/stdio.c).
 *
 * Why a second header: the kernel and the host unit tests include
 * libc-lite/include/stdio.h too, the unit tests next to glibc's, so
 * FILE, stdout and printf must not be declared there. User programs put
 * libc-lite/user/include first on the include path (USER_CFLAGS in
 * apps/apps.mk); #include_next reaches the shared header.
 *
 * stdout is line buffered (flushed at each newline), stderr unbuffered
 * (each call is written whole at its end); fflush(NULL) and exit() flush
 * both. There is no input side: read fd 0 with read(2). Write errors set
 * the stream's error flag and make the call return EOF (or -1).
 */
#ifndef LIBC_LITE_USER_STDIO_H
#define LIBC_LITE_USER_STDIO_H

#include_next <stdio.h>

typedef struct file FILE;
extern FILE *stdin, *stdout, *stderr;

#define EOF (-1)
#define BUFSIZ 1024
#define _IOFBF 0
#define _IOLBF 1
#define _IONBF 2

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
int fprintf(FILE *restrict f, const char *restrict fmt, ...)
	__attribute__((format(printf, 2, 3)));
int vprintf(const char *restrict fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));
int printf(const char *restrict fmt, ...)
	__attribute__((format(printf, 1, 2)));
int vdprintf(int fd, const char *restrict fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
int dprintf(int fd, const char *restrict fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* No bound on the output: prefer snprintf. */
int vsprintf(char *restrict buf, const char *restrict fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
int sprintf(char *restrict buf, const char *restrict fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fputc(int c, FILE *f);
int putc(int c, FILE *f);
int putchar(int c);
int fputs(const char *restrict s, FILE *restrict f);
int puts(const char *s);            /* s and a newline */
size_t fwrite(const void *restrict p, size_t size, size_t n,
              FILE *restrict f);
int fflush(FILE *f);                /* NULL: every stream */
/* Only the mode is used (buf and size are ignored). */
int setvbuf(FILE *restrict f, char *restrict buf, int mode, size_t size);
int ferror(FILE *f);
void clearerr(FILE *f);
int fileno(FILE *f);
/* "s: strerror(errno)\n" on stderr ("strerror(errno)\n" if s is NULL or ""). */
void perror(const char *s);

#endif
