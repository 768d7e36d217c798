/*
 * sample.c: sampling software events into the mmap ring buffer.
 *
 *  - page-faults with sample_period 1: one PERF_RECORD_SAMPLE per fault,
 *    fields in Linux's order (IDENTIFIER, IP, TID, TIME, ADDR, ID,
 *    STREAM_ID, CPU, PERIOD), sizes adding up, each touched page's
 *    address seen, user-mode misc, time never going back;
 *  - a user callchain starting with PERF_CONTEXT_USER and the IP, and
 *    REGS_USER (IP, SP) agreeing with IP;
 *  - back-pressure: with data_tail held, what does not fit is dropped
 *    and reported by PERF_RECORD_LOST: samples + lost == faults;
 *  - overwrite mode (read-only mapping): data_head runs past the size;
 *  - poll: POLLIN after wakeup_events samples, nothing before;
 *  - task-clock sampling: samples' periods add up to about the time.
 *
 * Every check holds on the host Linux and on baremon.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <asm/perf_regs.h>
#include "perf.h"
#include "ring.h"

#define DATA_PAGES 16
#define TOUCH 64

static int open_sampler(uint64_t config, uint64_t period, uint64_t type,
                        unsigned wakeup)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.sample_period = period;
	a.sample_type = type;
	a.wakeup_events = wakeup;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_regs_user = (1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_SP);
	return perf_open(&a, 0, -1, -1, 0);
}

/* Copy the record at pos (wrapping) into buf; returns its header. */
static struct perf_event_header next_record(struct ring *r, void *buf, size_t max)
{
	struct perf_event_header h;
	unsigned char *out = buf;

	for (size_t i = 0; i < sizeof(h); i++)
		((unsigned char *)&h)[i] = r->data[(r->pos + i) % r->size];
	for (size_t i = 0; i < h.size && i < max; i++)
		out[i] = r->data[(r->pos + i) % r->size];
	r->pos += h.size;
	return h;
}

#define TYPE_BASIC (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
                    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |     \
                    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct basic {
	struct perf_event_header h;
	uint64_t identifier, ip;
	uint32_t pid, tid;
	uint64_t time, addr, id, stream_id;
	uint32_t cpu, res;
	uint64_t period;
};

