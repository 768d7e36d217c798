/*
 * tracepoint.c: PERF_TYPE_TRACEPOINT with the tracepoints baremon has
 * (sched:sched_switch, sched_wakeup, sched_process_fork, _exec, _exit,
 * raw_syscalls:sys_enter, sys_exit, irq:irq_handler_entry), checked the
 * same way on Linux.
 *
 *  - tracefs: each event's id file holds the id attr.config takes; its
 *    format file parses (name, ID, field lines, print fmt) and lists the
 *    common_* header and the fields this test expects, at the offsets,
 *    sizes and signedness Linux 6.x gives them (fields whose layout
 *    changed between 6.1 and 6.18, such as fork's comms, by name only).
 *    Linux mounts tracefs on demand: on a host where
 *    /sys/kernel/tracing is empty the test mounts it, and skips with a
 *    note if it cannot.
 *  - counting: sys_enter and sys_exit for N getppid() calls (alone and
 *    as a group), nothing with exclude_kernel (tracepoints fire in the
 *    kernel), sched_switch as often as context-switches while sleeping,
 *    sched_wakeup for pipe wakeups of a child, exactly N sched_process_fork for N forks, and with
 *    inherit one sched_process_exec and one sched_process_exit for a
 *    child that execs and exits; per CPU (pid -1, cpu 0) too.
 *  - an id no tracepoint has is EINVAL.
 *  - permissions (as root, perf_event_paranoid restored afterwards):
 *    as nobody, PERF_SAMPLE_RAW is EPERM unless the level is -1 (Linux's
 *    perf_trace_event_perm), except raw_syscalls on a task; counting
 *    follows the level (kernel included: EACCES above 1).
 *  - raw records: sampled sys_enter and sched_process_fork records are
 *    laid out as the format files say, padded as Linux pads them.
 *
 * The exec'd program is this one (/proc/self/exe, else argv[0]) with
 * the single argument --exit, which exits at once.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

#define N 50
#define NOBODY 65534
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define TRACING "/sys/kernel/tracing"

static int on_baremon;
static char *self;

struct event {
	const char *group, *name;
	long id;
};

enum { SWITCH, WAKEUP, FORK, EXEC, EXIT, SYS_ENTER, SYS_EXIT, IRQ, NEVENTS };

static struct event events[NEVENTS] = {
	{ "sched", "sched_switch", -1 },
	{ "sched", "sched_wakeup", -1 },
	{ "sched", "sched_process_fork", -1 },
	{ "sched", "sched_process_exec", -1 },
	{ "sched", "sched_process_exit", -1 },
	{ "raw_syscalls", "sys_enter", -1 },
	{ "raw_syscalls", "sys_exit", -1 },
	{ "irq", "irq_handler_entry", -1 },
};

/* The whole file (at most max - 1 bytes, NUL-terminated), or -1. */
static ssize_t slurp(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + got, max - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return n < 0 ? -1 : got;
}

