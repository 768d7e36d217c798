/*
 * ptrace.c: ABI test of ptrace(2), strace-style. A traced child's
 * system calls are followed entry and exit (PTRACE_SYSCALL with
 * TRACESYSGOOD) and must be exactly the ones it makes; the tracer reads
 * and writes its memory (PEEK/POKE DATA, TEXT, USER) and registers
 * (GETREGS/SETREGS change a call's result), follows a fork (TRACEFORK,
 * GETEVENTMSG, the new child's SIGSTOP), an exec and an exit (TRACEEXEC,
 * TRACEEXIT), picks the signal a tracee gets (signal-delivery-stop),
 * seizes, interrupts and single-steps a running child, and kills a
 * tracee by exiting (EXITKILL). Errnos: ESRCH (no such task, not
 * stopped, not ours), EPERM (self, already traced, another uid), EIO
 * (bad address), EFAULT (bad data pointer).
 *
 * Requests go through syscall(SYS_ptrace) so that every libc behaves
 * the same (PEEK* store the word at `data`, as the system call does).
 * Run with argument "exit9" it only exits 9 (the exec test's program).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <asm/ptrace.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include "abi.h"

#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif

/* <sys/user.h>'s user_regs_struct (libc-lite has no sys/user.h). */
struct regs {
	struct pt_regs r;
	unsigned long fs_base, gs_base, ds, es, fs, gs;
};

static long pt(long req, pid_t pid, unsigned long addr, unsigned long data)
{
	return syscall(SYS_ptrace, req, pid, addr, data);
}

static int wait_for(pid_t pid)
{
	int st = -1;
	if (waitpid(pid, &st, __WALL) != pid)
		return -1;
	return st;
}

static int stopped_by(int st, int sig)
{
	return WIFSTOPPED(st) && WSTOPSIG(st) == sig;
}

static int event_of(int st)
{
	return WIFSTOPPED(st) ? (st >> 16) & 0xff : -1;
}

static volatile long magic = 0x1122334455667788L;

/* The child followed system call by system call. */
static void syscall_child(void)
{
	pt(PTRACE_TRACEME, 0, 0, 0);
	syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
	syscall(SYS_getpid);
	long pp = syscall(SYS_getppid);
	long u = syscall(SYS_getuid);
	int code = (pp == 777 ? 1 : 0) | (u == 4242 ? 2 : 0) |
		   (magic == 0x55 ? 4 : 0);
	syscall(SYS_exit_group, code);
}

static void test_syscalls(void)
{
	pid_t c = fork();
	if (c == 0)
		syscall_child();
	int st = wait_for(c);
	CHECK(stopped_by(st, SIGSTOP), "TRACEME child stops with SIGSTOP (%#x)", st);
	long word = 0;
	CHECK(pt(PTRACE_PEEKDATA, c, (unsigned long)&magic, (unsigned long)&word) == 0 &&
	      word == 0x1122334455667788L, "PEEKDATA reads the child's variable");
	CHECK(pt(PTRACE_POKEDATA, c, (unsigned long)&magic, 0x55) == 0,
	      "POKEDATA writes it");
	long text = 0, mine;
	memcpy(&mine, (void *)syscall_child, sizeof(mine));
	CHECK(pt(PTRACE_PEEKTEXT, c, (unsigned long)syscall_child,
		 (unsigned long)&text) == 0 && text == mine, "PEEKTEXT reads its code");
	CHECK_ERR(pt(PTRACE_PEEKDATA, c, 0, (unsigned long)&word), EIO,
		  "PEEKDATA at address 0");
	CHECK_ERR(pt(PTRACE_POKEDATA, c, 8, 0), EIO, "POKEDATA at address 8");
	CHECK_ERR(pt(PTRACE_PEEKDATA, c, (unsigned long)&magic, 8), EFAULT,
		  "PEEKDATA into a bad data pointer");
	CHECK_ERR(pt(PTRACE_GETREGS, c, 0, 16), EFAULT, "GETREGS into a bad pointer");
	CHECK_ERR(pt(PTRACE_PEEKUSR, c, 3, (unsigned long)&word), EIO,
		  "PEEKUSER at a misaligned offset");
	CHECK(pt(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL) == 0,
	      "SETOPTIONS TRACESYSGOOD|EXITKILL");
	CHECK_ERR(pt(PTRACE_SETOPTIONS, c, 0, 1u << 30), EINVAL, "SETOPTIONS unknown bit");

	long seen[16], want[] = { SYS_getpid, SYS_getppid, SYS_getuid, SYS_exit_group };
	int n = 0, entry = 1, bad_stops = 0, siginfo_ok = 0, orig_ok = 0;
	long getpid_ret = 0;
	for (;;) {
		if (pt(PTRACE_SYSCALL, c, 0, 0) != 0)
			break;
		st = wait_for(c);
		if (!WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			bad_stops++;
			continue;
		}
		struct regs r;
		if (pt(PTRACE_GETREGS, c, 0, (unsigned long)&r) != 0)
			break;
		long nr = (long)r.r.orig_rax;
		if (entry && n < 16) {
			seen[n++] = nr;
			printf("# child syscall %ld\n", nr);
			long orig = -1;
			pt(PTRACE_PEEKUSR, c, offsetof(struct pt_regs, orig_rax), (unsigned long)&orig);
			orig_ok += orig == nr && (long)r.r.rax == -ENOSYS;
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			if (pt(PTRACE_GETSIGINFO, c, 0, (unsigned long)&si) == 0 &&
			    si.si_signo == SIGTRAP && si.si_code == (SIGTRAP | 0x80))
				siginfo_ok++;
		} else if (!entry) {
			if (nr == SYS_getpid)
				getpid_ret = (long)r.r.rax;
			if (nr == SYS_getppid)
				pt(PTRACE_POKEUSR, c, offsetof(struct pt_regs, rax), 777);
			if (nr == SYS_getuid) {
				r.r.rax = 4242;
				pt(PTRACE_SETREGS, c, 0, (unsigned long)&r);
			}
		}
		entry = !entry;
	}
	CHECK(n == 4 && memcmp(seen, want, sizeof(want)) == 0,
	      "the child's system calls: getpid, getppid, getuid, exit_group (%d)", n);
	CHECK(bad_stops == 0, "every stop was a syscall stop (%d others)", bad_stops);
	CHECK(siginfo_ok == n && n > 0, "GETSIGINFO at entry stops: SIGTRAP|0x80");
	CHECK(orig_ok == n && n > 0, "PEEKUSER orig_rax is the call, rax -ENOSYS");
	CHECK(getpid_ret == c, "getpid's result at its exit stop (%ld)", getpid_ret);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7,
	      "POKEUSER, SETREGS and POKEDATA reached the child (exit %d)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	CHECK_ERR(pt(PTRACE_CONT, c, 0, 0), ESRCH, "CONT after it exited");
}

