/*
 * ioctl.c: the perf ioctls on counting events. ENABLE, DISABLE and RESET
 * on one event (a disabled count and its enabled time stand still; RESET
 * zeroes), and on a group with and without PERF_IOC_FLAG_GROUP; ID;
 * PERIOD and REFRESH on counting and sampling events; unknown requests
 * and bad pointers; prctl(PR_TASK_PERF_EVENTS_DISABLE/ENABLE).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "perf.h"

#define BUSY 3000000   /* ns of busy work between two reads */

/* A task-clock event, read_format ENABLED|ID: value, enabled, id. */
struct reading {
	uint64_t value, enabled, id;
};

static int open_clock(int group_fd, int disabled)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	a.disabled = disabled ? 1 : 0;
	return perf_open(&a, 0, -1, group_fd, 0);
}

static struct reading get(int fd)
{
	struct reading r;

	if (read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		memset(&r, 0xff, sizeof(r));
	return r;
}

static void test_single(void)
{
	int fd = open_clock(-1, 0);
	struct reading r0, r1, r2;
	uint64_t id = 0;

	CHECK(fd >= 0, "open task-clock");
	work_ns(BUSY);
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	r0 = get(fd);
	work_ns(BUSY);
	r1 = get(fd);
	CHECK(r0.value > 0 && r1.value == r0.value,
	      "a disabled count stands still (%llu, %llu)",
	      (unsigned long long)r0.value, (unsigned long long)r1.value);
	CHECK(r1.enabled == r0.enabled, "and so does its enabled time");
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0,
	      "DISABLE a disabled event: 0");

	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	work_ns(BUSY);
	r2 = get(fd);
	CHECK(r2.value > r1.value + BUSY / 3 && r2.enabled > r1.enabled,
	      "then it counts again (+%llu ns)",
	      (unsigned long long)(r2.value - r1.value));
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0,
	      "ENABLE an enabled event: 0");

	/* RESET zeroes the count (not the times); a running one goes on. */
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0, "RESET a running event");
	r1 = get(fd);
	CHECK(r1.value < r2.value && r1.value < BUSY,
	      "its count starts again from 0 (%llu)",
	      (unsigned long long)r1.value);
	CHECK(r1.enabled >= r2.enabled, "RESET leaves the enabled time");
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0, "RESET a disabled event");
	r1 = get(fd);
	CHECK(r1.value == 0, "it reads 0 (%llu)", (unsigned long long)r1.value);

	CHECK(ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 && id == r1.id,
	      "ID gives read_format ID's id (%llu, %llu)",
	      (unsigned long long)id, (unsigned long long)r1.id);
	close(fd);
}

static void test_errors(void)
{
	int fd = open_clock(-1, 0);
	struct perf_event_attr a;
	uint64_t period = 1000000;
	void *volatile null = NULL;
	int s;

	/* Linux: any request perf does not know is ENOTTY. */
	CHECK_ERR(ioctl(fd, _IO('$', 0x7f), 0), ENOTTY, "ioctl _IO('$', 0x7f)");
	CHECK_ERR(ioctl(fd, TCGETS, &a), ENOTTY, "ioctl TCGETS");
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_ID, null), EFAULT, "ID into NULL");
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_PERIOD, null), EFAULT,
	          "PERIOD from NULL");
	/* A counting event has no period to change, nor overflows to refresh. */
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_PERIOD, &period), EINVAL,
	          "PERIOD on a counting event");
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_REFRESH, 1), EINVAL,
	          "REFRESH on a counting event");
	close(fd);

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = 10000000;
	a.disabled = 1;
	s = perf_open(&a, 0, -1, -1, 0);
	CHECK(s >= 0, "open a sampling task-clock event (disabled)");
	CHECK(ioctl(s, PERF_EVENT_IOC_PERIOD, &period) == 0,
	      "PERIOD 1000000 on it: 0");
	period = 0;
	CHECK_ERR(ioctl(s, PERF_EVENT_IOC_PERIOD, &period), EINVAL, "PERIOD 0");
	period = (uint64_t)1 << 63;
	CHECK_ERR(ioctl(s, PERF_EVENT_IOC_PERIOD, &period), EINVAL,
	          "PERIOD 1 << 63");
	CHECK_ERR(ioctl(s, PERF_EVENT_IOC_PERIOD, null), EFAULT,
	          "PERIOD from NULL on it");
	close(s);
}

