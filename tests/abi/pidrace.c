/*
 * pidrace.c: ABI test of the system calls that name a task by pid while
 * that task exits and is reaped. A hammer process calls them on the
 * parent's newest child, again and again, while the parent forks
 * children that exit at once and reaps them, ROUNDS times. Each call
 * must succeed with the right answer or fail with ESRCH (or ENOENT for
 * opening /proc/PID/stat), as on Linux.
 *
 * On several CPUs this is a race in the kernel: the call looks the task
 * up, and the task may be reaped (freed) before the call has used it.
 * baremon once kept no hold on the task found there, and read freed
 * memory (getpgid, getsid, /proc/PID/stat) or wrote it
 * (sched_setaffinity). tests/qemu/abi.sh also runs this with the window
 * between lookup and use stretched (task_find_spin, docs/cmdline.md).
 * With one CPU the calls rarely meet an exit; it still passes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

#define ROUNDS 300
#define PASSES 30       /* over each child's calls */
#define PRIO_PROCESS_ 0
#define RLIMIT_NOFILE_ 7

struct rlim { uint64_t cur, max; };

/* Shared between the parent and the hammer. */
struct shared {
	volatile int target;         /* the newest child, 0 before the first */
	volatile int stop;
	volatile long calls, found, gone;
	volatile int bad;            /* a wrong answer: what, and what came */
	char what[96];
};

static struct shared *sh;
static int my_pgid, my_sid;
static struct rlim my_nofile;
static cpu_set_t my_cpus;

/* Record r (with errno) from call `what` on pid: fine if ok, or if it
 * failed with the errno `gone_errno` (the task is no more). */
static void note(const char *what, int pid, long r, int ok, int gone_errno)
{
	int e = errno;
	sh->calls++;
	if (r != -1 && ok) {
		sh->found++;
		return;
	}
	if (r == -1 && e == gone_errno) {
		sh->gone++;
		return;
	}
	if (!sh->bad++)
		snprintf(sh->what, sizeof(sh->what), "%s(%d): %ld, errno %d",
			 what, pid, r, r == -1 ? e : 0);
}

static void ids(int pid)
{
	long r;
	errno = 0;
	r = syscall(SYS_getpgid, pid);
	note("getpgid", pid, r, r == my_pgid, ESRCH);
	r = syscall(SYS_getsid, pid);
	note("getsid", pid, r, r == my_sid, ESRCH);
}

static void affinity(int pid)
{
	cpu_set_t m;
	CPU_ZERO(&m);
	long r = syscall(SYS_sched_getaffinity, pid, sizeof(m), &m);
	note("sched_getaffinity", pid, r, r > 0 && CPU_COUNT(&m) > 0, ESRCH);
	r = syscall(SYS_sched_setaffinity, pid, sizeof(my_cpus), &my_cpus);
	note("sched_setaffinity", pid, r, r == 0, ESRCH);
}

/* The raw getpriority gives 20 - nice: 20 for nice 0. */
static void priority(int pid)
{
	long r = syscall(SYS_getpriority, PRIO_PROCESS_, pid);
	note("getpriority", pid, r, r == 20, ESRCH);
	r = syscall(SYS_setpriority, PRIO_PROCESS_, pid, 0);
	note("setpriority", pid, r, r == 0, ESRCH);
}

static void limits(int pid)
{
	struct rlim old = { 0, 0 };
	long r = syscall(SYS_prlimit64, pid, RLIMIT_NOFILE_, NULL, &old);
	note("prlimit64 get", pid, r,
	     r == 0 && old.cur == my_nofile.cur && old.max == my_nofile.max, ESRCH);
	r = syscall(SYS_prlimit64, pid, RLIMIT_NOFILE_, &my_nofile, NULL);
	note("prlimit64 set", pid, r, r == 0, ESRCH);
}

static void pidfd(int pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);
	note("pidfd_open", pid, fd, fd >= 0, ESRCH);
	if (fd < 0)
		return;
	struct pollfd p = { (int)fd, POLLIN, 0 };
	long r = poll(&p, 1, 0);
	note("poll(pidfd)", pid, r, r == 0 || (r == 1 && (p.revents & POLLIN)), -2);
	close((int)fd);
}

/* /proc/PID/stat: it starts "PID (". Linux reads ESRCH once the task
 * is gone after the open; baremon made the text at the open. */
static void proc_stat(int pid)
{
	char path[32], buf[512], want[16];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY);
	/* Linux: ENOENT at the lookup of PID, ESRCH if gone after it */
	note("open /proc/PID/stat", pid, fd, fd >= 0, errno == ESRCH ? ESRCH : ENOENT);
	if (fd < 0)
		return;
	long n = read(fd, buf, sizeof(buf) - 1);
	int len = snprintf(want, sizeof(want), "%d (", pid);
	note("read /proc/PID/stat", pid, n, n > len && memcmp(buf, want, (size_t)len) == 0,
	     ESRCH);
	close(fd);
}

static void robust_list(int pid)
{
	uint64_t head = 0, len = 0;
	long r = syscall(SYS_get_robust_list, pid, &head, &len);
	note("get_robust_list", pid, r, r == 0 && len == 24, ESRCH);
}

/* The hammer: every call on the newest child, PASSES times, then it
 * yields until there is a newer one (so that with one CPU the parent
 * and its children get to run), until told to stop. */
static void __attribute__((noreturn)) hammer(void)
{
	int last = 0, passes = 0;
	while (!sh->stop) {
		int pid = sh->target;
		if (pid != last) {
			last = pid;
			passes = 0;
		}
		if (!pid || passes++ >= PASSES) {
			sched_yield();
			continue;
		}
		ids(pid);
		affinity(pid);
		priority(pid);
		limits(pid);
		pidfd(pid);
		proc_stat(pid);
		robust_list(pid);
	}
	_exit(0);
}

int main(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED, "a shared page");
	if (sh == MAP_FAILED)
		return abi_done("pidrace");
	my_pgid = (int)syscall(SYS_getpgid, 0);
	my_sid = (int)syscall(SYS_getsid, 0);
	CHECK(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE_, NULL, &my_nofile) == 0,
	      "prlimit64 reads our RLIMIT_NOFILE");
	CHECK(sched_getaffinity(0, sizeof(my_cpus), &my_cpus) == 0,
	      "sched_getaffinity names our CPUs");

	pid_t h = fork();
	if (h == 0)
		hammer();
	int reaped = 0;
	for (int i = 0; i < ROUNDS && h > 0; i++) {
		int status;
		pid_t pid = fork();
		if (pid == 0)
			syscall(SYS_exit_group, 0);
		if (pid < 0)
			break;
		sh->target = pid;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
			reaped++;
	}
	sh->stop = 1;
	int hs = -1;
	if (h > 0)
		waitpid(h, &hs, 0);
	CHECK(WIFEXITED(hs) && WEXITSTATUS(hs) == 0,
	      "the hammer exits normally (status %#x)", hs);
	CHECK(reaped == ROUNDS, "%d children reaped (%d)", ROUNDS, reaped);
	CHECK(sh->bad == 0, "every call succeeds or fails with ESRCH (%d wrong%s%s)",
	      sh->bad, sh->bad ? ", first " : "", sh->bad ? sh->what : "");
	abi_note("%ld calls: %ld found the child, %ld found it gone",
		 sh->calls, sh->found, sh->gone);
	CHECK(sh->calls > 0, "the hammer made calls");
	return abi_done("pidrace");
}