static long read_long(const char *path)
{
	char buf[64], *end;
	long v;

	if (slurp(path, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end != buf && *end == '\n' ? v : -1;
}

static void event_path(char *out, size_t n, const struct event *ev,
                       const char *file)
{
	snprintf(out, n, TRACING "/events/%s/%s/%s", ev->group, ev->name, file);
}

/* Find the ids; mount tracefs on a Linux that has not. 0: skip all. */
static int find_ids(void)
{
	char path[256];

	event_path(path, sizeof(path), &events[SYS_ENTER], "id");
	if (access(path, R_OK) != 0 && !on_baremon) {
		if (syscall(SYS_mount, "nodev", TRACING, "tracefs", 0, NULL) != 0) {
			abi_note("no %s and tracefs cannot be mounted (%s): "
			         "nothing to check", path, strerror(errno));
			return 0;
		}
		abi_note("mounted tracefs on " TRACING);
	}
	for (int i = 0; i < NEVENTS; i++) {
		event_path(path, sizeof(path), &events[i], "id");
		events[i].id = read_long(path);
		CHECK(events[i].id >= 0, "%s:%s: id file holds a number (%ld)",
		      events[i].group, events[i].name, events[i].id);
	}
	return 1;
}

/* ---- format files ---- */

struct field {
	char decl[80], name[40];
	long offset, size, is_signed;
};

struct format {
	char name[64];
	long id;
	int nfields, print_fmt;
	struct field f[32];
};

/* The identifier a declaration declares: "char comm[16]" -> "comm". */
static void decl_name(const char *decl, char *out, size_t n)
{
	const char *end = strchr(decl, '[') && strrchr(decl, ' ') < strchr(decl, '[')
	                  ? strchr(decl, '[') : decl + strlen(decl);
	const char *start = end;

	while (start > decl && start[-1] != ' ')
		start--;
	snprintf(out, n, "%.*s", (int)(end - start), start);
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" */
static int parse_field(const char *line, struct field *f)
{
	const char *semi = strchr(line, ';'), *o, *s, *g;

	if (strncmp(line, "\tfield:", 7) != 0 || !semi)
		return 0;
	snprintf(f->decl, sizeof(f->decl), "%.*s", (int)(semi - line - 7), line + 7);
	decl_name(f->decl, f->name, sizeof(f->name));
	o = strstr(semi, "\toffset:");
	s = strstr(semi, "\tsize:");
	g = strstr(semi, "\tsigned:");
	if (!o || !s || !g)
		return 0;
	f->offset = strtol(o + 8, NULL, 10);
	f->size = strtol(s + 6, NULL, 10);
	f->is_signed = strtol(g + 8, NULL, 10);
	return 1;
}

static int parse_format(char *text, struct format *fm)
{
	char *line = text, *next;
	int ok = 1;

	memset(fm, 0, sizeof(*fm));
	fm->id = -1;
	for (; *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			next = line + strlen(line);
		else
			*next++ = 0;
		if (!strncmp(line, "name: ", 6))
			snprintf(fm->name, sizeof(fm->name), "%s", line + 6);
		else if (!strncmp(line, "ID: ", 4))
			fm->id = strtol(line + 4, NULL, 10);
		else if (!strncmp(line, "print fmt: ", 11))
			fm->print_fmt = line[11] == '"';
		else if (!strncmp(line, "\tfield:", 7) && fm->nfields < 32)
			ok &= parse_field(line, &fm->f[fm->nfields++]);
		else if (*line && strcmp(line, "format:") != 0)
			ok = 0;
	}
	return ok;
}

static const struct field *find_field(const struct format *fm, const char *name)
{
	for (int i = 0; i < fm->nfields; i++)
		if (!strcmp(fm->f[i].name, name))
			return &fm->f[i];
	return NULL;
}

/* A field Linux 6.x lays out the same in every version (-1: any). */
struct want {
	int event;
	const char *name;
	long offset, size, is_signed;
};

static const struct want wants[] = {
	{ -1, "common_type", 0, 2, 0 },
	{ -1, "common_flags", 2, 1, 0 },
	{ -1, "common_preempt_count", 3, 1, 0 },
	{ -1, "common_pid", 4, 4, 1 },
	{ SWITCH, "prev_comm", 8, 16, 0 },
	{ SWITCH, "prev_pid", 24, 4, 1 },
	{ SWITCH, "prev_prio", 28, 4, 1 },
	{ SWITCH, "prev_state", 32, 8, 1 },
	{ SWITCH, "next_comm", 40, 16, 0 },
	{ SWITCH, "next_pid", 56, 4, 1 },
	{ SWITCH, "next_prio", 60, 4, 1 },
	{ WAKEUP, "comm", 8, 16, 0 },
	{ WAKEUP, "pid", 24, 4, 1 },
	{ WAKEUP, "prio", 28, 4, 1 },
	{ WAKEUP, "target_cpu", 32, 4, 1 },
	/* 6.1 has char[16] comms, later kernels __data_loc strings. */
	{ FORK, "parent_comm", 8, -1, 0 },
	{ FORK, "parent_pid", -1, 4, 1 },
	{ FORK, "child_comm", -1, -1, 0 },
	{ FORK, "child_pid", -1, 4, 1 },
	{ EXEC, "filename", 8, 4, 0 },
	{ EXEC, "pid", 12, 4, 1 },
	{ EXEC, "old_pid", 16, 4, 1 },
	{ EXIT, "comm", 8, 16, 0 },
	{ EXIT, "pid", 24, 4, 1 },
	{ EXIT, "prio", 28, 4, 1 },
	{ SYS_ENTER, "id", 8, 8, 1 },
	{ SYS_ENTER, "args", 16, 48, 0 },
	{ SYS_EXIT, "id", 8, 8, 1 },
	{ SYS_EXIT, "ret", 16, 8, 1 },
	{ IRQ, "irq", 8, 4, 1 },
	{ IRQ, "name", 12, 4, 0 },
};

static int matches(long got, long want)
{
	return want < 0 || got == want;
}

static void check_fields(int ev, const struct format *fm)
{
	for (unsigned i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *w = &wants[i];
		const struct field *f;

		if (w->event != -1 && w->event != ev)
			continue;
		f = find_field(fm, w->name);
		if (!CHECK(f && matches(f->offset, w->offset) &&
		           matches(f->size, w->size) &&
		           matches(f->is_signed, w->is_signed),
		           "%s: field %s at offset %ld, size %ld, signed %ld",
		           events[ev].name, w->name, w->offset, w->size,
		           w->is_signed) && f)
			printf("#   got \"%s\" offset %ld size %ld signed %ld\n",
			       f->decl, f->offset, f->size, f->is_signed);
	}
}

/* Fields follow the header, in order, without overlapping. */
static int fields_in_order(const struct format *fm)
{
	long end = 0;

	for (int i = 0; i < fm->nfields; i++) {
		if (fm->f[i].offset < end || fm->f[i].size <= 0)
			return 0;
		end = fm->f[i].offset + fm->f[i].size;
	}
	return fm->nfields > 4;
}

static void test_formats(void)
{
	static char text[8192];
	static struct format fm;
	char path[256];

	for (int i = 0; i < NEVENTS; i++) {
		event_path(path, sizeof(path), &events[i], "format");
		if (!CHECK(slurp(path, text, sizeof(text)) > 0, "read %s", path))
			continue;
		CHECK(parse_format(text, &fm), "%s: format parses", events[i].name);
		CHECK(!strcmp(fm.name, events[i].name) && fm.id == events[i].id,
		      "%s: format names it, with the id file's ID (%s, %ld)",
		      events[i].name, fm.name, fm.id);
		CHECK(fm.print_fmt, "%s: has a print fmt", events[i].name);
		CHECK(fields_in_order(&fm), "%s: %d fields, in order, disjoint",
		      events[i].name, fm.nfields);
		check_fields(i, &fm);
	}
	if (on_baremon) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s/%s/id",
		         events[SYS_ENTER].group, events[SYS_ENTER].name);
		CHECK(read_long(path) == events[SYS_ENTER].id,
		      "the same id under /sys/kernel/debug/tracing");
	}
}

/* ---- counting ---- */

/* A disabled counting event of tracepoint ev. */
static int tp_open(int ev, pid_t pid, int cpu, int inherit)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[ev].id);
	a.disabled = 1;
	a.inherit = inherit ? 1 : 0;
	return perf_open(&a, pid, cpu, -1, 0);
}

