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

/* run-qemu.sh options that take an argument, and those that do not. */
static const char *const qemu_with_arg[] = {
	"--smp", "--mem", "--cmdline", "--cpu", "--machine", "--add", NULL };
static const char *const qemu_flags[] = { "--kvm", "--tcg", "--no-icount", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* --targets FILE: the command runs on each of FILE's targets (targets.c). */
static const char *targets_file;

/* Parse the target options; returns the index of the command. */
static int parse_target(int argc, char **argv, struct target *t)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		bool has_next = i + 1 < argc;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			help_usage(stdout);
			exit(0);
		} else if (strcmp(a, "--version") == 0) {
			help_version();
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
		} else if (strcmp(a, "--targets") == 0 && has_next) {
			targets_file = argv[++i];
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
			fprintf(stderr, "baremon: unknown option '%s'%s\n", a,
				has_next ? "" : " (or its value is missing)");
			help_usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (i == argc) {
		help_usage(stderr);
		exit(EXIT_USAGE);
	}
	return i;
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
		return cmd_pull(c, argv[1], argc > 2 ? argv[2] : NULL, false);
	if (strcmp(cmd, "stat") == 0)
		return cmd_stat(c, argc, argv);
	if (strcmp(cmd, "record") == 0)
		return cmd_record(c, argc, argv);
	if (strcmp(cmd, "session") == 0)
		return cmd_session(c, argv[1], argc > 3 ? argv[3] : NULL);
	if (strcmp(cmd, "bench") == 0)
		return cmd_bench(c);
	if (strcmp(cmd, "poweroff") == 0)
		return cmd_poweroff(c);
	if (strcmp(cmd, "list") == 0)
		return cmd_list(c);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static struct target t = { .kind = TARGET_QEMU, .timeout_s = 60, .warm_lock = -1 };
	signal(SIGPIPE, SIG_IGN);   /* a closed line is EPIPE: "closed the line" */
	stop_init();
	int i = parse_target(argc, argv, &t);
	if (targets_file) {
		/* Each target's own baremon takes record's -z; the check sees
		 * the command as they will, on a copy. */
		int n = argc - i;
		char **copy = calloc((size_t)n + 1, sizeof(*copy));
		if (!copy)
			return EXIT_SOFTWARE;
		memcpy(copy, argv + i, (size_t)n * sizeof(*copy));
		if (n > 0 && strcmp(copy[0], "record") == 0)
			record_take_compression(&n, copy);
		check_command(n, copy);
		free(copy);
		if (strcmp(argv[i], "shell") == 0) {
			fprintf(stderr, "baremon: --targets: shell takes one target\n");
			return EXIT_USAGE;
		}
		return cmd_targets(targets_file, argc, argv, i);
	}
	argc -= i;
	argv += i;
	if (argc > 0 && strcmp(argv[0], "record") == 0)
		record_take_compression(&argc, argv);
	t.nuser = t.nqemu;
	check_command(argc, argv);
	stop_watch(&t, NULL);
	if (!strcmp(argv[0], "up") || !strcmp(argv[0], "down") || !strcmp(argv[0], "status"))
		return cmd_warm(&t, argc, argv);
	if (strcmp(argv[0], "shell") == 0) {
		int fd = target_open(&t, false);
		int st = cmd_shell(fd, &t);
		target_close(&t);
		return st;
	}
	if (strcmp(argv[0], "bench") == 0)
		bench_prepare(&t, argc, argv);
	dyn_prepare(&t, argc, argv);
	int fd = warm_open(&t);
	if (fd < 0)
		fd = target_open(&t, true);
	static struct conn c;
	conn_init(&c, fd, &t);
	stop_watch(&t, &c);
	conn_start(&c, t.kind != TARGET_QEMU);
	warm_mark_ready(&t);
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
