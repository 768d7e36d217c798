/*
 * groups.c: event groups beyond what readfmt and ioctl cover, with
 * software events (Linux's "software" PMU: page-faults, context-switches,
 * cpu-migrations, minor-faults, major-faults, alignment-faults,
 * emulation-faults, dummy; task-clock and cpu-clock each have a PMU of
 * their own). What Linux does:
 *
 * - pinned and exclusive are for leaders: on a sibling EINVAL;
 * - a sibling must share its leader's context: another task, a per-CPU
 *   leader for a task event, another CPU: EINVAL; group_fd must be a perf
 *   event: anything else EBADF, with PERF_FLAG_FD_NO_GROUP too;
 * - a group of 8 software events read with PERF_FORMAT_GROUP: every
 *   member counts all the time (running == enabled, in the group read
 *   and in each member's own read); a pinned leader, two exclusive
 *   leaders and a flexible one all count all the time too (a software
 *   group can always go on);
 * - a group read never exceeds 16 KiB: the member that would make it
 *   larger is E2BIG;
 * - closing a sibling takes it out of the group read; closing the leader
 *   leaves each sibling a group of its own, still counting, readable
 *   and able to lead new siblings;
 * - a sibling opened into a disabled group counts from the leader's
 *   ENABLE, into a running group from its open; a sibling opened
 *   disabled counts once enabled itself; ENABLE on a sibling of a
 *   disabled leader succeeds but counts nothing;
 * - PERF_FLAG_FD_NO_GROUP: the group_fd (which must be a perf fd, of any
 *   context) is ignored and the event stands alone; PERF_FLAG_FD_OUTPUT
 *   with group_fd -1 opens, with a group_fd whose event has no ring
 *   buffer EINVAL, with a mapped one it opens (in the group unless
 *   NO_GROUP too).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

#define FMT_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define FMT_ALL   (FMT_TIMES | PERF_FORMAT_ID)
#define PAGES 32
#define BUSY 3000000   /* ns */

/* A software counter on pid/cpu; disabled as asked. -1 with errno. */
static int ev_on(uint64_t config, pid_t pid, int cpu, int group_fd,
                 uint64_t fmt, int disabled, unsigned long flags)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.read_format = fmt;
	a.disabled = disabled ? 1 : 0;
	return perf_open(&a, pid, cpu, group_fd, flags);
}

/* The same on the calling task, any CPU. */
static int ev(uint64_t config, int group_fd, uint64_t fmt, int disabled)
{
	return ev_on(config, 0, -1, group_fd, fmt, disabled, 0);
}

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
		return PERF_BAD_VALUE;
	return id;
}

/* read() into buf; the byte count (or -1). */
static ssize_t get(int fd, uint64_t *buf, size_t words)
{
	memset(buf, 0xff, words * 8);
	return read(fd, buf, words * 8);
}

static void test_leader_only(void)
{
	struct perf_event_attr a;
	int l = ev(PERF_COUNT_SW_PAGE_FAULTS, -1, 0, 0);

	CHECK(l >= 0, "open a page-faults leader");
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	a.pinned = 1;
	CHECK_ERR(perf_open(&a, 0, -1, l, 0), EINVAL, "a pinned sibling");
	a.pinned = 0;
	a.exclusive = 1;
	CHECK_ERR(perf_open(&a, 0, -1, l, 0), EINVAL, "an exclusive sibling");
	a.pinned = 1;
	CHECK_ERR(perf_open(&a, 0, -1, l, 0), EINVAL,
	          "a pinned and exclusive sibling");
	check_opens(perf_open(&a, 0, -1, -1, 0),
	            "a pinned and exclusive leader");
	close(l);
}