static int opened(int fd, const char *what)
{
	if (!CHECK(fd >= 0, "open %s", what))
		printf("#   errno %d (%s)\n", errno, strerror(errno));
	return fd >= 0;
}

static void getppids(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void test_syscalls(void)
{
	int in = tp_open(SYS_ENTER, 0, -1, 0);
	int out = tp_open(SYS_EXIT, 0, -1, 0);
	uint64_t vin, vout;

	if (!opened(in, "raw_syscalls:sys_enter") || !opened(out, "raw_syscalls:sys_exit"))
		return;
	ioctl(in, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(out, PERF_EVENT_IOC_ENABLE, 0);
	getppids(N);
	ioctl(in, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(out, PERF_EVENT_IOC_DISABLE, 0);
	vin = perf_value(in);
	vout = perf_value(out);
	CHECK(vin >= N && vin <= N + 4, "sys_enter: %d getppid() and the ioctls: %llu",
	      N, (unsigned long long)vin);
	CHECK(vout >= N && vout <= N + 4, "sys_exit: %d getppid() and the ioctls: %llu",
	      N, (unsigned long long)vout);
	close(in);
	close(out);
}

static void test_group(void)
{
	struct perf_event_attr a;
	uint64_t v[3] = { 0, 0, 0 };
	ssize_t n;
	int l, s;

	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[SYS_ENTER].id);
	a.disabled = 1;
	a.read_format = PERF_FORMAT_GROUP;
	l = perf_open(&a, 0, -1, -1, 0);
	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[SYS_EXIT].id);
	a.read_format = PERF_FORMAT_GROUP;
	s = l >= 0 ? perf_open(&a, 0, -1, l, 0) : -1;
	if (!opened(l, "sys_enter as a group leader") || !opened(s, "sys_exit in its group"))
		return;
	ioctl(l, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	getppids(N);
	ioctl(l, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	n = read(l, v, sizeof(v));
	CHECK(n == sizeof(v) && v[0] == 2 &&
	      v[1] >= N && v[1] <= N + 2 && v[2] >= N && v[2] <= N + 2,
	      "group read: nr 2, sys_enter %llu, sys_exit %llu for %d getppid()",
	      (unsigned long long)v[1], (unsigned long long)v[2], N);
	close(s);
	close(l);
}

static void test_exclude_kernel(void)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[SYS_ENTER].id);
	a.exclude_kernel = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (!opened(fd, "sys_enter with exclude_kernel"))
		return;
	getppids(N);
	CHECK(perf_value(fd) == 0, "exclude_kernel: tracepoints fire in the "
	      "kernel, nothing counts (%llu)", (unsigned long long)perf_value(fd));
	close(fd);
}

static void sleeps(int n)
{
	for (int i = 0; i < n; i++)
		sleep_ns(1000000); /* 1 ms: long enough to always switch out */
}

/*
 * Every switch out of this task is one sched_switch here and one
 * context-switches software event: the two agree exactly. A sleep
 * whose deadline passes before the task gets to schedule (a descheduled
 * virtual CPU) does not switch, so at least half the sleeps must.
 */
static void test_switch(void)
{
	struct perf_event_attr a;
	uint64_t v[3] = { 0, 0, 0 };
	ssize_t n;
	int l, s;

	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[SWITCH].id);
	a.disabled = 1;
	a.read_format = PERF_FORMAT_GROUP;
	l = perf_open(&a, 0, -1, -1, 0);
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	a.read_format = PERF_FORMAT_GROUP;
	s = l >= 0 ? perf_open(&a, 0, -1, l, 0) : -1;
	if (!opened(l, "sched:sched_switch") || !opened(s, "context-switches in its group"))
		return;
	ioctl(l, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	sleeps(20);
	ioctl(l, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	n = read(l, v, sizeof(v));
	CHECK(n == sizeof(v) && v[1] == v[2] && v[1] >= 10,
	      "sched_switch: 20 sleeps, %llu switches out, as many context-switches "
	      "(%llu)", (unsigned long long)v[1], (unsigned long long)v[2]);
	close(s);
	close(l);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The child sleeps in read() each time this task writes to the pipe:
 * the write wakes it, here. */
static void test_wakeup(void)
{
	int fd = tp_open(WAKEUP, 0, -1, 0), to[2], back[2], n = 10;
	pid_t pid;
	uint64_t v;
	char c = 0;

	if (!opened(fd, "sched:sched_wakeup") || pipe(to) || pipe(back))
		return;
	pid = fork();
	if (pid == 0) {
		close(to[1]);
		close(back[0]);
		while (read(to[0], &c, 1) == 1)
			write(back[1], &c, 1);
		_exit(0);
	}
	close(to[0]);
	close(back[1]);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < n; i++) {
		sleep_ns(2000000); /* the child is asleep in read() by now */
		write(to[1], &c, 1);
		read(back[0], &c, 1);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(to[1]);
	waitpid(pid, NULL, 0);
	v = perf_value(fd);
	/* Each round wakes at most two tasks in this one's context: the
	 * reader (the write) and, when its own sleep's timer fires while it
	 * is still on its way to sleep, itself. Linux 6.18 on a busy host
	 * counted 11 for 10 writes, baremon at load 5 on two CPUs 12. */
	CHECK(v >= (uint64_t)n / 2 && v <= 2 * (uint64_t)n, "sched_wakeup: %d pipe "
	      "writes wake the reading child, asleep by then at least half the "
	      "time (%llu)", n, (unsigned long long)v);
	close(back[0]);
	close(fd);
}

static void test_fork(void)
{
	int fd = tp_open(FORK, 0, -1, 0), n = 5;
	uint64_t v;

	if (!opened(fd, "sched:sched_process_fork"))
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	v = perf_value(fd);
	CHECK(v == (uint64_t)n, "sched_process_fork: %d forks (%llu)", n,
	      (unsigned long long)v);
	close(fd);
}

static void exec_self(void)
{
	char *argv[] = { self, "--exit", NULL };

	execv("/proc/self/exe", argv);
	execv(self, argv);
	_exit(99);
}

/* inherit: the child's counts come back to these events when it exits. */
static void test_exec_exit(void)
{
	int ex = tp_open(EXEC, 0, -1, 1), ez = tp_open(EXIT, 0, -1, 1);
	int st = -1;
	pid_t pid;
	uint64_t vex, vez;

	if (!opened(ex, "sched:sched_process_exec, inherited") ||
	    !opened(ez, "sched:sched_process_exit, inherited"))
		return;
	ioctl(ex, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(ez, PERF_EVENT_IOC_ENABLE, 0);
	pid = fork();
	if (pid == 0)
		exec_self();
	waitpid(pid, &st, 0);
	ioctl(ex, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(ez, PERF_EVENT_IOC_DISABLE, 0);
	vex = perf_value(ex);
	vez = perf_value(ez);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child execs and exits 0");
	CHECK(vex == 1, "sched_process_exec: the child's exec (%llu)",
	      (unsigned long long)vex);
	CHECK(vez == 1, "sched_process_exit: the child's exit (%llu)",
	      (unsigned long long)vez);
	close(ex);
	close(ez);
}

/* Per CPU: this task's sleeps and system calls on CPU 0 are in CPU 0's. */
static void test_cpu_wide(void)
{
	int sw = tp_open(SWITCH, -1, 0, 0), in = tp_open(SYS_ENTER, -1, 0, 0);
	uint64_t vsw, vin;

	if (!opened(sw, "sched_switch on CPU 0 (pid -1, cpu 0)") ||
	    !opened(in, "sys_enter on CPU 0 (pid -1, cpu 0)"))
		return;
	ioctl(sw, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(in, PERF_EVENT_IOC_ENABLE, 0);
	sleeps(10);
	getppids(N);
	ioctl(in, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(sw, PERF_EVENT_IOC_DISABLE, 0);
	vsw = perf_value(sw);
	vin = perf_value(in);
	CHECK(vsw >= 10 && vsw != PERF_BAD_VALUE, "CPU 0's sched_switch: 10 sleeps, "
	      "out and back in, at least half of them (%llu)", (unsigned long long)vsw);
	CHECK(vin >= N && vin != PERF_BAD_VALUE, "CPU 0's sys_enter: %d getppid() (%llu)",
	      N, (unsigned long long)vin);
	close(sw);
	close(in);
}

static void test_unknown(void)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_TRACEPOINT, 0x7fffffff);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "id 0x7fffffff");
	perf_attr(&a, PERF_TYPE_TRACEPOINT, ~0ULL);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "id ~0");
	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[SYS_ENTER].id | 1ULL << 32);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "sys_enter's id + 2^32");
}

/* ---- permissions ---- */

static ssize_t put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n;
}

