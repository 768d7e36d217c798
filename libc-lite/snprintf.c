/*
 * snprintf.c: vformat into a fixed buffer.
 *
 * Invariant of struct buf: used <= cap, where cap = size - 1 leaves room
 * for the NUL. Output past cap is counted by vformat but dropped here.
 */
#include <stdio.h>
#include <string.h>

struct buf {
	char *p;
	size_t cap;
	size_t used;
};

static void buf_sink(void *ctx, const char *s, size_t n)
{
	struct buf *b = ctx;
	size_t room = b->cap - b->used;

	if (n > room)
		n = room;
	if (n == 0)
		return;
	memcpy(b->p + b->used, s, n);
	b->used += n;
}

int vsnprintf(char *restrict buf, size_t size, const char *restrict fmt,
              va_list ap)
{
	struct buf b = { buf, size ? size - 1 : 0, 0 };
	int r = vformat(buf_sink, &b, fmt, ap);

	if (size > 0)
		buf[b.used] = '\0';
	return r;
}

int snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return r;
}