static void test_contexts(void)
{
	int fd[2], tl, cl, s, null, p[2];
	pid_t child = waiting_child(fd);

	tl = ev_on(PERF_COUNT_SW_PAGE_FAULTS, child, -1, -1, 0, 0, 0);
	CHECK(tl >= 0, "open a leader on a child task");
	CHECK_ERR(ev(PERF_COUNT_SW_CONTEXT_SWITCHES, tl, 0, 0), EINVAL,
	          "a sibling on this task, its leader on the child");
	check_opens(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, child, -1, tl, 0, 0,
	                  0), "a sibling on the child too");

	cl = ev_on(PERF_COUNT_SW_PAGE_FAULTS, -1, 0, -1, 0, 0, 0);
	CHECK(cl >= 0, "open a per-CPU leader (pid -1, cpu 0)");
	CHECK_ERR(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, cl, 0, 0, 0),
	          EINVAL, "a task sibling (pid 0, cpu 0) of a per-CPU leader");
	CHECK_ERR(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, -1, 1, cl, 0, 0, 0),
	          EINVAL, "a sibling on CPU 1 of a CPU 0 leader");
	check_opens(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, -1, 0, cl, 0, 0, 0),
	            "a sibling on CPU 0 too");
	CHECK_ERR(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, child, -1, cl, 0, 0, 0),
	          EINVAL, "a sibling on the child of a per-CPU leader");

	/* NO_GROUP: group_fd is not a leader, but it must be a perf fd. */
	check_opens(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, tl, 0, 0,
	                  PERF_FLAG_FD_NO_GROUP),
	            "NO_GROUP, this task, group_fd the child's leader");
	check_opens(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, cl, 0, 0,
	                  PERF_FLAG_FD_NO_GROUP),
	            "NO_GROUP, this task, group_fd a per-CPU leader");

	null = open("/dev/null", O_RDONLY);
	pipe(p);
	CHECK_ERR(ev(PERF_COUNT_SW_CONTEXT_SWITCHES, null, 0, 0), EBADF,
	          "group_fd /dev/null");
	CHECK_ERR(ev(PERF_COUNT_SW_CONTEXT_SWITCHES, p[0], 0, 0), EBADF,
	          "group_fd a pipe");
	CHECK_ERR(ev(PERF_COUNT_SW_CONTEXT_SWITCHES, 1000, 0, 0), EBADF,
	          "group_fd 1000 (not open)");
	CHECK_ERR(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, null, 0, 0,
	                PERF_FLAG_FD_NO_GROUP), EBADF,
	          "NO_GROUP, group_fd /dev/null");
	CHECK_ERR(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, 1000, 0, 0,
	                PERF_FLAG_FD_NO_GROUP), EBADF,
	          "NO_GROUP, group_fd 1000 (not open)");
	CHECK_ERR(ev_on(PERF_COUNT_SW_CONTEXT_SWITCHES, 0, -1, 1000, 0, 0,
	                PERF_FLAG_FD_OUTPUT), EBADF,
	          "FD_OUTPUT, group_fd 1000 (not open)");
	close(null);
	close(p[0]);
	close(p[1]);

	s = ev(PERF_COUNT_SW_PAGE_FAULTS, -1, 0, 0);
	CHECK(s >= 0, "open a lone event");
	close(tl);
	close(cl);
	close(s);
	close(fd[1]);
	waitpid(child, NULL, 0);
}

/* The events of Linux's "software" PMU, leader first. */
static const uint64_t sw[8] = {
	PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_ALIGNMENT_FAULTS,
	PERF_COUNT_SW_EMULATION_FAULTS, PERF_COUNT_SW_DUMMY,
};

static void test_big_group(void)
{
	uint64_t buf[64], own[4], id[8];
	int fd[8], ok = 1, all = 1;
	ssize_t want = 8 * (3 + 2 * 8), n;

	/* The leader reads the group; each sibling reads itself. */
	for (int i = 0; i < 8; i++) {
		fd[i] = ev(sw[i], i ? fd[0] : -1,
		           i ? FMT_ALL : PERF_FORMAT_GROUP | FMT_ALL, 0);
		id[i] = event_id(fd[i]);
		ok = ok && fd[i] >= 0;
	}
	if (!CHECK(ok, "open a group of 8 software events"))
		return;
	touch_pages(PAGES);
	work_ns(BUSY);
	sleep_ns(SWITCH_SLEEP_NS);
	sleep_ns(SWITCH_SLEEP_NS);

	n = get(fd[0], buf, 64);
	CHECK(n == want && buf[0] == 8,
	      "the group read: %zd bytes, nr 8 (%llu)", want,
	      (unsigned long long)buf[0]);
	CHECK(buf[1] > 0 && buf[2] == buf[1],
	      "the group is on all the time: running == enabled (%llu, %llu)",
	      (unsigned long long)buf[1], (unsigned long long)buf[2]);
	for (int i = 0; i < 8; i++)
		all = all && buf[4 + 2 * i] == id[i];
	CHECK(all, "the members in creation order (their ids)");
	CHECK(buf[3] >= PAGES && buf[5] >= 2 && buf[9] >= PAGES &&
	      buf[11] == 0 && buf[17] == 0,
	      "page-faults %llu, context-switches %llu, minor-faults %llu, "
	      "major-faults %llu, dummy %llu", (unsigned long long)buf[3],
	      (unsigned long long)buf[5], (unsigned long long)buf[9],
	      (unsigned long long)buf[11], (unsigned long long)buf[17]);
	for (int i = 1; i < 8; i++) {
		n = get(fd[i], own, 4);

		CHECK(n == 32 && own[1] > 0 && own[2] == own[1] &&
		      own[3] == id[i],
		      "member %d's own read: running == enabled (%llu, %llu)",
		      i, (unsigned long long)own[1],
		      (unsigned long long)own[2]);
	}
	for (int i = 7; i >= 0; i--)
		close(fd[i]);
}

