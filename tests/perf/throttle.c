/*
 * throttle.c: an event that takes more than max_samples_per_tick =
 * DIV_ROUND_UP(perf_event_max_sample_rate, HZ) overflow interrupts in
 * one tick is throttled until the next tick, and the ring buffer says
 * so (Linux's __perf_event_account_interrupt and perf_log_throttle):
 *
 *  - PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE alternate, THROTTLE
 *    first; each is {header, time, id, stream_id} (the event's ID) and,
 *    with sample_id_all, the sample_id trailer (TID, TIME, ID,
 *    STREAM_ID, IDENTIFIER here); times never go back, records in time
 *    order with the samples around them;
 *  - the samples a second stay near perf_event_max_sample_rate however
 *    short the period: below 5 x the rate, a tenth of what the periods
 *    asked (Linux counts per CPU tick: a task moving between CPUs, or
 *    HZ 1000, lets a little more through);
 *  - which events: a hardware counter's overflow and a clock event's
 *    hrtimer throttle (cycles, task-clock at a 10 us period); a software
 *    event taking one sample per occurrence never does (page-faults with
 *    period 1), as its first overflow of an occurrence may not throttle.
 *
 * Needs root (the rate is lowered to RATE and restored). cycles needs a
 * CPU PMU (skipped where there is none, as on this Linux host).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include "perf.h"
#include "ring.h"

#define PAGES 256
#define RATE 2000
#define RATE_FILE "/proc/sys/kernel/perf_event_max_sample_rate"
#define TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
              PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
              PERF_SAMPLE_PERIOD)

/* THROTTLE / UNTHROTTLE with this TYPE's trailer. */
struct throttle_rec {
	struct perf_event_header h;
	uint64_t time, id, stream_id;
	uint32_t pid, tid;
	uint64_t t_time, t_id, t_stream_id, t_identifier;
};

struct result {
	uint64_t samples, throttles, unthrottles, bad_order, bad_fields, time_back;
	uint64_t first, last, other;
	uint64_t rounds;     /* calls of the work function */
};

static int write_int(const char *path, int v)
{
	char buf[32];
	int fd = open(path, O_WRONLY), len;
	ssize_t n;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d\n", v);
	n = write(fd, buf, (size_t)len);
	close(fd);
	return n == len ? 0 : -1;
}

static int open_sampler(uint32_t type, uint64_t config, uint64_t period, int user_only)
{
	struct perf_event_attr a;

	perf_attr(&a, type, config);
	a.sample_period = period;
	a.sample_type = TYPE;
	a.sample_id_all = 1;
	a.disabled = 1;
	a.exclude_kernel = user_only ? 1 : 0;
	a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

static void check_throttle(struct result *res, const struct throttle_rec *t, uint64_t id)
{
	int unthrottle = t->h.type == PERF_RECORD_UNTHROTTLE;

	/* THROTTLE first, then they alternate. */
	if (unthrottle ? res->throttles != res->unthrottles + 1
	               : res->throttles != res->unthrottles)
		res->bad_order++;
	if (unthrottle)
		res->unthrottles++;
	else
		res->throttles++;
	if (t->h.size != sizeof(*t) || t->id != id || t->stream_id != id ||
	    t->t_id != id || t->t_stream_id != id || t->t_identifier != id ||
	    t->pid != (uint32_t)getpid() || t->t_time < t->time - 1000000)
		res->bad_fields++;
	if (t->time < res->last)
		res->time_back++;
	res->last = t->time;
}

/* Read every record up to data_head. A SAMPLE here starts
 * {IDENTIFIER, IP, PID/TID, TIME}. */
static void drain(struct ring *r, struct result *res, uint64_t id)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);

	while (r->pos < head) {
		union {
			struct perf_event_header h;
			struct throttle_rec t;
			uint64_t w[16];
		} rec;
		unsigned char *o = (unsigned char *)&rec;

		memset(&rec, 0, sizeof(rec));
		for (size_t i = 0; i < sizeof(rec.h); i++)
			o[i] = r->data[(r->pos + i) % r->size];
		for (size_t i = 0; i < rec.h.size && i < sizeof(rec); i++)
			o[i] = r->data[(r->pos + i) % r->size];
		r->pos += rec.h.size ? rec.h.size : 8;
		if (rec.h.type == PERF_RECORD_SAMPLE) {
			uint64_t time = rec.w[4];

			res->samples++;
			if (time < res->last)
				res->time_back++;
			res->last = time;
			if (!res->first)
				res->first = time;
		} else if (rec.h.type == PERF_RECORD_THROTTLE ||
		           rec.h.type == PERF_RECORD_UNTHROTTLE) {
			check_throttle(res, &rec.t, id);
		} else {
			res->other++;
		}
	}
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
}

