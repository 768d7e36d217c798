/*
 * ovsignal.c: every overflow of a sampler signals its owner. A sampler
 * with O_ASYNC and F_SETSIG (a real-time signal, so the signal layer
 * queues each one instead of merging them) runs over a user loop that
 * makes no system call; each overflow writes one sample and owes one
 * signal, so the signals counted by the handler must equal the samples
 * in the ring. For task-clock (every kernel: its hrtimer) and, with a
 * CPU PMU (baremon's model under TCG, a real one on Linux), cycles:u
 * and instructions:u (where counting them is cheap: a real PMU, or the
 * model with the instruction clock, --icount):
 *
 *  - POLL_IN: one per sample over 200 overflows, none lost;
 *  - PERF_EVENT_IOC_REFRESH 1 again in the handler: one POLL_HUP per
 *    overflow for 10 rounds, no POLL_IN (the event stops at each one);
 *  - PERF_EVENT_IOC_PERIOD on the running sampler: the samples after
 *    the change carry the new PERIOD and the counts between them are
 *    the new period (hardware events only: Linux's task-clock keeps the
 *    old PERIOD there, and its hrtimer runs on wall time; the counts
 *    where the cycles are the guest's own, see clock_is_guests), and
 *    the signals still match the samples.
 *
 * Page faults' signals, exact occurrences, are counted by signals.c.
 * Stop conditions are sample counts with a generous wall-clock bound
 * for a hang, never a speed. The periods: 1,000,000 cycles or ns of
 * task-clock, 250,000 instructions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include "perf.h"
#include "ring.h"

#ifndef O_ASYNC
#define O_ASYNC FASYNC        /* the uapi's name (libc-lite) */
#endif

#define RTSIG 40              /* a real-time signal on every libc */
#define PAGES 64
#define BOUND_NS 120000000000ULL /* a hang, not a speed */

static volatile int polls_in, polls_hup, others, refresh_fd = -1;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == POLL_IN) {
		polls_in++;
	} else if (si->si_code == POLL_HUP) {
		polls_hup++;
		if (refresh_fd >= 0)
			ioctl(refresh_fd, PERF_EVENT_IOC_REFRESH, 1);
	} else {
		others++;
	}
}

static void catch_rtsig(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(RTSIG, &sa, NULL);
}

/* The event under test: its name, type, config and period; whether its
 * samples' PERIOD follows PERF_EVENT_IOC_PERIOD on Linux and the counts
 * between them are whole periods (a hardware counter's; task-clock's
 * hrtimer runs on wall time, so a loaded host shortens its gaps). */
struct ev {
	const char *name;
	uint32_t type;
	uint64_t config;
	uint64_t period;
	int exact; /* PERIOD and the counts between samples follow it */
};

static const struct ev *ev;
static int clock_is_guests(void);

static int open_sampler(uint64_t period, int disabled)
{
	struct perf_event_attr a;

	perf_attr(&a, ev->type, ev->config);
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
	a.disabled = disabled ? 1 : 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1000000; /* no wake-up signals: only overflows' */
	return perf_open(&a, 0, -1, -1, 0);
}

static int arm(int fd)
{
	int r = fcntl(fd, F_SETOWN, getpid());

	if (!r)
		r = fcntl(fd, F_SETSIG, RTSIG);
	if (!r)
		r = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
	return r;
}

/* One sample: header, IP, PERIOD, READ (the event's count). */
struct sample {
	struct perf_event_header h;
	uint64_t ip, period, value;
};

#define SAMPLE_SIZE sizeof(struct sample)

/* Samples in the ring so far, by its head alone (no system call). */
static uint64_t samples_written(const struct ring *r)
{
	return ring_head(r) / SAMPLE_SIZE;
}

/* Busy in user mode until the ring holds `want` samples (or the bound). */
static void loop_until(const struct ring *r, uint64_t want)
{
	uint64_t start = now_ns();
	volatile uint64_t sink = 0;

	while (samples_written(r) < want && now_ns() - start < BOUND_NS)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
}

#define MAX_GAPS 64

/* What drain saw. After sample `from`: the first and last count, and
 * the gaps between consecutive counts. */
struct seen {
	uint64_t n, other_records, bad_period, last_value;
	uint64_t first_after, n_gaps, gaps[MAX_GAPS];
};

/* Read the samples from r->pos on; periods after `from` are checked
 * against `period`, and their counts' gaps kept. */