/*
 * A group's read may not exceed 16 KiB. With GROUP, both times, ID and
 * LOST it is 24 + 24 n bytes for n events: 681 fit, the 682nd is E2BIG.
 */
static void test_group_size(void)
{
	uint64_t fmt = PERF_FORMAT_GROUP | FMT_ALL | PERF_FORMAT_LOST;
	static int fd[682];
	int n = 0, last;

	fd[0] = ev(PERF_COUNT_SW_DUMMY, -1, fmt, 0);
	for (n = 1; fd[0] >= 0 && n < 681; n++) {
		fd[n] = ev(PERF_COUNT_SW_DUMMY, fd[0], fmt, 0);
		if (fd[n] < 0)
			break;
	}
	if (!CHECK(n == 681, "a group of 681 dummy events opens (%d, errno %s)",
	           n, n == 681 ? "-" : strerror(errno)))
		abi_note("RLIMIT_NOFILE or a group limit below Linux's");
	if (n == 681) {
		CHECK_ERR(last = ev(PERF_COUNT_SW_DUMMY, fd[0], fmt, 0), E2BIG,
		          "the 682nd (a 16392-byte read)");
		if (last >= 0)
			close(last);
		/* Every member's read_format is checked, not the new one's. */
		CHECK_ERR(last = ev(PERF_COUNT_SW_DUMMY, fd[0],
		                    PERF_FORMAT_GROUP, 0), E2BIG,
		          "a 682nd reading GROUP only (the others' reads grow)");
		if (last >= 0)
			close(last);
	}
	while (n-- > 0)
		close(fd[n]);
}

static void test_always_on(void)
{
	struct perf_event_attr a;
	int fd[5], ok = 1;
	uint64_t r[3];
	static const char *name[5] = {
		"pinned leader", "its sibling", "exclusive leader",
		"another exclusive leader", "flexible leader",
	};

	for (int i = 0; i < 5; i++) {
		/* The sibling of task-clock's own PMU: see readfmt.c. */
		perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		a.read_format = FMT_TIMES;
		a.pinned = i == 0;
		a.exclusive = i == 2 || i == 3;
		fd[i] = perf_open(&a, 0, -1, i == 1 ? fd[0] : -1, 0);
		ok = ok && fd[i] >= 0;
	}
	if (!CHECK(ok, "open a pinned task-clock group, two exclusive ones "
	           "and a flexible one"))
		return;
	work_ns(20000000);
	sleep_ns(SWITCH_SLEEP_NS);
	work_ns(20000000);
	for (int i = 0; i < 5; i++) {
		ssize_t n = get(fd[i], r, 3);

		CHECK(n == 24 && r[1] > 0 && r[2] == r[1] && r[0] > 20000000,
		      "%s counts all the time: %llu ns, running %llu == "
		      "enabled %llu", name[i], (unsigned long long)r[0],
		      (unsigned long long)r[2], (unsigned long long)r[1]);
	}
	for (int i = 4; i >= 0; i--)
		close(fd[i]);
}

