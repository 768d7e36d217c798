/*
 * Records describing a process as /proc shows it, made the way perf
 * record makes them for processes that already run (perf's "synthesized"
 * events): a PERF_RECORD_COMM per thread from comm, a PERF_RECORD_MMAP2
 * per executable mapping from maps ("start-end perms offset maj:min
 * inode path"). With sample_id_all each ends in the id trailer, here all
 * zero: time 0 (perf applies such records as it reads them, before any
 * sample of a later round) and id 0 (perf's mark of a synthesized
 * record). And, as perf does, a PERF_RECORD_MMAP of the kernel's text
 * ("[kernel.kallsyms]_text", pid -1) from /proc/kallsyms's _text and
 * _etext, so that perf report --vmlinux FILE can name kernel samples.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record.h"

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* The whole file into a malloc'd string; NULL if it cannot be read. */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		char *more = len + 1 == cap ? realloc(buf, cap *= 2) : buf;
		if (!more)
			break;
		buf = more;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

/* Room for n more bytes, zeroed. */
static unsigned char *grow(struct synth *sy, size_t n)
{
	if (sy->len + n > sy->cap) {
		size_t cap = (sy->cap ? sy->cap * 2 : 4096) + n;
		unsigned char *b = realloc(sy->buf, cap);
		if (!b)
			return NULL;
		sy->buf = b;
		sy->cap = cap;
	}
	unsigned char *p = sy->buf + sy->len;
	memset(p, 0, n);
	sy->len += n;
	return p;
}

/* header, fixed part of `fixed` bytes, a padded string, the trailer. */
static void add(struct synth *sy, uint32_t type, uint16_t misc, const void *fixed, size_t fixed_len,
		const char *s, size_t trailer)
{
	size_t slen = ALIGN8(strlen(s) + 1);
	size_t size = sizeof(struct perf_event_header) + fixed_len + slen + trailer;
	if (size >= MAX_RECORD)
		return;
	unsigned char *p = grow(sy, size);
	if (!p)
		return;
	struct perf_event_header h = { type, misc, (uint16_t)size };
	memcpy(p, &h, sizeof h);
	memcpy(p + sizeof h, fixed, fixed_len);
	memcpy(p + sizeof h + fixed_len, s, strlen(s));
}

static void add_comm(struct synth *sy, pid_t pid, pid_t tid, const char *comm, size_t trailer)
{
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	add(sy, PERF_RECORD_COMM, 0, ids, sizeof ids, comm, trailer);
	sy->comms++;
}

/* The fixed part of PERF_RECORD_MMAP2 (after the header). */
struct mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

/* One maps line into m and its path; false if it is no executable
 * mapping. */
static bool parse_map(char *line, struct mmap2 *m, const char **path)
{
	char *p = line, *perms;
	m->addr = strtoull(p, &p, 16);
	m->len = *p == '-' ? strtoull(p + 1, &p, 16) - m->addr : 0;
	while (*p == ' ')
		p++;
	perms = p;
	if (strlen(perms) < 4 || perms[2] != 'x')
		return false;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  PROT_EXEC;
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->pgoff = strtoull(p + 4, &p, 16);
	m->maj = (uint32_t)strtoul(p, &p, 16);
	m->min = *p == ':' ? (uint32_t)strtoul(p + 1, &p, 16) : 0;
	m->ino = strtoull(p, &p, 10);
	while (*p == ' ')
		p++;
	*path = *p ? p : "//anon";
	return m->len > 0;
}

static void add_maps(struct synth *sy, pid_t pid, char *maps, size_t trailer)
{
	for (char *save, *l = strtok_r(maps, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct mmap2 m = { 0 };
		const char *path;
		if (!parse_map(l, &m, &path))
			continue;
		m.pid = m.tid = (uint32_t)pid;
		add(sy, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &m, sizeof m, path, trailer);
		sy->mmaps++;
	}
}

static void trim_newline(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
}

/* A COMM for each thread in /proc/PID/task, or for PID alone. */
static void add_threads(struct synth *sy, pid_t pid, const char *comm, size_t trailer)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		add_comm(sy, pid, (pid_t)atoi(e->d_name), comm, trailer);
		n++;
	}
	if (d)
		closedir(d);
	if (!n)
		add_comm(sy, pid, pid, comm, trailer);
}

bool synth_process(struct synth *sy, pid_t pid, size_t trailer)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	char *comm = slurp(path);
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	char *maps = slurp(path);
	bool ok = comm && maps;
	if (ok) {
		trim_newline(comm);
		add_threads(sy, pid, comm, trailer);
		add_maps(sy, pid, maps, trailer);
	}
	free(comm);
	free(maps);
	return ok;
}

void synth_write(const struct synth *sy, struct out *o, uint32_t type)
{
	for (size_t pos = 0; pos < sy->len;) {
		struct perf_event_header h;
		memcpy(&h, sy->buf + pos, sizeof h);
		if (h.type == type)
			out_write(o, sy->buf + pos, h.size);
		pos += h.size;
	}
}

void synth_all(struct out *o, size_t trailer, pid_t skip)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();
	while (d && (e = readdir(d))) {
		struct synth sy = { 0 };
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || pid == self || pid == skip || !synth_process(&sy, pid, trailer)) {
			synth_free(&sy);
			continue;
		}
		synth_write(&sy, o, PERF_RECORD_COMM);
		synth_write(&sy, o, PERF_RECORD_MMAP2);
		synth_free(&sy);
	}
	if (d)
		closedir(d);
}

/* The address of symbol name in kallsyms text, 0 if absent. */
static uint64_t kallsym(const char *text, const char *name)
{
	size_t len = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *sym = strchr(l, ' ') ? strchr(l, ' ') + 3 : NULL; /* "ADDR T NAME" */
		if (sym && !strncmp(sym, name, len) && (sym[len] == '\n' || !sym[len]))
			return strtoull(l, NULL, 16);
	}
	return 0;
}

void synth_kernel(struct out *o, size_t trailer)
{
	char *text = slurp("/proc/kallsyms");
	uint64_t start = text ? kallsym(text, "_text") : 0, end = text ? kallsym(text, "_etext") : 0;
	free(text);
	if (!start || end <= start)
		return; /* none, or the addresses are hidden (kptr_restrict) */
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
	} m = { (uint32_t)-1, 0, start, end - start, start };
	struct synth sy = { 0 };
	add(&sy, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, &m, sizeof m, "[kernel.kallsyms]_text",
	    trailer);
	synth_write(&sy, o, PERF_RECORD_MMAP);
	synth_free(&sy);
}

void synth_free(struct synth *sy)
{
	free(sy->buf);
	memset(sy, 0, sizeof *sy);
}
