/*
 * killloop.c: a signal ends a kernel loop whose length the user chose,
 * here a readv of /dev/zero of almost 2 GiB (the most Linux moves in one
 * call). Linux's /dev/zero checks for a signal after every page.
 *
 * - A periodic SIGALRM (no SA_RESTART) cuts the read short: a count
 *   between 0 and the whole, in whole pages, the handler having run.
 * - SIGKILL ends it: the first and last segments are pages of a shared
 *   mapping filled with 0xff, the ones between one private 2 MiB buffer
 *   over and over. The parent waits until the child's read has zeroed
 *   the first page, kills it and reaps it; the last page must still be
 *   0xff: the read stopped at the kill instead of running to its end.
 *   A parent that waits for a CPU longer than the whole read takes (on
 *   a loaded host) could see it finish: three tries, one must stop.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

#define PAGE 4096
#define SEG (2u << 20)
#define NSEG 1022 /* with two marker pages: under Linux's MAX_RW_COUNT */
#define TRIES 3

static struct iovec iov[NSEG + 2];
static char *priv;
static volatile unsigned char *marks; /* two shared pages: start, end */
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* iov: [start page] [priv x NSEG] [end page], or priv alone if !marked. */
static int build_iov(int marked)
{
	int n = 0;
	if (marked)
		iov[n++] = (struct iovec){ (void *)marks, PAGE };
	for (int i = 0; i < NSEG; i++)
		iov[n++] = (struct iovec){ priv, SEG };
	if (marked)
		iov[n++] = (struct iovec){ (void *)(marks + PAGE), PAGE };
	return n;
}

static size_t iov_total(int n)
{
	size_t t = 0;
	for (int i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

static void alarm_cuts_read(int zero)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	int n = build_iov(0);
	size_t total = iov_total(n);
	/* Every 5 ms: one lands inside the read even if the first comes
	 * before it starts. */
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } }, off;
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &it, NULL);
	ssize_t r = readv(zero, iov, n);
	setitimer(ITIMER_REAL, &off, NULL);
	CHECK(r > 0 && (size_t)r < total && r % PAGE == 0 && alarms > 0,
	      "SIGALRM cuts a %zu-byte readv of /dev/zero short, in whole pages "
	      "(got %zd, %d alarms)", total, r, (int)alarms);
	signal(SIGALRM, SIG_DFL);
}

/* One try: 1 if the killed child's read stopped before its last page. */
static int kill_stops_read(int zero, int *killed)
{
	memset((void *)marks, 0xff, 2 * PAGE);
	int n = build_iov(1);
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			readv(zero, iov, n);
	}
	if (pid < 0)
		return 0;
	while (marks[0] != 0)
		sched_yield(); /* its read has begun */
	kill(pid, SIGKILL);
	int st = 0;
	waitpid(pid, &st, 0);
	*killed = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
	return marks[PAGE] == 0xff && marks[2 * PAGE - 1] == 0xff;
}

int main(void)
{
	int zero = open("/dev/zero", O_RDONLY);
	priv = mmap(NULL, SEG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	marks = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(zero >= 0 && priv != MAP_FAILED && marks != MAP_FAILED,
		   "open /dev/zero, map the buffers"))
		return abi_done("killloop");
	memset(priv, 1, SEG);
	alarm_cuts_read(zero);
	int stopped = 0, killed = 1, tries = 0;
	while (!stopped && tries++ < TRIES) {
		int k = 0;
		stopped = kill_stops_read(zero, &k);
		killed &= k;
	}
	CHECK(stopped && killed,
	      "SIGKILL ends a readv of /dev/zero before its last page "
	      "(%d of %d tries ran to the end; killed by SIGKILL: %s)",
	      tries - stopped, tries, killed ? "yes" : "no");
	return abi_done("killloop");
}
