/*
 * multiplex.c: more hardware events than counters. Needs a CPU PMU: where
 * PERF_TYPE_HARDWARE cycles cannot be opened (a Linux host without a PMU,
 * as under QEMU TCG; baremon before its cpu PMU) it says so and checks
 * nothing. Where cycles opens, Linux's documented semantics:
 *
 * - a group that could never be on the counters at once is EINVAL at
 *   open (validate_group); the largest group of cycles events that opens
 *   is the number of counters that can count cycles (C; one fewer free
 *   while the NMI watchdog holds one);
 * - pinned groups are scheduled first and stay on: running = enabled
 *   (to 1%: Linux briefly takes them off to add another pinned one);
 * - flexible groups that do not all fit are rotated every
 *   perf_event_mux_interval_ms: each gets a fair share of the time, the
 *   shares add up to the free counters, and value * enabled / running
 *   estimates the full count;
 * - a group's members are on the counters together (equal running);
 * - an exclusive group is on alone: no other hardware group runs while
 *   it does, so its running time and any other's add up to at most the
 *   enabled time;
 * - a pinned group that cannot get its counters goes into error state:
 *   read() returns 0 bytes; ENABLE after counters are freed revives it;
 *   a flexible event that never gets a counter reads 0 with running 0;
 * - a mux interval longer than the run: no rotation, the events that
 *   did not fit never run.
 *
 * Run times are compared, not wall time, so the checks hold under QEMU's
 * TCG however slow or noisy it is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

#define FMT_TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
/* ns of busy time per scenario: ten turns of the rotation, which runs
 * on the 10 ms tick on baremon (Linux: perf_event_mux_interval_ms, 4) */
#define RUN   100000000
#define MAXEV 32
#define MUX "/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms"

struct reading {
	uint64_t value, enabled, running;
};

static int avail;   /* counters free for cycles: C, less the watchdog's */

/* A cycles event on this task, disabled; -1 with errno. */
static int cycles(int group_fd, int pinned, int exclusive)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.read_format = FMT_TIMES;
	a.disabled = group_fd == -1;
	a.pinned = pinned ? 1 : 0;
	a.exclusive = exclusive ? 1 : 0;
	return perf_open(&a, 0, -1, group_fd, 0);
}

static struct reading get(int fd)
{
	struct reading r;

