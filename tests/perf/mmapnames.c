/*
 * mmapnames.c: how MMAP2 records and /proc/self/maps name a mapping, as
 * Linux's perf_event_mmap_event and show_map_vma do: a file mapping by
 * the file's path (symlinks resolved) with its device, inode and
 * offset, as perf needs to find the file and symbolise it; a private
 * mapping of /dev/zero as "/dev/zero" with that device file's numbers;
 * a shared one, and shared anonymous memory, as "/dev/zero (deleted)"
 * (Linux backs them with an unnamed shmem file); private anonymous
 * memory as "//anon" with no device (maps: no name). The mappings are of
 * this very program (readlink /proc/self/exe), read-only and then a
 * page of it executable at offset 4096.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "perf.h"
#include "ring.h"

#define PAGE 4096

enum { M_FILE, M_FILE_EXEC, M_ZERO_PRIV, M_ZERO_SHARED, M_SHARED_ANON, M_ANON, M_COUNT };

struct want {
	const char *what;
	void *addr;
	uint64_t pgoff;
	const char *name;    /* MMAP2's */
	int check_ident;     /* maj, min, ino must be these (else not checked) */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t flags;      /* MAP_PRIVATE or MAP_SHARED */
	int seen;
};

static uint32_t dev_major(uint64_t d) { return (uint32_t)(((d >> 8) & 0xfff) | ((d >> 32) & ~0xfffull)); }
static uint32_t dev_minor(uint64_t d) { return (uint32_t)((d & 0xff) | ((d >> 12) & ~0xffull)); }

/* MMAP2 body after the header: pid, tid, addr, len, pgoff, maj, min,
 * ino, ino_generation, prot, flags, then the name. */
struct mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, gen;
	uint32_t prot, flags;
	char name[];
};

static void check_record(const struct mmap2 *m, struct want *w)
{
	for (int i = 0; i < M_COUNT; i++) {
		if (m->addr != (uint64_t)(uintptr_t)w[i].addr)
			continue;
		w[i].seen++;
		CHECK(strcmp(m->name, w[i].name) == 0, "%s: MMAP2 names it \"%s\" (got \"%s\")",
		      w[i].what, w[i].name, m->name);
		CHECK(m->pgoff == w[i].pgoff && m->flags == w[i].flags,
		      "%s: pgoff %llu, flags %u (got %llu, %u)", w[i].what,
		      (unsigned long long)w[i].pgoff, w[i].flags,
		      (unsigned long long)m->pgoff, m->flags);
		if (w[i].check_ident)
			CHECK(m->maj == w[i].maj && m->min == w[i].min && m->ino == w[i].ino,
			      "%s: device %x:%x inode %llu (got %x:%x %llu)", w[i].what,
			      w[i].maj, w[i].min, (unsigned long long)w[i].ino, m->maj, m->min,
			      (unsigned long long)m->ino);
	}
}

static void scan(struct ring *r, struct want *w)
{
	uint64_t head = ring_head(r);
	while (r->pos < head) {
		struct perf_event_header h;
		static unsigned char rec[8192];
		ring_copy(r, r->pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			break;
		ring_copy(r, r->pos, rec, h.size);
		if (h.type == PERF_RECORD_MMAP2 && h.size > sizeof(h) + sizeof(struct mmap2))
			check_record((const struct mmap2 *)(rec + sizeof(h)), w);
		r->pos += h.size;
	}
	ring_release(r);
}

/* The /proc/self/maps line of the mapping at addr into line; 0 or -1. */
static int maps_line(void *addr, char *line, size_t max)
{
	static char text[65536];
	int fd = open("/proc/self/maps", O_RDONLY);
	long n = 0, got;
	while (fd >= 0 && n < (long)sizeof(text) - 1 &&
	       (got = read(fd, text + n, sizeof(text) - 1 - (size_t)n)) > 0)
		n += got;
	if (fd >= 0)
		close(fd);
	text[n] = 0;
	char start[32];
	snprintf(start, sizeof(start), "%08lx-", (unsigned long)(uintptr_t)addr);
	for (char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, start, strlen(start)))
			continue;
		char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= max)
			len = max - 1;
		memcpy(line, p, len);
		line[len] = 0;
		return 0;
	}
	return -1;
}

