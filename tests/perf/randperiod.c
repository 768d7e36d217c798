/*
 * randperiod.c: baremon's period randomization ioctl,
 * PERF_EVENT_IOC_BAREMON_JITTER = _IOW('$', 0x80, __u64) (docs/perf.md).
 * Linux has no such request: ENOTTY there, which is checked on the host.
 * On baremon: its errnos (EFAULT, EINVAL for a counting or freq event
 * and for a jitter not below the period), then a page-fault event with
 * period P sampling READ (the periods are the gaps between its
 * values): without jitter every period is P; with
 * jitter J each is within [P - J, P + J], they vary, their mean is close
 * to P, and they add up to the faults counted (periods are used, not
 * just reported); jitter 0 turns it off again.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "perf.h"

#define PERF_EVENT_IOC_BAREMON_JITTER _IOW('$', 0x80, __u64)

#define P 64
#define J 32
#define DATA_PAGES 16

struct ring {
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t size;
	size_t len;
};

static int open_faults(uint64_t period, int freq, uint64_t type, struct ring *r)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_period = period;
	a.freq = freq ? 1 : 0;
	a.sample_type = type;
	a.exclude_kernel = 1;
	a.disabled = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0 || !r)
		return fd;
	r->len = (size_t)(1 + DATA_PAGES) * (size_t)page;
	r->meta = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->meta == MAP_FAILED) {
		close(fd);
		return -1;
	}
	r->data = (char *)r->meta + page;
	r->size = (uint64_t)DATA_PAGES * (uint64_t)page;
	return fd;
}

struct periods {
	int n, first, distinct, lost;
	uint64_t min, max, sum, last;
	uint64_t seen[256];   /* the distinct periods */
};

/* The periods between SAMPLE records, from their READ values, consumed
 * from the ring. */
static void drain(struct ring *r, struct periods *out)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t period;

		memcpy(&h, r->data + (tail % r->size), sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t off = (tail + sizeof(h)) % r->size, value;
			memcpy(&value, r->data + off, sizeof(value));
			period = value - out->last;
			out->last = value;
			if (out->first++ == 0)
				goto next; /* what was left of an earlier run's period */
			out->n++;
			out->sum += period;
			if (!out->min || period < out->min)
				out->min = period;
			if (period > out->max)
				out->max = period;
			int k;
			for (k = 0; k < out->distinct && out->seen[k] != period; k++)
				;
			if (k == out->distinct && k < 256)
				out->seen[out->distinct++] = period;
		} else if (h.type == PERF_RECORD_LOST) {
			out->lost++;
		}
next:
		tail += h.size ? h.size : 8;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* Fault `pages` pages in batches the ring can hold; the periods seen. */
static uint64_t run(int fd, struct ring *r, int pages, struct periods *out)
{
	memset(out, 0, sizeof(*out));
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int done = 0; done < pages; done += 1024) {
		touch_pages(1024);
		drain(r, out);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(r, out);
	return perf_value(fd);
}

/* Linux: the common part, then ENOTTY. */
static void test_jitter(int on_linux)
{
	struct ring r;
	struct periods s;
	uint64_t jitter = J, count;
	/* No PERIOD in sample_type: with it Linux (and baremon) samples a
	 * software event at every occurrence (sample.c checks it). */
	int fd, other;

	fd = open_faults(P, 0, PERF_SAMPLE_READ, &r);
	CHECK(fd >= 0, "open a sampling page-fault event with a ring buffer");
	if (fd < 0)
		return;
	count = run(fd, &r, 4096, &s);
	CHECK(s.n > 16 && s.min == P && s.max == P,
	      "without jitter every period is %d (%d samples, %llu..%llu)",
	      P, s.n, (unsigned long long)s.min, (unsigned long long)s.max);
	CHECK(s.last <= count && count - s.last < P, "no sample missing at the end (%llu of %llu)",
	      (unsigned long long)s.last, (unsigned long long)count);
	if (on_linux) {
		CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_BAREMON_JITTER, &jitter), ENOTTY,
		          "Linux has no JITTER request");
		munmap(r.meta, r.len);
		close(fd);
		return;
	}
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_BAREMON_JITTER, (void *)8), EFAULT, "JITTER with a bad pointer");
	uint64_t too_big = P;
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_BAREMON_JITTER, &too_big), EINVAL, "JITTER not below the period");
	other = perf_sw(PERF_COUNT_SW_PAGE_FAULTS, 1);
	CHECK_ERR(ioctl(other, PERF_EVENT_IOC_BAREMON_JITTER, &jitter), EINVAL, "JITTER on a counting event");
	close(other);
	other = open_faults(1000, 1, PERF_SAMPLE_READ, NULL);
	CHECK_ERR(ioctl(other, PERF_EVENT_IOC_BAREMON_JITTER, &jitter), EINVAL, "JITTER on a freq event");
	close(other);

	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = 1000000;
	a.disabled = 1;
	other = perf_open(&a, 0, -1, -1, 0);
	CHECK_ERR(ioctl(other, PERF_EVENT_IOC_BAREMON_JITTER, &jitter), EOPNOTSUPP,
	          "JITTER on a clock event (its timer keeps its own period)");
	close(other);

	CHECK(ioctl(fd, PERF_EVENT_IOC_BAREMON_JITTER, &jitter) == 0, "JITTER %d on period %d", J, P);
	count = run(fd, &r, 16384, &s);
	/* The mean in hundredths (libc-lite's printf has no %f). With 250
	 * samples its standard deviation is about 1.2: +-5 is 4 of them. */
	long mean = s.n ? (long)(s.sum * 100 / (uint64_t)s.n) : 0;
	abi_note("%d samples, periods %llu..%llu, %d distinct, mean %ld.%02ld, %llu faults counted",
	         s.n, (unsigned long long)s.min, (unsigned long long)s.max, s.distinct,
	         mean / 100, mean % 100, (unsigned long long)count);
	CHECK(s.lost == 0 && s.n >= 16384 / (P + J), "samples kept (%d, lost %d)", s.n, s.lost);
	CHECK(s.min >= P - J && s.max <= P + J, "every period within [%d, %d]", P - J, P + J);
	CHECK(s.distinct >= 40, "periods vary (%d distinct values of %d)", s.distinct, 2 * J + 1);
	CHECK(mean > (P - 5) * 100 && mean < (P + 5) * 100, "mean period %ld.%02ld within 5 of %d",
	      mean / 100, mean % 100, P);
	CHECK(s.last <= count && count - s.last <= P + J, "no sample missing at the end");

	jitter = 0;
	CHECK(ioctl(fd, PERF_EVENT_IOC_BAREMON_JITTER, &jitter) == 0, "JITTER 0 turns it off");
	run(fd, &r, 4096, &s);
	CHECK(s.n > 16 && s.min == P && s.max == P, "off again: every period %d (%llu..%llu)", P,
	      (unsigned long long)s.min, (unsigned long long)s.max);
	munmap(r.meta, r.len);
	close(fd);
}

int main(void)
{
	struct utsname u;

	uname(&u);
	test_jitter(!strstr(u.release, "baremon"));
	return abi_done("randperiod");
}
