/*
 * words.c: one line of the session language into words (words.h).
 *
 * Invariant of struct out: pos < end while a word is copied (checked
 * before each word starts), and put() stores a byte only while
 * pos + 1 < end, so the NUL after the word always fits.
 */
#include <stdbool.h>
#include <words.h>

struct out {
	char *pos, *end;
	bool full;   /* a byte did not fit: the result is cut */
};

static void put(struct out *o, char c)
{
	if (o->pos + 1 < o->end)
		*o->pos++ = c;
	else
		o->full = true;
}

/* Decimal digits of status, with a '-' when negative. */
static void put_status(struct out *o, int status)
{
	char digits[12];
	int n = 0;
	unsigned v = status < 0 ? 0u - (unsigned)status : (unsigned)status;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (status < 0)
		put(o, '-');
	while (n > 0)
		put(o, digits[--n]);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copy one word starting at *sp into o; false at a quote left open. */
static bool word(const char **sp, int status, struct out *o)
{
	const char *s = *sp;
	char quote = 0;

	for (; *s && (quote || !blank(*s)); s++) {
		if (quote && *s == quote)
			quote = 0;
		else if (!quote && (*s == '"' || *s == '\''))
			quote = *s;
		else if (s[0] == '$' && s[1] == '?' && quote != '\'')
			put_status(o, status), s++;
		else
			put(o, *s);
	}
	*sp = s;
	return quote == 0;
}

int split_words(const char *line, int status, char *buf, size_t size,
		char **argv, int max_argv)
{
	if (max_argv < 1)
		return WORDS_E_TOO_MANY;
	if (size == 0)
		return WORDS_E_TOO_LONG;
	struct out o = { buf, buf + size, false };
	int argc = 0;

	for (;;) {
		while (blank(*line))
			line++;
		if (*line == '\0' || *line == '#')
			break;
		if (argc == max_argv - 1)
			return WORDS_E_TOO_MANY;
		if (o.pos == o.end)
			return WORDS_E_TOO_LONG;
		argv[argc++] = o.pos;
		if (!word(&line, status, &o))
			return WORDS_E_QUOTE;
		*o.pos++ = '\0';   /* room kept by put() */
	}
	argv[argc] = NULL;
	return o.full ? WORDS_E_TOO_LONG : argc;
}
