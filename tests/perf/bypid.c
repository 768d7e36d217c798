/*
 * bypid.c: perf_event_open on another process by its pid, as the target
 * lives, dies and is reaped.
 *
 * - An event opened on a live child counts its work, and still reads
 *   (frozen) after the child exits.
 * - A zombie's pid is ESRCH (Linux: the task is exiting), and so is a
 *   reaped one's.
 * - Children that exit at once, opened on by pid as they go, 300 times:
 *   each open succeeds or is ESRCH, nothing else; every event still
 *   reads and closes (the opener holds the target while it attaches).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

#define RACES 300

static uint64_t read_count(int fd)
{
	uint64_t v = 0;
	return read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? v : (uint64_t)-1;
}

static void live_then_zombie(void)
{
	int go[2];
	if (pipe(go) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (volatile unsigned long i = 0; i < 20000000ul; i++)
			;
		_exit(0);
	}
	close(go[0]);
	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int fd = perf_open(&a, pid, -1, -1, 0);
	CHECK(fd >= 0, "open task-clock on a live child by its pid");
	if (write(go[1], "x", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	syscall(__NR_waitid, P_PID, pid, &si, WEXITED | WNOWAIT, NULL);
	uint64_t v = fd >= 0 ? read_count(fd) : 0;
	CHECK(v > 0 && v != (uint64_t)-1, "the exited child's event reads its count (%llu ns)",
	      (unsigned long long)v);
	CHECK_ERR(perf_open(&a, pid, -1, -1, 0), ESRCH, "open by a zombie's pid");
	waitpid(pid, NULL, 0);
	CHECK_ERR(perf_open(&a, pid, -1, -1, 0), ESRCH, "open by a reaped child's pid");
	if (fd >= 0)
		close(fd);
}

static void open_as_they_go(void)
{
	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	int opened = 0, gone = 0, other = 0, unread = 0;
	for (int i = 0; i < RACES; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			break;
		int fd = perf_open(&a, pid, -1, -1, 0);
		if (fd >= 0) {
			opened++;
			waitpid(pid, NULL, 0);
			unread += read_count(fd) == (uint64_t)-1;
			close(fd);
			continue;
		}
		if (errno == ESRCH)
			gone++;
		else
			other++;
		waitpid(pid, NULL, 0);
	}
	CHECK(opened + gone == RACES && other == 0 && unread == 0,
	      "%d children opened on by pid as they exit: each open works or is "
	      "ESRCH (%d opened, %d ESRCH, %d other errors, %d unreadable)",
	      RACES, opened, gone, other, unread);
}

int main(void)
{
	live_then_zombie();
	open_as_they_go();
	return abi_done("bypid");
}
