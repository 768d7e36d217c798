/*
 * hwsample.c: sampling hardware events through the overflow interrupt.
 * Needs a CPU PMU: where PERF_TYPE_HARDWARE cycles cannot be opened (a
 * Linux host without one, as under QEMU TCG) it checks only what does
 * not need one (precise_ip on software events) and says so; on baremon
 * the cpu PMU (the vpmu under TCG) must be there.
 *
 *  - the same in a loop that makes no system call, the samples' IPs in
 *    it (the PMI comes on its own, not at the next kernel entry);
 *  - a fixed period P of user-mode cycles: count / P whole periods give
 *    that many samples (to one, the one whose interrupt may still be on
 *    its way), every PERIOD is P, every IP is a user address with
 *    PERF_RECORD_MISC_USER, TIME never goes back;
 *  - periods longer than a legacy counter write (2^31 + 2^20) and than
 *    the counter (2^48 + 1): no sample before the count reaches the
 *    period (the first one after it, for the former);
 *  - freq mode: sample_freq samples a second once the period settled;
 *  - precise_ip: software events take 0-3 (Linux ignores it there);
 *    cycles takes up to caps/max_precise, EOPNOTSUPP beyond.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include "perf.h"
#include "ring.h"

#define PAGES 64
/*
 * The fixed sampling period, in cycles (the vpmu's cycles are TSC ticks,
 * a few ms of them). Short, so that the runs can be: tests/qemu/perf.sh
 * runs this program under -icount, where the guest's clocks advance with
 * the instructions it runs and a second of guest time costs seconds.
 */
#define PERIOD 2000000ULL
#define TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

struct sample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, period;
};

#define MAX_GAPS 4096

struct stats {
	uint64_t n, bad_period, bad_ip, time_back, other;
	uint64_t first_time, last_time;
	uint64_t gaps[MAX_GAPS];  /* TIME from one sample to the next */
	uint64_t n_gaps;
	uint64_t stall;           /* longest the busy loop saw the clock jump */
	uint64_t stalls[256];     /* the jumps over 1 ms, ns */
	uint64_t n_stalls;
	uint64_t tsc, ns;         /* TSC and clock time of the run */
};

