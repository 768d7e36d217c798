/*
 * readfmt.c: what read() returns for each read_format. For one event,
 * every combination of TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, ID and
 * LOST (when the headers have it): the length is the layout's size, the
 * fields are in the documented order, enabled >= running > 0, the id is
 * PERF_EVENT_IOC_ID's, lost is 0. A buffer one byte short is ENOSPC. For
 * PERF_FORMAT_GROUP, a leader and two siblings: nr 3, values and ids in
 * creation order, the same group read through a sibling's fd; a group of
 * two PMUs (task-clock and page-faults).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "perf.h"

/*
 * PERF_FORMAT_LOST came with Linux 6.0 (headers and kernel). It is an enum
 * constant, invisible to #ifdef; the suite needs headers of 6.0 or later
 * (Debian 12 has 6.1) and a kernel that accepts it.
 */
#define FMT_LOST PERF_FORMAT_LOST

#define PAGES 16

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
		return PERF_BAD_VALUE;
	return id;
}

static void fmt_name(uint64_t f, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s%s",
	         f & PERF_FORMAT_GROUP ? "GROUP|" : "",
	         f & PERF_FORMAT_TOTAL_TIME_ENABLED ? "ENABLED|" : "",
	         f & PERF_FORMAT_TOTAL_TIME_RUNNING ? "RUNNING|" : "",
	         f & PERF_FORMAT_ID ? "ID|" : "",
	         f & FMT_LOST ? "LOST|" : "",
	         f ? "" : "0|");
	buf[strlen(buf) - 1] = 0;
}

static int popcount(uint64_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* One task-clock event with read_format f: layout, values, ENOSPC. */
static void test_single(uint64_t f)
{
	struct perf_event_attr a;
	uint64_t buf[16], id;
	ssize_t want = 8 * (1 + popcount(f)), got;
	char name[64], what[96];
	int fd, i = 0, ok;

	fmt_name(f, name, sizeof(name));
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = f;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (!CHECK(fd >= 0, "%s: open", name)) {
		printf("#   errno %d (%s)\n", errno, strerror(errno));
		return;
	}
	work_ns(1000000);
	memset(buf, 0xa5, sizeof(buf));
	got = read(fd, buf, sizeof(buf));
	CHECK(got == want, "%s: read gives %zd bytes (%zd)", name, want, got);
	ok = buf[i++] > 0;
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		ok = ok && buf[i++] > 0;
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		ok = ok && buf[i] > 0;
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			ok = ok && buf[i - 1] >= buf[i];
		i++;
	}
	CHECK(ok, "%s: value > 0, enabled >= running > 0", name);
	if (f & PERF_FORMAT_ID) {
		id = event_id(fd);
		CHECK(buf[i] == id && id != PERF_BAD_VALUE,
		      "%s: id is PERF_EVENT_IOC_ID's (%llu, %llu)", name,
		      (unsigned long long)buf[i], (unsigned long long)id);
		i++;
	}
	if (f & FMT_LOST) {
		CHECK(buf[i] == 0, "%s: lost is 0", name);
		i++;
	}
	CHECK(buf[want / 8] == 0xa5a5a5a5a5a5a5a5ull,
	      "%s: nothing written past the layout", name);

	snprintf(what, sizeof(what), "%s: read one byte short", name);
	CHECK_ERR(read(fd, buf, (size_t)want - 1), ENOSPC, what);
	CHECK(read(fd, buf, (size_t)want) == want,
	      "%s: a buffer of exactly the layout's size", name);
	close(fd);
}

static void test_read_errors(void)
{
	int fd = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 0);
	void *volatile null = NULL;   /* hidden from glibc's nonnull check */
	uint64_t v;

	/* Linux checks the size before anything: even 0 bytes is ENOSPC. */
	CHECK_ERR(read(fd, &v, 0), ENOSPC, "read of 0 bytes");
	CHECK_ERR(read(fd, null, 8), EFAULT, "read into NULL");
	CHECK_ERR(write(fd, &v, 8), EINVAL, "write to a perf fd");
	CHECK_ERR(lseek(fd, 0, SEEK_SET), ESPIPE, "lseek on a perf fd");
	close(fd);
}

/*
 * A group: a page-faults leader, context-switches and dummy siblings, all
 * with read_format f (which has PERF_FORMAT_GROUP). All three are events
 * of Linux's one "software" PMU; task-clock and cpu-clock each have a PMU
 * of their own (see test_mixed_group).
 */
