/* Command-line parsing. Written once by the boot CPU before any other CPU
 * starts; read-only afterwards, so no lock (but for the `asked` marks, set
 * with relaxed atomic stores: only ever false -> true). */
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
	bool asked;          /* some code looked this key up */
} args[MAX_ARGS];
static unsigned nargs;
static bool too_many;    /* words beyond MAX_ARGS were dropped */

/* Keys only read after start-up (at a panic, at exit, when init starts)
 * or only informational: known although nothing has asked yet when
 * cmdline_report_unknown runs. */
static const char *const late_keys[] = {
	"panic", "qemu_exit", "stay", "session", "selftest", "fault", "init",
	"kshell", "bootloader",
	"loader.fragment", /* read by the loader (boot/loader.c) */
};

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
	too_many = false;
	while (next_word(&p, &o, store + sizeof(store))) {
		if (nargs == MAX_ARGS) {
			too_many = true;
			break;
		}
		char *eq = strchr(o, '=');
		args[nargs].key = o;
		args[nargs].value = "";
		args[nargs].asked = false;
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
		if (strcmp(args[i].key, key) == 0) {
			v = args[i].value;
			__atomic_store_n(&args[i].asked, true, __ATOMIC_RELAXED);
		}
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

static bool late_key(const char *key)
{
	for (unsigned i = 0; i < ARRAY_SIZE(late_keys); i++)
		if (strcmp(late_keys[i], key) == 0)
			return true;
	return false;
}

unsigned cmdline_report_unknown(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < nargs; i++) {
		if (args[i].asked || late_key(args[i].key))
			continue;
		kprintf("cmdline: unknown option '%s' ignored (docs/cmdline.md lists them)\n",
			args[i].key);
		n++;
	}
	if (too_many)
		kprintf("cmdline: more than %u words; the rest were ignored\n", MAX_ARGS);
	return n;
}
