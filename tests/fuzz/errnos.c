/*
 * errnos.c: the differential errno fuzzer. The same static binary runs
 * on the host Linux and on baremon; each draws the same seeded cases
 * and prints one line per case, "N:R" where R is 0 (the call worked) or
 * the errno. tests/qemu/errnos.sh compares the two outputs. Usage:
 *
 *   errnos SEED CASES          run cases 0..CASES-1
 *   errnos --describe SEED N   say what case N is (for a mismatch)
 *   errnos --probe SEED N      which single change alters case N's errno
 *
 * A case is a perf_event_open of an attr drawn field by field
 * (attrgen.c), limited to what both systems can have in common:
 * software events, breakpoints and types no PMU claims (the host has no
 * hardware PMU, and its dynamic PMU types and tracepoint ids are not
 * baremon's); or one ioctl on a freshly opened software event. Run as
 * root on both (perf_event_paranoid does not apply).
 * Last line: "errnos: N cases".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "attrgen.h"

static int null_fd;      /* an open file that is no perf event */
static char desc[256];   /* what the current case is */

static long perf_open(struct perf_event_attr *a, int pid, int cpu, int group,
                      unsigned long flags)
{
	return syscall(__NR_perf_event_open, a, pid, cpu, group, flags);
}

/* A fresh software event on this task: counting, or sampling. */
static int fresh_event(int sampling)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = sampling ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = sampling ? 1000000 : 0;
	a.sample_type = sampling ? PERF_SAMPLE_IP : 0;
	a.disabled = 1;
	a.exclude_kernel = 1;
	return (int)perf_open(&a, 0, -1, -1, 0);
}

/* One perf_event_open case, drawn before it is made (so --probe can
 * make it again with one field changed). */
struct open_case {
	struct perf_event_attr attr;
	int pid, cpu, kind;       /* kind 3: group a fresh event, 4: /dev/null, 5: 1000 */
	int leader_sampling;
	unsigned long flags;
	bool null_attr;
};

static void draw_open(struct open_case *c)
{
	struct perf_event_attr *a = &c->attr;

	fz_wild_attr(a);
	a->type = (uint32_t)PICK(PERF_TYPE_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_SOFTWARE,
	                         PERF_TYPE_BREAKPOINT, PERF_TYPE_BREAKPOINT, 99, 0x7fffffff);
	if (a->type == PERF_TYPE_SOFTWARE)
		a->config = PICK(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1ULL << 40);
	c->pid = (int)PICK(0, 0, 0, -1, 999999);
	c->cpu = (int)PICK(-1, -1, 0, 1, 1000);
	c->kind = (int)fz_below(6);
	c->flags = PICK(0, 0, 0, PERF_FLAG_FD_CLOEXEC, PERF_FLAG_FD_NO_GROUP,
	                PERF_FLAG_FD_OUTPUT, 1UL << 10);
	c->leader_sampling = c->kind == 3 ? (int)fz_below(2) : 0;
	c->null_attr = fz_below(32) == 0;
}

static uint64_t flags0(const struct perf_event_attr *a)
{
	uint64_t v;
	memcpy(&v, (const char *)a + offsetof(struct perf_event_attr, read_format) + 8, 8);
	return v;
}

static long run_open(struct open_case *c)
{
	struct perf_event_attr *a = &c->attr;
	int leader = c->kind == 3 ? fresh_event(c->leader_sampling) : -1;
	int group = c->kind < 3 ? -1 : c->kind == 3 ? leader : c->kind == 4 ? null_fd : 1000;

	snprintf(desc, sizeof(desc),
	         "perf_event_open(%s type %u size %u config %#llx sample_type %#llx "
	         "read_format %#llx flags0 %#llx, pid %d, cpu %d, group %s, flags %#lx)",
	         c->null_attr ? "NULL" : "attr", a->type, a->size, (unsigned long long)a->config,
	         (unsigned long long)a->sample_type, (unsigned long long)a->read_format,
	         (unsigned long long)flags0(a), c->pid, c->cpu,
	         c->kind < 3 ? "-1" : c->kind == 3 ? "a sw event" : c->kind == 4 ? "/dev/null" : "1000",
	         c->flags);
	long r = perf_open(c->null_attr ? NULL : a, c->pid, c->cpu, group, c->flags);
	int e = errno;
	if (r >= 0)
		close((int)r);
	if (leader >= 0)
		close(leader);
	errno = e;
	return r;
}

static long open_case(void)
{
	struct open_case c;

	draw_open(&c);
	return run_open(&c);
}

static int outcome(long r)
{
	return r < 0 ? errno : 0;
}

/* --probe: which single change to an open case changes its outcome:
 * each 8-byte word of the attr zeroed, each set bit of the flag word
 * cleared, and the call's other arguments made plain. Run on both
 * systems, the lines tell which check decides the errno on each. */