/* A group of two task-clock events: leader l, sibling s. */
static void test_group(void)
{
	int l = open_clock(-1, 1), s = open_clock(l, 1);
	struct reading a0, b0, a1, b1;

	CHECK(l >= 0 && s >= 0, "open a disabled leader and sibling");
	work_ns(BUSY);
	a0 = get(l);
	b0 = get(s);
	CHECK(a0.value == 0 && b0.value == 0 && a0.enabled == 0,
	      "both read 0, never enabled");

	/* Without the flag only the leader is enabled. */
	CHECK(ioctl(l, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE the leader");
	work_ns(BUSY);
	a0 = get(l);
	b0 = get(s);
	CHECK(a0.value > BUSY / 3 && b0.value == 0,
	      "the leader counts (%llu), the sibling does not (%llu)",
	      (unsigned long long)a0.value, (unsigned long long)b0.value);

	CHECK(ioctl(l, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == 0,
	      "ENABLE with PERF_IOC_FLAG_GROUP");
	work_ns(BUSY);
	a1 = get(l);
	b1 = get(s);
	CHECK(a1.value > a0.value + BUSY / 3 && b1.value > BUSY / 3,
	      "both count (%llu, %llu)", (unsigned long long)a1.value,
	      (unsigned long long)b1.value);

	/* A disabled leader takes its group off the CPU. */
	CHECK(ioctl(l, PERF_EVENT_IOC_DISABLE, 0) == 0,
	      "DISABLE the leader alone");
	a0 = get(l);
	b0 = get(s);
	work_ns(BUSY);
	a1 = get(l);
	b1 = get(s);
	CHECK(a1.value == a0.value && b1.value == b0.value,
	      "neither counts: the sibling needs its leader");
	ioctl(l, PERF_EVENT_IOC_ENABLE, 0);
	work_ns(BUSY);
	b1 = get(s);
	CHECK(b1.value > b0.value, "ENABLE the leader: the sibling counts again");

	/* The flag on a sibling's fd acts on the whole group. */
	CHECK(ioctl(s, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) == 0,
	      "DISABLE with PERF_IOC_FLAG_GROUP through the sibling");
	a0 = get(l);
	b0 = get(s);
	work_ns(BUSY);
	a1 = get(l);
	b1 = get(s);
	CHECK(a1.value == a0.value && b1.value == b0.value && a1.value > 0,
	      "both stand still");
	CHECK(ioctl(l, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) == 0,
	      "RESET with PERF_IOC_FLAG_GROUP");
	a1 = get(l);
	b1 = get(s);
	CHECK(a1.value == 0 && b1.value == 0, "both read 0");
	CHECK(a1.id != b1.id, "leader and sibling have different ids");
	close(s);
	close(l);
}

static void test_prctl(void)
{
	int on = open_clock(-1, 0), off = open_clock(-1, 1);
	struct reading a0, a1, b0;

	CHECK(on >= 0 && off >= 0, "open an enabled and a disabled counter");
	work_ns(BUSY);
	CHECK(prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) == 0,
	      "prctl(PR_TASK_PERF_EVENTS_DISABLE)");
	a0 = get(on);
	work_ns(BUSY);
	a1 = get(on);
	CHECK(a0.value > 0 && a1.value == a0.value,
	      "the task's counter stands still");
	CHECK(prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0) == 0,
	      "prctl(PR_TASK_PERF_EVENTS_ENABLE)");
	work_ns(BUSY);
	a1 = get(on);
	b0 = get(off);
	CHECK(a1.value > a0.value + BUSY / 3, "it counts again");
	/* ENABLE enables every event the task opened, disabled or not. */
	CHECK(b0.value > BUSY / 3, "and so does the one opened disabled (%llu)",
	      (unsigned long long)b0.value);
	close(on);
	close(off);
}

int main(void)
{
	test_single();
	test_errors();
	test_group();
	test_prctl();
	return abi_done("ioctl");
}
