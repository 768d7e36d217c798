/*
 * What the tool says about itself: the usage, `baremon help [CMD]`,
 * `CMD -h`, `--version`. Help goes to stdout with status 0; a usage
 * error to stderr with EXIT_USAGE (check.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baremon.h"
#include "host/guestopts.h"

#ifndef BAREMON_VERSION
#define BAREMON_VERSION "dev"
#endif

void help_usage(FILE *to)
{
	fprintf(to,
"usage: baremon [TARGET] [-v] [--timeout S] COMMAND ...\n"
"       baremon help [COMMAND] | --version\n"
"TARGET   (default) the warm target (baremon up) when its options are\n"
"         these, else start QEMU with run-qemu.sh's options:\n"
"           --smp N --mem SIZE --icount [N] --no-icount --cmdline 'ARGS'\n"
"           --kvm --tcg --cpu MODEL --machine OPTS --add FILE[:DEST]\n"
"           (under TCG the default is --icount 6: exact counts)\n"
"         --serial DEVICE[:BAUD]            a machine on a serial line\n"
"         --connect unix:PATH|tcp:HOST:PORT  a QEMU already running\n"
"         --export              (QEMU) frames on a virtio console (export=virtio):\n"
"                               pushes, pulls and streams at memory speed\n"
"         --export-connect unix:PATH|tcp:HOST:PORT  with --connect/--serial:\n"
"                               the line of the guest's export UART\n"
"         --sysroot DIR         a dynamic program's interpreter and libraries\n"
"                               from DIR (default: the host's)\n"
"         --targets FILE        the command on each target FILE names (a line\n"
"                               NAME OPTIONS...) at once; one table, a column each\n"
"COMMAND  run CMD [ARGS]        run, stream output, exit with its status\n"
"         push FILE [DEST]      copy a file into the target (default /tmp/)\n"
"         pull PATH [LOCAL]     copy a file out of the target\n"
"         stat [OPTIONS] CMD    perf stat on the target\n"
"         record [OPTIONS] [-o FILE] CMD   perf record; FILE is perf.data\n"
"         list                  the target's PMUs and events (perf list)\n"
"         session FILE [--junit OUT]  run a session script (docs/host.md)\n"
"         bench OPTIONS         nanoBench's options, -asm assembled here (docs/bench.md)\n"
"         shell                 interactive console (^] quits)\n"
"         poweroff              shut the target down cleanly\n"
"         up [--idle MIN]       keep a QEMU running for the next commands (the\n"
"                               warm target; default: stops after 60 min idle)\n"
"         down | status         stop the warm target | say what is up\n"
"         help [COMMAND]        this, or a command's options\n"
"Exit status: the command's for run, stat, record; 2 usage, 66 a local file,\n"
"69 no target, 70 refused, 74 transfer, 75 no answer, 76 line closed,\n"
"125 kernel panic, 128+N a signal (docs/host.md).\n");
}

static const struct { const char *cmd, *text; } usages[] = {
	{ "run", "usage: baremon [TARGET] run CMD [ARGS...]\n"
		 "  runs CMD on the target with its output; the status is CMD's. A local\n"
		 "  executable named as CMD (./prog) is pushed to /tmp/ first.\n" },
	{ "push", "usage: baremon [TARGET] push FILE [DEST]\n"
		  "  copies FILE to DEST on the target (default /tmp/NAME; DEST/ a directory)\n" },
	{ "pull", "usage: baremon [TARGET] pull PATH [LOCAL]\n"
		  "  copies PATH out of the target (default ./NAME)\n" },
	{ "list", "usage: baremon [TARGET] list\n"
		  "  the target's events as perf list shows them: hardware, software,\n"
		  "  hardware cache, each PMU's events in sysfs, tracepoints\n" },
	{ "session", "usage: baremon [TARGET] session FILE [--junit OUT]\n"
		     "  steps: run CMD, stat ARGS, status N, expect TEXT, push, pull,\n"
		     "  timeout S, poweroff (docs/host.md); --junit OUT: the steps as\n"
		     "  JUnit XML test cases\n" },
	{ "shell", "usage: baremon [TARGET] shell\n"
		   "  the target's console on this terminal; ^] leaves\n" },
	{ "poweroff", "usage: baremon [TARGET] poweroff\n" },
	{ "up", "usage: baremon [TARGET] up [--idle MINUTES]\n"
		"  boots a QEMU with the TARGET options and keeps it running: later\n"
		"  commands with the same options use it, each on a fresh machine\n"
		"  (processes ended, /tmp emptied, sysctls restored); it stops after\n"
		"  MINUTES without a command (default 60, 0: never) or at baremon down\n" },
	{ "down", "usage: baremon down\n  stops the warm target (baremon up)\n" },
	{ "status", "usage: baremon status\n"
		    "  the warm target: its pids, options, idle time; status 1 when none\n" },
	{ "help", "usage: baremon help [COMMAND]\n" },
};

/* The command's usage on to (stdout: in full); false for an unknown
 * command. */
bool help_command_to(const char *cmd, FILE *to)
{
	struct guest_args g;
	bool perf_tool = !strcmp(cmd, "stat") || !strcmp(cmd, "record");
	if ((perf_tool || !strcmp(cmd, "bench")) && to != stdout) {
		fprintf(to, "usage: baremon [TARGET] %s %s (baremon help %s)\n", cmd,
			perf_tool ? "[OPTIONS] [--] PROG [ARGS...]" : "OPTIONS", cmd);
		return true;
	}
	if (perf_tool) {
		char *argv[] = { (char *)cmd, "-h", NULL };
		printf("usage: baremon [TARGET] %s [OPTIONS] [--] PROG [ARGS...]\n"
		       "  a local PROG (./prog) is pushed first%s; the target's %s:\n", cmd,
		       cmd[0] == 'r' ? "; -o FILE (default perf.data, the old one\n"
				       "  kept as FILE.old) is written here" : "", cmd);
		fflush(stdout);
		(cmd[0] == 'r' ? record_options : stat_options)(2, argv, &g);
		return true;
	}
	if (!strcmp(cmd, "bench")) {
		char *argv[] = { "bench", "-h", NULL };
		printf("usage: baremon [TARGET] bench OPTIONS (-asm TEXT or -code FILE, ...)\n");
		fflush(stdout);
		bench_options(2, argv);   /* exits 0 */
	}
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++) {
		if (!strcmp(usages[i].cmd, cmd)) {
			fputs(usages[i].text, to);
			return true;
		}
	}
	return false;
}

void help_version(void)
{
	printf("baremon version %s\n", BAREMON_VERSION);
}
