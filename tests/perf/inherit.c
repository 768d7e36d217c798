/*
 * inherit.c: counters and new processes. With inherit = 1 a forked
 * child's (and grandchild's) page faults and task-clock are added to the
 * parent's counter, visible while the child runs and kept after it is
 * reaped; with inherit = 0 they are not. enable_on_exec: a counter opened
 * disabled reads 0 (and no enabled time) until its task calls execve, then
 * counts; both for a child opened by its parent (what `perf stat CMD`
 * does) and for a task that opens a counter on itself and execs. An
 * inherited group folds each exiting child's copy into its own members.
 *
 * The exec'd program is this one (/proc/self/exe, else argv[0]), run as
 *   inherit --group                 only the inherited group's test
 *   inherit --spin                  work for a while, exit 0
 *   inherit --after-exec EVFD OUTFD write EVFD's value to OUTFD, exit 0
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

#define CHILD_PAGES 1024
#define CHILD_BUSY  60000000   /* ns: long beside what a loaded host steals */

static char *self;   /* argv[0] */

static int open_inherit(uint64_t config, int inherit)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.inherit = inherit ? 1 : 0;
	return perf_open(&a, 0, -1, -1, 0);
}

/* Exec this program with args; falls back to argv[0]. Returns on failure. */
static void exec_self(char *arg1, char *arg2, char *arg3)
{
	char *argv[] = { self, arg1, arg2, arg3, NULL };

	execv("/proc/self/exe", argv);
	execv(self, argv);
}

/*
 * Fork a child that faults CHILD_PAGES pages and spins CHILD_BUSY ns,
 * then says so through a pipe and waits to be told to exit. The parent
 * reads pf and clock while the child is alive and after it is reaped.
 */
static void run_child(int pf, int clock, uint64_t alive[2], uint64_t reaped[2],
                      int grandchild)
{
	int done[2], go[2], st = -1;
	char c = 0;
	pid_t pid;

	pipe(done);
	pipe(go);
	pid = fork();
	if (pid == 0) {
		if (grandchild) {
			/* The work is the grandchild's; the child only waits. */
			pid_t g = fork();
			if (g != 0) {
				waitpid(g, NULL, 0);
				_exit(0);
			}
		}
		touch_pages(CHILD_PAGES);
		work_ns(CHILD_BUSY);
		write(done[1], "x", 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	close(done[1]);   /* so a child that dies early ends the read */
	close(go[0]);
	read(done[0], &c, 1);
	alive[0] = perf_value(pf);
	alive[1] = perf_value(clock);
	write(go[1], "x", 1);
	waitpid(pid, &st, 0);
	reaped[0] = perf_value(pf);
	reaped[1] = perf_value(clock);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child exits 0");
	close(done[0]);
	close(go[1]);
}

static void test_inherit(int inherit, int grandchild)
{
	int pf = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, inherit);
	int clock = open_inherit(PERF_COUNT_SW_TASK_CLOCK, inherit);
	uint64_t p0, c0, own0, own, alive[2], reaped[2];
	const char *who = grandchild ? "a grandchild" : "a child";

	CHECK(pf >= 0 && clock >= 0,
	      "open page-faults and task-clock, inherit = %d", inherit);
	p0 = perf_value(pf);
	c0 = perf_value(clock);
	own0 = cpu_ns();
	run_child(pf, clock, alive, reaped, grandchild);
	own = cpu_ns() - own0;
	abi_note("%s, inherit = %d: page-faults +%llu, task-clock +%llu ns "
	         "(the parent's own CPU time %llu ns)",
	         who, inherit, (unsigned long long)(reaped[0] - p0),
	         (unsigned long long)(reaped[1] - c0), (unsigned long long)own);
	CHECK(own < CHILD_BUSY / 2, "the parent's own CPU time leaves out its wait for %s "
	      "(%llu ns)", who, (unsigned long long)own);
	if (inherit) {
		/* Linux's read() adds the live children's counts to the parent's. */
		CHECK(alive[0] - p0 >= CHILD_PAGES,
		      "%s's page faults count while it runs", who);
		CHECK(reaped[0] - p0 >= CHILD_PAGES,
		      "%s's page faults are kept after it is reaped", who);
		CHECK(reaped[0] >= alive[0] && reaped[1] >= alive[1],
		      "the counts do not fall when it exits");
		CHECK(reaped[1] - c0 >= CHILD_BUSY / 3,
		      "%s's busy time is in task-clock", who);
	} else {
		/* The parent itself faults a little (copy-on-write after fork). */
		CHECK(reaped[0] - p0 < CHILD_PAGES / 2,
		      "%s's page faults are not counted", who);
		/* The parent's own time (fork, copy-on-write faults) is its
		 * task-clock's: on a loaded host a fork alone can take
		 * tens of ms, so the bound is that plus half the child's. */
		CHECK(reaped[1] - c0 < own + CHILD_BUSY / 2,
		      "%s's busy time is not in task-clock (%llu ns, the "
		      "parent's own %llu ns)", who,
		      (unsigned long long)(reaped[1] - c0), (unsigned long long)own);
	}
	close(pf);
	close(clock);
}

/*
 * An inherited group: each forked child gets a copy of the whole group,
 * folded into the parent's events when the child exits. Children exit
 * one after another, so each exit frees a group while the next fork
 * allocates one (baremon freed the copied leader before unlinking its
 * siblings from it: a write after free its debug heap reported).
 */
#define GROUP_CHILDREN 20
#define GROUP_PAGES    64

static int open_group_member(uint64_t config, int group_fd)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.inherit = 1;
	if (group_fd < 0)
		a.read_format = PERF_FORMAT_GROUP;
	return perf_open(&a, 0, -1, group_fd, 0);
}

