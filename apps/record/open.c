/*
 * The events on each target CPU, as perf record opens them: on the
 * program (pid, cpu N) or on everything (-1, cpu N), one fd per event
 * per CPU. Per CPU, the first event's fd is mapped and the others send
 * their records there (PERF_EVENT_IOC_SET_OUTPUT): one buffer per CPU.
 * (An inherited event on the program cannot be mapped with cpu -1:
 * Linux refuses, and so does baremon.)
 */
#include <errno.h>
#include <perf_event_open.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "record.h"

static bool in_list(int c, const int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] == c)
			return true;
	return false;
}

bool target_setup(const struct config *cfg, struct target *t)
{
	static int online[PT_MAX_CPUS];
	int n = cpus_online(online, PT_MAX_CPUS);
	memset(t, 0, sizeof *t);
	if (n < 0) {
		fprintf(stderr, "record: cannot read %s/devices/system/cpu/online\n", sysfs_root());
		return false;
	}
	t->per_cpu = cfg->all_cpus || cfg->cpu_list;
	if (!cfg->cpu_list) {
		memcpy(t->cpu, online, (size_t)n * sizeof *online);
		t->ncpus = n;
		return true;
	}
	t->ncpus = cpu_list_parse(cfg->cpu_list, t->cpu, PT_MAX_CPUS);
	if (t->ncpus < 0) {
		fprintf(stderr, "record: bad CPU list '%s'\n", cfg->cpu_list);
		return false;
	}
	for (int k = 0; k < t->ncpus; k++) {
		if (!in_list(t->cpu[k], online, n)) {
			fprintf(stderr, "record: CPU %d is not online\n", t->cpu[k]);
			return false;
		}
	}
	return true;
}

/* -v: the attr before the first call of an event (as perf -vv). */
static int try_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, bool verbose,
		    bool first)
{
	if (verbose && first)
		attr_dump_attr(a);
	int fd = perf_event_open(a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
	int err = errno;
	if (verbose)
		attr_dump_call(pid, cpu, group, PERF_FLAG_FD_CLOEXEC, fd, err);
	errno = err;
	return fd;
}

/* perf's fallback: cycles the machine cannot count becomes cpu-clock,
 * with the same modifiers ("cycles:u" samples as "cpu-clock:u"). */
static bool fall_back(struct event *e, int err, bool verbose)
{
	struct perf_event_attr *a = &e->attr;
	if ((err != ENOENT && err != ENXIO && err != ENODEV && err != EOPNOTSUPP) ||
	    a->type != PERF_TYPE_HARDWARE || a->config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	if (verbose)
		fprintf(stderr, "record: '%s' is not supported, falling back to cpu-clock\n",
			e->spec.name);
	const char *mods = strchr(e->spec.name, ':');
	char name[64];
	snprintf(name, sizeof name, "cpu-clock%s", mods ? mods : "");
	e->spec.name = strdup(name);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->precise_ip = 0;
	return e->spec.name != NULL;
}

/* Event i on target CPU k; false after printing why. */
static bool open_one(struct session *s, int i, int k, pid_t pid, bool verbose)
{
	struct event *e = &s->ev[i];
	int leader = e->spec.leader;
	int group = leader == i ? -1 : s->ev[leader].fd[k];
	pid_t p = s->t.per_cpu ? -1 : pid;
	int fd = try_open(&e->attr, p, s->t.cpu[k], group, verbose, k == 0);
	if (fd < 0 && errno == EINVAL && e->attr.exclude_guest) {
		/* PMUs that filter nothing refuse any exclude bit, as perf finds */
		e->attr.exclude_guest = 0;
		fd = try_open(&e->attr, p, s->t.cpu[k], group, verbose, true);
	}
	if (fd < 0 && k == 0 && fall_back(e, errno, verbose))
		fd = try_open(&e->attr, p, s->t.cpu[k], group, verbose, true);
	if (fd < 0) {
		fprintf(stderr, "record: cannot open '%s' on CPU %d: %s\n", e->spec.name,
			s->t.cpu[k], strerror(errno));
		return false;
	}
	e->fd[k] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &e->id[k]) < 0)
		e->id[k] = 0;
	return true;
}

/* CPU k's buffer: the first event's, shared by the others. */
static bool attach_buffer(struct session *s, int k, unsigned pages)
{
	if (!ring_map(&s->ring[k], s->ev[0].fd[k], pages)) {
		fprintf(stderr, "record: cannot map %u pages on CPU %d: %s\n", 1 + pages,
			s->t.cpu[k], strerror(errno));
		return false;
	}
	for (int i = 1; i < s->nev; i++) {
		if (ioctl(s->ev[i].fd[k], PERF_EVENT_IOC_SET_OUTPUT, s->ev[0].fd[k]) < 0) {
			fprintf(stderr, "record: cannot share CPU %d's buffer with '%s': %s\n",
				s->t.cpu[k], s->ev[i].spec.name, strerror(errno));
			return false;
		}
	}
	s->nrings = k + 1;
	return true;
}

static bool alloc_fds(struct session *s)
{
	for (int i = 0; i < s->nev; i++) {
		s->ev[i].fd = malloc((size_t)s->t.ncpus * sizeof(int));
		s->ev[i].id = calloc((size_t)s->t.ncpus, sizeof(uint64_t));
		if (!s->ev[i].fd || !s->ev[i].id)
			return false;
		for (int k = 0; k < s->t.ncpus; k++)
			s->ev[i].fd[k] = -1;
	}
	return true;
}

bool events_open(struct session *s, const struct config *cfg, pid_t pid)
{
	if (!alloc_fds(s)) {
		fprintf(stderr, "record: out of memory\n");
		return false;
	}
	attrs_setup(s, cfg);
	model_notes("record", &s->ev[0].attr, sizeof s->ev[0], s->nev, false);
	for (int k = 0; k < s->t.ncpus; k++) {
		for (int i = 0; i < s->nev; i++) {
			if (!open_one(s, i, k, pid, cfg->verbose)) {
				events_close(s);
				return false;
			}
		}
		if (!attach_buffer(s, k, cfg->mmap_pages)) {
			events_close(s);
			return false;
		}
	}
	return true;
}

void events_enable(struct session *s)
{
	for (int i = 0; i < s->nev; i++)
		for (int k = 0; k < s->t.ncpus; k++)
			if (s->ev[i].spec.leader == i && s->ev[i].fd[k] >= 0)
				ioctl(s->ev[i].fd[k], PERF_EVENT_IOC_ENABLE, 0);
}

void events_close(struct session *s)
{
	for (int k = 0; k < s->nrings; k++)
		ring_unmap(&s->ring[k]);
	s->nrings = 0;
	for (int i = 0; i < s->nev; i++) {
		for (int k = 0; k < s->t.ncpus && s->ev[i].fd; k++) {
			if (s->ev[i].fd[k] >= 0)
				close(s->ev[i].fd[k]);
			s->ev[i].fd[k] = -1;
		}
	}
}
