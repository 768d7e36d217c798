/*
 * records3.c: NAMESPACES, MMAP2 with build ids and data mappings, and
 * KSYMBOL.
 *
 *  - NAMESPACES (attr.namespaces): a fork gives FORK then, as the next
 *    record, NAMESPACES {child pid/tid, 7, {dev, ino} per kind}; each
 *    {dev, ino} is what stat() of /proc/self/ns/<kind> says, or, where
 *    there is no such file (baremon), Linux's initial namespaces' (nsfs
 *    device 4, inodes 0xEFFFFFF8..0xEFFFFFFF);
 *  - MMAP2 (attr.mmap2, inherited, so the child's exec is seen): with
 *    attr.build_id the executable's MMAP2 has MISC_MMAP_BUILD_ID, size
 *    20 and the bytes of the binary's NT_GNU_BUILD_ID note when it has
 *    one (the glibc build), and the maj/min/ino layout without the flag
 *    when it has none (libc-lite, musl) or without attr.build_id;
 *  - attr.mmap_data: an anonymous private RW mapping gives MMAP2 with
 *    MISC_MMAP_DATA, its address and length, pgoff = address, no device or
 *    inode, prot RW, flags MAP_PRIVATE, "//anon";
 *  - KSYMBOL (attr.ksymbol): neither writes one when a buffer is mapped
 *    (Linux only for code loaded at run time, BPF).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "perf.h"

#define PAGES 16

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size, pos;
};

static long page;

static int open_ring(struct ring *r, struct perf_event_attr *a)
{
	void *p;

	r->fd = perf_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -1;
	r->size = (uint64_t)PAGES * (uint64_t)page;
	p = mmap(NULL, (size_t)(page + (long)r->size), PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED)
		return -1;
	r->meta = p;
	r->data = (unsigned char *)p + page;
	r->pos = 0;
	return 0;
}

static void close_ring(struct ring *r)
{
	munmap(r->meta, (size_t)(page + (long)r->size));
	close(r->fd);
}

static int next(struct ring *r, unsigned char *buf)
{
	struct perf_event_header *h = (void *)buf;

	if (r->pos >= __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE))
		return 0;
	for (size_t i = 0; i < sizeof(*h); i++)
		buf[i] = r->data[(r->pos + i) & (r->size - 1)];
	for (size_t i = sizeof(*h); i < h->size && i < 4096; i++)
		buf[i] = r->data[(r->pos + i) & (r->size - 1)];
	r->pos += h->size;
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
	return 1;
}

static void base_attr(struct perf_event_attr *a)
{
	perf_attr(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a->sample_id_all = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->exclude_kernel = a->exclude_hv = 1;
}

/* ---- NAMESPACES ---- */

static const char *const ns_names[NR_NAMESPACES] = {
	[NET_NS_INDEX] = "net", [UTS_NS_INDEX] = "uts", [IPC_NS_INDEX] = "ipc",
	[PID_NS_INDEX] = "pid", [USER_NS_INDEX] = "user", [MNT_NS_INDEX] = "mnt",
	[CGROUP_NS_INDEX] = "cgroup",
};

/* Linux 6.18's initial namespaces (include/linux/proc_ns.h). */
static const uint64_t ns_init[NR_NAMESPACES] = {
	[NET_NS_INDEX] = 0xEFFFFFF9u, [UTS_NS_INDEX] = 0xEFFFFFFEu, [IPC_NS_INDEX] = 0xEFFFFFFFu,
	[PID_NS_INDEX] = 0xEFFFFFFCu, [USER_NS_INDEX] = 0xEFFFFFFDu, [MNT_NS_INDEX] = 0xEFFFFFF8u,
	[CGROUP_NS_INDEX] = 0xEFFFFFFBu,
};

static void expected_ns(int i, uint64_t *dev, uint64_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_names[i]);
	if (stat(path, &st) == 0) {
		/* new_encode_dev, as perf_fill_ns_link_info */
		unsigned maj = (unsigned)(st.st_dev >> 8) & 0xfff, min = (unsigned)(st.st_dev & 0xff) |
			       (unsigned)((st.st_dev >> 12) & 0xfff00);
		*dev = (min & 0xff) | (maj << 8) | ((min & ~0xffu) << 12);
		*ino = st.st_ino;
	} else {
		*dev = 4;
		*ino = ns_init[i];
	}
}

