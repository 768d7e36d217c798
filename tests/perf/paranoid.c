/*
 * paranoid.c: /proc/sys/kernel/perf_event_paranoid and what an
 * unprivileged process may open at each level. As root the test writes
 * each level (-1, 0, 1, 2, 3), then a child setuid()s to 65534 and
 * tries: a user-only event on itself (exclude_kernel, exclude_hv), one
 * that includes the kernel, one on itself bound to CPU 0, per-CPU events
 * (pid -1, cpu 0) with and without the kernel, one on its root parent,
 * and on children of its own uid that are or are not dumpable. Linux
 * (upstream) at each level, for an unprivileged task:
 *
 *   level   own, user   own, kernel   per-CPU   root's task
 *    -1       yes         yes           yes      EACCES
 *     0       yes         yes           yes      EACCES
 *     1       yes         yes          EACCES    EACCES
 *    >=2      yes        EACCES        EACCES    EACCES
 *
 * Attaching to another task needs ptrace read access: same uid and a
 * dumpable task (setuid() makes a task non-dumpable, and fork() passes
 * that on), else EACCES at every level. Root may open everything at
 * every level. Debian's kernels add a level 3 that refuses every
 * unprivileged open; upstream treats 3 as 2. A Linux host with that
 * patch is detected and checked for it; baremon is checked against
 * upstream. The file: writing a non-number or a number beyond int is
 * EINVAL and leaves the value, a non-root process may read it but not
 * open it for writing (EACCES).
 *
 * Needs root. The original level is restored at the end, whatever
 * happens: the tests run in a child process, the first process only
 * saves, waits and restores.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define NOBODY 65534

static int on_baremon;
static int debian_level3;   /* this Linux refuses everything at level 3 */

/* Write s to path in one write(): its result, errno set on -1. */
static ssize_t put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	errno = e;
	return n;
}

/* The integer in path, or LONG_MIN if it cannot be read. */

/* Open task-clock with the given exclusions; close it; 0 or errno. */
static int try_open(pid_t pid, int cpu, int user_only)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.exclude_kernel = user_only ? 1 : 0;
	a.exclude_hv = user_only ? 1 : 0;
	fd = perf_open(&a, pid, cpu, -1, 0);
	if (fd < 0)
		return errno ? errno : -1;
	close(fd);
	return 0;
}

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "opens";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	default: return strerror(e);
	}
}

/* One open and the result Linux gives: 0 (opens) or an errno. */
static void expect(int level, const char *what, int got, int want)
{
	CHECK(got == want, "level %d, uid %d: %s: %s (got %s)", level,
	      (int)geteuid(), what, err_name(want), err_name(got));
}

/* In a child of the root test process: become nobody and try each open. */
static void unprivileged(long level)
{
	int lvl = (int)level, strict = debian_level3 && lvl >= 3;
	int kern = strict || lvl > 1 ? EACCES : 0;
	int percpu = strict || lvl > 0 ? EACCES : 0;
	int own = strict ? EACCES : 0;
	pid_t parent = getppid(), c;
	int fd[2], ro;
	long now;

	if (!CHECK(setuid(NOBODY) == 0 && geteuid() == NOBODY,
	           "setuid(%d)", NOBODY))
		return;
	expect(lvl, "own task, user only", try_open(0, -1, 1), own);
	expect(lvl, "own task by pid, user only", try_open(getpid(), -1, 1),
	       own);
	expect(lvl, "own task, kernel included", try_open(0, -1, 0), kern);
	expect(lvl, "own task on CPU 0 (pid 0, cpu 0), user only",
	       try_open(0, 0, 1), own);
	expect(lvl, "per-CPU (pid -1, cpu 0), user only", try_open(-1, 0, 1),
	       percpu);
	expect(lvl, "per-CPU (pid -1, cpu 0), kernel included",
	       try_open(-1, 0, 0), percpu);
	/* Another uid's task: no ptrace access, whatever the level. */
	expect(lvl, "the root parent's task, user only",
	       try_open(parent, -1, 1), EACCES);
	expect(lvl, "the root parent's task, kernel included",
	       try_open(parent, -1, 0), EACCES);

	/* setuid() left this task non-dumpable; its children inherit it. */
	CHECK(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0,
	      "level %d: after setuid() the task is not dumpable", lvl);
	c = waiting_child(fd);
	expect(lvl, "own child, not dumpable, user only", try_open(c, -1, 1),
	       EACCES);
	release_child(c, fd);
	CHECK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0,
	      "level %d: prctl(PR_SET_DUMPABLE, 1)", lvl);
	c = waiting_child(fd);
	expect(lvl, "own dumpable child, user only", try_open(c, -1, 1), own);
	expect(lvl, "own dumpable child, kernel included", try_open(c, -1, 0),
	       kern);
	release_child(c, fd);

	/* The file: readable by anyone, writable by root only. */
	now = file_long(PARANOID, LONG_MIN);
	CHECK(now == lvl, "level %d: nobody reads it (%ld)", lvl, now);
	errno = 0;
	ro = open(PARANOID, O_WRONLY);
	CHECK(ro < 0 && errno == EACCES,
	      "level %d: nobody opens it for writing: EACCES (got %d, %s)",
	      lvl, ro, strerror(errno));
	if (ro >= 0)
		close(ro);
	CHECK_ERR(open(PARANOID, O_RDWR), EACCES,
	          "nobody opens it for reading and writing");
}

