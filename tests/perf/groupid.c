/*
 * groupid.c: a group read is laid out by the reading event's read_format
 * alone, for every member. A leader with GROUP|ID|LOST whose siblings set
 * no read_format at all reads the siblings' real ids
 * (PERF_EVENT_IOC_ID's) and lost 0; a sibling with GROUP|ID reading a
 * leader without ID gets the leader's id. PERF_SAMPLE_READ samples of
 * such a leader carry the same ids. Each read goes into a buffer filled
 * with a marker first, so bytes the kernel never wrote show: the read's
 * length must be exactly the layout's, and no word of it the marker.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "perf.h"
#include "ring.h"

#define MARK 0xccccccccccccccccULL
#define NSIB 2
#define PAGES 8

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
		return PERF_BAD_VALUE;
	return id;
}

/* A software counter on this task in leader's group (-1: a leader). */
static int open_member(uint64_t config, uint64_t read_format, int leader)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.read_format = read_format;
	return perf_open(&a, 0, -1, leader, 0);
}

/* No word of buf[0..n) is the marker. */
static int unmarked(const uint64_t *buf, int n)
{
	for (int i = 0; i < n; i++)
		if (buf[i] == MARK)
			return 0;
	return 1;
}

/* Leader GROUP|ID|LOST, siblings read_format 0: every id is its own. */
static void test_leader_id(void)
{
	const uint64_t f = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	uint64_t buf[32], id[1 + NSIB];
	int fd[1 + NSIB], i;
	ssize_t got, want = 8 * (1 + 3 * (1 + NSIB));

	fd[0] = open_member(PERF_COUNT_SW_TASK_CLOCK, f, -1);
	for (i = 1; i <= NSIB; i++)
		fd[i] = open_member(PERF_COUNT_SW_PAGE_FAULTS, 0, fd[0]);
	for (i = 0; i <= NSIB; i++) {
		if (!CHECK(fd[i] >= 0, "leader ID: open member %d", i))
			return;
		id[i] = event_id(fd[i]);
	}
	memset(buf, 0xcc, sizeof(buf));
	got = read(fd[0], buf, sizeof(buf));
	CHECK(got == want, "leader ID: read gives %zd bytes (%zd)", want, got);
	CHECK(unmarked(buf, (int)(want / 8)), "leader ID: every word written");
	CHECK(buf[0] == 1 + NSIB, "leader ID: nr %d (%llu)", 1 + NSIB,
	      (unsigned long long)buf[0]);
	for (i = 0; i <= NSIB; i++) {
		const uint64_t *v = &buf[1 + 3 * i];
		CHECK(v[1] == id[i], "leader ID: member %d's id is its own "
		      "(%llu, got %llu)", i, (unsigned long long)id[i],
		      (unsigned long long)v[1]);
		CHECK(v[2] == 0, "leader ID: member %d's lost is 0 (%llu)", i,
		      (unsigned long long)v[2]);
	}
	for (i = 0; i <= NSIB; i++)
		close(fd[i]);
}

/* Leader read_format 0, a sibling GROUP|ID: its read has the leader's id. */
static void test_sibling_id(void)
{
	const uint64_t f = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	uint64_t buf[16];
	int lead = open_member(PERF_COUNT_SW_TASK_CLOCK, 0, -1);
	int sib = open_member(PERF_COUNT_SW_PAGE_FAULTS, f, lead);
	ssize_t got;

	if (!CHECK(lead >= 0 && sib >= 0, "sibling ID: open"))
		return;
	memset(buf, 0xcc, sizeof(buf));
	got = read(sib, buf, sizeof(buf));
	CHECK(got == 8 * 5, "sibling ID: read gives 40 bytes (%zd)", got);
	CHECK(unmarked(buf, 5), "sibling ID: every word written");
	CHECK(buf[2] == event_id(lead) && buf[4] == event_id(sib),
	      "sibling ID: ids leader %llu sibling %llu",
	      (unsigned long long)buf[2], (unsigned long long)buf[4]);
	close(sib);
	close(lead);
}

/* The first PERF_SAMPLE_READ sample's read values into out (n words). */
static int first_sample(struct ring *r, uint64_t *out, int n)
{
	uint64_t head = ring_head(r);
	struct perf_event_header h;

	while (r->pos + sizeof(h) <= head) {
		ring_copy(r, r->pos, &h, sizeof(h));
		if (h.size < sizeof(h))
			return 0;
		if (h.type == PERF_RECORD_SAMPLE &&
		    h.size == sizeof(h) + 8 * (size_t)n) {
			ring_copy(r, r->pos + sizeof(h), out, 8 * (size_t)n);
			return 1;
		}
		r->pos += h.size;
	}
	return 0;
}

/* A sampling leader GROUP|ID, siblings read_format 0: sample ids. The
 * leader samples every page fault: a fault is one exact occurrence on
 * both kernels, however loaded the machine. */
static void test_sample_read(void)
{
	struct perf_event_attr a;
	struct ring r = { 0 };
	uint64_t v[1 + 2 * (1 + NSIB)];
	int fd[1 + NSIB], i;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_READ;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	a.disabled = 1;
	fd[0] = perf_open(&a, 0, -1, -1, 0);
	for (i = 1; i <= NSIB; i++)
		fd[i] = open_member(PERF_COUNT_SW_PAGE_FAULTS, 0, fd[0]);
	for (i = 0; i <= NSIB; i++)
		if (!CHECK(fd[i] >= 0, "sample READ: open member %d", i))
			return;
	if (!CHECK(ring_map(fd[0], &r, PAGES, PROT_READ | PROT_WRITE) == 0,
	           "sample READ: map the ring"))
		return;
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	touch_pages(4);
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	memset(v, 0xcc, sizeof(v));
	if (CHECK(first_sample(&r, v, (int)(sizeof(v) / 8)),
	          "sample READ: a sample of the layout's size")) {
		CHECK(unmarked(v, (int)(sizeof(v) / 8)) && v[0] == 1 + NSIB,
		      "sample READ: nr %d (%llu)", 1 + NSIB, (unsigned long long)v[0]);
		for (i = 0; i <= NSIB; i++)
			CHECK(v[2 + 2 * i] == event_id(fd[i]),
			      "sample READ: member %d's id %llu (got %llu)", i,
			      (unsigned long long)event_id(fd[i]),
			      (unsigned long long)v[2 + 2 * i]);
	}
	ring_unmap(&r);
	for (i = 0; i <= NSIB; i++)
		close(fd[i]);
}

int main(void)
{
	test_leader_id();
	test_sibling_id();
	test_sample_read();
	return abi_done("groupid");
}
