/*
 * HW_CACHE event names as perf spells them: CACHE[-OP][-RESULT], each
 * part one of its aliases (case does not matter), OP defaulting to read
 * and RESULT to access. config = cache | op << 8 | result << 16. Some
 * caches have no writes or prefetches (an instruction cache is not
 * written); those names are not events, as in perf.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "perftool.h"

#define C(x) PERF_COUNT_HW_CACHE_##x
#define ANY_OP ((1 << C(OP_READ)) | (1 << C(OP_WRITE)) | (1 << C(OP_PREFETCH)))

struct part {
	int id;
	const char *alias[5];
};

static const struct part caches[] = {
	{ C(L1D), { "L1-dcache", "l1-d", "l1d", "L1-data" } },
	{ C(L1I), { "L1-icache", "l1-i", "l1i", "L1-instruction" } },
	{ C(LL), { "LLC", "L2" } },
	{ C(DTLB), { "dTLB", "d-tlb", "Data-TLB" } },
	{ C(ITLB), { "iTLB", "i-tlb", "Instruction-TLB" } },
	{ C(BPU), { "branch", "branches", "bpu", "btb", "bpc" } },
	{ C(NODE), { "node" } },
};

static const struct part ops[] = {
	{ C(OP_READ), { "load", "loads", "read" } },
	{ C(OP_WRITE), { "store", "stores", "write" } },
	{ C(OP_PREFETCH), { "prefetch", "prefetches", "speculative-read", "speculative-load" } },
};

static const struct part results[] = {
	{ C(RESULT_ACCESS), { "refs", "Reference", "ops", "access" } },
	{ C(RESULT_MISS), { "misses", "miss" } },
};

/* Which ops each cache has. */
static const unsigned valid_ops[C(MAX)] = {
	[C(L1D)] = ANY_OP,
	[C(L1I)] = (1 << C(OP_READ)) | (1 << C(OP_PREFETCH)),
	[C(LL)] = ANY_OP,
	[C(DTLB)] = ANY_OP,
	[C(ITLB)] = 1 << C(OP_READ),
	[C(BPU)] = 1 << C(OP_READ),
	[C(NODE)] = ANY_OP,
};

static bool same_prefix(const char *s, const char *alias, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (tolower((unsigned char)s[i]) != tolower((unsigned char)alias[i]))
			return false;
	return true;
}

/* The longest alias in parts[] that starts s and ends at '-' or the end;
 * returns its id and advances *s past it (and a '-'), or -1. */
static int match(const char **s, const struct part *parts, unsigned n)
{
	int best = -1;
	size_t best_len = 0, slen = strlen(*s);
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < 5 && parts[i].alias[k]; k++) {
			size_t len = strlen(parts[i].alias[k]);
			if (len > best_len && len <= slen && same_prefix(*s, parts[i].alias[k], len) &&
			    ((*s)[len] == 0 || (*s)[len] == '-')) {
				best = parts[i].id;
				best_len = len;
			}
		}
	}
	if (best >= 0)
		*s += best_len + ((*s)[best_len] == '-');
	return best;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool event_hwcache(const char *name, struct perf_event_attr *attr)
{
	const char *s = name;
	int cache = match(&s, caches, COUNT(caches));
	int op = -1, result = -1;
	if (cache < 0)
		return false;
	while (*s) {
		const char *before = s;
		if (op < 0 && (op = match(&s, ops, COUNT(ops))) >= 0)
			continue;
		if (result < 0 && (result = match(&s, results, COUNT(results))) >= 0)
			continue;
		if (s == before)
			return false;
	}
	if (op < 0)
		op = C(OP_READ);
	if (result < 0)
		result = C(RESULT_ACCESS);
	if (!(valid_ops[cache] & (1u << op)))
		return false;
	attr->type = PERF_TYPE_HW_CACHE;
	attr->config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)result << 16;
	return true;
}

/* perf's own spelling of each valid cache event, as perf list prints
 * it: CACHE-OPs for accesses ("L1-dcache-loads"), CACHE-OP-misses for
 * misses. */
bool hwcache_name(int i, char *buf, size_t n, struct perf_event_attr *attr)
{
	for (int cache = 0; cache < (int)COUNT(caches); cache++)
		for (int op = 0; op < (int)COUNT(ops); op++)
			for (int result = 0; result < (int)COUNT(results); result++) {
				if (!(valid_ops[caches[cache].id] & (1u << ops[op].id)) || i--)
					continue;
				if (results[result].id == C(RESULT_ACCESS))
					snprintf(buf, n, "%s-%s", caches[cache].alias[0],
						 ops[op].alias[1]);
				else
					snprintf(buf, n, "%s-%s-%s", caches[cache].alias[0],
						 ops[op].alias[0], results[result].alias[0]);
				attr->type = PERF_TYPE_HW_CACHE;
				attr->config = (uint64_t)caches[cache].id |
					       (uint64_t)ops[op].id << 8 |
					       (uint64_t)results[result].id << 16;
				return true;
			}
	return false;
}
