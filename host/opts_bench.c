/*
 * The target's bench parses nanoBench's options with
 * apps/bench/options.c, which exits 2 with its message on a usage
 * error; compiled here it runs before anything boots (check.c).
 */
#define options_parse bench_options_parse
#include "apps/bench/options.c"
#include "host/guestopts.h"

void bench_options(int argc, char **argv)
{
	static struct bench_opts o;
	bench_options_parse(argc, argv, &o);
}
