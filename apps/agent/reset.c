/*
 * A fresh machine for each host command (agent --serve, docs/host.md
 * "The warm target"): between two sessions the agent ends every process
 * but itself and its ancestors (what a command left behind, however it
 * detached), empties /tmp and writes back each /proc/sys/kernel value a
 * command changed. reset_snapshot runs once at start, before any
 * command; reset_machine after each session. Both run between sessions
 * only, so nothing else of the agent's is in flight.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "agent.h"

#define SYSCTL_DIR "/proc/sys/kernel"
#define SYSCTL_MAX 32
#define SYSCTL_VALUE 64
#define KEEP_MAX 16
#define GONE_WAIT_MS 2000

/* The boot's value of each writable file of SYSCTL_DIR. */
static struct {
	char name[64];
	char value[SYSCTL_VALUE];
	size_t len;
} sysctl[SYSCTL_MAX];
static int nsysctl;

/* A file's first bytes into buf (NUL-terminated); their count or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

void reset_snapshot(void)
{
	DIR *d = opendir(SYSCTL_DIR);
	struct dirent *e;
	while (d && (e = readdir(d)) && nsysctl < SYSCTL_MAX) {
		char path[128];
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(sysctl[0].name))
			continue;
		snprintf(path, sizeof(path), SYSCTL_DIR "/%s", e->d_name);
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0200))
			continue;
		ssize_t n = read_small(path, sysctl[nsysctl].value, SYSCTL_VALUE);
		if (n <= 0)
			continue;
		snprintf(sysctl[nsysctl].name, sizeof(sysctl[0].name), "%s", e->d_name);
		sysctl[nsysctl++].len = (size_t)n;
	}
	if (d)
		closedir(d);
}

/* Write back each value that differs from the boot's; the failures. */
static int restore_sysctls(void)
{
	int bad = 0;
	for (int i = 0; i < nsysctl; i++) {
		char path[128], now[SYSCTL_VALUE];
		snprintf(path, sizeof(path), SYSCTL_DIR "/%s", sysctl[i].name);
		if (read_small(path, now, sizeof(now)) == (ssize_t)sysctl[i].len &&
		    memcmp(now, sysctl[i].value, sysctl[i].len) == 0)
			continue;
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, sysctl[i].value, sysctl[i].len) != (ssize_t)sysctl[i].len) {
			fprintf(stderr, "agent: cannot restore %s: %s\n", path, strerror(errno));
			bad++;
		}
		if (fd >= 0)
			close(fd);
	}
	return bad;
}

/* Our pid and our ancestors' (the session's shell, init): kept. */
static int keep_list(pid_t *keep)
{
	int n = 0;
	for (pid_t p = getpid(); p > 0 && n < KEEP_MAX; ) {
		keep[n++] = p;
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			break;
		/* "pid (comm) state ppid ..." */
		char *close_paren = strrchr(buf, ')');
		p = close_paren ? (pid_t)strtol(close_paren + 3, NULL, 10) : 0;
	}
	return n;
}

static bool kept(pid_t pid, const pid_t *keep, int nkeep)
{
	for (int i = 0; i < nkeep; i++)
		if (keep[i] == pid)
			return true;
	return false;
}

/* Linux's PF_KTHREAD in /proc/PID/stat's flags (the 9th field): a
 * kernel thread, which no signal ends. */
#define PF_KTHREAD 0x00200000UL

static bool kernel_thread(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	char *p = strrchr(buf, ')');
	if (!p)
		return false;
	p += 2;   /* the state */
	for (int field = 3; field < 9 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p && (strtoul(p, NULL, 10) & PF_KTHREAD);
}

/* SIGKILL every process not kept (when kill is true); how many remain,
 * zombies included (their parents have not reaped them yet). */
static int others(const pid_t *keep, int nkeep, bool kill_them)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		if (kept(pid, keep, nkeep) || kernel_thread(pid))
			continue;
		if (kill_them)
			kill(pid, SIGKILL);
		n++;
	}
	closedir(d);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* End every process not kept and wait until /proc no longer lists
 * them (their parent, the shell, reaps the orphans); the survivors. */
static int end_processes(void)
{
	pid_t keep[KEEP_MAX];
	int nkeep = keep_list(keep);
	if (others(keep, nkeep, true) == 0)
		return 0;
	int left = 0;
	for (uint64_t end = now_ms() + GONE_WAIT_MS; now_ms() < end; sleep_ms(10))
		if ((left = others(keep, nkeep, false)) == 0)
			return 0;
	if (others(keep, nkeep, true))
		fprintf(stderr, "agent: %d process(es) outlived SIGKILL\n", left);
	return left;
}

/* rm -rf of what dir holds (dir itself stays), one pass: the entries
 * seen (a pass that removes while it reads may miss some: call again
 * until it sees none). */
static int empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int seen = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct stat st;
		seen++;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			for (int pass = 0; pass < 4 && empty_dir(path); pass++)
				;
			rmdir(path);
		} else {
			unlink(path);
		}
	}
	closedir(d);
	return seen;
}

int reset_machine(void)
{
	int bad = end_processes();
	int files = 1;
	for (int pass = 0; pass < 5 && files; pass++)
		files = empty_dir("/tmp");   /* the last pass sees none */
	if (files)
		fprintf(stderr, "agent: %d entries of /tmp could not be removed\n", files);
	return bad + files + restore_sysctls();
}
