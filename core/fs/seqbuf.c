/*
 * seqbuf: the text of a generated file, built with printf-style appends.
 * The buffer doubles as it fills, up to SB_MAX; after a failed append
 * err is set and further appends do nothing.
 */
#include <stdio.h>
#include "fs.h"
#include "core/mm/mm.h"
#include "genfs.h"

#define SB_MAX (4u << 20)

size_t sb_reserve(struct seqbuf *sb, size_t n)
{
	if (sb->err)
		return 0;
	if (sb->cap - sb->len >= n)
		return sb->cap - sb->len;
	size_t cap = sb->cap ? sb->cap : 1024;
	while (cap - sb->len < n && cap <= SB_MAX)
		cap *= 2;
	char *p = cap <= SB_MAX ? kmalloc(cap) : NULL;
	if (!p) {
		sb->err = -ENOMEM;
		return 0;
	}
	if (sb->buf)
		memcpy(p, sb->buf, sb->len);
	kfree(sb->buf);
	sb->buf = p;
	sb->cap = cap;
	return cap - sb->len;
}

void sb_write(struct seqbuf *sb, const void *p, size_t n)
{
	if (sb_reserve(sb, n) < n)
		return;
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
}

void sb_printf(struct seqbuf *sb, const char *fmt, ...)
{
	va_list ap;
	size_t room = sb_reserve(sb, 128);
	if (!room)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(sb->buf + sb->len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->err = -EINVAL;
		return;
	}
	if ((size_t)n >= room) {
		if (sb_reserve(sb, (size_t)n + 1) < (size_t)n + 1)
			return;
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void sb_free(struct seqbuf *sb)
{
	kfree(sb->buf);
	*sb = (struct seqbuf){ 0 };
}