static void test_close(void)
{
	uint64_t buf[16], b2[16], id[4];
	int fd[4], ok = 1, more;
	ssize_t n;

	for (int i = 0; i < 4; i++) {
		fd[i] = ev(i == 3 ? PERF_COUNT_SW_PAGE_FAULTS_MIN : sw[i],
		           i ? fd[0] : -1, PERF_FORMAT_GROUP | FMT_ALL, 0);
		id[i] = event_id(fd[i]);
		ok = ok && fd[i] >= 0;
	}
	if (!CHECK(ok, "open a page-faults leader and 3 siblings"))
		return;
	touch_pages(PAGES);
	close(fd[2]);
	n = get(fd[0], buf, 16);
	CHECK(n == 8 * (3 + 2 * 3) && buf[0] == 3 && buf[4] == id[0] &&
	      buf[6] == id[1] && buf[8] == id[3],
	      "close a sibling: the group read has the other 3, in order");

	close(fd[0]);
	n = get(fd[1], buf, 16);
	CHECK(n == 40 && buf[0] == 1 && buf[4] == id[1],
	      "close the leader: a sibling reads as a group of one "
	      "(%zd bytes, nr %llu)", n, (unsigned long long)buf[0]);
	CHECK(buf[1] > 0 && buf[2] == buf[1], "with its own times");
	n = get(fd[3], buf, 16);
	CHECK(n == 40 && buf[0] == 1 && buf[3] >= PAGES && buf[4] == id[3],
	      "the other one too: minor-faults %llu",
	      (unsigned long long)buf[3]);
	touch_pages(PAGES);
	get(fd[3], b2, 16);
	CHECK(b2[3] >= buf[3] + PAGES && b2[3] != PERF_BAD_VALUE,
	      "and it still counts (+%llu)",
	      (unsigned long long)(b2[3] - buf[3]));
	CHECK(ioctl(fd[3], PERF_EVENT_IOC_DISABLE, 0) == 0,
	      "DISABLE it alone");
	get(fd[3], buf, 16);
	touch_pages(PAGES);
	get(fd[3], b2, 16);
	CHECK(b2[3] == buf[3], "it stands still");
	n = get(fd[1], buf, 16);
	CHECK(n == 40 && buf[3] < PERF_BAD_VALUE,
	      "its former group mate is not disabled: it reads");

	/* A former sibling can lead a group of its own. */
	more = ev(PERF_COUNT_SW_PAGE_FAULTS, fd[1], PERF_FORMAT_GROUP | FMT_ALL,
	          0);
	CHECK(more >= 0, "a new sibling joins the former sibling");
	n = get(fd[1], buf, 16);
	CHECK(n == 56 && buf[0] == 2 && buf[4] == id[1] &&
	      buf[6] == event_id(more), "its group read: itself, then the new one");
	close(more);
	close(fd[1]);
	close(fd[3]);
}

