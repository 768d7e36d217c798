/*
 * The command line, as perf record spells its options:
 *   -e, --event EVENT,...    events (repeatable; default cpu-clock)
 *   -c, --count N            a sample every N events
 *   -F, --freq HZ            about HZ samples a second (default 4000)
 *   -g                       call chains (PERF_SAMPLE_CALLCHAIN)
 *   --call-graph fp|lbr|dwarf[,SIZE]
 *                            call chains from frame pointers (-g), or
 *                            from the LBR's call-stack mode (user
 *                            mode, as perf: BRANCH_STACK with
 *                            CALL_STACK, no user frame walk), or the
 *                            user registers and SIZE bytes of the user
 *                            stack (default 8192) that the host's perf
 *                            unwinds with the program's DWARF
 *   -b, --branch-any         branch stacks of any taken branch
 *                            (PERF_SAMPLE_BRANCH_STACK, ANY)
 *   -a, --all-cpus           everything on every online CPU
 *   --per-thread             buffers that follow the program's threads,
 *                            not per CPU: what record does without -a
 *                            or -C, so accepted (perf's option), and
 *                            refused with them
 *   -C, --cpu LIST           everything on the listed CPUs
 *   -o, --output FILE        where to write ("-": standard output)
 *   -m, --mmap-pages N       data pages per buffer (a power of two)
 *   -v, --verbose            show each perf_event_attr opened
 *   --export                 the kernel sends the records out itself, as
 *                            frames on the export line (docs/export.md);
 *                            FILE gets the header, attrs and side-band
 * The last of -c and -F wins. Options end at "--" or at the program.
 * $BAREMON_RECORD_NO_SIDEBAND (a testing knob) asks the kernel for no
 * COMM/MMAP/task records, so that record writes its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record.h"

#define CALL_GRAPH 1 /* long options only */
#define PER_THREAD 2

static const struct ptopt opts[] = {
	{ 'e', "event", true },   { 'c', "count", true },       { 'F', "freq", true },
	{ 'g', "call-graph-fp", false }, { 'a', "all-cpus", false }, { 'C', "cpu", true },
	{ 'o', "output", true },  { 'm', "mmap-pages", true },  { 'v', "verbose", false },
	{ 'h', "help", false },   { 'X', "export", false },
	{ 'b', "branch-any", false }, { CALL_GRAPH, "call-graph", true },
	{ PER_THREAD, "per-thread", false },
};

#define NOPTS ((int)(sizeof(opts) / sizeof(opts[0])))

static const char usage_text[] =
	"usage: record [-e EVENT,...] [-c N | -F HZ] [-g | --call-graph fp|lbr|dwarf[,SIZE]] [-b]\n"
	"              [-a | -C CPUS | --per-thread] [-o FILE] [-m PAGES] [-v] [--export]\n"
	"              [--] PROG [ARGS...]\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

static bool number(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	*out = strtoull(s, &end, 10);
	return end != s && !*end && s[0] != '-' && *out >= lo && *out <= hi;
}

static int bad(const char *what)
{
	fprintf(stderr, "record: %s\n", what);
	return 2;
}

static int apply_number(struct config *cfg, char letter, const char *val)
{
	uint64_t v;
	if (letter == 'c') {
		if (!number(val, 1, UINT64_MAX >> 1, &v))
			return bad("-c needs a period of at least 1");
		cfg->period = v;
		cfg->freq = 0;
	} else if (letter == 'F') {
		if (!number(val, 1, 1000000, &v))
			return bad("-F needs a frequency in Hz (1 to 1000000)");
		cfg->freq = v;
		cfg->period = 0;
	} else { /* 'm' */
		if (!number(val, 1, 1 << 20, &v) || (v & (v - 1)))
			return bad("-m needs a power of two of pages");
		cfg->mmap_pages = (unsigned)v;
	}
	return 0;
}

/* dwarf or dwarf,SIZE: SIZE a multiple of 8 up to 65528, as perf's. */
static int call_graph_dwarf(struct config *cfg, const char *val)
{
	uint64_t size = 8192;
	if (strncmp(val, "dwarf", 5) || (val[5] && val[5] != ','))
		return bad("--call-graph takes fp, lbr or dwarf[,SIZE]");
	if (val[5] && (!number(val + 6, 8, 65528, &size) || size % 8))
		return bad("--call-graph dwarf,SIZE: a multiple of 8 up to 65528");
	cfg->callchain = true;
	cfg->dwarf_stack = (uint32_t)size;
	return 0;
}

static int apply(struct config *cfg, char letter, const char *val)
{
	switch (letter) {
	case 'e':
		if (cfg->nevents == MAX_EVENTS)
			return usage();
		cfg->events[cfg->nevents++] = (char *)val;
		return 0;
	case 'g': cfg->callchain = true; return 0;
	case 'b': cfg->branch_any = true; return 0;
	case CALL_GRAPH:
		if (!strcmp(val, "fp"))
			cfg->callchain = true;
		else if (!strcmp(val, "lbr"))
			cfg->callchain = cfg->lbr_callchain = true;
		else
			return call_graph_dwarf(cfg, val);
		return 0;
	case 'a': cfg->all_cpus = true; return 0;
	case PER_THREAD: cfg->per_thread = true; return 0;
	case 'C': cfg->cpu_list = val; return 0;
	case 'o': cfg->output = val; return 0;
	case 'v': cfg->verbose = true; return 0;
	case 'X': cfg->export = true; return 0;
	case 'h': fputs(usage_text, stdout); return -1;
	default: return apply_number(cfg, letter, val);
	}
}

int parse_options(int argc, char **argv, struct config *cfg)
{
	int i = 1;
	memset(cfg, 0, sizeof *cfg);
	cfg->freq = 4000;
	cfg->mmap_pages = 64;
	const char *knob = getenv("BAREMON_RECORD_NO_SIDEBAND");
	cfg->no_sideband = knob && *knob && strcmp(knob, "0") != 0;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *val;
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		const struct ptopt *o = opt_next(opts, NOPTS, "record", argc, argv, &i, &val);
		if (!o)
			return usage();
		int r = apply(cfg, o->letter, val);
		if (r)
			return r;
	}
	cfg->argv = argv + i;
	if (cfg->per_thread && (cfg->all_cpus || cfg->cpu_list))
		return bad("--per-thread and -a/-C exclude each other");
	return cfg->argv[0] ? 0 : usage();
}
