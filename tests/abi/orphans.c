/*
 * orphans.c [N]: ABI test of orphans and zombies. N processes (default
 * 300, in batches of 50; `orphans 10000` for the figure) are orphaned: their parent exits while they
 * wait on a pipe, so they are handed to init, then they exit. While this
 * program still runs, every one of them must be reaped and the memory
 * they held must come back (/proc/meminfo MemFree). A zombie's memory is
 * measured too (100 unreaped children).
 *
 * On baremon init is /bin/sh, which reaps the orphans it adopts. On the
 * host the sandbox's pid 1 reaps nothing (the orphans would stay zombies
 * for good), so there the program makes itself a child subreaper
 * (PR_SET_CHILD_SUBREAPER) and reaps what it adopts from a SIGCHLD
 * handler, as baremon's init does: the reparenting is Linux's either way.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "abi.h"

#define BATCH 50
#define ZOMBIES 100

static int on_baremon;

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* MemFree in KiB, -1 if unreadable. */
static long memfree_kb(void)
{
	char buf[4096];
	int fd = open("/proc/meminfo", O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strstr(buf, "MemFree:");
	return p ? strtol(p + 8, NULL, 10) : -1;
}

/* State letter and parent of pid from /proc/pid/stat; 0 if gone. */
static char proc_state(int pid, int *ppid)
{
	char path[64], buf[512];
	int fd;
	long n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	if (ppid)
		*ppid = (int)strtol(p + 4, NULL, 10);
	return p[2];
}

/* On the host only (see the top): reap adopted orphans. */
static void reap(int sig)
{
	int e = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = e;
}

/*
 * One batch: a middle process forks BATCH children that block reading
 * `gate`, reports their pids and exits; once it is reaped the children
 * are orphans; closing the gate lets them exit.
 */
static int orphan_batch(int *pids, int check_parent)
{
	int gate[2], report[2], n = 0;
	sigset_t chld, old;

	if (pipe(gate) || pipe(report))
		return -1;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);   /* reap() must not take mid */
	pid_t mid = fork();
	if (mid == 0) {
		close(gate[1]);
		close(report[0]);
		for (int i = 0; i < BATCH; i++) {
			pid_t c = fork();
			if (c == 0) {
				char x;
				while (read(gate[0], &x, 1) > 0)
					;
				_exit(0);
			}
			if (c < 0 || write(report[1], &c, sizeof(c)) != sizeof(c))
				_exit(1);
		}
		_exit(0);
	}
	close(gate[0]);
	close(report[1]);
	int st = -1;
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (n < BATCH && read(report[0], &pids[n], sizeof(int)) == sizeof(int))
		n++;
	close(report[0]);
	if (check_parent && n > 0) {
		int ppid = -1;
		char s = proc_state(pids[0], &ppid);
		CHECK(s && ppid != mid, "an orphan's parent is no longer the one that "
		      "exited (ppid %d, was %d)", ppid, mid);
	}
	close(gate[1]);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? n : -1;
}

static int count_zombies(const int *pids, int n)
{
	int z = 0;

	for (int i = 0; i < n; i++)
		z += proc_state(pids[i], NULL) == 'Z';
	return z;
}

/* Still in /proc: alive (not yet through the gate) or not yet reaped. */
static int count_present(const int *pids, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += proc_state(pids[i], NULL) != 0;
	return k;
}

static void test_orphans(int n)
{
	int *pids = calloc((size_t)n + BATCH, sizeof(int));
	int made = 0, ok = 1;
	long before = memfree_kb();
	long long t0 = now_ms();

	while (made < n && ok) {
		int got = orphan_batch(pids + made, made == 0);
		ok = got == BATCH;
		made += got > 0 ? got : 0;
	}
	long long t1 = now_ms();
	CHECK(ok && made >= n, "%d orphans made in %lld ms (%lld us each)", made,
	      t1 - t0, made ? (t1 - t0) * 1000 / made : 0);
	int left = 0;
	for (long long end = now_ms() + 30000; now_ms() < end;) {
		left = count_present(pids, made);
		if (!left)
			break;
		usleep(20000);
	}
	long long t2 = now_ms();
	CHECK(left == 0, "all exited and were reaped while we still run (%d left, "
	      "%d of them zombies, %lld ms after the last was made)", left,
	      count_zombies(pids, made), t2 - t1);
	long after = memfree_kb();
	abi_note("MemFree %ld KiB before, %ld KiB after", before, after);
	/* Allow 2 MiB of slack for caches (and other programs on the host). */
	if (on_baremon)
		CHECK(after >= before - 2048, "their memory came back (MemFree "
		      "%ld -> %ld KiB)", before, after);
	free(pids);
}

/* Fork n children that exit at once, leaving them unreaped. */
static int fork_zombies(int *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(0);
		if (pids[i] < 0)
			break;
	}
	return i;
}

/* What an exited, unreaped child holds, then gives back when reaped. */
static void test_zombie_memory(void)
{
	int pids[ZOMBIES], n, z = 0;
	sigset_t chld, old;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);   /* reap() must not take them */
	/* A first round grows the kernel heap to hold ZOMBIES tasks at
	 * once; the heap keeps those pages, so measure a second round. */
	n = fork_zombies(pids, ZOMBIES);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	long before = memfree_kb();
	n = fork_zombies(pids, ZOMBIES);
	for (long long end = now_ms() + 30000; now_ms() < end; usleep(10000))
		if ((z = count_zombies(pids, n)) == n)
			break;
	long held = memfree_kb();
	CHECK(z == ZOMBIES, "%d children are zombies until reaped", z);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	long after = memfree_kb();
	CHECK(count_zombies(pids, n) == 0, "reaped, they are gone");
	abi_note("a zombie holds %ld KiB (MemFree %ld -> %ld -> %ld KiB)",
		 n ? (before - held) / n : 0, before, held, after);
	if (on_baremon)
		CHECK(after >= before - 256, "reaping gives the memory back");
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int main(int argc, char **argv)
{
	struct utsname u;
	int n = argc > 1 ? atoi(argv[1]) : 300;

	on_baremon = uname(&u) == 0 && strstr(u.release, "baremon") != NULL;
	if (!on_baremon) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = reap;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGCHLD, &sa, NULL);
		CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0,
		      "host: a child subreaper stands in for init");
	}
	test_zombie_memory();
	test_orphans(n < BATCH ? BATCH : n);
	return abi_done("orphans");
}
