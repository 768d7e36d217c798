/*
 * syscalltp.c: the syscalls:sys_enter_<call> and sys_exit_<call>
 * tracepoints (Linux's trace_syscalls.c), checked the same way on Linux:
 *
 *  - tracefs: the id files; the format files list the common header,
 *    "int __syscall_nr" at 8, each argument at 16 + 8 * i as an unsigned
 *    long (openat's flags at 32), sys_exit's "long ret" at 16, and
 *    Linux's print formats ("" for a call without arguments).
 *    available_events lists them.
 *  - counting: N getsid() calls are N sys_enter_getsid and N
 *    sys_exit_getsid, and no sys_enter_getppid; N getppid() calls (a
 *    fast call on baremon, whose lean path must give way) are N
 *    sys_enter_getppid.
 *  - raw records: a sampled sys_enter_getsid carries its id, the call
 *    number and the argument; sys_exit_getsid the result.
 *
 * Linux mounts tracefs on demand: where /sys/kernel/tracing has no
 * events the test mounts it, and skips with a note if it cannot.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "perf.h"
#include "ring.h"

#define N 40
#define TRACING "/sys/kernel/tracing"

/* The whole file (at most max - 1 bytes, NUL-terminated), or -1. */
static long slurp(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY);
	long n = 0, got;
	if (fd < 0)
		return -1;
	while (n < (long)max - 1 && (got = read(fd, buf + n, max - 1 - (size_t)n)) > 0)
		n += got;
	close(fd);
	buf[n] = 0;
	return n;
}

static long event_id(const char *event)
{
	char path[160], buf[32];
	snprintf(path, sizeof(path), TRACING "/events/syscalls/%s/id", event);
	return slurp(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

static void format_has(const char *event, const char *text, const char *what)
{
	static char buf[8192];
	char path[160];
	snprintf(path, sizeof(path), TRACING "/events/syscalls/%s/format", event);
	long n = slurp(path, buf, sizeof(buf));
	CHECK(n > 0 && strstr(buf, text) != NULL, "%s format: %s", event, what);
}

static int open_tp(long id, int sample)
{
	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)id);
	if (sample) {
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_RAW;
	}
	return perf_open(&a, 0, -1, -1, 0);
}

static void test_formats(void)
{
	char name[64];
	snprintf(name, sizeof(name), "name: sys_enter_openat\nID: %ld\nformat:\n",
		 event_id("sys_enter_openat"));
	format_has("sys_enter_openat", name, "name and ID lines");
	format_has("sys_enter_openat",
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		   "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		   "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n",
		   "the common header, __syscall_nr, dfd at 16");
	format_has("sys_enter_openat", " flags;\toffset:32;\tsize:8;\tsigned:0;\n",
		   "flags at 32");
	format_has("sys_enter_openat", "print fmt: \"dfd: 0x%08lx, ", "print fmt");
	format_has("sys_enter_getsid", "\tfield:pid_t pid;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		   "print fmt: \"pid: 0x%08lx\", ((unsigned long)(REC->pid))\n", "pid and print fmt");
	format_has("sys_enter_getppid", "\tsigned:1;\n\nprint fmt: \"\"\n",
		   "no arguments: print fmt \"\"");
	format_has("sys_exit_getsid", "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		   "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
		   "print fmt: \"0x%lx\", REC->ret\n", "ret at 16, print fmt");
	static char avail[262144];
	CHECK(slurp(TRACING "/available_events", avail, sizeof(avail)) > 0 &&
	      strstr(avail, "syscalls:sys_enter_getsid\n") &&
	      strstr(avail, "syscalls:sys_exit_openat\n"), "available_events lists them");
}

