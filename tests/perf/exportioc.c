/*
 * exportioc.c: baremon's exporter request,
 * PERF_EVENT_IOC_BAREMON_EXPORT = _IO('$', 0x81) (docs/export.md, "The
 * exporter"). Linux has no such request: on a perf fd it answers ENOTTY,
 * mapped or not, whatever the argument; that is checked on the host.
 * Both: a closed fd is EBADF, a pipe ENOTTY. On baremon: EINVAL for an
 * argument other than 0 and 1, for an event without a ring buffer, for a
 * ring mapped read-only and for one without data pages; ENOENT to stop
 * a ring that is not exported; then a real stream: start returns a
 * channel (0-31), a second start is EBUSY, the samples of 8 page faults
 * leave through the exporter (stop returns 0 once the line took them,
 * and data_tail, which the kernel owns meanwhile, has reached
 * data_head), and the stream is gone afterwards (ENOENT); streams whose
 * event and ring are gone without a stop end by themselves (more of
 * them than the 32 channels all start).
 * The stream's frames go to the console line when the guest has no
 * export UART: they sit before the "# ..." line printed after stop.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "perf.h"

#define PERF_EVENT_IOC_BAREMON_EXPORT _IO('$', 0x81)
#define DATA_PAGES 4

/* A disabled page-fault event sampling every fault of this process. */
static int open_faults(void)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.exclude_kernel = 1;
	a.disabled = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

static long export(int fd, unsigned long arg)
{
	return ioctl(fd, PERF_EVENT_IOC_BAREMON_EXPORT, arg);
}

/* Both systems: the fd's own errors come first. */
static void test_fds(void)
{
	int p[2];

	CHECK(pipe(p) == 0, "a pipe");
	CHECK_ERR(export(p[0], 1), ENOTTY, "EXPORT on a pipe");
	close(p[0]);
	close(p[1]);
	CHECK_ERR(export(p[0], 1), EBADF, "EXPORT on a closed fd");
}

static void test_linux(long page)
{
	int fd = open_faults();
	CHECK(fd >= 0, "open a sampling page-fault event");
	CHECK_ERR(export(fd, 1), ENOTTY, "Linux: EXPORT 1 without a ring");
	void *m = mmap(NULL, (size_t)(1 + DATA_PAGES) * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "map its ring");
	CHECK_ERR(export(fd, 1), ENOTTY, "Linux has no EXPORT request (start)");
	CHECK_ERR(export(fd, 0), ENOTTY, "Linux has no EXPORT request (stop)");
	CHECK_ERR(export(fd, 2), ENOTTY, "Linux has no EXPORT request (argument 2)");
	if (m != MAP_FAILED)
		munmap(m, (size_t)(1 + DATA_PAGES) * (size_t)page);
	close(fd);
}

/* baremon: every refusal, each on a fresh event. */
static void test_refusals(long page)
{
	int fd = open_faults();
	CHECK_ERR(export(fd, 1), EINVAL, "EXPORT of an event without a ring buffer");
	CHECK_ERR(export(fd, 0), EINVAL, "EXPORT stop of an event without a ring buffer");
	close(fd);

	fd = open_faults();
	size_t len = (size_t)(1 + DATA_PAGES) * (size_t)page;
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "map a ring read-only");
	CHECK_ERR(export(fd, 1), EINVAL, "EXPORT of a read-only ring (the kernel must own data_tail)");
	munmap(m, len);
	close(fd);

	fd = open_faults();
	m = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "map the user page alone");
	CHECK_ERR(export(fd, 1), EINVAL, "EXPORT of a ring without data pages");
	munmap(m, (size_t)page);
	close(fd);

	fd = open_faults();
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK_ERR(export(fd, 2), EINVAL, "EXPORT 2 (only 0 and 1 mean something)");
	CHECK_ERR(export(fd, 0), ENOENT, "EXPORT stop of a ring not exported");
	munmap(m, len);
	close(fd);
}

/* baremon: one stream from start to end. */
static void test_stream(long page)
{
	size_t len = (size_t)(1 + DATA_PAGES) * (size_t)page;
	int fd = open_faults();
	struct perf_event_mmap_page *meta = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(meta != MAP_FAILED, "map a writable ring"))
		return;
	long ch = export(fd, 1);
	CHECK(ch >= 0 && ch < 32, "EXPORT 1 returns a channel (%ld)", ch);
	CHECK_ERR(export(fd, 1), EBUSY, "EXPORT 1 again: already exported");

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	int touched = touch_pages(8);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	long r = export(fd, 0);
	uint64_t tail = __atomic_load_n(&meta->data_tail, __ATOMIC_ACQUIRE);
	abi_note("channel %ld: %llu bytes of samples exported", ch, (unsigned long long)head);
	CHECK(touched == 0 && head >= 8 * 24, "8 page faults sampled (%llu bytes)",
	      (unsigned long long)head);
	CHECK(r == 0, "EXPORT 0 sends the rest and ends the stream (%ld)", r);
	CHECK(tail == head, "the exporter moved data_tail to data_head (%llu of %llu)",
	      (unsigned long long)tail, (unsigned long long)head);
	CHECK_ERR(export(fd, 0), ENOENT, "EXPORT 0 again: the stream is gone");
	munmap(meta, len);
	close(fd);
}

/* baremon: more streams than channels (32), each left without a stop:
 * its fd closed and ring unmapped. The exporter ends such a stream
 * itself, so its channel comes free again (start may have to wait for
 * the export thread: ENOSPC meanwhile, retried for up to 5 s). */
#define ORPHANS 36
static void test_orphans(long page)
{
	size_t len = (size_t)(1 + 1) * (size_t)page;
	int started = 0, waited = 0;
	for (int i = 0; i < ORPHANS; i++) {
		int fd = open_faults();
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		long ch = -1;
		for (int tries = 0; m != MAP_FAILED && tries < 500; tries++) {
			ch = export(fd, 1);
			if (ch >= 0 || errno != ENOSPC)
				break;
			waited++;
			sleep_ns(10000000L);
		}
		started += ch >= 0;
		if (m != MAP_FAILED)
			munmap(m, len);
		close(fd);
	}
	abi_note("%d orphaned streams started, %d waits of 10 ms for a channel", started, waited);
	CHECK(started == ORPHANS, "a stream left without EXPORT 0 ends by itself: %d of %d started",
	      started, ORPHANS);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);

	test_fds();
	if (!abi_on_baremon()) {
		test_linux(page);
	} else {
		test_refusals(page);
		test_stream(page);
		test_orphans(page);
	}
	return abi_done("exportioc");
}