/* Open tracepoint ev (pid, cpu); 0 or the errno. */
static int try_open(int ev, pid_t pid, int cpu, int raw, int user_only)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[ev].id);
	a.exclude_kernel = user_only ? 1 : 0;
	if (raw) {
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_RAW;
	}
	fd = perf_open(&a, pid, cpu, -1, 0);
	if (fd < 0)
		return errno ? errno : -1;
	close(fd);
	return 0;
}

static const char *err_name(int e)
{
	return e == 0 ? "opens" : e == EPERM ? "EPERM" : e == EACCES ? "EACCES"
	                                                         : strerror(e);
}

static void expect(int level, const char *what, int got, int want)
{
	CHECK(got == want, "level %d, uid %d: %s: %s (got %s)", level,
	      (int)geteuid(), what, err_name(want), err_name(got));
}

/*
 * As nobody: counting follows the level (kernel included: EACCES above
 * 1, per CPU above 0); raw data needs level -1 (EPERM), except
 * raw_syscalls on a task, which Linux marks safe (TRACE_EVENT_FL_CAP_ANY).
 */
static void unprivileged(int level)
{
	int kern = level > 1 ? EACCES : 0, percpu = level > 0 ? EACCES : 0;
	int raw = level > -1 ? EPERM : 0;

	expect(level, "count sys_enter, kernel included", try_open(SYS_ENTER, 0, -1, 0, 0), kern);
	expect(level, "count sys_enter, exclude_kernel", try_open(SYS_ENTER, 0, -1, 0, 1), 0);
	expect(level, "raw sys_enter on itself", try_open(SYS_ENTER, 0, -1, 1, 1), 0);
	expect(level, "raw sys_exit on itself", try_open(SYS_EXIT, 0, -1, 1, 1), 0);
	expect(level, "raw sched_switch on itself", try_open(SWITCH, 0, -1, 1, 1), raw);
	expect(level, "raw sched_process_fork on itself", try_open(FORK, 0, -1, 1, 1), raw);
	/* The tracepoint refuses before the CPU is checked (find_get_context). */
	expect(level, "raw sys_enter on CPU 0 (pid -1)", try_open(SYS_ENTER, -1, 0, 1, 1),
	       raw ? raw : percpu);
	expect(level, "count sys_enter on CPU 0 (pid -1)", try_open(SYS_ENTER, -1, 0, 0, 1),
	       percpu);
	if (level <= 1)
		expect(level, "raw sched_switch on itself, kernel included",
		       try_open(SWITCH, 0, -1, 1, 0), raw);
}

