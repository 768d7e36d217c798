/*
 * mmapdata.c: MMAP records of data mappings. An event with attr.mmap_data
 * alone (neither attr.mmap nor mmap2, as Linux's perf_event_mmap_match
 * allows) hears of every non-executable mapping its task makes: here its
 * own ring buffer, an anonymous read/write area and a private mapping of
 * /dev/zero, three MMAP records with PERF_RECORD_MISC_MMAP_DATA, the
 * anonymous one named "//anon" at its address and length. An executable
 * mapping is not reported to it; with attr.mmap as well it is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include "perf.h"
#include "ring.h"

struct seen { int data, exec, anon_ok; };

static void scan(struct ring *r, uint64_t anon, struct seen *s)
{
	uint64_t head = ring_head(r);
	while (r->pos < head) {
		struct perf_event_header h;
		unsigned char rec[512];
		ring_copy(r, r->pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			break;
		ring_copy(r, r->pos, rec, h.size);
		if (h.type == PERF_RECORD_MMAP) {
			uint64_t addr, len;
			memcpy(&addr, rec + sizeof(h) + 8, 8);
			memcpy(&len, rec + sizeof(h) + 16, 8);
			const char *name = (const char *)rec + sizeof(h) + 32;
			if (h.misc & PERF_RECORD_MISC_MMAP_DATA)
				s->data++;
			else
				s->exec++;
			if (addr == anon && len == 4096 && !strcmp(name, "//anon"))
				s->anon_ok = 1;
		}
		r->pos += h.size;
	}
	ring_release(r);
}

/* Open a dummy event on this task with mmap_data (and mmap if asked),
 * map its buffer, then an anonymous page, /dev/zero and an executable
 * page; what its buffer says. */
static int run(int with_mmap, struct seen *s)
{
	struct perf_event_attr a;
	struct ring r;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.mmap_data = 1;
	a.mmap = with_mmap;
	int fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0 || ring_map(fd, &r, 8, PROT_READ | PROT_WRITE) < 0)
		return -1;
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int z = open("/dev/zero", O_RDWR);
	void *zero = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, z, 0);
	void *code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(s, 0, sizeof(*s));
	scan(&r, (uint64_t)(uintptr_t)anon, s);
	munmap(anon, 4096);
	munmap(zero, 4096);
	munmap(code, 4096);
	close(z);
	ring_unmap(&r);
	close(fd);
	return anon == MAP_FAILED || zero == MAP_FAILED || code == MAP_FAILED ? -1 : 0;
}

int main(void)
{
	struct seen s;
	int r = run(0, &s);
	CHECK(r == 0, "mmap_data event, its buffer and three mappings");
	CHECK(s.data == 3, "mmap_data alone: 3 data MMAP records (buffer, anon, /dev/zero), got %d",
	      s.data);
	CHECK(s.exec == 0, "mmap_data alone: no record of the executable mapping (got %d)", s.exec);
	CHECK(s.anon_ok, "the anonymous mapping's record: its address, length, \"//anon\"");
	r = run(1, &s);
	CHECK(r == 0 && s.data == 3 && s.exec == 1,
	      "mmap_data with mmap: 3 data records and the executable one (%d, %d)", s.data, s.exec);
	return abi_done("mmapdata");
}
