/*
 * baremon up / down / status: the warm target's commands (docs/host.md,
 * "The warm target"; warm.c and keeper.c do the work).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "baremon.h"

static pid_t starting_keeper;   /* up: stopped unless the target answers */

static void stop_starting(void)
{
	if (starting_keeper > 0)
		kill(starting_keeper, SIGTERM);
	starting_keeper = 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The options of an `up` one a line, as warm_open compares them. */
static void own_text(const struct target *t, char *out, size_t size)
{
	warm_options_text((char *const *)t->qemu_args, t->nuser, out, size);
}

static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n')
			*s = s[1] ? ' ' : 0;
}

/* up [--idle MIN]: boot the warm target and wait for its agent. */
static int cmd_up(struct target *t, int argc, char **argv)
{
	int idle_s = WARM_IDLE_DEFAULT_S;
	if (argc == 3 && !strcmp(argv[1], "--idle"))
		idle_s = atoi(argv[2]) * 60;
	char want[2048], have[2048];
	own_text(t, want, sizeof(want));
	if (warm_keeper() && warm_read("options", have, sizeof(have))) {
		bool same = !strcmp(want, have);
		one_line(have);
		fprintf(stderr, "baremon: the warm target is already up (options: %s)%s\n",
			have[0] ? have : "none", same ? "" : "; baremon down stops it");
		return same ? 0 : EXIT_USAGE;
	}
	warm_clean();   /* what a killed keeper left */
	uint64_t start = host_now_ms();
	if (warm_start(t, idle_s) != 0)
		return EXIT_UNAVAILABLE;
	char pid[32];
	starting_keeper = warm_read("keeper.pid", pid, sizeof(pid)) ? atoi(pid) : 0;
	stop_cleanup(stop_starting);
	int fd = warm_open(t);
	if (fd < 0) {
		fprintf(stderr, "baremon: the warm target did not start (%s/run-qemu.log)\n",
			warm_dir());
		return EXIT_UNAVAILABLE;
	}
	static struct conn c;
	conn_init(&c, fd, t);
	stop_watch(t, &c);
	conn_start(&c, false);
	warm_mark_ready(t);
	conn_bye(&c, 0);
	starting_keeper = 0;
	target_close(t);
	fprintf(stderr, "baremon: the warm target is up (%.1f s); commands with the same target "
		"options use it until baremon down%s\n", (double)(host_now_ms() - start) / 1000,
		idle_s > 0 ? " or it is idle that long" : "");
	return 0;
}

static int cmd_down(void)
{
	pid_t pid = warm_keeper();
	if (!pid) {
		warm_clean();
		fprintf(stderr, "baremon: no warm target is up\n");
		return 0;
	}
	kill(pid, SIGTERM);
	for (int i = 0; i < 600 && warm_keeper() == pid; i++) {
		stop_check();
		sleep_ms(100);
	}
	if (warm_keeper() == pid) {
		fprintf(stderr, "baremon: the warm target's keeper (pid %d) did not stop\n", (int)pid);
		return EXIT_SOFTWARE;
	}
	fprintf(stderr, "baremon: the warm target is down\n");
	return 0;
}

/* status: what is up, with what, idle how long; 0 when up, 1 if not. */
static int cmd_status(void)
{
	pid_t pid = warm_keeper();
	if (!pid) {
		printf("no warm target is up (%s)\n", warm_dir());
		return 1;
	}
	char opts[2048] = "", qemu[32] = "?", idle[32] = "0", ready[8], path[512];
	warm_read("options", opts, sizeof(opts));
	one_line(opts);
	warm_read("qemu.pid", qemu, sizeof(qemu));
	qemu[strcspn(qemu, "\n")] = 0;
	warm_read("idle", idle, sizeof(idle));
	struct stat st;
	warm_path(path, sizeof(path), "used");
	long since = stat(path, &st) == 0 ? (long)(time(NULL) - st.st_mtime) : 0;
	warm_path(path, sizeof(path), "lock");
	FILE *f = fopen(path, "r");
	bool busy = f && flock(fileno(f), LOCK_EX | LOCK_NB) != 0;
	if (f)
		fclose(f);
	printf("warm target up: keeper pid %d, QEMU pid %s, options: %s\n", (int)pid, qemu,
	       opts[0] ? opts : "none");
	printf("state: %s, %s, idle %ld s of %d s, in %s\n",
	       warm_read("ready", ready, sizeof(ready)) ? "booted" : "booting",
	       busy ? "in use" : "free", since, atoi(idle), warm_dir());
	return 0;
}

int cmd_warm(struct target *t, int argc, char **argv)
{
	if (t->kind != TARGET_QEMU || t->export_line) {
		fprintf(stderr, "baremon: %s: the warm target is a QEMU the tool starts, with one "
			"line (no --serial, --connect, --export)\n", argv[0]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "up"))
		return cmd_up(t, argc, argv);
	if (!strcmp(argv[0], "down"))
		return cmd_down();
	return cmd_status();
}