static void test_counting(long enter, long exit, long ppid_enter)
{
	int fe = open_tp(enter, 0), fx = open_tp(exit, 0), fp = open_tp(ppid_enter, 0);
	if (!CHECK(fe >= 0 && fx >= 0 && fp >= 0, "open sys_enter/exit_getsid, sys_enter_getppid"))
		return;
	for (int i = 0; i < N; i++)
		syscall(SYS_getsid, 0);
	uint64_t ne = perf_value(fe), nx = perf_value(fx), np = perf_value(fp);
	CHECK(ne == N && nx == N, "%d getsid(): %llu sys_enter_getsid, %llu sys_exit_getsid", N,
	      (unsigned long long)ne, (unsigned long long)nx);
	CHECK(np == 0, "and no sys_enter_getppid (%llu)", (unsigned long long)np);
	for (int i = 0; i < N; i++)
		syscall(SYS_getppid);
	np = perf_value(fp);
	CHECK(np == N, "%d getppid(): %llu sys_enter_getppid", N, (unsigned long long)np);
	close(fe);
	close(fx);
	close(fp);
}

/* The first sample's raw data into raw (its size), or -1. */
static long first_raw(struct ring *r, unsigned char *raw, size_t max)
{
	uint64_t head = ring_head(r);
	while (r->pos < head) {
		struct perf_event_header h;
		ring_copy(r, r->pos, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			uint32_t size;
			ring_copy(r, r->pos + sizeof(h), &size, 4);
			if (size > max)
				return -1;
			ring_copy(r, r->pos + sizeof(h) + 4, raw, size);
			return size;
		}
		r->pos += h.size;
	}
	return -1;
}

static void test_raw(long enter, long exit)
{
	struct ring re = { 0 }, rx = { 0 };
	int fe = open_tp(enter, 1), fx = open_tp(exit, 1);
	if (!CHECK(fe >= 0 && fx >= 0 && ring_map(fe, &re, 4, PROT_READ | PROT_WRITE) == 0 &&
		   ring_map(fx, &rx, 4, PROT_READ | PROT_WRITE) == 0,
		   "sample sys_enter_getsid and sys_exit_getsid with PERF_SAMPLE_RAW"))
		return;
	long pid = getpid();
	long sid = syscall(SYS_getsid, pid);
	unsigned char raw[256];
	uint16_t type;
	int32_t nr;
	uint64_t arg;
	int64_t ret;
	long n = first_raw(&re, raw, sizeof(raw));
	memcpy(&type, raw, 2);
	memcpy(&nr, raw + 8, 4);
	memcpy(&arg, raw + 16, 8);
	CHECK(n >= 24 && type == enter && nr == SYS_getsid && arg == (uint64_t)pid,
	      "sys_enter_getsid's record: type %u, nr %d, pid %llu (size %ld)", type, nr,
	      (unsigned long long)arg, n);
	n = first_raw(&rx, raw, sizeof(raw));
	memcpy(&type, raw, 2);
	memcpy(&nr, raw + 8, 4);
	memcpy(&ret, raw + 16, 8);
	CHECK(n >= 24 && type == exit && nr == SYS_getsid && ret == sid,
	      "sys_exit_getsid's record: type %u, nr %d, ret %lld = %ld (size %ld)", type, nr,
	      (long long)ret, sid, n);
	ring_unmap(&re);
	ring_unmap(&rx);
	close(fe);
	close(fx);
}

int main(void)
{
	if (event_id("sys_enter_getsid") < 0)
		syscall(SYS_mount, "nodev", TRACING, "tracefs", 0, NULL);
	long enter = event_id("sys_enter_getsid"), exit = event_id("sys_exit_getsid");
	long ppid_enter = event_id("sys_enter_getppid");
	if (enter < 0 && !abi_on_baremon()) {
		abi_note("no syscalls tracepoints in tracefs here: skipped");
		return abi_done("syscalltp");
	}
	CHECK(enter > 0 && exit > 0 && ppid_enter > 0 && event_id("sys_enter_openat") > 0,
	      "tracefs ids: sys_enter_getsid %ld, sys_exit_getsid %ld, sys_enter_getppid %ld",
	      enter, exit, ppid_enter);
	test_formats();
	test_counting(enter, exit, ppid_enter);
	test_raw(enter, exit);
	return abi_done("syscalltp");
}