/* In a child (perf.h's in_child): become nobody and try each open. */
static void as_nobody(long level)
{
	if (CHECK(setuid(NOBODY) == 0, "setuid(%d)", NOBODY))
		unprivileged((int)level);
}

static void at_level(int level)
{
	char s[16], what[32];

	snprintf(s, sizeof(s), "%d", level);
	if (!CHECK(put(PARANOID, s) == (ssize_t)strlen(s), "set level %d", level))
		return;
	snprintf(what, sizeof(what), "level %d as nobody", level);
	in_child(as_nobody, level, what);
}

static void test_permissions(void)
{
	long saved = read_long(PARANOID);
	char s[16];

	if (geteuid() != 0) {
		abi_note("not root: permissions not checked");
		return;
	}
	at_level(-1);
	at_level(0);
	at_level(1);
	at_level(2);
	expect(2, "root: raw sched_switch on CPU 0", try_open(SWITCH, -1, 0, 1, 0), 0);
	snprintf(s, sizeof(s), "%ld", saved);
	CHECK(put(PARANOID, s) > 0 && read_long(PARANOID) == saved,
	      "perf_event_paranoid restored to %ld", saved);
}

/* ---- raw records ---- */

#define RB_PAGES 8

struct ring {
	struct perf_event_mmap_page *meta;
	size_t size;
	int fd;
};