static void namespaces(void)
{
	struct perf_event_attr a;
	struct ring r;
	unsigned char buf[4096];
	int fork_at = -1, ns_at = -1, n = 0, values_ok = 1;
	uint32_t ids[2] = { 0, 0 };
	uint64_t nr = 0;
	struct perf_event_header nh = { 0, 0, 0 };

	base_attr(&a);
	a.namespaces = a.task = 1;
	if (!CHECK(open_ring(&r, &a) == 0, "a dummy event with namespaces and task, mapped"))
		return;
	pid_t kid = fork();
	if (kid == 0)
		_exit(0);
	waitpid(kid, NULL, 0);
	while (next(&r, buf)) {
		struct perf_event_header *h = (void *)buf;
		uint32_t pid;

		memcpy(&pid, buf + 8, 4);
		if (h->type == PERF_RECORD_FORK && pid == (uint32_t)kid)
			fork_at = n;
		if (h->type == PERF_RECORD_NAMESPACES) {
			ns_at = n;
			nh = *h;
			memcpy(ids, buf + 8, 8);
			memcpy(&nr, buf + 16, 8);
			for (int i = 0; i < NR_NAMESPACES && nr == NR_NAMESPACES; i++) {
				uint64_t link[2], dev, ino;

				memcpy(link, buf + 24 + 16 * i, 16);
				expected_ns(i, &dev, &ino);
				if (link[0] != dev || link[1] != ino) {
					values_ok = 0;
					abi_note("%s: dev %llu ino %llu, expected %llu %llu", ns_names[i],
					         (unsigned long long)link[0], (unsigned long long)link[1],
					         (unsigned long long)dev, (unsigned long long)ino);
				}
			}
		}
		n++;
	}
	CHECK(fork_at >= 0 && ns_at == fork_at + 1, "FORK, then NAMESPACES as the next record");
	CHECK(nh.size == 8 + 8 + 8 + 16 * NR_NAMESPACES + 16 && nh.misc == 0,
	      "NAMESPACES: header, pid/tid, nr, 7 links, trailer (%u bytes)", nh.size);
	CHECK(ids[0] == (uint32_t)kid && ids[1] == (uint32_t)kid, "NAMESPACES: the child's pid/tid");
	CHECK(nr == NR_NAMESPACES, "NAMESPACES: nr_namespaces %llu", (unsigned long long)nr);
	CHECK(values_ok, "NAMESPACES: each {dev, ino} as /proc/self/ns (or Linux's initial ones)");
	close_ring(&r);
}

/* ---- build ids ---- */

/* The NT_GNU_BUILD_ID of /proc/self/exe: its size (0: none). */
static unsigned exe_build_id(unsigned char id[20])
{
	static unsigned char img[1 << 16];
	int fd = open("/proc/self/exe", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, img, sizeof(img)) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 64)
		return 0;
	uint64_t phoff;
	uint16_t phentsize, phnum;
	memcpy(&phoff, img + 32, 8);
	memcpy(&phentsize, img + 54, 2);
	memcpy(&phnum, img + 56, 2);
	for (unsigned i = 0; i < phnum; i++) {
		const unsigned char *ph = img + phoff + (uint64_t)i * phentsize;
		uint32_t type;
		uint64_t off, size;

		if (phoff + (uint64_t)(i + 1) * phentsize > (uint64_t)n)
			break;
		memcpy(&type, ph, 4);
		memcpy(&off, ph + 8, 8);
		memcpy(&size, ph + 32, 8);
		if (type != 4 /* PT_NOTE */ || off + size > (uint64_t)n)
			continue;
		for (uint64_t o = off; o + 12 <= off + size;) {
			uint32_t namesz, descsz, ntype;

			memcpy(&namesz, img + o, 4);
			memcpy(&descsz, img + o + 4, 4);
			memcpy(&ntype, img + o + 8, 4);
			uint64_t desc = o + 12 + ((namesz + 3) & ~3u);
			if (ntype == 3 && namesz == 4 && memcmp(img + o + 12, "GNU", 4) == 0 &&
			    descsz > 0 && descsz <= 20) {
				memset(id, 0, 20);
				memcpy(id, img + desc, descsz);
				return descsz;
			}
			o = desc + ((descsz + 3) & ~3u);
		}
	}
	return 0;
}

/* An inherited mmap2 event whose records go to a mapped sink. */
static int mmap2_pair(struct ring *sink, int build_id, int *ev)
{
	struct perf_event_attr a;

	base_attr(&a);
	if (open_ring(sink, &a) != 0)
		return -1;
	/* mmap too, as perf sets it: Linux writes no MMAP2 at all while no
	 * event in the system has attr.mmap or mmap_data. */
	a.mmap = a.mmap2 = a.inherit = 1;
	a.build_id = (unsigned)build_id;
	*ev = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (*ev < 0)
		return -1;
	return ioctl(*ev, PERF_EVENT_IOC_SET_OUTPUT, sink->fd);
}

/* The first MMAP2 of a file (a path) in r: its record into buf, or 0. */
static int exe_mmap2(struct ring *r, unsigned char *buf)
{
	while (next(r, buf)) {
		struct perf_event_header *h = (void *)buf;
		if (h->type == PERF_RECORD_MMAP2 && buf[8 + 64] == '/')
			return 1;
	}
	return 0;
}

