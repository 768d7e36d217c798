/* Command-line parsing. Written once by the boot CPU before any other CPU
 * starts; read-only afterwards, so no lock. */
#include <stdlib.h>
#include <string.h>
#include "cmdline.h"
#include "kernel.h"

#define MAX_ARGS 64
#define TEXT_MAX 1024

static char text[TEXT_MAX];
static char store[TEXT_MAX];
static struct {
	const char *key, *value;
} args[MAX_ARGS];
static unsigned nargs;

/* Copy one word from *p into *out; returns false at end of text. */
static bool next_word(const char **p, char **out, char *end)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (!*s)
		return false;
	char *o = *out;
	bool quoted = false;
	while (*s && (quoted || *s != ' ') && o < end - 1) {
		if (*s == '"')
			quoted = !quoted;
		else
			*o++ = *s;
		s++;
	}
	*o = 0;
	*p = s;
	return true;
}

void cmdline_parse(const char *line)
{
	strlcpy(text, line ? line : "", sizeof(text));
	nargs = 0;
	const char *p = text;
	char *o = store;
	while (nargs < MAX_ARGS && next_word(&p, &o, store + sizeof(store))) {
		char *eq = strchr(o, '=');
		args[nargs].key = o;
		args[nargs].value = "";
		if (eq) {
			*eq = 0;
			args[nargs].value = eq + 1;
		}
		nargs++;
		o += strlen(o) + 1 + (eq ? strlen(eq + 1) + 1 : 0);
		if (o >= store + sizeof(store) - 1)
			break;
	}
}

const char *cmdline_text(void)
{
	return text;
}

const char *cmdline_get(const char *key)
{
	const char *v = 0;
	for (unsigned i = 0; i < nargs; i++)
		if (strcmp(args[i].key, key) == 0)
			v = args[i].value;
	return v;
}

bool cmdline_has(const char *key)
{
	return cmdline_get(key) != 0;
}

uint64_t cmdline_get_u64(const char *key, uint64_t dflt)
{
	const char *v = cmdline_get(key);
	if (!v || !*v)
		return dflt;
	char *end;
	uint64_t n = strtoull(v, &end, 0);
	return *end ? dflt : n;
}
