/*
 * Options as perf spells them: -x VALUE, -xVALUE, --name VALUE,
 * --name=VALUE; a flag takes no value. The caller loops over argv and
 * stops at "--" or at the first word that is not an option.
 */
#include <stdio.h>
#include <string.h>
#include "perftool.h"

static const struct ptopt *find_long(const struct ptopt *opts, int n, const char *s,
				     const char **val)
{
	const char *eq = strchr(s, '=');
	size_t len = eq ? (size_t)(eq - s) : strlen(s);
	for (int k = 0; k < n; k++) {
		if (strlen(opts[k].name) == len && !strncmp(s, opts[k].name, len)) {
			*val = eq ? eq + 1 : NULL;
			return &opts[k];
		}
	}
	return NULL;
}

static const struct ptopt *find_short(const struct ptopt *opts, int n, const char *s,
				      const char **val)
{
	for (int k = 0; k < n; k++) {
		if (opts[k].letter == s[0]) {
			*val = s[1] ? s + 1 : NULL;
			return &opts[k];
		}
	}
	return NULL;
}

const struct ptopt *opt_next(const struct ptopt *opts, int n, const char *tool, int argc,
			     char **argv, int *i, const char **val)
{
	const char *s = argv[*i];
	const struct ptopt *o = s[1] == '-' ? find_long(opts, n, s + 2, val)
					    : find_short(opts, n, s + 1, val);
	if (!o || (!o->arg && *val)) {
		fprintf(stderr, "%s: unknown option '%s'\n", tool, s);
		return NULL;
	}
	if (o->arg && !*val) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "%s: option '%s' needs a value\n", tool, s);
			return NULL;
		}
		*val = argv[++*i];
	}
	return o;
}
