/*
 * stdio.c: output streams on top of vformat (libc-lite/format.c).
 *
 * A stream collects bytes in buf and writes them to its descriptor when
 * the buffer fills, and at the end of each call according to its mode:
 * _IONBF always (so one printf is one write whenever it fits), _IOLBF when
 * the call wrote a newline, _IOFBF never. stdout is _IOLBF, stderr _IONBF.
 *
 * Invariant between calls: len < BUFSIZ, and len == 0 for _IONBF.
 * Before fork(), call fflush(NULL), or the child inherits unwritten bytes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sys.h"

struct file {
	int fd;
	int mode;        /* _IOFBF, _IOLBF or _IONBF */
	int error;       /* a write failed (sticky until clearerr) */
	int failed;      /* a write failed during this call */
	int newline;     /* this call wrote a '\n' */
	size_t len;      /* bytes waiting in buf */
	char buf[BUFSIZ];
};

static struct file std[3] = {
	{ .fd = 0, .mode = _IOLBF },
	{ .fd = 1, .mode = _IOLBF },
	{ .fd = 2, .mode = _IONBF },
};
FILE *stdin = &std[0], *stdout = &std[1], *stderr = &std[2];

/* Write all of p[0..n) to fd, retrying short writes and EINTR. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int flush(FILE *f)
{
	int r = write_all(f->fd, f->buf, f->len);

	f->len = 0;
	if (r < 0)
		f->error = f->failed = 1;
	return r;
}

/* The fmt_sink for vformat, and the path of every other output call. */
static void put(void *ctx, const char *s, size_t n)
{
	FILE *f = ctx;

	if (memchr(s, '\n', n))
		f->newline = 1;
	while (n > 0) {
		size_t k = BUFSIZ - f->len < n ? BUFSIZ - f->len : n;
		memcpy(f->buf + f->len, s, k);
		f->len += k;
		s += k;
		n -= k;
		if (f->len == BUFSIZ)
			flush(f);
	}
}

/* Start of an output call. */
static void begin(FILE *f)
{
	f->newline = 0;
	f->failed = 0;
}

/* End of an output call: flush as the mode says; -1 if a write failed. */
static int end(FILE *f)
{
	if (f->mode == _IONBF || (f->mode == _IOLBF && f->newline))
		flush(f);
	return f->failed ? -1 : 0;
}

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	int n;

	begin(f);
	n = vformat(put, f, fmt, ap);
	return end(f) < 0 ? -1 : n;
}

int fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *restrict fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int printf(const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

/* A temporary unbuffered stream on fd. */
int vdprintf(int fd, const char *restrict fmt, va_list ap)
{
	struct file f = { .fd = fd, .mode = _IONBF };

	return vfprintf(&f, fmt, ap);
}

int dprintf(int fd, const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

int vsprintf(char *restrict buf, const char *restrict fmt, va_list ap)
{
	return vsnprintf(buf, (size_t)INT_MAX + 1, fmt, ap);
}

int sprintf(char *restrict buf, const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsprintf(buf, fmt, ap);
	va_end(ap);
	return n;
}

size_t fwrite(const void *restrict p, size_t size, size_t n, FILE *restrict f)
{
	size_t total;

	if (__builtin_mul_overflow(size, n, &total) || total == 0)
		return 0;
	begin(f);
	put(f, p, total);
	return end(f) < 0 ? 0 : n;
}

int fputs(const char *restrict s, FILE *restrict f)
{
	size_t n = strlen(s);

	if (n == 0)
		return 0;
	return fwrite(s, 1, n, f) == n ? 0 : EOF;
}

int puts(const char *s)
{
	begin(stdout);
	put(stdout, s, strlen(s));
	put(stdout, "\n", 1);
	return end(stdout) < 0 ? EOF : 0;
}

int fputc(int c, FILE *f)
{
	unsigned char ch = (unsigned char)c;

	return fwrite(&ch, 1, 1, f) == 1 ? ch : EOF;
}

int putc(int c, FILE *f)
{
	return fputc(c, f);
}

int putchar(int c)
{
	return fputc(c, stdout);
}

int fflush(FILE *f)
{
	if (f == NULL) {
		int r = 0;
		for (int i = 0; i < 3; i++)
			r |= fflush(&std[i]);
		return r;
	}
	return f->len > 0 && flush(f) < 0 ? EOF : 0;
}

void __stdio_flush_all(void)
{
	fflush(NULL);
}

/* Only the mode is used; the stream keeps its own buffer. */
int setvbuf(FILE *restrict f, char *restrict buf, int mode, size_t size)
{
	(void)buf;
	(void)size;
	if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF)
		return -1;
	fflush(f);
	f->mode = mode;
	return 0;
}

int ferror(FILE *f)
{
	return f->error;
}

void clearerr(FILE *f)
{
	f->error = 0;
}

int fileno(FILE *f)
{
	return f->fd;
}