static void test_inherit_group(void)
{
	int lead = open_group_member(PERF_COUNT_SW_PAGE_FAULTS, -1);
	int minor = open_group_member(PERF_COUNT_SW_PAGE_FAULTS_MIN, lead);
	int clock = open_group_member(PERF_COUNT_SW_TASK_CLOCK, lead);
	uint64_t before[4] = { 0 }, after[4] = { 0 };
	int exited = 0;

	CHECK(lead >= 0 && minor >= 0 && clock >= 0,
	      "open an inherited group of three software events");
	CHECK(read(lead, before, sizeof(before)) == 4 * sizeof(uint64_t) &&
	      before[0] == 3, "the group reads as three values");
	for (int i = 0; i < GROUP_CHILDREN; i++) {
		int st = -1;
		pid_t pid = fork();

		if (pid == 0) {
			touch_pages(GROUP_PAGES);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		exited += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	CHECK(exited == GROUP_CHILDREN, "%d children exit 0", GROUP_CHILDREN);
	CHECK(read(lead, after, sizeof(after)) == 4 * sizeof(uint64_t),
	      "the group reads after the children exit");
	abi_note("inherited group: page-faults +%llu, minor +%llu, task-clock +%llu ns",
	         (unsigned long long)(after[1] - before[1]),
	         (unsigned long long)(after[2] - before[2]),
	         (unsigned long long)(after[3] - before[3]));
	CHECK(after[1] - before[1] >= GROUP_CHILDREN * GROUP_PAGES,
	      "the leader holds every child's page faults");
	CHECK(after[2] - before[2] >= GROUP_CHILDREN * GROUP_PAGES,
	      "a sibling holds every child's minor faults");
	CHECK(after[3] > before[3], "the task-clock sibling holds the children's time");
	close(clock);
	close(minor);
	close(lead);
}

/*
 * What `perf stat CMD` does: a forked child waits; its parent opens
 * counters on it, disabled with enable_on_exec; the child works, then
 * execs. Nothing counts before execve, everything after.
 */
static void test_enable_on_exec_child(void)
{
	struct perf_event_attr a;
	int go[2], done[2], fd[2], st = -1;
	uint64_t v[2][2];
	char c = 0;
	pid_t pid;

	pipe(go);
	pipe(done);
	pid = fork();
	if (pid == 0) {
		read(go[0], &c, 1);
		touch_pages(64);
		work_ns(5000000);
		write(done[1], "x", 1);
		read(go[0], &c, 1);
		exec_self("--spin", NULL, NULL);
		_exit(127);
	}
	close(done[1]);
	close(go[0]);
	for (int i = 0; i < 2; i++) {
		perf_attr(&a, PERF_TYPE_SOFTWARE, i ? PERF_COUNT_SW_PAGE_FAULTS
		                                    : PERF_COUNT_SW_TASK_CLOCK);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
		a.disabled = 1;
		a.enable_on_exec = 1;
		fd[i] = perf_open(&a, pid, -1, -1, 0);
	}
	CHECK(fd[0] >= 0 && fd[1] >= 0, "open task-clock and page-faults on a "
	      "child, disabled, enable_on_exec");
	write(go[1], "x", 1);
	read(done[0], &c, 1);
	for (int i = 0; i < 2; i++)
		if (read(fd[i], v[i], sizeof(v[i])) != (ssize_t)sizeof(v[i]))
			memset(v[i], 0xff, sizeof(v[i]));
	CHECK(v[0][0] == 0 && v[1][0] == 0,
	      "after the child's work, before execve: both 0 (%llu, %llu)",
	      (unsigned long long)v[0][0], (unsigned long long)v[1][0]);
	CHECK(v[0][1] == 0 && v[1][1] == 0, "and never enabled");
	write(go[1], "x", 1);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child execs this program and exits 0 (status %#x)", st);
	for (int i = 0; i < 2; i++)
		if (read(fd[i], v[i], sizeof(v[i])) != (ssize_t)sizeof(v[i]))
			memset(v[i], 0, sizeof(v[i]));
	abi_note("after exec: task-clock %llu ns, page-faults %llu",
	         (unsigned long long)v[0][0], (unsigned long long)v[1][0]);
	CHECK(v[0][0] >= 5000000 / 3 && v[0][0] != PERF_BAD_VALUE,
	      "after execve task-clock counted the new program's work");
	CHECK(v[1][0] > 0 && v[1][0] != PERF_BAD_VALUE,
	      "and page-faults its faults");
	CHECK(v[0][1] > 0, "enabled time > 0");
	close(fd[0]);
	close(fd[1]);
	close(go[1]);
	close(done[0]);
}

/* A task opens a counter on itself with enable_on_exec, then execs. */
static void test_enable_on_exec_self(void)
{
	uint64_t before = PERF_BAD_VALUE, after = PERF_BAD_VALUE;
	int out[2], st = -1;
	pid_t pid;

	pipe(out);
	pid = fork();
	if (pid == 0) {
		struct perf_event_attr a;
		char evfd[16], outfd[16];
		uint64_t v;
		int fd;

		close(out[0]);
		perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		a.disabled = 1;
		a.enable_on_exec = 1;
		fd = perf_open(&a, 0, -1, -1, 0);
		work_ns(5000000);
		v = fd >= 0 ? perf_value(fd) : PERF_BAD_VALUE;
		write(out[1], &v, sizeof(v));
		snprintf(evfd, sizeof(evfd), "%d", fd);
		snprintf(outfd, sizeof(outfd), "%d", out[1]);
		exec_self("--after-exec", evfd, outfd);
		_exit(127);
	}
	close(out[1]);
	read(out[0], &before, sizeof(before));
	read(out[0], &after, sizeof(after));
	waitpid(pid, &st, 0);
	close(out[0]);
	CHECK(before == 0, "a task's own enable_on_exec counter is 0 before "
	      "execve, after 5 ms busy (%llu)", (unsigned long long)before);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "it execs this program, which exits 0 (status %#x)", st);
	CHECK(after >= 5000000 / 3 && after != PERF_BAD_VALUE,
	      "the new program reads the counter through the kept fd: it "
	      "counted (%llu ns)", (unsigned long long)after);
}

/* A grandchild that outlives the child that forked it: its copy of the
 * event counts into the original (Linux copies from the original, never
 * from a copy), though the child's copy was folded and freed when the
 * child exited. The grandchild is not ours to wait for: the pipe's end
 * tells when it exited, then its count arrives when its exit folds it. */
static void test_grandchild_outlives_child(void)
{
	int pf = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 1), go[2], done[2], st = -1;
	char c = 0;

	if (!CHECK(pf >= 0 && pipe(go) == 0 && pipe(done) == 0,
	           "inherited page-faults and two pipes for an orphaned grandchild"))
		return;
	uint64_t before = perf_value(pf);
	pid_t pid = fork();
	if (pid == 0) {
		pid_t g = fork();
		if (g == 0) {
			close(done[0]);
			read(go[0], &c, 1); /* until the child has exited */
			touch_pages(CHILD_PAGES);
			_exit(0);
		}
		_exit(g > 0 ? 0 : 1);
	}
	close(go[0]);
	close(done[1]);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child forks and exits first");
	write(go[1], "x", 1);
	close(go[1]);
	read(done[0], &c, 1); /* end of file: the grandchild is gone */
	close(done[0]);
	uint64_t after = perf_value(pf);
	for (int i = 0; i < 10000 && after - before < CHILD_PAGES; i++) {
		usleep(1000);
		after = perf_value(pf);
	}
	CHECK(after - before >= CHILD_PAGES && after != PERF_BAD_VALUE,
	      "the orphaned grandchild's %d page faults count (%llu)", CHILD_PAGES,
	      (unsigned long long)(after - before));
	close(pf);
}

/* A child that waits for a byte on go, touches CHILD_PAGES pages and
 * exits; its pid. */
static pid_t fault_later(int go[2])
{
	char c;
	pid_t pid = fork();

	if (pid == 0) {
		close(go[1]);
		read(go[0], &c, 1);
		touch_pages(CHILD_PAGES);
		_exit(0);
	}
	close(go[0]);
	return pid;
}

/* Let a fault_later child run to its end. */
static void release(pid_t pid, int go[2])
{
	int st;

	write(go[1], "x", 1);
	close(go[1]);
	waitpid(pid, &st, 0);
}

/*
 * DISABLE and ENABLE of an inherited event reach the copies its children
 * already have (Linux's perf_event_for_each_child): a child forked while
 * the event counts, then disabled with it, counts none of its pages; a
 * child forked while it is off, then enabled with it, counts them all.
 */
static void test_ioctl_reaches_copies(void)
{
	int pf = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 1), go[2];

	if (!CHECK(pf >= 0 && pipe(go) == 0, "inherited page-faults for the ioctls' reach"))
		return;
	pid_t pid = fault_later(go);
	CHECK(ioctl(pf, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE with a child's copy out");
	uint64_t before = perf_value(pf);
	release(pid, go);
	uint64_t after = perf_value(pf);
	CHECK(after - before < CHILD_PAGES / 2,
	      "DISABLE reached the child's copy: %llu of its %d page faults counted",
	      (unsigned long long)(after - before), CHILD_PAGES);

	if (!CHECK(pipe(go) == 0, "a second pipe"))
		return;
	pid = fault_later(go);
	CHECK(ioctl(pf, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE with a disabled copy out");
	before = perf_value(pf);
	release(pid, go);
	after = perf_value(pf);
	CHECK(after - before >= CHILD_PAGES,
	      "ENABLE reached the child's copy: %llu page faults counted, %d or more due",
	      (unsigned long long)(after - before), CHILD_PAGES);
	close(pf);
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 2 && strcmp(argv[1], "--spin") == 0) {
		touch_pages(16);
		work_ns(5000000);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "--after-exec") == 0) {
		uint64_t v;

		work_ns(5000000);
		v = perf_value(atoi(argv[2]));
		write(atoi(argv[3]), &v, sizeof(v));
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--group") == 0) {
		test_inherit_group(); /* alone: the debug kernel's check */
		return abi_done("inherit");
	}
	test_inherit(1, 0);
	test_inherit(0, 0);
	test_inherit(1, 1);
	test_grandchild_outlives_child();
	test_ioctl_reaches_copies();
	test_inherit_group();
	test_enable_on_exec_child();
	test_enable_on_exec_self();
	return abi_done("inherit");
}
