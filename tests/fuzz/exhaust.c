/*
 * exhaust.c: resource exhaustion (issue 11). Each part runs a resource
 * out and checks the errno Linux gives, then that everything comes back:
 *  - descriptors: perf events opened under RLIMIT_NOFILE 200 until
 *    EMFILE; after closing them one more opens;
 *  - churn: N (default 100000) opens and closes of an event, none fails,
 *    and the kernel's heap blocks come back (/proc/baremon/objects);
 *  - locked memory: as an unprivileged user, 17-page ring buffers mapped
 *    until EPERM (perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK);
 *    once they are unmapped one maps again;
 * and with --all (baremon only: never on a shared host):
 *  - memory: a child maps and touches 4 MiB pieces until mmap fails
 *    with ENOMEM or the kernel kills it (SIGKILL, as Linux's OOM killer
 *    would: before, baremon's fault with no page gave SIGSEGV); free
 *    memory comes back once it is reaped;
 *  - processes: children that wait on a pipe are forked until fork
 *    fails with EAGAIN or ENOMEM; all exit and are reaped, and free
 *    memory, the process count and the kernel heap's pages come back
 *    (the heap gives a page back once its blocks are all free).
 * Usage: exhaust [--all] [CHURN]. Last line "exhaust: N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "perf.h"

/* A page-fault sampler on this task, disabled, user mode only. */
static int open_event(void)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_period = 1000;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

/* A count from /proc/baremon/objects, or -1 (not baremon). */
static long object_count(const char *name)
{
	char buf[512], key[32];
	long v, found = -1;
	int fd = open("/proc/baremon/objects", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (sscanf(l, "%31s %ld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	return found;
}

/* Free memory in KiB. */
static long free_kb(void)
{
	struct sysinfo si;

	if (sysinfo(&si) != 0)
		return -1;
	return (long)(si.freeram * si.mem_unit / 1024);
}

/* The kernel heap keeps an empty page per size class, and a page stays
 * while any of its blocks is live: this many pages (256 KiB) more than
 * at the start is "back"; a block leaked per child, or a heap that keeps
 * its pages, is megabytes after thousands of children. */
#define HEAP_SLACK_PAGES 64

/* Wait up to 5 s for the heap's pages (/proc/baremon/objects) to be
 * back within HEAP_SLACK_PAGES of before; returns the count then. */
static long heap_pages_back(long before)
{
	long now = object_count("heap_pages");

	for (int i = 0; i < 50 && now > before + HEAP_SLACK_PAGES; i++) {
		usleep(100000);
		now = object_count("heap_pages");
	}
	return now;
}

/* Wait up to 5 s for free memory to be back within slack KiB of before. */
static long free_back(long before, long slack)
{
	long now = free_kb();

	for (int i = 0; i < 50 && now + slack < before; i++) {
		usleep(100000);
		now = free_kb();
	}
	return now;
}

static void descriptors(void)
{
	struct rlimit old, lim = { 200, 200 };
	static int fds[256];
	int n = 0, err = 0;

	getrlimit(RLIMIT_NOFILE, &old);
	if (!CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0, "RLIMIT_NOFILE 200"))
		return;
	for (; n < 256; n++) {
		fds[n] = open_event();
		if (fds[n] < 0) {
			err = errno;
			break;
		}
	}
	CHECK(n > 150 && n < 200 && err == EMFILE,
	      "events open until EMFILE below the limit (%d, then %s)", n, strerror(err));
	for (int i = 0; i < n; i++)
		close(fds[i]);
	int fd = open_event();
	CHECK(fd >= 0, "once they are closed an event opens again");
	close(fd);
	setrlimit(RLIMIT_NOFILE, &old);
}

static void churn(long rounds)
{
	long blocks = object_count("heap_blocks"), fails = 0;

	for (long i = 0; i < rounds; i++) {
		int fd = open_event();
		if (fd < 0)
			fails++;
		else
			close(fd);
	}
	CHECK(fails == 0, "%ld opens and closes of an event: %ld failed", rounds, fails);
	if (blocks >= 0) {
		long after = object_count("heap_blocks");
		CHECK(after <= blocks + 16, "the kernel's heap blocks come back (%ld, then %ld)",
		      blocks, after);
	}
}

/* In a child that is not root: ring buffers until EPERM. */
static int lock_child(void)
{
	static void *maps[512];
	static int fds[512];
	size_t len = 17 * 4096;
	int n = 0, err = 0;

	if (getuid() == 0 && setuid(65534) != 0)
		return 10;
	for (; n < 512; n++) {
		fds[n] = open_event();
		if (fds[n] < 0) {
			err = errno;
			break;
		}
		maps[n] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[n], 0);
		if (maps[n] == MAP_FAILED) {
			err = errno;
			close(fds[n]);
			break;
		}
	}
	printf("# %d ring buffers of 17 pages mapped, then %s\n", n, strerror(err));
	if (n == 0 || err != EPERM)
		return 11;
	for (int i = 0; i < n; i++) {
		munmap(maps[i], len);
		close(fds[i]);
	}
	int fd = open_event();
	void *p = fd >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	return p == MAP_FAILED ? 12 : 0;
}

static void locked_memory(void)
{
	int st = -1;

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(lock_child());
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 10, "a child gives up root");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 11,
	      "unprivileged ring buffers map until EPERM (the mlock limit)");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "unmapped, their charge is returned: one maps again (status %#x)", st);
}