static void build_ids(const char *self)
{
	struct ring with, without;
	int ev1, ev2, st;
	unsigned char buf[4096], id[20];
	unsigned size = exe_build_id(id);

	if (!CHECK(mmap2_pair(&with, 1, &ev1) == 0 && mmap2_pair(&without, 0, &ev2) == 0,
	           "inherited mmap2 events with and without build_id, sent to mapped sinks"))
		return;
	pid_t kid = fork();
	if (kid == 0) {
		char *args[] = { (char *)self, "--child", NULL };
		execv("/proc/self/exe", args);
		_exit(99);
	}
	waitpid(kid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "the child execs this program and exits 7");
	abi_note("this binary's build id: %u bytes", size);
	if (CHECK(exe_mmap2(&with, buf), "with build_id: an MMAP2 of the executable")) {
		struct perf_event_header *h = (void *)buf;
		if (size) {
			CHECK(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID, "it has MISC_MMAP_BUILD_ID");
			CHECK(buf[40] == size && buf[41] == 0 && buf[42] == 0 && buf[43] == 0,
			      "build_id_size %u, 3 reserved zero bytes", buf[40]);
			CHECK(memcmp(buf + 44, id, 20) == 0, "the build id is the binary's note");
		} else {
			CHECK(!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID),
			      "no note in the binary: no MISC_MMAP_BUILD_ID (maj/min/ino layout)");
		}
		uint32_t prot;
		memcpy(&prot, buf + 64, 4);
		CHECK(prot & PROT_EXEC, "prot has PROT_EXEC");
	}
	if (CHECK(exe_mmap2(&without, buf), "without build_id: an MMAP2 of the executable")) {
		struct perf_event_header *h = (void *)buf;
		CHECK(!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID), "no MISC_MMAP_BUILD_ID");
	}
	close(ev1);
	close(ev2);
	close_ring(&with);
	close_ring(&without);
}

static void mmap_data(void)
{
	struct perf_event_attr a;
	struct ring r;
	unsigned char buf[4096];
	int found = 0;

	base_attr(&a);
	a.mmap2 = a.mmap_data = 1;
	if (!CHECK(open_ring(&r, &a) == 0, "a dummy event with mmap2 and mmap_data, mapped"))
		return;
	/* Far from other mappings: Linux would report a merged area. */
	void *hint = (void *)0x3e0000000000ULL;
	char *m = mmap(hint, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	while (m != MAP_FAILED && next(&r, buf)) {
		struct perf_event_header *h = (void *)buf;
		uint64_t w[3], ino, gen;
		uint32_t pid_tid[2], majmin[2], prot_flags[2];

		if (h->type != PERF_RECORD_MMAP2)
			continue;
		memcpy(w, buf + 16, 24);
		if (w[0] != (uint64_t)m)
			continue;
		found = 1;
		memcpy(pid_tid, buf + 8, 8);
		memcpy(majmin, buf + 40, 8);
		memcpy(&ino, buf + 48, 8);
		memcpy(&gen, buf + 56, 8);
		memcpy(prot_flags, buf + 64, 8);
		CHECK((h->misc & PERF_RECORD_MISC_MMAP_DATA) && (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		      PERF_RECORD_MISC_USER, "MMAP2: misc USER | MMAP_DATA (%#x)", h->misc);
		CHECK(pid_tid[0] == (uint32_t)getpid(), "MMAP2: our pid");
		CHECK(w[1] == (uint64_t)page && w[2] == (uint64_t)m, "MMAP2: one page, pgoff its "
		      "address (Linux's vm_pgoff of private anonymous memory: %#llx)",
		      (unsigned long long)w[2]);
		CHECK(majmin[0] == 0 && majmin[1] == 0 && ino == 0 && gen == 0, "MMAP2: no device, inode");
		CHECK(prot_flags[0] == (PROT_READ | PROT_WRITE) && prot_flags[1] == MAP_PRIVATE,
		      "MMAP2: prot RW, flags MAP_PRIVATE (%u %#x)", prot_flags[0], prot_flags[1]);
		CHECK(strcmp((char *)buf + 72, "//anon") == 0, "MMAP2: //anon");
	}
	CHECK(found, "an MMAP2 for a data mapping at %p", (void *)m);
	if (m != MAP_FAILED)
		munmap(m, (size_t)page);
	close_ring(&r);
}

static void ksymbol(void)
{
	struct perf_event_attr a;
	struct ring r;
	unsigned char buf[4096];
	base_attr(&a);
	a.ksymbol = 1;
	if (!CHECK(open_ring(&r, &a) == 0, "a dummy event with ksymbol, mapped"))
		return;
	/* Linux writes KSYMBOL for code loaded at run time (BPF), never
	 * for the kernel's own text; perf test 51 counts every record. */
	CHECK(r.meta->data_head == 0 && !next(&r, buf),
	      "no record when the buffer is mapped (Linux writes KSYMBOL only for BPF code)");
	close_ring(&r);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--child") == 0)
		_exit(7);
	page = sysconf(_SC_PAGESIZE);
	namespaces();
	build_ids(argv[0]);
	mmap_data();
	ksymbol();
	return abi_done("records3");
}