	if (read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		memset(&r, 0, sizeof(r));
	return r;
}

/* Enable everything this task opened, work, disable it all again. */
static void run(void)
{
	prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
	work_ns(RUN);
	prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
}

static void close_all(int *fd, int n)
{
	while (n-- > 0)
		if (fd[n] >= 0)
			close(fd[n]);
}

/* running / enabled in thousandths */
static unsigned share(struct reading r)
{
	return r.enabled ? (unsigned)(r.running * 1000 / r.enabled) : 0;
}

/*
 * Ran all the time it was enabled: running >= 99% of enabled. Not
 * equal: when another pinned event is enabled Linux takes the pinned
 * ones off and puts them back (ctx_resched), a few microseconds.
 */
static int on_all_along(struct reading r)
{
	return r.enabled > 0 && r.running <= r.enabled &&
	       r.running >= r.enabled - r.enabled / 100;
}

static unsigned ratio(uint64_t num, uint64_t den)
{
	return den ? (unsigned)(num * 1000 / den) : 0;
}


/* The largest group of cycles events that opens: the counters for cycles. */
static int probe_counters(void)
{
	int fd[MAXEV], n = 0, e = 0;

	for (n = 0; n < MAXEV; n++) {
		fd[n] = cycles(n ? fd[0] : -1, 0, 0);
		if (fd[n] < 0) {
			e = errno;
			break;
		}
	}
	close_all(fd, n);
	CHECK(n >= 1 && n < MAXEV && e == EINVAL,
	      "a group of %d cycles events opens, one of %d is EINVAL (%s)",
	      n, n + 1, e ? strerror(e) : "opens");
	return n;
}

/*
 * One pinned cycles event (the reference) and n flexible ones sharing
 * the avail - 1 other counters.
 */
static void test_round_robin(void)
{
	int n = avail + 3 > 8 ? avail + 3 : 8, flex = avail - 1;
	int fd[MAXEV + 1], ok = 1;
	struct reading r[MAXEV + 1], ref;
	uint64_t maxen = 0, minen = ~(uint64_t)0, sumrun = 0, sumen = 0;
	unsigned want, got;
	int fair = 1, scaled = 1, partial = 1, runs = 1;

	if (flex < 1 || n > MAXEV) {
		abi_note("%d counters: no round-robin test", avail);
		return;
	}
	fd[0] = cycles(-1, 1, 0);
	for (int i = 1; i <= n; i++)
		fd[i] = cycles(-1, 0, 0);
	for (int i = 0; i <= n; i++)
		ok = ok && fd[i] >= 0;
	if (!CHECK(ok, "open a pinned cycles event and %d flexible ones", n)) {
		close_all(fd, n + 1);
		return;
	}
	run();
	for (int i = 0; i <= n; i++) {
		r[i] = get(fd[i]);
		if (r[i].enabled > maxen)
			maxen = r[i].enabled;
		if (r[i].enabled < minen)
			minen = r[i].enabled;
	}
	close_all(fd, n + 1);
	ref = r[0];
	abi_note("pinned: %llu cycles, enabled %llu, running %llu",
	         (unsigned long long)ref.value, (unsigned long long)ref.enabled,
	         (unsigned long long)ref.running);
	CHECK(on_all_along(ref) && ref.enabled > RUN / 2,
	      "the pinned event ran all the time");
	CHECK(minen > 0 && maxen - minen <= maxen / 20,
	      "every event was enabled about as long (%llu .. %llu ns)",
	      (unsigned long long)minen, (unsigned long long)maxen);

	want = ratio((uint64_t)flex, (uint64_t)n);
	for (int i = 1; i <= n; i++) {
		unsigned s = share(r[i]);
		uint64_t est = r[i].running ? (uint64_t)((unsigned __int128)
			r[i].value * r[i].enabled / r[i].running) : 0;
		uint64_t d = est > ref.value ? est - ref.value : ref.value - est;

		abi_note("flexible %d: %llu cycles, running %u/1000 of enabled, "
		         "scaled %llu", i, (unsigned long long)r[i].value, s,
		         (unsigned long long)est);
		sumrun += r[i].running;
		sumen += r[i].enabled;
		runs = runs && r[i].running > 0;
		partial = partial && r[i].running < r[i].enabled;
		/* Round robin on the tick: a loaded host stretches some
		 * turns (the guest's clock runs on while it waits), so the
		 * shares are only roughly equal. */
		fair = fair && s >= want / 4 && s <= 1000 - want / 4;
		scaled = scaled && r[i].running > 0 && d <= ref.value / 4;
	}
	CHECK(runs, "every flexible event got some time on a counter");
	CHECK(partial, "none had a counter all the time (%d for %d events)",
	      flex, n);
	got = ratio(sumrun, sumen);
	CHECK(got >= want * 4 / 5 && got <= want * 6 / 5,
	      "their running times add up to %d counters' worth: %u/1000 of "
	      "the enabled time (%d/%d = %u/1000, within 20%%)", flex, got,
	      flex, n, want);
	CHECK(fair, "each had a fair share: between %u and %u/1000", want / 4,
	      1000 - want / 4);
	CHECK(scaled, "each scaled count (value * enabled / running) is "
	      "within 25%% of the pinned event's count");
}

/* Groups of two: one group more than fits; members run together. */
static void test_groups(void)
{
	int per = avail / 2, g = per + 1, fd[MAXEV], ok = 1, together = 1;
	int partial = 1;
	struct reading r[MAXEV];
	uint64_t sumrun = 0, sumen = 0;
	unsigned want = ratio((uint64_t)per, (uint64_t)g), got;

	if (per < 1 || 2 * g > MAXEV) {
		abi_note("%d counters: no group test", avail);
		return;
	}
	for (int i = 0; i < 2 * g; i++) {
		fd[i] = cycles(i % 2 ? fd[i - 1] : -1, 0, 0);
		ok = ok && fd[i] >= 0;
	}
	if (!CHECK(ok, "open %d groups of 2 cycles events (%d fit at once)",
	           g, per)) {
		close_all(fd, 2 * g);
		return;
	}
	run();
	for (int i = 0; i < 2 * g; i++)
		r[i] = get(fd[i]);
	close_all(fd, 2 * g);
	for (int i = 0; i < 2 * g; i += 2) {
		uint64_t d = r[i].running > r[i + 1].running ?
			r[i].running - r[i + 1].running :
			r[i + 1].running - r[i].running;

		abi_note("group %d: running %u/1000, %u/1000 of enabled", i / 2,
		         share(r[i]), share(r[i + 1]));
		together = together && d <= r[i].enabled / 100;
		partial = partial && r[i].running > 0 &&
		          r[i].running < r[i].enabled;
		sumrun += r[i].running;
		sumen += r[i].enabled;
	}
	CHECK(together, "the two members of each group ran together "
	      "(running times within 1%%)");
	CHECK(partial, "every group ran, none all the time");
	got = ratio(sumrun, sumen);
	CHECK(got >= want * 4 / 5 && got <= want * 6 / 5,
	      "the groups' shares add up to %u/1000 (%d/%d = %u/1000, within "
	      "20%%)", got, per, g, want);
}

/* An exclusive event and three others that would all fit beside it. */
static void test_exclusive(void)
{
	int fd[4], ok = 1, apart = 1;
	struct reading r[4];
	uint64_t others = 0;

	if (avail < 4) {
		abi_note("%d counters: no exclusive test", avail);
		return;
	}
	fd[0] = cycles(-1, 0, 1);
	for (int i = 1; i < 4; i++)
		fd[i] = cycles(-1, 0, 0);
	for (int i = 0; i < 4; i++)
		ok = ok && fd[i] >= 0;
	if (!CHECK(ok, "open an exclusive cycles event and 3 flexible ones")) {
		close_all(fd, 4);
		return;
	}
	run();
	for (int i = 0; i < 4; i++)
		r[i] = get(fd[i]);
	close_all(fd, 4);
	abi_note("exclusive: running %u/1000 of enabled; others %u %u %u",
	         share(r[0]), share(r[1]), share(r[2]), share(r[3]));
	CHECK(r[0].running > 0 && r[0].running < r[0].enabled,
	      "the exclusive event ran part of the time");
	/* The events are enabled and disabled one after the other: the
	 * exclusive one may run alone for that long beyond another's
	 * enabled time (a loaded host stretches it), hence the difference
	 * of the two enabled times in the bound. */
	for (int i = 1; i < 4; i++) {
		uint64_t e0 = r[0].enabled, ei = r[i].enabled;
		uint64_t most = e0 > ei ? e0 : ei, gap = e0 > ei ? e0 - ei : ei - e0;

		apart = apart && r[0].running + r[i].running <= most + most / 50 + gap;
		others += r[i].running;
	}
	CHECK(apart, "no other ran while it did: its running time and each "
	      "other's add up to at most the enabled time");
	/* While it was off, more than one other ran at a time. */
	uint64_t off = r[0].enabled - r[0].running;

	CHECK(others > off + off / 5,
	      "the others ran together when it was off (%u/1000 of that time "
	      "in all)", ratio(others, off));
}

/* More pinned events than counters: the last one is in error state. */
static void test_pinned_error(void)
{
	int fd[MAXEV], n = avail + 1, ok = 1, flex, full = 1;
	uint64_t buf[4];
	struct reading r, f;
	ssize_t got;

	if (n > MAXEV)
		return;
	for (int i = 0; i < n; i++) {
		fd[i] = cycles(-1, 1, 0);
		ok = ok && fd[i] >= 0;
	}
	flex = cycles(-1, 0, 0);
	if (!CHECK(ok && flex >= 0, "open %d pinned cycles events (%d counters) "
	           "and a flexible one", n, avail)) {
		close_all(fd, n);
		if (flex >= 0)
			close(flex);
		return;
	}
	run();
	got = read(fd[n - 1], buf, sizeof(buf));
	CHECK(got == 0, "the pinned event that got no counter reads 0 bytes "
	      "(error state; got %zd)", got);
	for (int i = 0; i < n - 1; i++) {
		r = get(fd[i]);
		full = full && on_all_along(r);
	}
	CHECK(full, "the other pinned events ran all the time");
	f = get(flex);
	CHECK(f.enabled > 0 && f.running == 0 && f.value == 0,
	      "the flexible event never got a counter: value 0, running 0, "
	      "enabled %llu", (unsigned long long)f.enabled);
	close(fd[0]);
	CHECK(ioctl(fd[n - 1], PERF_EVENT_IOC_ENABLE, 0) == 0,
	      "free a counter and ENABLE the one in error state");
	run();
	r = get(fd[n - 1]);
	CHECK(r.value > 0 && on_all_along(r),
	      "it counts again, all the time (%llu)",
	      (unsigned long long)r.value);
	close_all(fd + 1, n - 1);
	close(flex);
}

/* With a mux interval far longer than the run nothing rotates. */
static void long_interval(long unused)
{
	int n = avail + 2, fd[MAXEV], ok = 1, never = 0;

	if (n > MAXEV)
		return;
	for (int i = 0; i < n; i++) {
		fd[i] = cycles(-1, 0, 0);
		ok = ok && fd[i] >= 0;
	}
	if (!CHECK(ok, "open %d flexible cycles events", n)) {
		close_all(fd, n);
		return;
	}
	run();
	for (int i = 0; i < n; i++) {
		struct reading r = get(fd[i]);

		never += r.running == 0 && r.enabled > 0;
	}
	close_all(fd, n);
	CHECK(never >= 1, "with perf_event_mux_interval_ms 10000, %d of %d "
	      "events never ran (no rotation in %d ms)", never, n, RUN / 1000000);
}

static void test_interval(void)
{
	long saved = file_long(MUX, -1);
	char s[24];
	int fd;

	if (saved < 0) {
		abi_note("no %s: interval not tested", MUX);
		return;
	}
	abi_note("perf_event_mux_interval_ms %ld", saved);
	if (geteuid() != 0) {
		abi_note("not root: interval not changed");
		return;
	}
	fd = open(MUX, O_WRONLY);
	CHECK(fd >= 0 && write(fd, "10000", 5) == 5, "write 10000 to %s", MUX);
	if (fd >= 0)
		close(fd);
	/* In a child so that the interval is restored whatever happens. */
	in_child(long_interval, 0, "the long-interval run");
	snprintf(s, sizeof(s), "%ld", saved);
	fd = open(MUX, O_WRONLY);
	CHECK(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s) &&
	      file_long(MUX, -1) == saved, "restore it to %ld", saved);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	int fd, c, watchdog;

	setvbuf(stdout, NULL, _IONBF, 0);
	fd = cycles(-1, 0, 0);
	if (fd < 0) {
		abi_note("skipped: no cpu PMU (cycles: %s)%s", strerror(errno),
		         abi_on_baremon() ? "" : "; multiplexing needs hardware "
		         "counters, which this Linux host lacks");
		return abi_done("multiplex");
	}
	close(fd);
	c = probe_counters();
	watchdog = file_long("/proc/sys/kernel/nmi_watchdog", -1) == 1;
	avail = watchdog ? c - 1 : c;
	abi_note("%d counters can count cycles%s", c,
	         watchdog ? ", one held by the NMI watchdog" : "");
	test_round_robin();
	test_groups();
	test_exclusive();
	test_pinned_error();
	test_interval();
	return abi_done("multiplex");
}