static void memory(void)
{
	long before = free_kb();
	int st = -1;

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		size_t piece = 4 << 20;
		for (long mb = 0;; mb += 4) {
			char *p = mmap(NULL, piece, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				printf("# mmap failed after %ld MiB: %s\n", mb, strerror(errno));
				_exit(errno == ENOMEM ? 0 : 1);
			}
			for (size_t off = 0; off < piece; off += 4096)
				p[off] = 1;
		}
	}
	waitpid(pid, &st, 0);
	CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0) ||
	      (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL),
	      "memory runs out: mmap's ENOMEM or killed by SIGKILL (status %#x)", st);
	long after = free_back(before, 2048);
	CHECK(after + 2048 >= before, "free memory comes back (%ld KiB, then %ld KiB)",
	      before, after);
}

static void processes(void)
{
	long before = free_kb(), procs = object_count("processes");
	long heap = object_count("heap_pages");
	int pipefd[2], n = 0, err = 0;
	char c;

	if (pipe(pipefd) != 0)
		return;
	fflush(stdout);
	for (;; n++) {
		pid_t pid = fork();
		if (pid < 0) {
			err = errno;
			break;
		}
		if (pid == 0) {
			close(pipefd[1]);
			read(pipefd[0], &c, 1);   /* until the parent closes its end */
			_exit(0);
		}
		if (n > 100000)
			break;
	}
	printf("# %d children forked, then %s\n", n, strerror(err));
	CHECK(n > 0 && (err == EAGAIN || err == ENOMEM),
	      "fork fails with EAGAIN or ENOMEM when processes run out (%s)", strerror(err));
	close(pipefd[1]);
	int reaped = 0;
	while (wait(NULL) > 0)
		reaped++;
	close(pipefd[0]);
	CHECK(reaped == n, "every child exits and is reaped (%d of %d)", reaped, n);
	long after = free_back(before, 2048);
	CHECK(after + 2048 >= before, "free memory comes back (%ld KiB, then %ld KiB)",
	      before, after);
	if (heap >= 0) {
		long held = heap_pages_back(heap);
		CHECK(held <= heap + HEAP_SLACK_PAGES,
		      "the kernel heap gives its pages back (%ld KiB held, then %ld KiB)",
		      heap * 4, held * 4);
	}
	if (procs >= 0)
		CHECK(object_count("processes") <= procs, "the process count comes back");
	int fd = open_event();
	CHECK(fd >= 0, "and an event opens afterwards");
	close(fd);
}

int main(int argc, char **argv)
{
	int all = argc > 1 && !strcmp(argv[1], "--all");
	long rounds = argc > 1 + all ? strtol(argv[1 + all], NULL, 0) : 100000;

	setvbuf(stdout, NULL, _IONBF, 0);
	descriptors();
	churn(rounds);
	locked_memory();
	if (all) {
		memory();
		processes();
	}
	return abi_done("exhaust");
}
