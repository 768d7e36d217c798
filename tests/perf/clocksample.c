/*
 * clocksample.c: cpu-clock and task-clock sampled by a timer (Linux's
 * perf_swevent_hrtimer; baremon's hrtimer, pmu/sw/clock_sample.c).
 *
 *  - task-clock and cpu-clock at 1 ms and 100 us over CPU-bound work:
 *    the number of samples is close to the time the event counted
 *    divided by the period (never more than one per period, and not
 *    far fewer), every PERIOD is the period, and consecutive TIMEs are
 *    a period apart (25th percentile: late expiries make longer gaps);
 *  - periods under 10 us (here 1 us): samples come at most every 10 us
 *    (Linux's floor for clock events) while PERIOD still says 1 us;
 *  - freq mode (sample_freq 1000, 4000): the period is 1e9 / freq ns
 *    and the samples come at that rate;
 *  - a per-CPU cpu-clock samples while its CPU is idle (the caller
 *    sleeps): cpu-clock counts idle time.
 *
 * Counts are checked against the event's own count (time it was on a
 * CPU), not wall time, less the time the work loop saw itself stalled
 * (work_watch), so a loaded machine stretches nothing. Every
 * check holds on the host Linux and on baremon.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "perf.h"
#include "ring.h"

#define DATA_PAGES 128
#define MAX_SAMPLES 40000

/* IP, TID, TIME, PERIOD */
struct rec {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, period;
};

struct result {
	uint64_t count;      /* the event's count (ns) when disabled */
	uint64_t stalled;    /* ns the work loop saw pass without it (below) */
	uint64_t samples, lost, other_period;
	uint64_t period0;    /* the first sample's PERIOD */
	uint64_t p25_dt;     /* consecutive TIME differences, 25th percentile */
};

static uint64_t times[MAX_SAMPLES];

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Read every record; fills the sample statistics of res. */
static void drain(struct ring *r, struct result *res)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);

	while (r->pos < head) {
		struct rec x;
		unsigned char *out = (unsigned char *)&x;
		struct perf_event_header h;

		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = r->data[(r->pos + i) % r->size];
		memset(&x, 0, sizeof(x));
		for (size_t i = 0; i < h.size && i < sizeof(x); i++)
			out[i] = r->data[(r->pos + i) % r->size];
		r->pos += h.size;
		if (h.type == PERF_RECORD_LOST) {
			res->lost++;
			continue;
		}
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		if (res->samples == 0)
			res->period0 = x.period;
		else if (x.period != res->period0)
			res->other_period++;
		if (res->samples < MAX_SAMPLES)
			times[res->samples] = x.time;
		res->samples++;
	}
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
}

static void spacing(struct result *res)
{
	uint64_t n = res->samples < MAX_SAMPLES ? res->samples : MAX_SAMPLES;

	if (n < 3)
		return;
	for (uint64_t i = 0; i + 1 < n; i++)
		times[i] = times[i + 1] - times[i];
	qsort(times, (size_t)(n - 1), sizeof(times[0]), cmp_u64);
	res->p25_dt = times[(n - 1) / 4];
}

/*
 * CPU work for ns of this thread's CPU time, watching the clock: a jump
 * of more than `gap` ns between two reads is time the loop did not run
 * (preempted on Linux; under QEMU TCG on a loaded host, the guest's
 * clock running while QEMU waits for a host CPU, which a guest event
 * counts as running time). Such time is added to *stalled: a timer
 * that was due meanwhile fires late and its missed periods are skipped
 * (as on Linux), so the sample count is judged on the rest.
 */
static void work_watch(uint64_t ns, uint64_t gap, uint64_t *stalled)
{
	uint64_t start = cpu_ns(), wall = now_ns(), prev = wall, t;
	volatile uint64_t sink = 0;

	do {
		for (int i = 0; i < 200; i++)
			sink += (uint64_t)i;
		t = now_ns();
		if (t - prev > gap)
			*stalled += t - prev;
		prev = t;
	} while (cpu_ns() - start < ns && t - wall < 50 * ns + 100000000u);
}

