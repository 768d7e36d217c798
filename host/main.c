/*
 * baremon [TARGET] COMMAND ...  (docs/host.md)
 *
 * Options before the command choose and shape the target; the command
 * and its arguments follow.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "baremon.h"

static void usage(FILE *to)
{
	fprintf(to,
"usage: baremon [TARGET] [-v] [--timeout S] COMMAND ...\n"
"TARGET   (default) start QEMU with run-qemu.sh's options:\n"
"           --smp N --mem SIZE --icount [N] --cmdline 'ARGS' --kvm --tcg\n"
"           --cpu MODEL --machine OPTS --add FILE[:DEST]\n"
"         --serial DEVICE[:BAUD]            a machine on a serial line\n"
"         --connect unix:PATH|tcp:HOST:PORT  a QEMU already running\n"
"         --export              (QEMU) frames on a second UART (export=ttyS1)\n"
"         --sysroot DIR         a dynamic program's interpreter and libraries\n"
"                               from DIR (default: the host's)\n"
"         --export-connect unix:PATH|tcp:HOST:PORT  with --connect/--serial:\n"
"                               the line of the guest's export UART\n"
"COMMAND  run CMD [ARGS]        run, stream output, exit with its status\n"
"         push FILE [DEST]      copy a file into the target (default /tmp/)\n"
"         pull PATH [LOCAL]     copy a file out of the target\n"
"         stat [OPTIONS] CMD    perf stat on the target\n"
"         record [OPTIONS] [-o FILE] CMD   perf record; FILE is perf.data\n"
"         session FILE          run a session script (docs/host.md)\n"
"         bench OPTIONS         nanoBench's options, -asm assembled here (docs/bench.md)\n"
"         shell                 interactive console (^] quits)\n"
"         poweroff              shut the target down cleanly\n");
}

/* run-qemu.sh options that take an argument, and those that do not. */
static const char *const qemu_with_arg[] = {
	"--smp", "--mem", "--cmdline", "--cpu", "--machine", "--add", NULL };
static const char *const qemu_flags[] = { "--kvm", "--tcg", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* Parse the target options; returns the index of the command. */
static int parse_target(int argc, char **argv, struct target *t)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		bool has_next = i + 1 < argc;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			t->verbose = true;
		} else if (strcmp(a, "--serial") == 0 && has_next) {
			t->kind = TARGET_SERIAL;
			t->device = argv[++i];
		} else if (strcmp(a, "--connect") == 0 && has_next) {
			t->kind = TARGET_CONNECT;
			t->device = argv[++i];
		} else if (strcmp(a, "--export") == 0) {
			t->export_line = true;
		} else if (strcmp(a, "--export-connect") == 0 && has_next) {
			t->export_device = argv[++i];
		} else if (strcmp(a, "--sysroot") == 0 && has_next) {
			t->sysroot = argv[++i];
		} else if (strcmp(a, "--timeout") == 0 && has_next) {
			t->timeout_s = atoi(argv[++i]);
		} else if (in_list(qemu_with_arg, a) && has_next && t->nqemu < 60) {
			t->qemu_args[t->nqemu++] = a;
			t->qemu_args[t->nqemu++] = argv[++i];
		} else if (strcmp(a, "--icount") == 0 && t->nqemu < 60) {
			t->qemu_args[t->nqemu++] = a;
			if (has_next && strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1]))
				t->qemu_args[t->nqemu++] = argv[++i];
		} else if (in_list(qemu_flags, a) && t->nqemu < 60) {
			t->qemu_args[t->nqemu++] = a;
		} else {
			fprintf(stderr, "baremon: unknown option '%s'\n", a);
			usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (i == argc) {
		usage(stderr);
		exit(EXIT_USAGE);
	}
	return i;
}

static void need_args(int have, int want, const char *what)
{
	if (have < want) {
		fprintf(stderr, "baremon: %s\n", what);
		exit(EXIT_USAGE);
	}
}

/* Run one agent command; its status. */
static int dispatch(struct conn *c, int argc, char **argv)
{
	const char *cmd = argv[0];
	if (strcmp(cmd, "run") == 0)
		return cmd_run(c, argc - 1, argv + 1);
	if (strcmp(cmd, "push") == 0)
		return cmd_push(c, argv[1], argc > 2 ? argv[2] : NULL, false);
	if (strcmp(cmd, "pull") == 0)
		return cmd_pull(c, argv[1], argc > 2 ? argv[2] : NULL);
	if (strcmp(cmd, "stat") == 0)
		return cmd_stat(c, argc, argv);
	if (strcmp(cmd, "record") == 0)
		return cmd_record(c, argc, argv);
	if (strcmp(cmd, "session") == 0)
		return cmd_session(c, argv[1]);
	if (strcmp(cmd, "bench") == 0)
		return cmd_bench(c);
	if (strcmp(cmd, "poweroff") == 0)
		return cmd_poweroff(c);
	return EXIT_USAGE;
}

static void check_command(int argc, char **argv)
{
	const char *cmd = argv[0];
	if (strcmp(cmd, "run") == 0 || strcmp(cmd, "stat") == 0 || strcmp(cmd, "record") == 0)
		need_args(argc, 2, "run/stat/record: which command?");
	else if (strcmp(cmd, "push") == 0 || strcmp(cmd, "pull") == 0)
		need_args(argc, 2, "push FILE [DEST] / pull PATH [LOCAL]");
	else if (strcmp(cmd, "session") == 0)
		need_args(argc, 2, "session FILE");
	else if (strcmp(cmd, "shell") != 0 && strcmp(cmd, "bench") != 0 &&
		 strcmp(cmd, "poweroff") != 0) {
		fprintf(stderr, "baremon: unknown command '%s'\n", cmd);
		usage(stderr);
		exit(EXIT_USAGE);
	}
}

int main(int argc, char **argv)
{
	static struct target t = { .kind = TARGET_QEMU, .timeout_s = 60 };
	signal(SIGPIPE, SIG_IGN);   /* a closed line is EPIPE: "closed the line" */
	int i = parse_target(argc, argv, &t);
	argc -= i;
	argv += i;
	check_command(argc, argv);
	if (strcmp(argv[0], "shell") == 0) {
		int fd = target_open(&t, false);
		int st = cmd_shell(fd, &t);
		target_close(&t);
		return st;
	}
	if (strcmp(argv[0], "session") == 0 && access(argv[1], R_OK) != 0) {
		fprintf(stderr, "baremon: session: cannot read %s\n", argv[1]);
		return EXIT_NOINPUT;
	}
	if (strcmp(argv[0], "bench") == 0)
		bench_prepare(&t, argc, argv);
	dyn_prepare(&t, argc, argv);
	int fd = target_open(&t, true);
	static struct conn c;
	conn_init(&c, fd, &t);
	conn_start(&c, t.kind != TARGET_QEMU);
	int status = dispatch(&c, argc, argv);
	if (!c.powered_off)
		conn_bye(&c, (uint32_t)(status & 0xff));
	conn_report(&c);
	if (t.kind == TARGET_QEMU && t.qemu_pid) {
		/* The agent's exit ends the session: QEMU powers off. */
		if (target_wait(&t, 30) < 0 && t.verbose)
			fprintf(stderr, "baremon: QEMU did not power off; stopping it\n");
	}
	target_close(&t);
	return status;
}