static void forking_child(void)
{
	pt(PTRACE_TRACEME, 0, 0, 0);
	raise(SIGSTOP);
	pid_t g = fork();
	if (g == 0)
		_exit(5);
	int st = 0;
	while (waitpid(g, &st, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) + 10 : 1);
}

static void test_fork_follow(void)
{
	pid_t c = fork();
	if (c == 0)
		forking_child();
	int st = wait_for(c);
	CHECK(stopped_by(st, SIGSTOP), "forking child stopped");
	pt(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACEFORK);
	pt(PTRACE_CONT, c, 0, 0);
	st = wait_for(c);
	CHECK(stopped_by(st, SIGTRAP) && event_of(st) == PTRACE_EVENT_FORK,
	      "PTRACE_EVENT_FORK stop (%#x)", st);
	unsigned long msg = 0;
	CHECK(pt(PTRACE_GETEVENTMSG, c, 0, (unsigned long)&msg) == 0 && msg > 0,
	      "GETEVENTMSG: the new pid %lu", msg);
	pid_t g = (pid_t)msg;
	st = wait_for(g);
	CHECK(stopped_by(st, SIGSTOP), "the grandchild is traced, stopped by SIGSTOP (%#x)", st);
	long word = 0;
	CHECK(pt(PTRACE_PEEKDATA, g, (unsigned long)&magic, (unsigned long)&word) == 0,
	      "and its memory is ours to read");
	CHECK(pt(PTRACE_DETACH, g, 0, 0) == 0, "DETACH the grandchild");
	pt(PTRACE_CONT, c, 0, 0);
	int sigchld_stops = 0;
	for (;;) {
		st = wait_for(c);
		if (!WIFSTOPPED(st))
			break;
		sigchld_stops += WSTOPSIG(st) == SIGCHLD;
		pt(PTRACE_CONT, c, 0, WSTOPSIG(st));
	}
	CHECK(sigchld_stops == 1, "SIGCHLD (ignored) still stops the tracee (%d)",
	      sigchld_stops);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 15, "the child reaped the grandchild (%d)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void test_exec_exit(void)
{
	char self[256];
	long len = syscall(SYS_readlink, "/proc/self/exe", self, sizeof(self) - 1);
	if (!CHECK(len > 0, "readlink /proc/self/exe"))
		return;
	self[len] = 0;
	pid_t c = fork();
	if (c == 0) {
		char *argv[] = { self, "exit9", NULL };
		char *envp[] = { NULL };
		pt(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execve(self, argv, envp);
		_exit(99);
	}
	int st = wait_for(c);
	pt(PTRACE_SETOPTIONS, c, 0, PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT);
	pt(PTRACE_CONT, c, 0, 0);
	st = wait_for(c);
	unsigned long msg = 0;
	pt(PTRACE_GETEVENTMSG, c, 0, (unsigned long)&msg);
	CHECK(event_of(st) == PTRACE_EVENT_EXEC && msg == (unsigned long)c,
	      "PTRACE_EVENT_EXEC stop, message the pid (%#x, %lu)", st, msg);
	pt(PTRACE_CONT, c, 0, 0);
	st = wait_for(c);
	pt(PTRACE_GETEVENTMSG, c, 0, (unsigned long)&msg);
	CHECK(event_of(st) == PTRACE_EVENT_EXIT && msg == (9 << 8),
	      "PTRACE_EVENT_EXIT stop, message the status (%#x, %#lx)", st, msg);
	pt(PTRACE_CONT, c, 0, 0);
	st = wait_for(c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9, "then it exits 9");
}

/* The classic pattern of perf's own tests: TRACEME, exec, and the
 * tracer finds the new program stopped by SIGTRAP before it runs. */
static void test_exec_sigtrap(void)
{
	char self[256];
	long len = syscall(SYS_readlink, "/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return;
	self[len] = 0;
	pid_t c = fork();
	if (c == 0) {
		char *argv[] = { self, "exit9", NULL };
		char *envp[] = { NULL };
		pt(PTRACE_TRACEME, 0, 0, 0);
		execve(self, argv, envp);
		_exit(99);
	}
	int st = wait_for(c);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	pt(PTRACE_GETSIGINFO, c, 0, (unsigned long)&si);
	CHECK(stopped_by(st, SIGTRAP) && event_of(st) == 0 && si.si_code == SI_USER,
	      "exec without TRACEEXEC: a SIGTRAP stop (%#x, code %d)", st, si.si_code);
	struct regs r;
	pt(PTRACE_GETREGS, c, 0, (unsigned long)&r);
	CHECK(r.r.rax == 0 && r.r.orig_rax == SYS_execve,
	      "execve returned 0 (orig_rax %ld)", (long)r.r.orig_rax);
	pt(PTRACE_CONT, c, 0, 0);
	st = wait_for(c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9, "the new program runs to its exit");
}

static void on_usr(int sig)
{
	_exit(sig == SIGUSR1 ? 21 : 22);
}

static void test_attach_signals(void)
{
	int ready[2];
	char b;
	if (!CHECK(pipe(ready) == 0, "pipe"))
		return;
	pid_t c = fork();
	if (c == 0) {
		signal(SIGUSR1, on_usr);
		signal(SIGUSR2, on_usr);
		write(ready[1], "r", 1);
		for (;;)
			pause();
	}
	CHECK(read(ready[0], &b, 1) == 1, "the child has its handlers");
	close(ready[0]);
	close(ready[1]);
	CHECK(pt(PTRACE_ATTACH, c, 0, 0) == 0, "ATTACH to a child");
	CHECK_ERR(pt(PTRACE_ATTACH, c, 0, 0), EPERM, "ATTACH again");
	int st = wait_for(c);
	CHECK(stopped_by(st, SIGSTOP), "it stops with SIGSTOP (%#x)", st);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	CHECK(pt(PTRACE_GETSIGINFO, c, 0, (unsigned long)&si) == 0 &&
	      si.si_signo == SIGSTOP, "GETSIGINFO: SIGSTOP (%d)", si.si_signo);
	unsigned char fx[512];
	CHECK(pt(PTRACE_GETFPREGS, c, 0, (unsigned long)fx) == 0, "GETFPREGS");
	uint32_t mxcsr;
	memcpy(&mxcsr, fx + 24, sizeof(mxcsr));
	CHECK((mxcsr & 0xffff) == 0x1f80, "its MXCSR is the default (%#x)", mxcsr);
	pt(PTRACE_CONT, c, 0, 0);
	kill(c, SIGUSR1);
	st = wait_for(c);
	CHECK(stopped_by(st, SIGUSR1), "signal-delivery-stop for SIGUSR1 (%#x)", st);
	pt(PTRACE_CONT, c, 0, SIGUSR2);
	st = wait_for(c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 22,
	      "the tracer turned it into SIGUSR2 (%#x)", st);
}

static volatile unsigned long spins;

static void on_alarm(int sig)
{
	(void)sig; /* only interrupts a wait that would hang */
}

static long open_insns(pid_t pid)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
}

static void test_seize_step(void)
{
	pid_t c = fork();
	if (c == 0)
		for (;;)
			spins++;
	CHECK(pt(PTRACE_SEIZE, c, 0, PTRACE_O_EXITKILL) == 0, "SEIZE a running child");
	long word;
	CHECK_ERR(pt(PTRACE_PEEKDATA, c, (unsigned long)&spins, (unsigned long)&word),
		  ESRCH, "PEEKDATA while it runs");
	CHECK_ERR(pt(PTRACE_INTERRUPT, getpid(), 0, 0), ESRCH, "INTERRUPT an untraced task");
	/* Counting its user instructions: on baremon's vpmu that single-steps
	 * it too, and a traced step must still stop. */
	long fd = open_insns(c);
	if (fd < 0)
		abi_note("no instructions counter here (errno %d): steps without one", errno);
	CHECK(pt(PTRACE_INTERRUPT, c, 0, 0) == 0, "INTERRUPT");
	int st = wait_for(c);
	CHECK(stopped_by(st, SIGTRAP) && event_of(st) == PTRACE_EVENT_STOP,
	      "PTRACE_EVENT_STOP (%#x)", st);
	struct regs r0, r;
	memset(&r, 0, sizeof(r));
	pt(PTRACE_GETREGS, c, 0, (unsigned long)&r0);
	int steps = 0, moved = 0, traced = 0;
	/* A step that never stops fails here rather than hanging. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(60);
	for (int i = 0; i < 5; i++) {
		if (pt(PTRACE_SINGLESTEP, c, 0, 0) != 0)
			break;
		st = wait_for(c);
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		pt(PTRACE_GETSIGINFO, c, 0, (unsigned long)&si);
		steps += stopped_by(st, SIGTRAP);
		traced += si.si_code == TRAP_TRACE;
		pt(PTRACE_GETREGS, c, 0, (unsigned long)&r);
		moved += r.r.rip != r0.r.rip;
		r0 = r;
	}
	alarm(0);
	CHECK(steps == 5 && traced == 5 && moved == 5,
	      "five SINGLESTEPs: five SIGTRAP (TRAP_TRACE) stops, rip moves each time "
	      "(%d %d %d)", steps, traced, moved);
	CHECK((r.r.eflags & 0x100) == 0, "the trap flag is not the program's");
	if (fd >= 0) {
		uint64_t count = 0;
		long got = read((int)fd, &count, sizeof(count));
		CHECK(got == sizeof(count) && count > 0,
		      "the instructions counter counted meanwhile (%llu)",
		      (unsigned long long)count);
		close((int)fd);
	}
	CHECK(pt(PTRACE_KILL, c, 0, 0) == 0, "KILL");
	st = wait_for(c);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "it dies by SIGKILL (%#x)", st);
}

static void test_exitkill(void)
{
	int p[2];
	if (!CHECK(pipe(p) == 0, "pipe"))
		return;
	pid_t tracer = fork();
	if (tracer == 0) {
		close(p[0]);
		pid_t c = fork();
		if (c == 0) {
			pt(PTRACE_TRACEME, 0, 0, 0);
			raise(SIGSTOP);
			for (;;)
				pause();
		}
		close(p[1]);
		int st = wait_for(c);
		pt(PTRACE_SETOPTIONS, c, 0, PTRACE_O_EXITKILL);
		pt(PTRACE_CONT, c, 0, 0);
		_exit(stopped_by(st, SIGSTOP) ? 0 : 1);
	}
	close(p[1]);
	int st = wait_for(tracer);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the tracer exits");
	struct pollfd pf = { p[0], POLLIN, 0 };
	char b;
	CHECK(poll(&pf, 1, 20000) == 1 && read(p[0], &b, 1) == 0,
	      "EXITKILL: its tracee died with it (the pipe it held is closed)");
	close(p[0]);
}

static void test_access(void)
{
	CHECK_ERR(pt(PTRACE_PEEKDATA, 999999, 0, 0), ESRCH, "a pid that does not exist");
	CHECK_ERR(pt(PTRACE_ATTACH, getpid(), 0, 0), EPERM, "ATTACH to ourselves");
	pid_t c = fork();
	if (c == 0) {
		for (;;)
			pause();
	}
	CHECK_ERR(pt(PTRACE_CONT, c, 0, 0), ESRCH, "CONT a child we do not trace");
	CHECK_ERR(pt(PTRACE_SEIZE, c, 0, 1u << 30), EIO, "SEIZE with unknown options");
	kill(c, SIGKILL);
	wait_for(c);
	if (geteuid() != 0) {
		abi_note("not root: the other-uid check needs setuid");
		return;
	}
	pid_t parent = getpid();
	c = fork();
	if (c == 0) {
		if (setuid(65534) != 0)
			_exit(2);
		errno = 0;
		long r = pt(PTRACE_ATTACH, parent, 0, 0);
		_exit(r == -1 && errno == EPERM ? 0 : 1);
	}
	int st = wait_for(c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "another uid may not ATTACH to us: EPERM");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exit9") == 0)
		return 9;
	test_access();
	test_syscalls();
	test_fork_follow();
	test_exec_exit();
	test_exec_sigtrap();
	test_attach_signals();
	test_seize_step();
	test_exitkill();
	return abi_done("ptrace");
}