static void test_group(uint64_t f)
{
	struct perf_event_attr a;
	static const uint64_t cfg[3] = {
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES,
		PERF_COUNT_SW_DUMMY,
	};
	int fd[3], per = 1 + !!(f & PERF_FORMAT_ID) + !!(f & FMT_LOST);
	int hdr = 1 + !!(f & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	          !!(f & PERF_FORMAT_TOTAL_TIME_RUNNING);
	ssize_t want = 8 * (hdr + 3 * per), got;
	uint64_t buf[32], id[3], *v = buf + hdr;
	char name[64], what[96];
	int ok;

	fmt_name(f, name, sizeof(name));
	for (int i = 0; i < 3; i++) {
		perf_attr(&a, PERF_TYPE_SOFTWARE, cfg[i]);
		a.read_format = f;
		fd[i] = perf_open(&a, 0, -1, i ? fd[0] : -1, 0);
		id[i] = event_id(fd[i]);
	}
	if (!CHECK(fd[0] >= 0 && fd[1] >= 0 && fd[2] >= 0,
	           "%s: open a leader and two siblings", name))
		return;
	touch_pages(PAGES);
	sleep_ns(5000000); /* blocks even if the host stalls us ~1 ms */
	sleep_ns(5000000); /* blocks even if the host stalls us ~1 ms */

	memset(buf, 0xa5, sizeof(buf));
	got = read(fd[0], buf, sizeof(buf));
	CHECK(got == want, "%s: read gives %zd bytes (%zd)", name, want, got);
	CHECK(buf[0] == 3, "%s: nr is 3 (%llu)", name,
	      (unsigned long long)buf[0]);
	ok = 1;
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		ok = buf[1] > 0;
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		ok = ok && buf[hdr - 1] > 0 && buf[hdr - 1] <= buf[1];
	CHECK(ok, "%s: enabled >= running > 0", name);
	CHECK(v[0] >= PAGES && v[per] >= 2 && v[2 * per] == 0,
	      "%s: values in creation order: page-faults %llu >= %d, "
	      "context-switches %llu >= 2, dummy %llu = 0", name,
	      (unsigned long long)v[0], PAGES, (unsigned long long)v[per],
	      (unsigned long long)v[2 * per]);
	if (f & PERF_FORMAT_ID) {
		CHECK(v[1] == id[0] && v[per + 1] == id[1] &&
		      v[2 * per + 1] == id[2],
		      "%s: each id is its event's PERF_EVENT_IOC_ID", name);
		CHECK(id[0] != id[1] && id[1] != id[2] && id[0] != id[2],
		      "%s: the three ids differ", name);
	}
	if (f & FMT_LOST)
		CHECK(v[per - 1] == 0 && v[2 * per - 1] == 0 &&
		      v[3 * per - 1] == 0, "%s: lost is 0 for all", name);
	CHECK(buf[want / 8] == 0xa5a5a5a5a5a5a5a5ull,
	      "%s: nothing written past the layout", name);
	snprintf(what, sizeof(what), "%s: read one byte short", name);
	CHECK_ERR(read(fd[0], buf, (size_t)want - 1), ENOSPC, what);

	/* Read through a sibling: the whole group, from its leader. */
	got = read(fd[2], buf, sizeof(buf));
	CHECK(got == want && buf[0] == 3 && v[0] >= PAGES && v[2 * per] == 0,
	      "%s: a sibling's fd reads the whole group", name);
	if (f & PERF_FORMAT_ID)
		CHECK(v[1] == id[0] && v[2 * per + 1] == id[2],
		      "%s: leader first there too", name);
	for (int i = 2; i >= 0; i--)
		close(fd[i]);
}

/*
 * A group may mix PMUs: a task-clock leader with a page-faults sibling.
 * Linux 6.18 does not start such a sibling when it is opened into a
 * running group, only the next time the task is scheduled in (it counts
 * 0 until then, often). So the task sleeps once before it is measured;
 * from then on both count.
 */
static void test_mixed_group(void)
{
	struct perf_event_attr a;
	uint64_t buf[8] = { 0 };
	int lead, sib;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = PERF_FORMAT_GROUP;
	lead = perf_open(&a, 0, -1, -1, 0);
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.read_format = PERF_FORMAT_GROUP;
	sib = perf_open(&a, 0, -1, lead, 0);
	CHECK(lead >= 0 && sib >= 0,
	      "a task-clock leader with a page-faults sibling");
	sleep_ns(1000000);
	touch_pages(PAGES);
	work_ns(1000000);
	CHECK(read(lead, buf, sizeof(buf)) == 24 && buf[0] == 2 &&
	      buf[1] > 500000 && buf[2] >= PAGES,
	      "after a sleep both count: task-clock %llu, page-faults %llu",
	      (unsigned long long)buf[1], (unsigned long long)buf[2]);
	close(sib);
	close(lead);
}

int main(void)
{
	uint64_t all = PERF_FORMAT_TOTAL_TIME_ENABLED |
	               PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | FMT_LOST;

	/* Every subset of all: f = (f - all) & all walks them. */
	for (uint64_t f = 0;; f = (f - all) & all) {
		test_single(f);
		if (f == all)
			break;
	}
	test_read_errors();
	test_group(PERF_FORMAT_GROUP);
	test_group(PERF_FORMAT_GROUP | PERF_FORMAT_ID);
	test_group(PERF_FORMAT_GROUP | all);
	test_mixed_group();
	return abi_done("readfmt");
}