/*
 * Sample `config` (period ns, or freq per second when freq) on this task
 * (cpu -1) or on one CPU (pid -1) while `busy` ns of CPU work (0: sleep
 * `idle` ns instead). Returns 0, or -1 if the event cannot be opened.
 */
static int run(uint64_t config, uint64_t period, int freq, int pid, int cpu,
               uint64_t busy, uint64_t idle, struct result *res)
{
	struct perf_event_attr a;
	struct ring r;
	int fd;

	memset(res, 0, sizeof(*res));
	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	if (freq) {
		a.freq = 1;
		a.sample_freq = period;
	} else {
		a.sample_period = period;
	}
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	                PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	fd = perf_open(&a, pid, cpu, -1, 0);
	if (fd < 0)
		return -1;
	if (ring_map(fd, &r, DATA_PAGES, PROT_READ | PROT_WRITE) != 0) {
		close(fd);
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (busy) {
		/* Drain as we go: a buffer filling up would lose samples. */
		uint64_t gap = freq ? 1000000000u / period : period;

		for (uint64_t done = 0; done < busy; done += 10000000) {
			work_watch(10000000, gap < 10000 ? 10000 : gap, &res->stalled);
			drain(&r, res);
		}
	} else {
		sleep_ns((long)idle);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	res->count = perf_value(fd);
	drain(&r, res);
	spacing(res);
	munmap(r.meta, r.len);
	close(fd);
	return 0;
}

static const char *name_of(uint64_t config)
{
	return config == PERF_COUNT_SW_TASK_CLOCK ? "task-clock" : "cpu-clock";
}

static void note(const char *what, uint64_t period, const struct result *res)
{
	abi_note("%s %llu: count %llu ns (%llu stalled), %llu samples (%llu expected), "
	         "period %llu, dt p25 %llu ns, lost %llu", what,
	         (unsigned long long)period, (unsigned long long)res->count,
	         (unsigned long long)res->stalled,
	         (unsigned long long)res->samples,
	         (unsigned long long)(res->count / (period < 10000 ? 10000 : period)),
	         (unsigned long long)res->period0,
	         (unsigned long long)res->p25_dt, (unsigned long long)res->lost);
}

/*
 * `interval` ns between samples over the counted time: at most one per
 * interval (+1 for the edges); at least `min_pct` percent of one per
 * interval of the time the loop was not stalled (a sample the timer is
 * late for is skipped, not made up).
 */
static void check_rate(const char *what, const struct result *res,
                       uint64_t interval, unsigned min_pct)
{
	uint64_t expect = res->count / interval;
	uint64_t ran = res->count > res->stalled ? res->count - res->stalled : 0;

	CHECK(res->samples <= expect + 2,
	      "%s: no more than one sample per %llu ns (%llu in %llu ns)", what,
	      (unsigned long long)interval, (unsigned long long)res->samples,
	      (unsigned long long)res->count);
	CHECK(res->samples * 100 >= ran / interval * min_pct,
	      "%s: at least %u%% of (count - stalled)/period samples (%llu of %llu)",
	      what, min_pct, (unsigned long long)res->samples,
	      (unsigned long long)(ran / interval));
}

static void check_fixed(uint64_t config, uint64_t period, uint64_t busy,
                        unsigned min_pct)
{
	struct result res;
	char what[64];

	snprintf(what, sizeof(what), "%s every %llu ns", name_of(config),
	         (unsigned long long)period);
	if (!CHECK(run(config, period, 0, 0, -1, busy, 0, &res) == 0,
	           "%s: open and map", what))
		return;
	note(what, period, &res);
	check_rate(what, &res, period, min_pct);
	CHECK(res.samples > 0 && res.period0 == period && res.other_period == 0,
	      "%s: every PERIOD is %llu", what, (unsigned long long)period);
	CHECK(res.p25_dt >= period * 7 / 10 && res.p25_dt <= period * 3 / 2,
	      "%s: samples a period apart (%llu ns, 25th percentile)", what,
	      (unsigned long long)res.p25_dt);
	CHECK(res.lost == 0, "%s: no LOST records", what);
}

/* Linux raises a clock event's timer to 10 us; PERIOD stays what was
 * asked. */
static void check_floor(uint64_t config)
{
	struct result res;
	const uint64_t period = 1000, floor_ns = 10000;
	char what[64];

	snprintf(what, sizeof(what), "%s every 1 us", name_of(config));
	if (!CHECK(run(config, period, 0, 0, -1, 50000000, 0, &res) == 0,
	           "%s: open and map", what))
		return;
	note(what, period, &res);
	CHECK(res.samples <= res.count / floor_ns + 2,
	      "%s: no more than one sample per 10 us (%llu in %llu ns)", what,
	      (unsigned long long)res.samples, (unsigned long long)res.count);
	CHECK(res.samples >= 10, "%s: samples (%llu)", what,
	      (unsigned long long)res.samples);
	CHECK(res.samples > 0 && res.period0 == period && res.other_period == 0,
	      "%s: every PERIOD is 1000 (the asked period)", what);
	CHECK(res.p25_dt >= floor_ns * 7 / 10,
	      "%s: samples at least 10 us apart (%llu ns, 25th percentile)", what,
	      (unsigned long long)res.p25_dt);
}

/* freq mode on a clock: a fixed period of 1e9 / freq. */
static void check_freq(uint64_t config, uint64_t freq)
{
	struct result res;
	uint64_t period = 1000000000u / freq;
	char what[64];

	snprintf(what, sizeof(what), "%s at %llu Hz", name_of(config),
	         (unsigned long long)freq);
	if (!CHECK(run(config, freq, 1, 0, -1, 200000000, 0, &res) == 0,
	           "%s: open and map", what))
		return;
	note(what, period, &res);
	CHECK(res.samples > 0 && res.period0 == period && res.other_period == 0,
	      "%s: every PERIOD is %llu (first %llu, %llu others)", what,
	      (unsigned long long)period, (unsigned long long)res.period0,
	      (unsigned long long)res.other_period);
	check_rate(what, &res, period, 30);
	CHECK(res.p25_dt >= period * 7 / 10 && res.p25_dt <= period * 3 / 2,
	      "%s: samples a period apart (%llu ns, 25th percentile)", what,
	      (unsigned long long)res.p25_dt);
}

/* A per-CPU cpu-clock while this process sleeps: its CPU idles and the
 * samples still come (cpu-clock counts idle time). */
static void check_idle_cpu(void)
{
	struct result res;
	const uint64_t period = 1000000;

	if (run(PERF_COUNT_SW_CPU_CLOCK, period, 0, -1, 0, 0, 200000000, &res) != 0) {
		CHECK(errno == EACCES, "per-CPU cpu-clock: open (or EACCES: %d)", errno);
		return;
	}
	note("per-CPU cpu-clock on cpu 0, sleeping", period, &res);
	CHECK(res.count >= 150000000, "per-CPU cpu-clock counts the 200 ms asleep (%llu ns)",
	      (unsigned long long)res.count);
	check_rate("per-CPU cpu-clock, sleeping", &res, period, 30);
	CHECK(res.period0 == period && res.other_period == 0,
	      "per-CPU cpu-clock: every PERIOD is the period");
}

int main(void)
{
	static const uint64_t clocks[] = { PERF_COUNT_SW_TASK_CLOCK,
	                                   PERF_COUNT_SW_CPU_CLOCK };

	for (int i = 0; i < 2; i++) {
		/* A tick-driven sampler (one per 10 ms) gets 10% and 1%. */
		check_fixed(clocks[i], 1000000, 200000000, 30);
		check_fixed(clocks[i], 100000, 100000000, 15);
		check_floor(clocks[i]);
		check_freq(clocks[i], 1000);
		check_freq(clocks[i], 4000);
	}
	check_idle_cpu();
	return abi_done("clocksample");
}