/* Siblings opened into disabled or running groups; disabled siblings. */
static void test_late_siblings(void)
{
	uint64_t buf[8];
	ssize_t n;
	int l, s;

	/* Into a disabled group: nothing counts before the leader's ENABLE. */
	l = ev(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP | FMT_TIMES, 1);
	s = ev(PERF_COUNT_SW_PAGE_FAULTS_MIN, l, PERF_FORMAT_GROUP | FMT_TIMES, 0);
	CHECK(l >= 0 && s >= 0, "a sibling (enabled) into a disabled group");
	touch_pages(PAGES);
	n = get(l, buf, 8);
	CHECK(n == 40 && buf[3] == 0 && buf[4] == 0 && buf[1] == 0,
	      "nothing counts, never enabled (%llu, %llu)",
	      (unsigned long long)buf[3], (unsigned long long)buf[4]);
	CHECK(ioctl(s, PERF_EVENT_IOC_ENABLE, 0) == 0,
	      "ENABLE the sibling (not the group) succeeds");
	touch_pages(PAGES);
	n = get(l, buf, 8);
	CHECK(n == 40 && buf[3] == 0 && buf[4] == 0,
	      "but it still counts nothing: its leader is off (%llu)",
	      (unsigned long long)buf[4]);
	CHECK(ioctl(l, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE the leader");
	touch_pages(PAGES);
	n = get(l, buf, 8);
	CHECK(n == 40 && buf[3] >= PAGES && buf[4] >= PAGES &&
	      buf[4] < 2 * PAGES + 16 && buf[2] == buf[1],
	      "both count from then on (%llu, %llu)",
	      (unsigned long long)buf[3], (unsigned long long)buf[4]);
	close(s);
	close(l);

	/* Into a running group: the sibling counts from its open. */
	l = ev(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP, 0);
	touch_pages(PAGES);
	s = ev(PERF_COUNT_SW_PAGE_FAULTS_MIN, l, PERF_FORMAT_GROUP, 0);
	CHECK(l >= 0 && s >= 0, "a sibling into a running group");
	touch_pages(PAGES);
	n = get(l, buf, 8);
	CHECK(n == 24 && buf[1] >= 2 * PAGES &&
	      buf[2] >= PAGES && buf[2] < buf[1],
	      "it counts what came after its open (leader %llu, sibling %llu)",
	      (unsigned long long)buf[1], (unsigned long long)buf[2]);
	close(s);

	/* A sibling opened disabled waits for its own ENABLE. */
	s = ev(PERF_COUNT_SW_PAGE_FAULTS_MIN, l, PERF_FORMAT_GROUP, 1);
	touch_pages(PAGES);
	n = get(l, buf, 8);
	CHECK(s >= 0 && n == 24 && buf[2] == 0,
	      "a sibling opened disabled in a running group reads 0 (%llu)",
	      (unsigned long long)buf[2]);
	CHECK(ioctl(s, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE it");
	touch_pages(PAGES);
	n = get(l, buf, 8);
	CHECK(n == 24 && buf[2] >= PAGES && buf[2] != PERF_BAD_VALUE,
	      "then it counts (%llu)", (unsigned long long)buf[2]);
	CHECK(ioctl(s, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE it again");
	get(l, buf, 8);
	touch_pages(PAGES);
	get(l, buf + 4, 4);
	CHECK(buf[5] >= buf[1] + PAGES && buf[6] == buf[2],
	      "the leader goes on, the sibling stands still");
	close(s);
	close(l);
}

static void test_flags(void)
{
	uint64_t buf[8];
	int l, fd, fd2;
	ssize_t n;
	void *ring;
	long page = sysconf(_SC_PAGESIZE);

	l = ev(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP, 0);
	CHECK(l >= 0, "open a counting leader");
	fd = ev_on(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, l, PERF_FORMAT_GROUP,
	           0, PERF_FLAG_FD_NO_GROUP);
	CHECK(fd >= 0, "NO_GROUP with the leader as group_fd opens");
	n = get(l, buf, 8);
	CHECK(n == 16 && buf[0] == 1,
	      "but not into the group: the leader's read has nr 1 "
	      "(%zd bytes, nr %llu)", n, (unsigned long long)buf[0]);
	n = get(fd, buf, 8);
	CHECK(n == 16 && buf[0] == 1, "and the new event reads as a group of "
	      "its own (%zd bytes, nr %llu)", n, (unsigned long long)buf[0]);
	fd2 = ev_on(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, fd, PERF_FORMAT_GROUP,
	            0, PERF_FLAG_FD_NO_GROUP);
	check_opens(fd2, "NO_GROUP with a lone event as group_fd");
	check_opens(ev_on(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, -1, 0, 0,
	                  PERF_FLAG_FD_NO_GROUP), "NO_GROUP with group_fd -1");
	check_opens(ev_on(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, -1, 0, 0,
	                  PERF_FLAG_FD_OUTPUT), "FD_OUTPUT with group_fd -1");
	check_opens(ev_on(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, -1, 0, 0,
	                  PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP),
	            "FD_OUTPUT | NO_GROUP with group_fd -1");
	CHECK_ERR(ev_on(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, l, 0, 0,
	                PERF_FLAG_FD_OUTPUT), EINVAL,
	          "FD_OUTPUT to a counting leader (no ring buffer)");
	CHECK_ERR(ev_on(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, -1, l, 0, 0,
	                PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP), EINVAL,
	          "FD_OUTPUT | NO_GROUP to it");
	close(fd);
	close(l);

	/* A sampling leader with a ring buffer can take others' output. */
	{
		struct perf_event_attr a;

		perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		a.sample_period = 1000000;
		a.read_format = PERF_FORMAT_GROUP;
		l = perf_open(&a, 0, -1, -1, 0);
		CHECK(l >= 0, "open a sampling task-clock leader");
		CHECK_ERR(perf_open(&a, 0, -1, l, PERF_FLAG_FD_OUTPUT), EINVAL,
		          "FD_OUTPUT to it before it has a ring buffer");
		ring = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE,
		            MAP_SHARED, l, 0);
		if (!CHECK(ring != MAP_FAILED, "map its ring buffer (1 + 1 pages)")) {
			close(l);
			return;
		}
		fd = perf_open(&a, 0, -1, l, PERF_FLAG_FD_OUTPUT);
		CHECK(fd >= 0, "then FD_OUTPUT to it opens");
		n = get(l, buf, 8);
		CHECK(n == 24 && buf[0] == 2,
		      "into its group (nr %llu)", (unsigned long long)buf[0]);
		fd2 = perf_open(&a, 0, -1, l, PERF_FLAG_FD_OUTPUT |
		                PERF_FLAG_FD_NO_GROUP);
		CHECK(fd2 >= 0, "FD_OUTPUT | NO_GROUP to it opens");
		n = get(l, buf, 8);
		CHECK(n == 24 && buf[0] == 2,
		      "not into its group (nr %llu)", (unsigned long long)buf[0]);
		close(fd2);
		close(fd);
		munmap(ring, (size_t)(2 * page));
		close(l);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	test_leader_only();
	test_contexts();
	test_big_group();
	test_group_size();
	test_always_on();
	test_close();
	test_late_siblings();
	test_flags();
	return abi_done("groups");
}