/* The line's fields after the range: perms, offset, dev, inode, name. */
static void check_maps(const struct want *w, const char *perms, int with_ident)
{
	char line[4200], want[4200];
	if (!CHECK(maps_line(w->addr, line, sizeof(line)) == 0, "%s: a maps line", w->what))
		return;
	const char *f = strchr(line, ' ');
	f = f ? f + 1 : line;
	if (with_ident)
		snprintf(want, sizeof(want), "%s %08llx %02x:%02x %llu ", perms,
			 (unsigned long long)w->pgoff, w->maj, w->min, (unsigned long long)w->ino);
	else
		snprintf(want, sizeof(want), "%s %08llx ", perms, (unsigned long long)w->pgoff);
	CHECK(strncmp(f, want, strlen(want)) == 0, "%s: maps says \"%s...\" (got \"%s\")",
	      w->what, want, f);
	const char *name = line + strlen(line);
	while (name > line && name[-1] != ' ')
		name--;
	if (strstr(line, " (deleted)"))
		name = strstr(line, "/dev/zero (deleted)") ? strstr(line, "/dev/zero (deleted)") : name;
	const char *expect = strcmp(w->name, "//anon") ? w->name : "";
	CHECK(strcmp(name, expect) == 0, "%s: maps names it \"%s\" (got \"%s\")", w->what,
	      expect, name);
}

int main(void)
{
	static char exe[4096];
	long n = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	struct stat self, zst;
	int fd_exe = open(exe, O_RDONLY);
	int fd_zero = open("/dev/zero", O_RDWR);
	if (!CHECK(n > 0 && fd_exe >= 0 && fstat(fd_exe, &self) == 0 && fd_zero >= 0 &&
		   fstat(fd_zero, &zst) == 0, "open this program (%s) and /dev/zero", exe))
		return abi_done("mmapnames");

	struct perf_event_attr a;
	struct ring r = { 0 };
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.mmap = a.mmap2 = a.mmap_data = 1;
	int fd = perf_open(&a, 0, -1, -1, 0);
	if (!CHECK(fd >= 0 && ring_map(fd, &r, 8, PROT_READ | PROT_WRITE) == 0,
		   "a dummy event with mmap2 and mmap_data, its buffer"))
		return abi_done("mmapnames");

	struct want w[M_COUNT] = {
		[M_FILE] = { "a read-only file mapping", NULL, 0, exe, 1,
			     dev_major(self.st_dev), dev_minor(self.st_dev), self.st_ino, MAP_PRIVATE },
		[M_FILE_EXEC] = { "an executable file mapping at 4096", NULL, PAGE, exe, 1,
				  dev_major(self.st_dev), dev_minor(self.st_dev), self.st_ino, MAP_PRIVATE },
		[M_ZERO_PRIV] = { "private /dev/zero", NULL, 0, "/dev/zero", 1,
				  dev_major(zst.st_dev), dev_minor(zst.st_dev), zst.st_ino, MAP_PRIVATE },
		[M_ZERO_SHARED] = { "shared /dev/zero", NULL, 0, "/dev/zero (deleted)", 0, 0, 0, 0,
				    MAP_SHARED },
		[M_SHARED_ANON] = { "shared anonymous memory", NULL, 0, "/dev/zero (deleted)", 0,
				    0, 0, 0, MAP_SHARED },
		[M_ANON] = { "private anonymous memory", NULL, 0, "//anon", 1, 0, 0, 0, MAP_PRIVATE },
	};
	w[M_FILE].addr = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd_exe, 0);
	w[M_FILE_EXEC].addr = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd_exe, PAGE);
	w[M_ZERO_PRIV].addr = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_zero, 0);
	w[M_ZERO_SHARED].addr = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd_zero, 0);
	w[M_SHARED_ANON].addr = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	w[M_ANON].addr = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w[M_ANON].pgoff = (uint64_t)(uintptr_t)w[M_ANON].addr; /* Linux's vm_pgoff */
	for (int i = 0; i < M_COUNT; i++)
		if (!CHECK(w[i].addr != MAP_FAILED, "mmap %s", w[i].what))
			return abi_done("mmapnames");

	scan(&r, w);
	for (int i = 0; i < M_COUNT; i++)
		CHECK(w[i].seen == 1, "%s: one MMAP2 record (got %d)", w[i].what, w[i].seen);

	check_maps(&w[M_FILE], "r--p", 1);
	check_maps(&w[M_FILE_EXEC], "r-xp", 1);
	check_maps(&w[M_ZERO_PRIV], "rw-p", 1);
	check_maps(&w[M_ZERO_SHARED], "rw-s", 0);
	check_maps(&w[M_SHARED_ANON], "rw-s", 0);
	struct want anon = w[M_ANON];
	anon.pgoff = 0; /* maps shows 0 for anonymous memory */
	check_maps(&anon, "rw-p", 1);
	ring_unmap(&r);
	close(fd);
	return abi_done("mmapnames");
}
