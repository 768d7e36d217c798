/*
 * The guest tools' option parsers on the host (opts_*.c): each prints
 * the tool's own message; 0 when the line is good, -1 after printing
 * the help (-h), else the tool's usage status (2).
 */
#ifndef HOST_GUESTOPTS_H
#define HOST_GUESTOPTS_H

struct guest_args {
	int prog;          /* index of the program in argv */
	char **events;     /* the -e arguments */
	int nevents;
};

int record_options(int argc, char **argv, struct guest_args *out);
int stat_options(int argc, char **argv, struct guest_args *out);
/* Exits 2 on a usage error; -h prints the usage and exits 0. */
void bench_options(int argc, char **argv);

/* evcheck.c: every event of these -e lists could be on the target
 * (a tracepoint's existence is the target's to say); false after
 * printing "TOOL: unknown event 'NAME'". */
#include <stdbool.h>
bool events_check(const char *tool, char **lists, int n);

#endif