static int sampling_open(int ev, struct ring *r)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);

	perf_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)events[ev].id);
	a.disabled = 1;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	r->fd = perf_open(&a, 0, -1, -1, 0);
	if (r->fd < 0)
		return 0;
	r->size = (size_t)page * RB_PAGES;
	r->meta = mmap(NULL, (size_t)page + r->size, PROT_READ | PROT_WRITE,
	               MAP_SHARED, r->fd, 0);
	return r->meta != MAP_FAILED;
}

/* The raw payload of the first sample in the buffer, copied to out;
 * its size, 0 if there is none. */
static uint32_t first_raw(struct ring *r, unsigned char *out, uint32_t max)
{
	unsigned char *data = (unsigned char *)r->meta + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);

	for (uint64_t pos = 0; pos + 8 <= head;) {
		struct perf_event_header h;
		uint32_t size;

		memcpy(&h, data + pos % r->size, sizeof(h));
		if (h.size < 8)
			break;
		/* TID (8 bytes), then u32 size and the raw bytes */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 20) {
			memcpy(&size, data + (pos + 16) % r->size, 4);
			if (size <= max && size + 20u <= h.size) {
				for (uint32_t i = 0; i < size; i++)
					out[i] = data[(pos + 20 + i) % r->size];
				return size;
			}
		}
		pos += h.size;
	}
	return 0;
}