/* Run `work` for ns with fd enabled; the records it left. */
static struct result run(int fd, uint64_t ns, void (*work)(void))
{
	struct result res = { 0 };
	struct ring r;
	uint64_t id = 0, start;

	if (ring_map(fd, &r, PAGES, PROT_READ | PROT_WRITE) != 0 || ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
		CHECK(0, "ring mapped, id read");
		return res;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	start = now_ns();
	while (now_ns() - start < ns) {
		work();
		res.rounds++;
		drain(&r, &res, id);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(&r, &res, id);
	munmap(r.meta, r.len);
	return res;
}

static void busy(void)
{
	work_ns(2000000);
}

#define FAULT_PAGES 64

static void faults(void)
{
	touch_pages(FAULT_PAGES);
}

/* An event that takes more samples than the rate allows: throttled and
 * unthrottled, the records right, the rate held. */
static void expect_throttled(const char *what, int fd)
{
	struct result res;
	double secs, per_sec;

	CHECK(fd >= 0, "%s: opens (%s)", what, fd < 0 ? strerror(errno) : "ok");
	if (fd < 0)
		return;
	res = run(fd, 500000000, busy);
	secs = res.last > res.first ? (double)(res.last - res.first) / 1e9 : 0;
	per_sec = secs > 0 ? (double)res.samples / secs : 0;
	abi_note("%s: %llu samples (%d a second), %llu throttles, %llu unthrottles",
	         what, (unsigned long long)res.samples, (int)per_sec,
	         (unsigned long long)res.throttles, (unsigned long long)res.unthrottles);
	CHECK(res.throttles >= 2, "%s: throttled (%llu THROTTLE records)", what,
	      (unsigned long long)res.throttles);
	CHECK(res.unthrottles + 1 >= res.throttles && res.unthrottles >= 1,
	      "%s: each THROTTLE followed by an UNTHROTTLE", what);
	CHECK(res.bad_order == 0, "%s: THROTTLE and UNTHROTTLE alternate, THROTTLE first", what);
	CHECK(res.bad_fields == 0, "%s: time, id, stream_id and the sample_id trailer right (%llu not)",
	      what, (unsigned long long)res.bad_fields);
	CHECK(res.time_back == 0, "%s: records in time order", what);
	CHECK(per_sec < 5 * RATE, "%s: %d samples a second, held near the rate %d",
	      what, (int)per_sec, RATE);
	close(fd);
}

static void test_page_faults(void)
{
	int fd = open_sampler(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1, 1);
	struct result res;

	CHECK(fd >= 0, "page-faults, period 1: opens");
	if (fd < 0)
		return;
	res = run(fd, 200000000, faults);
	abi_note("page-faults: %llu samples, %llu throttles", (unsigned long long)res.samples,
	         (unsigned long long)res.throttles);
	/* Compared with the work done, not with the time it took: a loaded
	 * host makes fewer faults in the same 200 ms. */
	CHECK(res.rounds >= 2 && res.samples >= FAULT_PAGES * res.rounds,
	      "page-faults: a sample for each of the %llu faults made (%llu)",
	      (unsigned long long)(FAULT_PAGES * res.rounds), (unsigned long long)res.samples);
	CHECK(res.throttles == 0, "page-faults, one sample per fault: never throttled");
	close(fd);
}

/* throttle [CPU]: run on CPU only (tests/qemu/pmu.sh: an isolated
 * CPU, whose tick stops while one task runs there: throttling must
 * start it again to unthrottle). */
int main(int argc, char **argv)
{
	int saved, fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1) {
		uint64_t mask = 1ULL << atoi(argv[1]);

		CHECK(syscall(__NR_sched_setaffinity, 0, sizeof(mask), &mask) == 0,
		      "pinned to CPU %s", argv[1]);
		sched_yield();
	}
	saved = (int)file_long(RATE_FILE, -1);
	CHECK(saved > 0, "%s readable (%d)", RATE_FILE, saved);
	if (geteuid() != 0 || saved <= 0) {
		abi_note("skipped: needs root to lower %s", RATE_FILE);
		return abi_done("throttle");
	}
	CHECK(write_int(RATE_FILE, RATE) == 0 && (int)file_long(RATE_FILE, -1) == RATE,
	      "rate lowered to %d", RATE);

	test_page_faults();
	expect_throttled("task-clock, 10 us period",
	                 open_sampler(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 10000, 0));
	fd = open_sampler(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 20000, 1);
	if (fd < 0) {
		CHECK(!abi_on_baremon(), "baremon has a cpu PMU (cycles: %s)", strerror(errno));
		abi_note("no cpu PMU (cycles: %s): hardware throttling not checked",
		         strerror(errno));
	} else {
		expect_throttled("cycles, period 20000", fd);
	}

	CHECK(write_int(RATE_FILE, saved) == 0 && (int)file_long(RATE_FILE, -1) == saved,
	      "rate restored to %d", saved);
	return abi_done("throttle");
}
