/*
 * The target's record parses its command line with apps/record/options.c;
 * the same file compiled here lets the tool refuse what record would
 * refuse (an unknown option, a bad value, --call-graph dwarf) before a
 * machine is booted, with record's own words (check.c).
 */
#define parse_options record_parse_options
#include "apps/record/options.c"
#include "host/guestopts.h"

int record_options(int argc, char **argv, struct guest_args *out)
{
	static struct config cfg;
	int r = record_parse_options(argc, argv, &cfg);
	if (r)
		return r;
	out->prog = (int)(cfg.argv - argv);
	out->events = cfg.events;
	out->nevents = cfg.nevents;
	return 0;
}
