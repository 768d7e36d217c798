/*
 * The threads of -p, -t and -a --per-thread, as perf stat finds them:
 * -p PID,... each process's threads (/proc/PID/task), -t TID,... those
 * threads, -a --per-thread every thread of every process. Each becomes
 * a slot: its events open on its tid, any CPU, and count from the start
 * of the run to its end (the program's exit, or the last thread's).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stat.h"

static void read_comm(pid_t pid, pid_t tid, char *comm, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, comm, n - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (len < 0)
		len = 0;
	comm[len] = 0;
	comm[strcspn(comm, "\n")] = 0;
}

static bool add(struct target *t, pid_t pid, pid_t tid)
{
	if (t->ncpus == MAX_CPUS) {
		fprintf(stderr, "stat: more than %d threads\n", MAX_CPUS);
		return false;
	}
	t->cpu[t->ncpus] = -1;
	t->tid[t->ncpus] = tid;
	read_comm(pid, tid, t->comm[t->ncpus], sizeof t->comm[0]);
	t->ncpus++;
	return true;
}

/* Every thread of process pid; false if it has none (gone). */
static bool add_process(struct target *t, pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	int before = t->ncpus;
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (end != e->d_name && !*end && !add(t, pid, (pid_t)tid)) {
			closedir(d);
			return false;
		}
	}
	if (d)
		closedir(d);
	return t->ncpus > before;
}

/* "5,7": each number in turn to fn; false after printing why. */
static bool each_id(const char *list, const char *what, struct target *t,
		    bool (*fn)(struct target *, pid_t))
{
	for (const char *p = list; *p;) {
		char *end;
		long id = strtol(p, &end, 10);
		if (end == p || id <= 0 || (*end && *end != ',')) {
			fprintf(stderr, "stat: bad %s list '%s'\n", what, list);
			return false;
		}
		if (!fn(t, (pid_t)id)) {
			fprintf(stderr, "stat: no %s %ld\n", what, id);
			return false;
		}
		p = *end ? end + 1 : end;
	}
	return true;
}

static bool add_thread(struct target *t, pid_t tid)
{
	return kill(tid, 0) == 0 || errno == EPERM ? add(t, tid, tid) : false;
}

static bool add_all(struct target *t)
{
	DIR *d = opendir("/proc");
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (end != e->d_name && !*end && !add_process(t, (pid_t)pid) && t->ncpus == MAX_CPUS)
			break;
	}
	if (d)
		closedir(d);
	return t->ncpus > 0;
}

bool target_threads(const struct config *cfg, struct target *t)
{
	static char label[160];
	t->threads = true;
	t->no_aggr = cfg->per_thread;
	t->ncpus = 0;
	bool ok;
	if (cfg->pids) {
		ok = each_id(cfg->pids, "process", t, add_process);
		snprintf(label, sizeof label, "process id '%s'", cfg->pids);
	} else if (cfg->tids) {
		ok = each_id(cfg->tids, "thread", t, add_thread);
		snprintf(label, sizeof label, "thread id '%s'", cfg->tids);
	} else {
		ok = add_all(t);
		snprintf(label, sizeof label, "'system wide'");
	}
	t->label = label;
	return ok;
}

/* A thread that exists and has not exited: /proc/TID/stat says a state
 * other than Z (zombie) or X (dead). A zombie left unreaped by its
 * parent would otherwise keep the run going. */
static bool running(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *paren = strrchr(buf, ')');   /* the comm may hold anything */
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

bool threads_alive(const struct target *t)
{
	for (int k = 0; k < t->ncpus; k++)
		if (running(t->tid[k]))
			return true;
	return false;
}
