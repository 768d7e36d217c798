/*
 * The target's stat parses its command line with apps/stat/options.c;
 * compiled here too, it refuses what stat would before anything boots
 * (check.c).
 */
#define parse_options stat_parse_options
#include "apps/stat/options.c"
#include "host/guestopts.h"

int stat_options(int argc, char **argv, struct guest_args *out)
{
	static struct config cfg;
	int r = stat_parse_options(argc, argv, &cfg);
	if (r)
		return r;
	out->prog = (int)(cfg.argv - argv);
	out->events = cfg.events;
	out->nevents = cfg.nevents;
	return 0;
}
