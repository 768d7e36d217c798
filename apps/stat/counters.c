/*
 * The events of one run. In task mode each counter is one fd on the
 * program (inherit, enabled at its exec); with -a/-C one fd per CPU
 * (pid -1), enabled and disabled around the program by stat; for threads
 * that already run (-p, -t), one fd per thread, enabled and disabled by
 * stat around the run. A group's
 * members open with the leader's fd on the same CPU; only the leader
 * starts disabled, so the members count whenever the leader does.
 * Every fd reads as value, time enabled, time running.
 */
#include <errno.h>
#include <perf_event_open.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "stat.h"

bool counters_alloc(struct counter *c, int n, const struct target *t)
{
	for (int i = 0; i < n; i++) {
		c[i].fd = malloc((size_t)t->ncpus * sizeof(int));
		c[i].now = calloc((size_t)t->ncpus, sizeof(struct reading));
		c[i].prev = calloc((size_t)t->ncpus, sizeof(struct reading));
		c[i].acc = calloc((size_t)target_slots(t), sizeof(struct acc));
		if (!c[i].fd || !c[i].now || !c[i].prev || !c[i].acc)
			return false;
		for (int k = 0; k < t->ncpus; k++)
			c[i].fd[k] = -1;
	}
	return true;
}

/* Errors that are about this machine or this user, not the event. */
static bool fatal_errno(int e)
{
	return e == EACCES || e == EPERM || e == EMFILE || e == ENFILE || e == ENOMEM ||
	       e == ESRCH || e == EBUSY;
}

static void prepare_attr(const struct counter *c, int i, const struct target *t,
			 struct perf_event_attr *a)
{
	bool leads = c[i].leader == i;
	*a = c[i].attr;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->disabled = leads;
	a->enable_on_exec = leads && !t->per_cpu && !t->threads;
	a->inherit = !t->per_cpu;
}

static int try_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, bool verbose)
{
	int fd = perf_event_open(a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
	int err = errno;
	if (verbose)
		attr_dump(a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC, fd, err);
	errno = err;
	return fd;
}

/* Counter i on target CPU k; false on a fatal error (printed). */
static bool open_one(struct counter *c, int i, const struct target *t, int k, pid_t pid,
		     bool verbose)
{
	struct perf_event_attr a;
	int group = c[i].leader == i ? -1 : c[c[i].leader].fd[k];
	if (c[i].leader != i && group < 0)
		return true; /* its leader could not open: neither can it */
	prepare_attr(c, i, t, &a);
	pid_t p = t->threads ? t->tid[k] : t->per_cpu ? -1 : pid;
	int fd = try_open(&a, p, t->cpu[k], group, verbose);
	if (fd < 0 && errno == EINVAL && a.exclude_guest) {
		/* PMUs that filter nothing refuse any exclude bit, as perf finds */
		a.exclude_guest = 0;
		fd = try_open(&a, p, t->cpu[k], group, verbose);
	}
	c[i].fd[k] = fd;
	if (fd >= 0) {
		c[i].supported = true;
		return true;
	}
	if (!fatal_errno(errno) || (t->threads && errno == ESRCH))
		return true; /* <not supported>, or a thread that has gone */
	if (t->per_cpu)
		fprintf(stderr, "stat: cannot open '%s' on CPU %d: %s\n", c[i].name, t->cpu[k],
			strerror(errno));
	else if (t->threads)
		fprintf(stderr, "stat: cannot open '%s' on thread %d: %s\n", c[i].name,
			(int)t->tid[k], strerror(errno));
	else
		fprintf(stderr, "stat: cannot open '%s': %s\n", c[i].name, strerror(errno));
	return false;
}

bool counters_open(struct counter *c, int n, const struct target *t, pid_t pid, bool verbose)
{
	for (int i = 0; i < n; i++) {
		memset(c[i].now, 0, (size_t)t->ncpus * sizeof(struct reading));
		memset(c[i].prev, 0, (size_t)t->ncpus * sizeof(struct reading));
		for (int k = 0; k < t->ncpus; k++) {
			if (!open_one(c, i, t, k, pid, verbose)) {
				counters_close(c, n, t);
				return false;
			}
		}
	}
	return true;
}

void counters_enable(struct counter *c, int n, const struct target *t, bool on)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < t->ncpus; k++)
			if (c[i].leader == i && c[i].fd[k] >= 0)
				ioctl(c[i].fd[k], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* Keep the last reading in prev and read the counters into now. */
void counters_read(struct counter *c, int n, const struct target *t)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < t->ncpus; k++) {
			uint64_t v[3];
			c[i].prev[k] = c[i].now[k];
			if (c[i].fd[k] < 0 || read(c[i].fd[k], v, sizeof v) != (ssize_t)sizeof v)
				continue;
			c[i].now[k] = (struct reading){ v[0], v[1], v[2] };
		}
	}
}

void counters_close(struct counter *c, int n, const struct target *t)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < t->ncpus; k++) {
			if (c[i].fd[k] >= 0)
				close(c[i].fd[k]);
			c[i].fd[k] = -1;
		}
	}
}
