/*
 * papicount N EVENT...: PAPI (Debian's libpapi) counts known_loop(N)
 * with the named events (presets such as PAPI_TOT_INS or native
 * names), as a program instrumented with PAPI does:
 *
 *   papi: cpu "Intel Core Processor (Skylake)", 4 counters, component perf_event
 *   PAPI_TOT_INS: 2000112
 *   PAPI_BR_INS: 1000021
 *
 * Exit status 0 when every event was added and counted, 1 otherwise.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include "loop.h"

#define MAX_EVENTS 8

static int fail(const char *what, int r)
{
	printf("papi: %s: %s\n", what, PAPI_strerror(r));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc - 2 > MAX_EVENTS) {
		fprintf(stderr, "usage: papicount N EVENT... (at most %d)\n", MAX_EVENTS);
		return 2;
	}
	int r = PAPI_library_init(PAPI_VER_CURRENT);
	if (r != PAPI_VER_CURRENT)
		return fail("PAPI_library_init", r);
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	const PAPI_component_info_t *c = PAPI_get_component_info(0);
	printf("papi: cpu \"%s\", %d counters, component %s\n", hw ? hw->model_string : "?",
	       PAPI_num_cmp_hwctrs(0), c ? c->name : "?");
	int set = PAPI_NULL;
	if ((r = PAPI_create_eventset(&set)) != PAPI_OK)
		return fail("PAPI_create_eventset", r);
	for (int i = 2; i < argc; i++)
		if ((r = PAPI_add_named_event(set, argv[i])) != PAPI_OK)
			return fail(argv[i], r);
	unsigned long n = strtoul(argv[1], NULL, 0);
	long long values[MAX_EVENTS];
	if ((r = PAPI_start(set)) != PAPI_OK)
		return fail("PAPI_start", r);
	known_loop(n);
	if ((r = PAPI_stop(set, values)) != PAPI_OK)
		return fail("PAPI_stop", r);
	for (int i = 2; i < argc; i++)
		printf("%s: %lld\n", argv[i], values[i - 2]);
	return 0;
}