static uint32_t u32_at(const unsigned char *p, unsigned off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static uint64_t u64_at(const unsigned char *p, unsigned off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static int no_samples(uint32_t size, const char *what)
{
	return !CHECK(size > 0, "%s: a PERF_RECORD_SAMPLE with raw data", what);
}

/* The common header, and nothing but zeros after the payload. */
static void check_header(const unsigned char *raw, uint32_t size, uint32_t payload,
                         int ev)
{
	int pad_zero = 1;

	for (uint32_t i = payload; i < size; i++)
		pad_zero &= raw[i] == 0;
	CHECK(size == ((payload + 4 + 7) & ~7u) - 4 && pad_zero,
	      "%s: raw size %u is the %u-byte record padded with zeros to u64 "
	      "with its size field", events[ev].name, size, payload);
	CHECK((raw[0] | raw[1] << 8) == events[ev].id &&
	      (pid_t)u32_at(raw, 4) == (pid_t)syscall(SYS_gettid),
	      "%s: common_type is the id, common_pid this thread", events[ev].name);
}

static void test_raw_sys_enter(void)
{
	unsigned char raw[512];
	struct ring r;
	uint32_t size;

	if (!CHECK(sampling_open(SYS_ENTER, &r), "sys_enter, sampling every "
	           "event with PERF_SAMPLE_RAW, mapped"))
		return;
	ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
	syscall(SYS_getppid, 11, 22, 33, 44, 55, 66);
	ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
	size = first_raw(&r, raw, sizeof(raw));
	if (!no_samples(size, "sys_enter")) {
		check_header(raw, size, 64, SYS_ENTER);
		CHECK(u64_at(raw, 8) == SYS_getppid && u64_at(raw, 16) == 11 &&
		      u64_at(raw, 56) == 66, "sys_enter: id getppid, args 11 ... 66");
	}
	munmap(r.meta, r.size + (size_t)sysconf(_SC_PAGESIZE));
	close(r.fd);
}

/* A __data_loc string: inside the record, NUL-terminated. */
static const char *loc_str(const unsigned char *raw, uint32_t size, unsigned off)
{
	uint32_t loc = u32_at(raw, off), start = loc & 0xffff, len = loc >> 16;

	if (len == 0 || start + len > size || raw[start + len - 1] != 0)
		return NULL;
	return (const char *)raw + start;
}

static void test_raw_fork(void)
{
	unsigned char raw[512];
	const char *pc, *cc;
	struct ring r;
	uint32_t size;
	pid_t pid;

	if (!CHECK(sampling_open(FORK, &r), "sched_process_fork, sampling, mapped"))
		return;
	ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
	pid = fork();
	if (pid == 0)
		_exit(0);
	ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
	waitpid(pid, NULL, 0);
	size = first_raw(&r, raw, sizeof(raw));
	if (!no_samples(size, "sched_process_fork")) {
		pc = loc_str(raw, size, 8);
		cc = loc_str(raw, size, 16);
		CHECK(pc && cc && !strcmp(pc, cc) && (pid_t)u32_at(raw, 12) == getpid() &&
		      (pid_t)u32_at(raw, 20) == pid,
		      "sched_process_fork: parent and child comm (\"%s\"), pids", pc ? pc : "?");
		if (pc && cc)
			check_header(raw, size, 24 + (unsigned)strlen(pc) +
			             (unsigned)strlen(cc) + 2, FORK);
	}
	munmap(r.meta, r.size + (size_t)sysconf(_SC_PAGESIZE));
	close(r.fd);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return 0;
	self = argv[0];
	on_baremon = abi_on_baremon();
	if (!find_ids())
		return abi_done("tracepoint");
	test_formats();
	test_unknown();
	test_syscalls();
	test_group();
	test_exclude_kernel();
	test_switch();
	test_fork();
	test_exec_exit();
	test_raw_sys_enter();
	test_raw_fork();
	test_permissions();
	if (CHECK(pin(0) == 0, "run on CPU 0")) {
		test_wakeup();
		test_cpu_wide();
	}
	return abi_done("tracepoint");
}