static void test_fields(void)
{
	struct ring r;
	uint64_t id = 0, last_time = 0;
	int fd = open_sampler(PERF_COUNT_SW_PAGE_FAULTS, 1, TYPE_BASIC, 1);
	int samples = 0, bad = 0, seen = 0;
	unsigned char *mem;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char hit[TOUCH] = { 0 };

	if (!CHECK(fd >= 0, "open page-faults, period 1, IP|TID|TIME|ADDR|ID|..."))
		return;
	CHECK(ring_map(fd, &r, DATA_PAGES, PROT_READ | PROT_WRITE) == 0,
	      "map 1 + %d pages", DATA_PAGES);
	CHECK(r.meta->data_offset == (uint64_t)page && r.meta->data_size == r.size,
	      "control page: data_offset %llu, data_size %llu",
	      (unsigned long long)r.meta->data_offset,
	      (unsigned long long)r.meta->data_size);
	ioctl(fd, PERF_EVENT_IOC_ID, &id);
	mem = mmap(NULL, (size_t)(TOUCH * page), PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < TOUCH; i++)
		mem[(long)i * page] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	while (r.pos < ring_head(&r)) {
		struct basic b = { 0 };
		struct perf_event_header h = next_record(&r, &b, sizeof(b));

		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		if (h.size != sizeof(b) || b.identifier != id || b.id != id ||
		    b.pid != (uint32_t)getpid() || b.tid != (uint32_t)getpid() ||
		    b.period != 1 || b.time < last_time || b.cpu >= 1024 ||
		    (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
			bad++;
		last_time = b.time;
		if (b.addr >= (uint64_t)mem && b.addr < (uint64_t)mem + TOUCH * page)
			hit[(b.addr - (uint64_t)mem) / (uint64_t)page] = 1;
	}
	ring_release(&r);
	for (int i = 0; i < TOUCH; i++)
		seen += hit[i];
	abi_note("%d samples for %d touched pages", samples, TOUCH);
	CHECK(samples >= TOUCH, "a sample per fault (%d >= %d)", samples, TOUCH);
	CHECK(bad == 0, "every sample: size, ids, pid/tid, period 1, time, user mode (%d bad)", bad);
	CHECK(seen == TOUCH, "every touched page's address is a sample's ADDR (%d)", seen);
	munmap(mem, (size_t)(TOUCH * page));
	munmap(r.meta, r.len);
	close(fd);
}

/* IP, then CALLCHAIN, then REGS_USER (abi, then sp and ip: bit order). */
static void test_chain_regs(void)
{
	struct ring r;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open_sampler(PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_IP |
	                      PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER, 1);
	int good = 0, samples = 0;
	unsigned char *mem;

	if (!CHECK(fd >= 0 && ring_map(fd, &r, DATA_PAGES, PROT_READ | PROT_WRITE) == 0,
	           "open and map: IP|CALLCHAIN|REGS_USER"))
		return;
	mem = mmap(NULL, (size_t)(8 * page), PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 8; i++)
		mem[(long)i * page] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	while (r.pos < ring_head(&r)) {
		uint64_t rec[512] = { 0 };
		struct perf_event_header h = next_record(&r, rec, sizeof(rec));
		uint64_t ip, nr, *chain, *regs;

		if (h.type != PERF_RECORD_SAMPLE || h.size > sizeof(rec))
			continue;
		samples++;
		ip = rec[1];
		nr = rec[2];
		chain = &rec[3];
		regs = &rec[3 + nr];
		if (nr >= 2 && chain[0] == PERF_CONTEXT_USER && chain[1] == ip &&
		    regs[0] == PERF_SAMPLE_REGS_ABI_64 && regs[1] != 0 && regs[2] == ip &&
		    h.size == 8 * (3 + nr + 3))
			good++;
	}
	ring_release(&r);
	CHECK(samples >= 8 && good == samples,
	      "callchain starts PERF_CONTEXT_USER, ip; regs abi 64, sp, ip (%d of %d)",
	      good, samples);
	munmap(mem, (size_t)(8 * page));
	munmap(r.meta, r.len);
	close(fd);
}

/* A 1-page buffer, data_tail not moved: samples + lost == faults. */
static void test_lost(void)
{
	struct ring r;
	long page = sysconf(_SC_PAGESIZE);
	int n = 2 * (int)(page / 16); /* twice what fits */
	int fd = open_sampler(PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_IP, 0);
	uint64_t samples = 0, lost = 0, faults;
	unsigned char *mem;
	int cnt;

	if (!CHECK(fd >= 0 && ring_map(fd, &r, 1, PROT_READ | PROT_WRITE) == 0,
	           "open and map 1 + 1 pages"))
		return;
	cnt = perf_sw(PERF_COUNT_SW_PAGE_FAULTS, 1);
	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	close(cnt);
	cnt = perf_open(&a, 0, -1, -1, 0);
	mem = mmap(NULL, (size_t)(n + 1) * (size_t)page, PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(cnt, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < n; i++)
		mem[(long)i * page] = 1;
	/* Free the buffer, then one more fault to carry the LOST record. */
	while (r.pos < ring_head(&r)) {
		struct perf_event_header h = next_record(&r, NULL, 0);
		samples += h.type == PERF_RECORD_SAMPLE;
	}
	ring_release(&r);
	mem[(long)n * page] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(cnt, PERF_EVENT_IOC_DISABLE, 0);
	faults = perf_value(cnt);
	while (r.pos < ring_head(&r)) {
		uint64_t rec[8] = { 0 };
		struct perf_event_header h = next_record(&r, rec, sizeof(rec));

		samples += h.type == PERF_RECORD_SAMPLE;
		if (h.type == PERF_RECORD_LOST && h.size >= 24)
			lost += rec[2];
	}
	ring_release(&r);
	abi_note("%llu faults: %llu samples, %llu lost",
	         (unsigned long long)faults, (unsigned long long)samples,
	         (unsigned long long)lost);
	CHECK(lost > 0, "a full buffer drops samples and says so (PERF_RECORD_LOST)");
	CHECK(samples + lost == faults, "samples + lost == faults (%llu + %llu == %llu)",
	      (unsigned long long)samples, (unsigned long long)lost,
	      (unsigned long long)faults);
	munmap(mem, (size_t)(n + 1) * (size_t)page);
	munmap(r.meta, r.len);
	close(fd);
	close(cnt);
}

/* Read-only mapping: the kernel overwrites; data_head runs on. */
static void test_overwrite(void)
{
	struct ring r;
	long page = sysconf(_SC_PAGESIZE);
	int n = 2 * (int)(page / 16);
	int fd = open_sampler(PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_IP, 0);
	unsigned char *mem;

	if (!CHECK(fd >= 0 && ring_map(fd, &r, 1, PROT_READ) == 0,
	           "open and map 1 + 1 pages read-only (overwrite mode)"))
		return;
	mem = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < n; i++)
		mem[(long)i * page] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	CHECK(ring_head(&r) >= (uint64_t)n * 16, "data_head passes the buffer size (%llu >= %d)",
	      (unsigned long long)ring_head(&r), n * 16);
	munmap(mem, (size_t)n * (size_t)page);
	munmap(r.meta, r.len);
	close(fd);
}

static void test_poll(void)
{
	struct ring r;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open_sampler(PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_IP, 4);
	struct pollfd p;
	unsigned char *mem;
	int before, after;

	if (!CHECK(fd >= 0 && ring_map(fd, &r, DATA_PAGES, PROT_READ | PROT_WRITE) == 0,
	           "open with wakeup_events 4 and map"))
		return;
	mem = mmap(NULL, (size_t)(8 * page), PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p.fd = fd;
	p.events = POLLIN;
	before = poll(&p, 1, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 8; i++)
		mem[(long)i * page] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	p.revents = 0;
	after = poll(&p, 1, 1000);
	CHECK(before == 0, "before any sample, poll finds nothing (%d)", before);
	CHECK(after == 1 && (p.revents & POLLIN), "after 8 samples (wakeup_events 4), POLLIN");
	munmap(mem, (size_t)(8 * page));
	munmap(r.meta, r.len);
	close(fd);
}

/* task-clock every 1 ms over 60 ms of work. Linux and baremon sample
 * from a timer (each PERIOD is the period; late expiries are not made
 * up): whole periods adding up to no more than the time counted
 * (tests/perf/clocksample.c checks the timer closely). */
static void test_clock(void)
{
	struct ring r;
	int fd = open_sampler(PERF_COUNT_SW_TASK_CLOCK, 1000000,
	                      PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, 1);
	uint64_t total = 0, samples = 0, whole = 0, spent;

	if (!CHECK(fd >= 0 && ring_map(fd, &r, DATA_PAGES, PROT_READ | PROT_WRITE) == 0,
	           "open task-clock with a 1 ms period and map"))
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	work_ns(60000000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	spent = perf_value(fd);
	while (r.pos < ring_head(&r)) {
		uint64_t rec[4] = { 0 };
		struct perf_event_header h = next_record(&r, rec, sizeof(rec));

		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		total += rec[2];
		whole += rec[2] % 1000000 == 0;
	}
	ring_release(&r);
	abi_note("task-clock %llu ns: %llu samples, periods %llu ns",
	         (unsigned long long)spent, (unsigned long long)samples,
	         (unsigned long long)total);
	CHECK(samples >= 3, "several samples (%llu)", (unsigned long long)samples);
	CHECK(whole == samples, "each PERIOD is whole periods of 1 ms");
	CHECK(total <= spent + 20000000, "the periods add up to no more than the time");
	munmap(r.meta, r.len);
	close(fd);
}

/* Linux samples a software event that asks for PERF_SAMPLE_PERIOD with
 * a fixed period at every occurrence (PERIOD 1 each), whatever the
 * period; without PERIOD in sample_type the period holds. */
static int fault_samples(uint64_t type, int *ones)
{
	struct ring r;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open_sampler(PERF_COUNT_SW_PAGE_FAULTS, 1000, type, 1);
	int samples = 0;
	unsigned char *mem;

	*ones = 0;
	if (fd < 0 || ring_map(fd, &r, DATA_PAGES, PROT_READ | PROT_WRITE) != 0)
		return -1;
	mem = mmap(NULL, (size_t)(40 * page), PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 40; i++)
		mem[(long)i * page] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	while (r.pos < ring_head(&r)) {
		uint64_t rec[2] = { 0 };

		if (next_record(&r, rec, sizeof(rec)).type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		*ones += rec[1] == 1;
	}
	munmap(mem, (size_t)(40 * page));
	munmap(r.meta, r.len);
	close(fd);
	return samples;
}

static void test_period_each(void)
{
	int ones, with = fault_samples(PERF_SAMPLE_PERIOD, &ones), unused;
	int without = fault_samples(PERF_SAMPLE_IP, &unused);

	CHECK(with >= 40 && ones == with, "period 1000 with PERIOD: a sample per fault, PERIOD 1 "
	      "(%d samples, %d with PERIOD 1)", with, ones);
	CHECK(without == 0, "period 1000 without PERIOD: no sample in 40 faults (%d)", without);
}

/* PERF_EVENT_IOC_PERIOD on a running sampler takes effect at once: a
 * task-clock sampler opened with a 100 ms period and set to 1 ms after
 * 2 ms of work samples about every ms of the next 40 (Linux restarts
 * the timer with the new period; its PERIOD field keeps the old value,
 * baremon's gives the new one, so it is not compared). */
static void test_set_period(void)
{
	struct ring r;
	int fd = open_sampler(PERF_COUNT_SW_TASK_CLOCK, 100000000, PERF_SAMPLE_IP, 1);
	uint64_t period = 1000000;
	int samples = 0, rc;

	if (!CHECK(fd >= 0 && ring_map(fd, &r, DATA_PAGES, PROT_READ | PROT_WRITE) == 0,
	           "open task-clock with a 100 ms period and map"))
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	work_ns(2000000);
	rc = ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
	work_ns(40000000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	while (r.pos < ring_head(&r)) {
		uint64_t rec[2];

		if (next_record(&r, rec, sizeof(rec)).type == PERF_RECORD_SAMPLE)
			samples++;
	}
	ring_release(&r);
	CHECK(rc == 0, "PERIOD 1 ms on the running sampler");
	/* At the old period there would be none; a loaded host runs the
	 * 40 ms of wall time on less CPU time, so the floor is low. */
	CHECK(samples >= 5 && samples <= 45, "40 ms of work at the new period: 5-45 samples (%d)",
	      samples);
	munmap(r.meta, r.len);
	close(fd);
}

int main(void)
{
	test_fields();
	test_chain_regs();
	test_lost();
	test_overwrite();
	test_poll();
	test_clock();
	test_set_period();
	test_period_each();
	return abi_done("sample");
}