static inline uint64_t tsc_now(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static int cycles_sampler(uint64_t period, int freq, int exclude_kernel)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.sample_period = period; /* sample_freq shares it */
	a.freq = freq ? 1 : 0;
	a.sample_type = TYPE;
	a.disabled = 1;
	a.exclude_kernel = exclude_kernel ? 1 : 0;
	a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

/* Read every record up to data_head into st, releasing the space. */
static void drain(struct ring *r, struct stats *st, uint64_t period)
{
	uint64_t head = ring_head(r);

	while (r->pos < head) {
		struct sample s;
		unsigned char *o = (unsigned char *)&s;

		memset(&s, 0, sizeof(s));
		for (size_t i = 0; i < sizeof(s.h); i++)
			o[i] = r->data[(r->pos + i) % r->size];
		for (size_t i = 0; i < s.h.size && i < sizeof(s); i++)
			o[i] = r->data[(r->pos + i) % r->size];
		r->pos += s.h.size ? s.h.size : 8;
		if (s.h.type != PERF_RECORD_SAMPLE) {
			st->other++;
			continue;
		}
		st->n++;
		if (period && s.period != period)
			st->bad_period++;
		if ((s.h.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
		    s.ip >= 0x800000000000ULL || s.ip == 0)
			st->bad_ip++;
		if (s.time < st->last_time)
			st->time_back++;
		else if (st->last_time && st->n_gaps < MAX_GAPS)
			st->gaps[st->n_gaps++] = s.time - st->last_time;
		if (!st->first_time)
			st->first_time = s.time;
		st->last_time = s.time;
	}
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
}

/*
 * Busy in user mode for ns, draining the ring every 5 ms. The clock is
 * read every 1,000 iterations: a jump between two reads is time this
 * vCPU or process did not run (a loaded host). Such a stall matters on
 * the vpmu, whose cycles follow the TSC: the stall is counted at once,
 * and a PMI more than a period late skips periods, as Linux does.
 */
static void run(int fd, struct ring *r, struct stats *st, uint64_t period, uint64_t ns)
{
	uint64_t start = now_ns(), prev = start, last_drain = start, t, tsc = tsc_now();
	volatile uint64_t sink = 0;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	while ((t = now_ns()) - start < ns) {
		if (t - prev > st->stall)
			st->stall = t - prev;
		if (t - prev > 1000000 && st->n_stalls < 256)
			st->stalls[st->n_stalls++] = t - prev;
		prev = t;
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
		if (t - last_drain > 5000000) {
			drain(r, st, period);
			last_drain = now_ns();
			prev = last_drain;
		}
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	st->tsc += tsc_now() - tsc;
	st->ns += now_ns() - start;
	drain(r, st, period);
}

/*
 * The most periods host stalls can have made the driver skip: a stall
 * of S TSC cycles (the vpmu counts them at once) makes a PMI late by
 * less than S, and a PMI late by L skips L / period periods (Linux's
 * x86_perf_event_set_period starts afresh), plus the part of a period
 * then lost. Stalls shorter than a period skip nothing.
 */
static uint64_t skippable(const struct stats *st, uint64_t period)
{
	double per_ns = st->ns ? (double)st->tsc / (double)st->ns : 0, sum = 0;

	for (uint64_t i = 0; i < st->n_stalls; i++) {
		double cycles = (double)st->stalls[i] * per_ns;

		if (cycles >= (double)period)
			sum += cycles;
	}
	return sum > 0 ? (uint64_t)(sum / (double)period) + 1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median_gap(struct stats *st)
{
	if (!st->n_gaps)
		return 0;
	qsort(st->gaps, st->n_gaps, sizeof(st->gaps[0]), cmp_u64);
	return st->gaps[st->n_gaps / 2];
}

static void test_fixed_period(void)
{
	const uint64_t period = PERIOD;
	static struct stats st;
	struct ring r;
	int fd = cycles_sampler(period, 0, 1);
	uint64_t count, whole, skip;

	CHECK(fd >= 0, "cycles, period %llu, user only: opens", (unsigned long long)period);
	if (fd < 0 || ring_map(fd, &r, PAGES, PROT_READ | PROT_WRITE) != 0) {
		CHECK(0, "ring mapped");
		return;
	}
	memset(&st, 0, sizeof(st));
	run(fd, &r, &st, period, 40000000);  /* 40 ms: some 14 periods of user time */
	count = perf_value(fd);
	whole = count / period;
	abi_note("fixed period: %llu cycles, %llu samples of %llu; longest stall %llu us",
	         (unsigned long long)count, (unsigned long long)st.n,
	         (unsigned long long)period, (unsigned long long)st.stall / 1000);
	CHECK(whole >= 3, "several periods counted (%llu)", (unsigned long long)whole);
	CHECK(st.n <= whole, "no more samples than whole periods: %llu samples, %llu periods",
	      (unsigned long long)st.n, (unsigned long long)whole);
	/* One sample per whole period, one fewer when the last PMI is on
	 * its way, fewer by what host stalls can have skipped. */
	skip = skippable(&st, period);
	CHECK(st.n + 1 + skip >= whole,
	      "one sample per whole period: %llu samples, %llu periods, %llu skippable",
	      (unsigned long long)st.n, (unsigned long long)whole, (unsigned long long)skip);
	CHECK(st.bad_period == 0, "every PERIOD is %llu (%llu not)",
	      (unsigned long long)period, (unsigned long long)st.bad_period);
	CHECK(st.bad_ip == 0, "every IP a user address, misc USER (%llu not)",
	      (unsigned long long)st.bad_ip);
	CHECK(st.time_back == 0, "TIME never goes back");
	CHECK(st.other == 0, "no other records (%llu)", (unsigned long long)st.other);
	munmap(r.meta, r.len);
	close(fd);
}

/*
 * A period beyond what one counter write can hold: no sample while the
 * count is below it. The ring is looked at before the count, so a
 * sample seen means the count had passed the period. Where the run can
 * reach the period, the first sample must come (with PERIOD = period).
 */
static void test_long_period(uint64_t period, uint64_t ns, const char *what)
{
	static struct stats st;
	struct ring r;
	int fd = cycles_sampler(period, 0, 0);
	uint64_t start, count = 0, head, early = 0, reached = 0;

	CHECK(fd >= 0, "%s: opens", what);
	if (fd < 0 || ring_map(fd, &r, PAGES, PROT_READ | PROT_WRITE) != 0) {
		CHECK(0, "%s: ring mapped", what);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	start = now_ns();
	for (;;) {
		spin_ns(5000000);
		head = ring_head(&r);
		count = perf_value(fd);
		if (head && count < period)
			early++;
		if (count >= period + period / 64 && !reached)
			reached = now_ns();
		/* Past the period: until the sample came (or had a second). */
		if (reached ? head || now_ns() - reached > 1000000000 : now_ns() - start >= ns)
			break;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	memset(&st, 0, sizeof(st));
	drain(&r, &st, period);
	abi_note("%s: %llu counted, %llu samples", what, (unsigned long long)count,
	         (unsigned long long)st.n);
	CHECK(count > 0, "%s: counts", what);
	CHECK(early == 0, "%s: no sample before the count reaches the period", what);
	if (reached) {
		CHECK(st.n == 1, "%s: one sample once the period passed (%llu)", what,
		      (unsigned long long)st.n);
		CHECK(st.bad_period == 0, "%s: its PERIOD is the period", what);
	} else {
		CHECK(st.n == 0, "%s: no sample (count below the period)", what);
	}
	munmap(r.meta, r.len);
	close(fd);
}

/* freq mode: the period settles to give about sample_freq samples a
 * second; the median time between samples of the second run is
 * checked (a median, so a host stall does not move it). */
static void test_freq(void)
{
	const uint64_t freq = 200;
	static struct stats first, second;
	struct ring r;
	int fd = cycles_sampler(freq, 1, 1);
	uint64_t gap, rate;

	CHECK(fd >= 0, "cycles at %llu Hz: opens", (unsigned long long)freq);
	if (fd < 0 || ring_map(fd, &r, PAGES, PROT_READ | PROT_WRITE) != 0) {
		CHECK(0, "freq: ring mapped");
		return;
	}
	memset(&first, 0, sizeof(first));
	memset(&second, 0, sizeof(second));
	run(fd, &r, &first, 0, 150000000);    /* settling: ~30 samples */
	run(fd, &r, &second, 0, 250000000);   /* ~50 samples */
	gap = median_gap(&second);
	rate = gap ? 1000000000 / gap : 0;
	abi_note("freq %llu: %llu samples while settling, then %llu, median %llu us apart",
	         (unsigned long long)freq, (unsigned long long)first.n,
	         (unsigned long long)second.n, (unsigned long long)gap / 1000);
	CHECK(rate * 10 > freq * 7 && rate * 10 < freq * 13,
	      "freq: %llu samples a second, within 30%% of %llu", (unsigned long long)rate,
	      (unsigned long long)freq);
	CHECK(second.bad_ip == 0, "freq: user IPs");
	munmap(r.meta, r.len);
	close(fd);
}

/* A user loop that makes no system call: nothing but the PMI's own
 * timing brings the samples (on the vpmu: its wrap timer). RDTSC every
 * 1,000 iterations finds host stalls, in TSC cycles. */
static __attribute__((noinline)) uint64_t plain_loop(uint64_t cycles, uint64_t *stalls,
                                                     uint64_t period)
{
	uint64_t start = tsc_now(), prev = start, t;
	volatile uint64_t sink = 0;

	while ((t = tsc_now()) - start < cycles) {
		if (t - prev >= period)
			*stalls += t - prev;
		prev = t;
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
	}
	return t - start;
}

static void test_no_syscalls(void)
{
	const uint64_t period = PERIOD;
	static struct stats st;
	struct ring r;
	int fd = cycles_sampler(period, 0, 1);
	uint64_t stalls = 0, count, whole, skip, in_loop = 0;
	uint64_t lo = (uint64_t)(uintptr_t)plain_loop, hi = lo + 512;

	CHECK(fd >= 0, "no system calls: opens");
	if (fd < 0 || ring_map(fd, &r, PAGES, PROT_READ | PROT_WRITE) != 0) {
		CHECK(0, "no system calls: ring mapped");
		return;
	}
	memset(&st, 0, sizeof(st));
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	plain_loop(75 * PERIOD, &stalls, period);  /* 75 periods of TSC */
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	count = perf_value(fd);
	whole = count / period;
	/* the ring holds them all: 64 pages of 48-byte samples */
	{
		uint64_t head = ring_head(&r);

		while (r.pos < head) {
			struct sample smp;
			unsigned char *o = (unsigned char *)&smp;

			for (size_t i = 0; i < sizeof(smp); i++)
				o[i] = r.data[(r.pos + i) % r.size];
			r.pos += smp.h.size ? smp.h.size : 8;
			if (smp.h.type != PERF_RECORD_SAMPLE)
				continue;
			st.n++;
			in_loop += smp.ip >= lo && smp.ip < hi;
			if (smp.period != period)
				st.bad_period++;
		}
	}
	skip = stalls / period + (stalls ? 1 : 0);
	abi_note("no system calls: %llu cycles, %llu samples (%llu in the loop), "
	         "%llu skippable", (unsigned long long)count, (unsigned long long)st.n,
	         (unsigned long long)in_loop, (unsigned long long)skip);
	CHECK(st.n <= whole && st.n + 1 + skip >= whole,
	      "no system calls: one sample per whole period (%llu samples, %llu periods)",
	      (unsigned long long)st.n, (unsigned long long)whole);
	CHECK(in_loop * 10 >= st.n * 9, "no system calls: the samples' IPs in the loop (%llu of %llu)",
	      (unsigned long long)in_loop, (unsigned long long)st.n);
	CHECK(st.bad_period == 0, "no system calls: every PERIOD is %llu", (unsigned long long)period);
	munmap(r.meta, r.len);
	close(fd);
}

static int open_precise(uint32_t type, uint64_t config, unsigned precise)
{
	struct perf_event_attr a;

	perf_attr(&a, type, config);
	a.precise_ip = precise;
	a.sample_period = 100000;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

/* Software events ignore precise_ip (Linux checks it in the x86 PMU
 * only); cycles takes what caps/max_precise says, EOPNOTSUPP beyond. */
static void test_precise(int have_pmu)
{
	for (unsigned p = 0; p <= 3; p++) {
		int fd = open_precise(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, p);

		CHECK(fd >= 0, "task-clock with precise_ip %u opens", p);
		if (fd >= 0)
			close(fd);
		fd = open_precise(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, p);
		CHECK(fd >= 0, "page-faults with precise_ip %u opens", p);
		if (fd >= 0)
			close(fd);
	}
	if (!have_pmu)
		return;
	int max = (int)file_long("/sys/bus/event_source/devices/cpu/caps/max_precise", -1);

	CHECK(max >= 0 && max <= 3, "caps/max_precise is 0-3 (%d)", max);
	for (int p = 0; p <= 3; p++) {
		int fd = open_precise(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, (unsigned)p);

		if (p <= max)
			CHECK(fd >= 0, "cycles with precise_ip %d <= max_precise opens", p);
		else
			CHECK(fd < 0 && errno == EOPNOTSUPP,
			      "cycles with precise_ip %d > max_precise: EOPNOTSUPP", p);
		if (fd >= 0)
			close(fd);
	}
}

int main(void)
{
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	fd = cycles_sampler(1000000, 0, 1);
	if (fd < 0) {
		CHECK(!abi_on_baremon(), "baremon has a cpu PMU (cycles: %s)", strerror(errno));
		abi_note("no cpu PMU (cycles: %s): hardware sampling not checked",
		         strerror(errno));
		test_precise(0);
		return abi_done("hwsample");
	}
	close(fd);
	test_precise(1);
	test_fixed_period();
	test_no_syscalls();
	test_long_period((1ULL << 31) + (1ULL << 20), 4000000000ULL, "period 2^31 + 2^20");
	test_long_period((1ULL << 48) + 1, 50000000, "period 2^48 + 1");
	test_freq();
	return abi_done("hwsample");
}
