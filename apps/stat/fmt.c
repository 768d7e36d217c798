/*
 * Numbers with decimals and whole output lines. libc-lite's printf has
 * no floating point, so fmt_fixed rounds v * 10^decimals to an integer
 * and prints its two halves. A line is built in memory and written with
 * one call: stderr is unbuffered, and a line written piecemeal could
 * interleave with the program's own output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "stat.h"

/* v as "%.<decimals>f" (v < 0 prints as 0; decimals <= 9). */
const char *fmt_fixed(char *buf, size_t n, double v, int decimals)
{
	uint64_t unit = 1;
	for (int i = 0; i < decimals; i++)
		unit *= 10;
	if (!(v > 0))
		v = 0;
	unsigned __int128 all = (unsigned __int128)(v * (double)unit + 0.5);
	unsigned long long whole = (unsigned long long)(all / unit);
	unsigned long long frac = (unsigned long long)(all % unit);
	if (decimals)
		snprintf(buf, n, "%llu.%0*llu", whole, decimals, frac);
	else
		snprintf(buf, n, "%llu", whole);
	return buf;
}

void line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(l->buf) - l->len;
	va_start(ap, fmt);
	int k = vsnprintf(l->buf + l->len, room, fmt, ap);
	va_end(ap);
	if (k > 0)
		l->len += (size_t)k < room ? (size_t)k : room - 1;
}

/* Spaces up to column (nothing if the line is already that long). */
void line_pad(struct line *l, size_t column)
{
	while (l->len < column && l->len + 1 < sizeof(l->buf))
		l->buf[l->len++] = ' ';
	l->buf[l->len] = 0;
}

/* s as a JSON string, quotes included. */
void line_json_string(struct line *l, const char *s)
{
	line_add(l, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			line_add(l, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			line_add(l, "\\u%04x", *s);
		else
			line_add(l, "%c", *s);
	}
	line_add(l, "\"");
}

void line_end(struct line *l)
{
	while (l->len > 0 && l->buf[l->len - 1] == ' ')
		l->len--;
	if (l->len + 1 < sizeof(l->buf))
		l->buf[l->len++] = '\n';
	l->buf[l->len] = 0;
	fputs(l->buf, stderr);
	l->len = 0;
	l->buf[0] = 0;
}