static void probe(uint64_t seed, long n)
{
	struct open_case c0, c;

	fz_seed(seed * 0x100000001b3ULL ^ (uint64_t)n);
	if (fz_below(4) >= 3) {
		printf("case %ld is an ioctl case\n", n);
		return;
	}
	draw_open(&c0);
	c = c0;
	int base = outcome(run_open(&c));
	printf("%s = %d\n", desc, base);
	for (size_t off = 0; off + 8 <= sizeof(c0.attr); off += 8) {
		uint64_t w;
		memcpy(&w, (char *)&c0.attr + off, 8);
		if (!w)
			continue;
		c = c0;
		memset((char *)&c.attr + off, 0, 8);
		int r = outcome(run_open(&c));
		if (r != base)
			printf("  word %zu (%#llx) zeroed: %d\n", off, (unsigned long long)w, r);
	}
	for (int bit = 0; bit < 64; bit++) {
		if (!(flags0(&c0.attr) >> bit & 1))
			continue;
		c = c0;
		uint64_t f = flags0(&c.attr) & ~(1ULL << bit);
		memcpy((char *)&c.attr + offsetof(struct perf_event_attr, read_format) + 8, &f, 8);
		int r = outcome(run_open(&c));
		if (r != base)
			printf("  flag bit %d cleared: %d\n", bit, r);
	}
	c = c0; c.pid = 0; c.cpu = -1;
	int r = outcome(run_open(&c));
	if (r != base)
		printf("  pid 0 cpu -1: %d\n", r);
	c = c0; c.kind = 0;
	r = outcome(run_open(&c));
	if (r != base)
		printf("  no group: %d\n", r);
	c = c0; c.flags = 0;
	r = outcome(run_open(&c));
	if (r != base)
		printf("  flags 0: %d\n", r);
}

static long ioctl_case(void)
{
	static const unsigned long cmds[] = {
		PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE, PERF_EVENT_IOC_RESET,
		PERF_EVENT_IOC_REFRESH, PERF_EVENT_IOC_PERIOD, PERF_EVENT_IOC_SET_OUTPUT,
		PERF_EVENT_IOC_ID, PERF_EVENT_IOC_PAUSE_OUTPUT, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
		PERF_EVENT_IOC_SET_FILTER, PERF_EVENT_IOC_SET_BPF, 0x12345678,
	};
	static uint64_t val;
	static struct perf_event_attr attr;
	static char filter[] = "common_pid != 0";
	int sampling = (int)fz_below(2);
	int fd = fresh_event(sampling), other = -1;
	unsigned long cmd = cmds[fz_below(sizeof(cmds) / sizeof(cmds[0]))];
	unsigned long arg;
	const char *what;

	val = PICK(0, 1, 1000, 1ULL << 63);
	if (cmd == PERF_EVENT_IOC_SET_OUTPUT) {
		int k = (int)fz_below(5);
		other = k == 0 ? fresh_event((int)fz_below(2)) : -1;
		arg = (unsigned long)(k == 0 ? other : k == 1 ? -1 : k == 2 ? fd :
		                      k == 3 ? null_fd : 1000);
		what = k == 0 ? "another event" : k == 1 ? "-1" : k == 2 ? "itself" :
		       k == 3 ? "/dev/null" : "1000";
	} else if (cmd == PERF_EVENT_IOC_PERIOD || cmd == PERF_EVENT_IOC_ID) {
		arg = fz_below(4) ? (unsigned long)&val : 0;
		what = arg ? "&value" : "NULL";
	} else if (cmd == PERF_EVENT_IOC_MODIFY_ATTRIBUTES) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = (uint32_t)PICK(PERF_TYPE_SOFTWARE, PERF_TYPE_BREAKPOINT);
		arg = fz_below(4) ? (unsigned long)&attr : 0;
		what = arg ? "&attr" : "NULL";
	} else if (cmd == PERF_EVENT_IOC_SET_FILTER) {
		arg = fz_below(4) ? (unsigned long)filter : 0;
		what = arg ? "a filter" : "NULL";
	} else {
		arg = PICK(0, 1, 2, PERF_IOC_FLAG_GROUP, (uint64_t)-1);
		what = "a number";
	}
	snprintf(desc, sizeof(desc), "ioctl(%s event, %#lx, %s %#lx, value %#llx)",
	         sampling ? "a sampling" : "a counting", cmd, what, arg,
	         (unsigned long long)val);
	long r = fd < 0 ? -1 : ioctl(fd, cmd, arg);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (other >= 0)
		close(other);
	errno = e;
	return r;
}

/* Case n of seed: three opens to one ioctl. */
static long one_case(uint64_t seed, long n)
{
	fz_seed(seed * 0x100000001b3ULL ^ (uint64_t)n);
	errno = 0;
	return fz_below(4) < 3 ? open_case() : ioctl_case();
}

int main(int argc, char **argv)
{
	null_fd = open("/dev/null", O_RDONLY);
	if (argc == 4 && !strcmp(argv[1], "--describe")) {
		long r = one_case(strtoull(argv[2], NULL, 0), strtol(argv[3], NULL, 0));
		printf("%s = %ld (%s)\n", desc, r, r < 0 ? strerror(errno) : "ok");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--probe")) {
		probe(strtoull(argv[2], NULL, 0), strtol(argv[3], NULL, 0));
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: errnos SEED CASES | errnos --describe|--probe SEED N\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 0);
	long cases = strtol(argv[2], NULL, 0);
	for (long n = 0; n < cases; n++) {
		long r = one_case(seed, n);
		printf("%ld:%d\n", n, r < 0 ? errno : 0);
	}
	printf("errnos: %ld cases\n", cases);
	return 0;
}
