/*
 * backward.c: the ring buffer's directions and flow control, with COMM
 * records as the payload (PR_SET_NAME writes exactly one, 40 bytes with
 * a sample_id_all TID+TIME trailer and a name of at most 7 bytes):
 *
 *  - forward, writable: records straddle the end of the buffer and come
 *    out whole, in order, when the reader releases them (data_tail);
 *  - PERF_EVENT_IOC_PAUSE_OUTPUT: records written while paused are
 *    dropped; after resuming, one LOST record {id, lost = the number
 *    dropped} comes just before the next record; EINVAL unmapped; the
 *    drops also count in read()'s PERF_FORMAT_LOST;
 *  - write_backward, read-only (overwrite): data_head goes down from 0
 *    by each record's size; reading forward from data_head gives the
 *    newest record first; once full, the newest whole records remain;
 *  - write_backward, writable: data_tail holds the writer back (Linux
 *    keeps one byte free), the rest are counted and reported as LOST
 *    once the reader releases the space (data_tail = data_head);
 *  - SET_OUTPUT between events of different direction is EINVAL.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "perf.h"

#define REC 40 /* header 8, pid/tid 8, name 8, trailer TID 8 + TIME 8 */

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;
};

static long page;

static int open_ring(struct ring *r, int backward, int prot, int pages)
{
	struct perf_event_attr a;
	void *p;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.comm = a.sample_id_all = 1;
	a.write_backward = (unsigned)backward;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.read_format = PERF_FORMAT_LOST;
	a.exclude_kernel = a.exclude_hv = 1;
	r->fd = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -1;
	r->size = (uint64_t)pages * (uint64_t)page;
	p = mmap(NULL, (size_t)(page + (long)r->size), prot, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED)
		return -1;
	r->meta = p;
	r->data = (unsigned char *)p + page;
	return 0;
}

static void close_ring(struct ring *r)
{
	munmap(r->meta, (size_t)(page + (long)r->size));
	close(r->fd);
}

static void name(int i)
{
	char n[16];

	snprintf(n, sizeof(n), "bw%d", i);
	prctl(PR_SET_NAME, n, 0, 0, 0);
}

/* The record at data position pos (any wrap) into buf. */
static struct perf_event_header *at(struct ring *r, uint64_t pos, unsigned char *buf)
{
	for (size_t i = 0; i < sizeof(struct perf_event_header); i++)
		buf[i] = r->data[(pos + i) & (r->size - 1)];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	for (size_t i = sizeof(*h); i < h->size && i < 512; i++)
		buf[i] = r->data[(pos + i) & (r->size - 1)];
	return h;
}

/* Is buf the COMM record of name bw<i> from us? */
static int is_comm(const unsigned char *buf, int i)
{
	const struct perf_event_header *h = (const void *)buf;
	uint32_t ids[2];
	char want[16];

	memcpy(ids, buf + 8, 8);
	snprintf(want, sizeof(want), "bw%d", i);
	return h->type == PERF_RECORD_COMM && h->size == REC && ids[0] == (uint32_t)getpid() &&
	       strcmp((const char *)buf + 16, want) == 0;
}

/* read()'s PERF_FORMAT_LOST: the records r's event had dropped. */
static uint64_t lost_count(struct ring *r)
{
	uint64_t v[2] = { 0, PERF_BAD_VALUE };

	if (read(r->fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return PERF_BAD_VALUE;
	return v[1];
}

static uint64_t head(struct ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

static void forward_wrap(void)
{
	struct ring r;
	unsigned char buf[512];
	uint64_t pos = 0;
	int ok = 1, straddled = 0;

	if (!CHECK(open_ring(&r, 0, PROT_READ | PROT_WRITE, 1) == 0, "forward: one data page, writable"))
		return;
	for (int i = 0; i < 300 && ok; i++) {
		name(i);
		if (head(&r) != pos + REC) {
			ok = 0;
			break;
		}
		if ((pos & (r.size - 1)) + REC > r.size)
			straddled++;
		ok = is_comm((unsigned char *)at(&r, pos, buf), i);
		pos += REC;
		__atomic_store_n(&r.meta->data_tail, pos, __ATOMIC_RELEASE);
	}
	CHECK(ok, "forward: 300 COMM records of 40 bytes, read as they come, whole and in order "
	      "(data_head %llu)", (unsigned long long)head(&r));
	CHECK(straddled >= 2, "forward: %d of them straddle the end of the buffer", straddled);
	close_ring(&r);
}

static void pause_output(void)
{
	struct ring r;
	unsigned char buf[512];
	uint64_t id = 0, lost[2];

	if (!CHECK(open_ring(&r, 0, PROT_READ | PROT_WRITE, 4) == 0, "pause: forward, writable"))
		return;
	ioctl(r.fd, PERF_EVENT_IOC_ID, &id);
	name(0);
	CHECK(head(&r) == REC, "pause: a COMM before pausing");
	CHECK(ioctl(r.fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1) == 0, "PAUSE_OUTPUT 1");
	for (int i = 1; i <= 5; i++)
		name(i);
	CHECK(head(&r) == REC, "paused: 5 renames write nothing (data_head %llu)",
	      (unsigned long long)head(&r));
	CHECK(ioctl(r.fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0) == 0, "PAUSE_OUTPUT 0");
	CHECK(head(&r) == REC, "resuming writes nothing by itself");
	CHECK(lost_count(&r) == 5, "read_format LOST: 5 (%llu)", (unsigned long long)lost_count(&r));
	name(6);
	struct perf_event_header *h = at(&r, REC, buf);
	memcpy(lost, buf + 8, sizeof(lost));
	CHECK(h->type == PERF_RECORD_LOST && h->size == 8 + 16 + 16 && lost[0] == id && lost[1] == 5,
	      "then LOST {id, lost 5} + trailer (type %u size %u id %llu lost %llu)", h->type,
	      h->size, (unsigned long long)lost[0], (unsigned long long)lost[1]);
	CHECK(is_comm((unsigned char *)at(&r, REC + 40, buf), 6), "then the COMM written after resuming");
	CHECK(head(&r) == REC + 40 + REC, "and nothing else (data_head %llu)", (unsigned long long)head(&r));
	close_ring(&r);

	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	int fd = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), EINVAL, "PAUSE_OUTPUT without a buffer");
	void *p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "the control page alone mapped");
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), EINVAL, "PAUSE_OUTPUT with no data pages");
	if (p != MAP_FAILED)
		munmap(p, (size_t)page);
	close(fd);
}

