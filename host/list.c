/*
 * list: the target's events in perf list's layout. The target's own
 * `list` (apps/list.c) makes it: it reads its PMUs' sysfs events and
 * tracefs, and tries the HW_CACHE events as perf list does, which only
 * the target can. Its output and status come back as they are.
 */
#include <unistd.h>
#include "baremon.h"

int cmd_list(struct conn *c)
{
	char *argv[] = { "list", NULL };
	return run_remote(c, 1, argv, STDOUT_FILENO, STDERR_FILENO);
}
