/*
 * PMU events through sysfs, laid out as Linux does under
 * bus/event_source/devices/<pmu>/:
 *   type            the attr.type to use
 *   format/<term>   where a term's value goes: "config:0-7",
 *                   "config1:0-3", split "config:0-7,32-35", one bit
 *                   "config:21"; the value's low bits fill the first
 *                   range from its low end, then the next range
 *   events/<name>   an alias: a comma list of terms ("event=0x3c",
 *                   "event=0xd0,umask=0x81")
 * `pmu/term=value,term,alias,.../`: a term without a value is 1, or an
 * alias of that PMU; config, config1, config2, name and period are
 * built in. A bare alias name found in some PMU's events/ also works.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftool.h"

#define DEVICES "bus/event_source/devices"
#define MAX_RANGES 8

struct format {
	int word;                    /* config, config1, config2 */
	int nranges;
	int lo[MAX_RANGES], hi[MAX_RANGES];
};

struct resolve {
	const char *pmu;
	struct perf_event_attr *attr;
	char **name;
	char *err;
	size_t errlen;
	int depth;                   /* aliases naming aliases */
};

static int fail(struct resolve *r, const char *what, const char *arg)
{
	snprintf(r->err, r->errlen, what, arg, r->pmu);
	return -1;
}

static __u64 *config_word(struct perf_event_attr *a, int word)
{
	return word == 0 ? &a->config : word == 1 ? &a->config1 : &a->config2;
}

static int word_of(const char *s, size_t len)
{
	static const char *const words[] = { "config", "config1", "config2" };
	for (int i = 0; i < 3; i++)
		if (strlen(words[i]) == len && !strncmp(s, words[i], len))
			return i;
	return -1;
}

static bool format_parse(const char *s, struct format *f)
{
	const char *colon = strchr(s, ':');
	if (!colon || (f->word = word_of(s, (size_t)(colon - s))) < 0)
		return false;
	f->nranges = 0;
	for (s = colon + 1; *s && f->nranges < MAX_RANGES; f->nranges++) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s)
			return false;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (lo < 0 || hi < lo || hi > 63)
			return false;
		f->lo[f->nranges] = (int)lo;
		f->hi[f->nranges] = (int)hi;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return f->nranges > 0 && !*s;
}

/* Spread value over the format's bits; false if it does not fit. */
static bool format_apply(const struct format *f, uint64_t value, struct perf_event_attr *a)
{
	__u64 *w = config_word(a, f->word);
	for (int i = 0; i < f->nranges; i++) {
		for (int bit = f->lo[i]; bit <= f->hi[i]; bit++) {
			*w = (*w & ~(1ULL << bit)) | ((value & 1) << bit);
			value >>= 1;
		}
	}
	return value == 0;
}

static int apply_list(struct resolve *r, const char *list);

static bool pmu_file(const char *pmu, const char *dir, const char *name, char *buf, size_t n)
{
	char rel[256];
	if (strchr(name, '/') || (size_t)snprintf(rel, sizeof rel, DEVICES "/%s/%s/%s", pmu, dir,
						    name) >= sizeof rel)
		return false;
	return sysfs_read(rel, buf, n);
}

static int apply_format(struct resolve *r, const char *key, const char *text, uint64_t v)
{
	struct format f;
	if (!format_parse(text, &f))
		return fail(r, "bad format file for '%s' of PMU '%s'", key);
	if (!format_apply(&f, v, r->attr))
		return fail(r, "value too big for term '%s' of PMU '%s'", key);
	return 0;
}

static bool number(const char *s, uint64_t *v)
{
	char *end;
	*v = strtoull(s, &end, 0);
	return end != s && !*end;
}

static int apply_name(struct resolve *r, const char *val)
{
	if (!val || !*val)
		return fail(r, "term '%s' of PMU '%s' needs a value", "name");
	free(*r->name);
	*r->name = strdup(val);
	return 0;
}

static int apply_alias(struct resolve *r, const char *text)
{
	r->depth++;
	int res = apply_list(r, text);
	r->depth--;
	return res;
}

/* One "key[=value]". */
static int apply_term(struct resolve *r, char *term)
{
	char text[256], *val = strchr(term, '=');
	uint64_t v = 1;
	if (val)
		*val++ = 0;
	if (!strcmp(term, "name"))
		return apply_name(r, val);
	if (val && !number(val, &v))
		return fail(r, "bad value for term '%s' of PMU '%s'", term);
	int word = word_of(term, strlen(term));
	if (word >= 0) {
		*config_word(r->attr, word) = v;
		return 0;
	}
	if (!strcmp(term, "period")) {
		r->attr->sample_period = v;
		return 0;
	}
	if (pmu_file(r->pmu, "format", term, text, sizeof text))
		return apply_format(r, term, text, v);
	if (!val && r->depth < 4 && pmu_file(r->pmu, "events", term, text, sizeof text))
		return apply_alias(r, text);
	return fail(r, "unknown term '%s' for PMU '%s'", term);
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t'))
		s[--n] = 0;
	return s;
}

static int apply_list(struct resolve *r, const char *list)
{
	char copy[512];
	if (strlcpy(copy, list, sizeof copy) >= sizeof copy)
		return fail(r, "terms too long: '%s' for PMU '%s'", list);
	for (char *save, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		t = trim(t);
		if (*t && apply_term(r, t) < 0)
			return -1;
	}
	return 0;
}

/* attr->type from the PMU's type file; false if there is no such PMU. */
static bool pmu_type(const char *pmu, struct perf_event_attr *attr)
{
	char rel[256], buf[32], *end;
	if (!*pmu || strchr(pmu, '/') || pmu[0] == '.' ||
	    (size_t)snprintf(rel, sizeof rel, DEVICES "/%s/type", pmu) >= sizeof rel ||
	    !sysfs_read(rel, buf, sizeof buf))
		return false;
	unsigned long t = strtoul(buf, &end, 10);
	attr->type = (uint32_t)t;
	return end != buf && !*end;
}

int pmu_event(const char *pmu, const char *terms, struct perf_event_attr *attr,
	      char **name, char *err, size_t errlen)
{
	struct resolve r = { pmu, attr, name, err, errlen, 0 };
	if (!pmu_type(pmu, attr))
		return 0;
	return apply_list(&r, terms) < 0 ? -1 : 1;
}

int pmu_alias(const char *event, struct perf_event_attr *attr, char *err, size_t errlen)
{
	char path[512], text[256];
	snprintf(path, sizeof path, "%s/" DEVICES, sysfs_root());
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;
	char *name = NULL;
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !pmu_file(e->d_name, "events", event, text, sizeof text))
			continue;
		struct resolve r = { e->d_name, attr, &name, err, errlen, 1 };
		found = pmu_type(e->d_name, attr) ? (apply_list(&r, text) < 0 ? -1 : 1) : 0;
	}
	if (d)
		closedir(d);
	free(name);
	return found;
}