static void drain(struct ring *r, struct seen *s, uint64_t period, uint64_t from)
{
	uint64_t head = ring_head(r);

	while (r->pos < head) {
		struct sample smp;

		ring_copy(r, r->pos, &smp, sizeof(smp.h));
		if (smp.h.type != PERF_RECORD_SAMPLE || smp.h.size != SAMPLE_SIZE) {
			s->other_records++;
			r->pos += smp.h.size ? smp.h.size : 8;
			continue;
		}
		ring_copy(r, r->pos, &smp, sizeof(smp));
		r->pos += SAMPLE_SIZE;
		s->n++;
		if (s->n > from) {
			if (ev->exact && smp.period != period)
				s->bad_period++;
			if (s->n == from + 1)
				s->first_after = smp.value;
			else if (s->n_gaps < MAX_GAPS)
				s->gaps[s->n_gaps++] = smp.value - s->last_value;
		}
		s->last_value = smp.value;
	}
	ring_release(r);
}

/* Every check names the event first. */
#define EV_CHECK(cond, fmt, ...) CHECK(cond, "%s " fmt, ev->name, __VA_ARGS__)

static void reset(void)
{
	polls_in = polls_hup = others = 0;
}

static int open_mapped(uint64_t period, int disabled, struct ring *r, const char *what)
{
	int fd = open_sampler(period, disabled);

	if (!CHECK(fd >= 0 && ring_map(fd, r, PAGES, PROT_READ | PROT_WRITE) == 0 && arm(fd) == 0,
	           "%s %s: sampler opened, mapped, O_ASYNC with signal %d", ev->name, what,
	           RTSIG)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* POLL_IN: one signal per overflow over 200 overflows. */
static void every_overflow(void)
{
	const uint64_t want = 200;
	struct ring r;
	struct seen s = { 0 };
	int fd = open_mapped(ev->period, 1, &r, "POLL_IN");

	if (fd < 0)
		return;
	reset();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop_until(&r, want);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(&r, &s, ev->period, 0);
	abi_note("%s POLL_IN: %llu samples, %d POLL_IN, %d POLL_HUP, %d other", ev->name,
	         (unsigned long long)s.n, polls_in, polls_hup, others);
	EV_CHECK(s.n >= want, "POLL_IN: %llu overflows reached (%llu samples)",
	      (unsigned long long)want, (unsigned long long)s.n);
	EV_CHECK(polls_in == (int)s.n && polls_hup == 0 && others == 0,
	      "POLL_IN: a signal per overflow, none lost (%d of %llu)", polls_in,
	      (unsigned long long)s.n);
	EV_CHECK(s.bad_period == 0 && s.other_records == 0, "POLL_IN: every sample's PERIOD is %llu",
	      (unsigned long long)ev->period);
	ring_unmap(&r);
	close(fd);
}

/* REFRESH 1 in the handler: a POLL_HUP per overflow, 10 rounds. */
static void refresh_rounds(void)
{
	const uint64_t rounds = 10;
	struct ring r;
	struct seen s = { 0 };
	int fd = open_mapped(ev->period, 1, &r, "POLL_HUP");

	if (fd < 0)
		return;
	reset();
	refresh_fd = fd;
	ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
	loop_until(&r, rounds);
	/* the last round's REFRESH re-enabled it: stop before counting */
	refresh_fd = -1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(&r, &s, ev->period, 0);
	abi_note("%s REFRESH: %llu samples, %d POLL_HUP, %d POLL_IN", ev->name, (unsigned long long)s.n,
	         polls_hup, polls_in);
	EV_CHECK(s.n >= rounds, "REFRESH 1 in the handler: %llu rounds (%llu samples)",
	      (unsigned long long)rounds, (unsigned long long)s.n);
	EV_CHECK(polls_hup == (int)s.n && polls_in == 0 && others == 0,
	      "REFRESH 1 in the handler: a POLL_HUP per overflow, none lost (%d of %llu), no POLL_IN (%d)",
	      polls_hup, (unsigned long long)s.n, polls_in);
	ring_unmap(&r);
	close(fd);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median_gap(struct seen *s)
{
	qsort(s->gaps, s->n_gaps, sizeof(s->gaps[0]), cmp_u64);
	return s->gaps[s->n_gaps / 2];
}

/* PERF_EVENT_IOC_PERIOD on the running sampler: from 4 periods to 1. */
static void set_period(void)
{
	const uint64_t before = 5, after = 40, longer = 4 * ev->period;
	struct ring r;
	struct seen s = { 0 };
	uint64_t period = ev->period;
	int fd = open_mapped(longer, 1, &r, "PERIOD");

	if (fd < 0)
		return;
	reset();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop_until(&r, before);
	int rc = ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
	/* the samples up to here (at most one more: the PMI on its way)
	 * had the long period */
	uint64_t at = samples_written(&r) + 1;
	loop_until(&r, at + after);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(&r, &s, ev->period, at);
	abi_note("%s PERIOD: %llu samples (the new period from sample %llu), %d POLL_IN, "
	         "%llu other PERIODs", ev->name, (unsigned long long)s.n,
	         (unsigned long long)at + 1, polls_in, (unsigned long long)s.bad_period);
	EV_CHECK(rc == 0, "PERIOD %llu on the running sampler", (unsigned long long)ev->period);
	EV_CHECK(s.n >= at + after, "PERIOD: %llu samples at the new period",
	      (unsigned long long)after);
	EV_CHECK(s.bad_period == 0, "PERIOD: the samples after the change have PERIOD %llu (%llu not)",
	      (unsigned long long)ev->period, (unsigned long long)s.bad_period);
	if (ev->exact && s.n_gaps && clock_is_guests()) {
		/* A PMI late by L makes its sample's count L past the
		 * overflow and the next gap L shorter (the next overflow
		 * is still a period after this one), so single gaps are
		 * not compared: all of them together span at least all
		 * but one period, and the median is one period, not the
		 * old four. */
		uint64_t span = s.last_value - s.first_after, median = median_gap(&s);

		EV_CHECK(span >= (s.n_gaps - 1) * ev->period,
		         "PERIOD: %llu overflows after the change span %llu, no fewer than %llu",
		         (unsigned long long)s.n_gaps, (unsigned long long)span,
		         (unsigned long long)((s.n_gaps - 1) * ev->period));
		EV_CHECK(median >= ev->period - ev->period / 16 && median <= ev->period + ev->period / 4,
		         "PERIOD: the median count between overflows is the new period (%llu)",
		         (unsigned long long)median);
	}
	EV_CHECK(polls_in == (int)s.n && others == 0,
	      "PERIOD: a signal per overflow across the change (%d of %llu)", polls_in,
	      (unsigned long long)s.n);
	ring_unmap(&r);
	close(fd);
}

static const struct ev events[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1000000, 0 },
	{ "cycles:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000000, 1 },
	{ "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 250000, 1 },
};

/* A real PMU (no caps/model_clock) or the model with the instruction
 * clock: instructions cost nothing to count (without the clock the
 * model single-steps them, ~2,000 kernel instructions each: not here)
 * and cycles run with the guest (without it they are the TSC, host
 * time: a vCPU the loaded host did not run for 30 ms comes back with
 * the counter that much further, one overflow for many periods). */
static int clock_is_guests(void)
{
	char path[256], clock[32] = "";
	int fd = core_pmu_file(path, sizeof(path), "caps/model_clock") == 0
	         ? open(path, O_RDONLY) : -1;

	if (fd < 0)
		return 1;
	ssize_t n = read(fd, clock, sizeof(clock) - 1);
	close(fd);
	return n > 0 && strncmp(clock, "icount", 6) == 0;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	catch_rtsig();
	for (unsigned i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		ev = &events[i];
		if (ev->config == PERF_COUNT_HW_INSTRUCTIONS && ev->type == PERF_TYPE_HARDWARE &&
		    !clock_is_guests()) {
			abi_note("instructions:u would be single-stepped (no instruction clock): "
			         "not checked");
			continue;
		}
		int fd = open_sampler(ev->period, 1);

		if (fd < 0 && ev->type == PERF_TYPE_HARDWARE) {
			CHECK(!abi_on_baremon(), "baremon has a cpu PMU (cycles: %s)", strerror(errno));
			abi_note("no cpu PMU (cycles: %s): hardware overflow signals not checked",
			         strerror(errno));
			continue;
		}
		if (!CHECK(fd >= 0, "%s sampler opens", ev->name))
			continue;
		close(fd);
		every_overflow();
		refresh_rounds();
		set_period();
	}
	return abi_done("ovsignal");
}
