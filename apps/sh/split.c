/*
 * split.c: one line into words. Quotes group blanks into a word and are
 * removed; "$?" becomes the last status except inside '...'; '#' at the
 * start of a word ends the line.
 *
 * Invariant of struct out: pos <= end, and pos < end whenever a byte is
 * stored, so the NUL after the last word always fits.
 */
#include <stdio.h>
#include "sh.h"

struct out {
	char *pos, *end;
	bool full;
};

static void put(struct out *o, char c)
{
	if (o->pos + 1 < o->end)
		*o->pos++ = c;
	else
		o->full = true;
}

static void put_status(struct out *o)
{
	char num[16];
	int n = snprintf(num, sizeof(num), "%d", sh.last_status);

	for (int i = 0; i < n; i++)
		put(o, num[i]);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copy one word starting at *sp into o; returns false at an open quote. */
static bool word(const char **sp, struct out *o)
{
	const char *s = *sp;
	char quote = 0;

	for (; *s && (quote || !blank(*s)); s++) {
		if (quote && *s == quote)
			quote = 0;
		else if (!quote && (*s == '"' || *s == '\''))
			quote = *s;
		else if (s[0] == '$' && s[1] == '?' && quote != '\'')
			put_status(o), s++;
		else
			put(o, *s);
	}
	*sp = s;
	return quote == 0;
}

int sh_split(const char *line, char *buf, size_t size, char **argv)
{
	struct out o = { buf, buf + size, false };
	int argc = 0;

	for (;;) {
		while (blank(*line))
			line++;
		if (*line == '\0' || *line == '#')
			break;
		if (argc == SH_MAX_ARGS - 1)
			return SPLIT_TOO_MANY;
		argv[argc++] = o.pos;
		if (!word(&line, &o))
			return SPLIT_QUOTE;
		*o.pos++ = '\0';   /* room kept by put() */
	}
	argv[argc] = NULL;
	return o.full ? SPLIT_TOO_LONG : argc;
}