static void backward_overwrite(void)
{
	struct ring r;
	unsigned char buf[512];
	int ok = 1, n = 0;

	if (!CHECK(open_ring(&r, 1, PROT_READ, 1) == 0, "backward: one data page, read-only"))
		return;
	name(0);
	CHECK(head(&r) == (uint64_t)-REC, "backward: one COMM puts data_head at -40 (%llx)",
	      (unsigned long long)head(&r));
	CHECK(is_comm((unsigned char *)at(&r, head(&r), buf), 0), "the record starts at data_head");
	name(1);
	CHECK(head(&r) == (uint64_t)-2 * REC, "a second at -80");
	CHECK(is_comm((unsigned char *)at(&r, head(&r), buf), 1) &&
	      is_comm((unsigned char *)at(&r, head(&r) + REC, buf), 0),
	      "forward from data_head: the newest first, then the older one");
	for (int i = 2; i < 200; i++)
		name(i);
	CHECK(head(&r) == (uint64_t)-200 * REC, "200 records: data_head -8000 (%lld)",
	      (long long)head(&r));
	/* Whole records from data_head within one buffer's length. */
	for (uint64_t off = 0; off + REC <= r.size; off += REC, n++)
		if (!is_comm((unsigned char *)at(&r, head(&r) + off, buf), 199 - n))
			ok = 0;
	CHECK(ok && n == (int)(r.size / REC), "overwritten: the newest %d records remain, "
	      "newest first", n);
	close_ring(&r);
}

static void backward_writable(void)
{
	struct ring r;
	unsigned char buf[512];
	uint64_t lost[2], id = 0;
	int ok = 1;
	int fit = (int)((r.size = (uint64_t)page) - 1) / REC;

	if (!CHECK(open_ring(&r, 1, PROT_READ | PROT_WRITE, 1) == 0, "backward: one data page, writable"))
		return;
	ioctl(r.fd, PERF_EVENT_IOC_ID, &id);
	for (int i = 0; i < 200; i++)
		name(i);
	CHECK(head(&r) == (uint64_t)-(uint64_t)fit * REC, "data_tail 0 holds it at %d records "
	      "(one byte stays free): data_head %lld", fit, (long long)head(&r));
	for (int i = 0; i < fit; i++)
		if (!is_comm((unsigned char *)at(&r, head(&r) + (uint64_t)i * REC, buf), fit - 1 - i))
			ok = 0;
	CHECK(ok, "the first %d, newest first", fit);
	CHECK(lost_count(&r) == (uint64_t)(200 - fit), "read_format LOST: %d (%llu)", 200 - fit,
	      (unsigned long long)lost_count(&r));
	uint64_t old = head(&r);
	__atomic_store_n(&r.meta->data_tail, old, __ATOMIC_RELEASE);
	name(500);
	CHECK(head(&r) == old - 40 - REC, "released: LOST and a COMM go in below");
	struct perf_event_header *h = at(&r, head(&r), buf);
	memcpy(lost, buf + 8, sizeof(lost));
	CHECK(h->type == PERF_RECORD_LOST && lost[0] == id && lost[1] == (uint64_t)(200 - fit),
	      "LOST first: %llu lost (%d expected)", (unsigned long long)lost[1], 200 - fit);
	CHECK(is_comm((unsigned char *)at(&r, head(&r) + 40, buf), 500), "then the new COMM");
	CHECK(ioctl(r.fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1) == 0 &&
	      ioctl(r.fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0) == 0, "PAUSE_OUTPUT on a backward buffer");
	close_ring(&r);
}

static void set_output_direction(void)
{
	struct ring fwd, bwd;
	struct perf_event_attr a;
	int f2, b2;

	if (!CHECK(open_ring(&fwd, 0, PROT_READ | PROT_WRITE, 1) == 0 &&
	           open_ring(&bwd, 1, PROT_READ, 1) == 0, "a forward and a backward buffer"))
		return;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	f2 = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	a.write_backward = 1;
	b2 = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK_ERR(ioctl(f2, PERF_EVENT_IOC_SET_OUTPUT, bwd.fd), EINVAL, "SET_OUTPUT forward -> backward");
	CHECK_ERR(ioctl(b2, PERF_EVENT_IOC_SET_OUTPUT, fwd.fd), EINVAL, "SET_OUTPUT backward -> forward");
	CHECK(ioctl(f2, PERF_EVENT_IOC_SET_OUTPUT, fwd.fd) == 0, "forward -> forward");
	CHECK(ioctl(b2, PERF_EVENT_IOC_SET_OUTPUT, bwd.fd) == 0, "backward -> backward");
	CHECK_ERR(perf_open(&a, 0, -1, fwd.fd, PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP),
	          EINVAL, "open backward with FD_OUTPUT to a forward event");
	close(f2);
	close(b2);
	close_ring(&fwd);
	close_ring(&bwd);
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	forward_wrap();
	pause_output();
	backward_overwrite();
	backward_writable();
	set_output_direction();
	return abi_done("backward");
}