/* Root ignores the level: per-CPU, kernel included, another's task. */
static void privileged(int level)
{
	int fd[2];
	pid_t c = waiting_child(fd);

	expect(level, "per-CPU (pid -1, cpu 0), kernel included",
	       try_open(-1, 0, 0), 0);
	expect(level, "own task, kernel included", try_open(0, -1, 0), 0);
	expect(level, "a child's task, kernel included", try_open(c, -1, 0), 0);
	release_child(c, fd);
}

static void set_level(int level)
{
	char s[16];

	ssize_t n;
	long now;

	snprintf(s, sizeof(s), "%d", level);
	n = put(PARANOID, s);
	now = file_long(PARANOID, LONG_MIN);
	CHECK(n == (ssize_t)strlen(s) && now == level,
	      "write %d to perf_event_paranoid, read it back (%ld)", level, now);
}

static void test_levels(void)
{
	static const int levels[] = { -1, 0, 1, 2, 3 };

	for (unsigned i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		int level = levels[i];
		char what[32];

		set_level(level);
		if (file_long(PARANOID, LONG_MIN) != level)
			continue;
		if (level == 3 && !on_baremon) {
			/* Which kind of Linux is this? Ask it as nobody. */
			pid_t pid = fork();
			int st = -1;

			if (pid == 0)
				_exit(setuid(NOBODY) == 0 &&
				      try_open(0, -1, 1) == EACCES);
			waitpid(pid, &st, 0);
			debian_level3 = WIFEXITED(st) && WEXITSTATUS(st) == 1;
			if (debian_level3)
				abi_note("this Linux refuses all unprivileged "
				         "use at level 3 (Debian's patch)");
		}
		privileged(level);
		snprintf(what, sizeof(what), "level %d as nobody", level);
		in_child(unprivileged, level, what);
	}
}

/* What the file accepts (as root). */
static void test_writes(void)
{
	static const char *bad[] = { "abc", "1x", "99999999999", "-99999999999" };
	long now;

	set_level(2);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "write \"%s\"", bad[i]);
		CHECK_ERR(put(PARANOID, bad[i]), EINVAL, what);
		now = file_long(PARANOID, LONG_MIN);
		CHECK(now == 2, "and the level stays 2 (%ld)", now);
	}
	CHECK(put(PARANOID, "1\n") == 2 && file_long(PARANOID, LONG_MIN) == 1,
	      "write \"1\\n\" (with a newline): level 1");
	CHECK(put(PARANOID, " 0 ") == 3 && file_long(PARANOID, LONG_MIN) == 0,
	      "write \" 0 \" (white space around): level 0");
}

static void body(long unused)
{
	test_levels();
	test_writes();
}

int main(void)
{
	char orig[32] = "";
	long saved;
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	on_baremon = abi_on_baremon();
	saved = file_long(PARANOID, LONG_MIN);
	if (!CHECK(saved != LONG_MIN, "read %s (%ld)", PARANOID, saved))
		return abi_done("paranoid");
	if (geteuid() != 0) {
		abi_note("not root: cannot change perf_event_paranoid; skipped");
		return abi_done("paranoid");
	}
	fd = open(PARANOID, O_RDONLY);
	if (fd >= 0) {
		read(fd, orig, sizeof(orig) - 1);
		close(fd);
	}
	in_child(body, 0, "the tests");
	CHECK(put(PARANOID, orig) > 0 && file_long(PARANOID, LONG_MIN) == saved,
	      "perf_event_paranoid restored to %ld", saved);
	return abi_done("paranoid");
}
