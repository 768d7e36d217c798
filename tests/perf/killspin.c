/*
 * killspin.c: an inherited event, and children killed while they spin,
 * never reaped until the end. Each round opens a page-fault counter with
 * inherit = 1 on this process, forks a child that spins forever (its copy
 * of the event with it), closes the counter, sends the child SIGKILL and
 * polls with waitid(WNOWAIT) until the child is reported killed by
 * SIGKILL, leaving it a zombie. At the end every child is reaped, each
 * exactly once, and the rounds per second of the guest's clock are
 * noted (not asserted: a loaded host stretches them).
 *
 *   killspin [ROUNDS]     (default 30; docs/bench.md says how
 *                          100,000 rounds fare)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

/* Poll until pid is reported killed (not reaping it); its si_status. */
static int poll_killed(pid_t pid)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		/* The raw call: libc-lite has no waitid wrapper. */
		if (syscall(__NR_waitid, P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT, NULL) < 0)
			return -1;
		if (si.si_pid == pid)
			return si.si_code == CLD_KILLED ? si.si_status : -2;
		sched_yield();
	}
}

/* One round; 0 when it went as it should. */
static int round_once(pid_t *out)
{
	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.inherit = 1;
	int fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0)
		for (;;)
			__asm__ volatile("" ::: "memory"); /* spin until killed */
	close(fd);
	if (pid < 0)
		return 2;
	*out = pid;
	if (kill(pid, SIGKILL) < 0)
		return 3;
	return poll_killed(pid) == SIGKILL ? 0 : 4;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 30;
	pid_t *pids = calloc((size_t)rounds, sizeof(pid_t));
	int bad = 0, first_bad = 0, done = 0;
	uint64_t t0 = now_ns();
	for (; done < rounds && pids; done++) {
		int r = round_once(&pids[done]);
		if (r && !bad++)
			first_bad = r;
		if (r == 1 || r == 2)
			break;
	}
	uint64_t t1 = now_ns();
	CHECK(pids && done == rounds && !bad,
	      "%d rounds of open inherited, fork a spinner, close, SIGKILL, poll "
	      "(%d went wrong, the first in step %d)", rounds, bad, first_bad);
	int reaped = 0, twice = 0;
	for (int i = 0; i < done; i++) {
		int st = 0;
		if (waitpid(pids[i], &st, 0) == pids[i] && WIFSIGNALED(st) &&
		    WTERMSIG(st) == SIGKILL)
			reaped++;
		if (waitpid(pids[i], &st, WNOHANG) != -1)
			twice++;
	}
	CHECK(reaped == done && twice == 0 && waitpid(-1, NULL, WNOHANG) == -1,
	      "every child reaped once, killed by SIGKILL (%d of %d)", reaped, done);
	if (t1 > t0)
		abi_note("%d rounds in %llu ms: %llu rounds/s", done,
			 (unsigned long long)((t1 - t0) / 1000000),
			 (unsigned long long)((uint64_t)done * 1000000000ull / (t1 - t0)));
	return abi_done("killspin");
}
