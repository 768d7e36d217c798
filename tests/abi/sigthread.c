/*
 * sigthread.c: signals aimed at one thread of a process. A worker thread
 * (cloned by hand, as pthread_create does, touching no libc state of its
 * own) waits in FUTEX_WAIT; a pipe with O_ASYNC sends SIGIO to the
 * owner fcntl names:
 *   F_SETOWN(worker's tid)            the worker takes it (Linux sends a
 *                                     process signal that prefers the
 *                                     thread the number names); with the
 *                                     worker blocking SIGIO, the main
 *                                     thread does
 *   F_SETOWN_EX F_OWNER_TID worker    the worker
 *   F_SETOWN_EX F_OWNER_TID main      main; blocked there, it waits on
 *                                     main (the worker never takes it)
 *   F_SETOWN_EX F_OWNER_PID getpid()  with main blocking SIGIO: the worker
 *   F_GETOWN, F_GETOWN_EX             give back what was set, but for
 *                                     F_SETOWN(worker): no process has
 *                                     that pid, so 0 (Linux's pid_task
 *                                     check), type F_OWNER_PID
 * Then the pthread_join pattern: main waits in FUTEX_WAIT for the
 * worker's exit (CLONE_CHILD_CLEARTID) while the worker, on the same
 * CPU, spins and sends main SIGUSR1 with tgkill, over and over. Each
 * signal must be handled within a few ms of the worker's CPU time: the
 * woken main thread runs promptly, it does not wait for the spinning
 * worker's time slice to end (which made such signals arrive at 13/s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "abi.h"

#ifndef O_ASYNC
#define O_ASYNC FASYNC        /* the uapi's name (libc-lite) */
#endif

#define ROUNDS 20
#define MS 1000000LL

static volatile int worker_tid;   /* set at clone, cleared at exit */
static volatile int worker_ready, worker_stop, worker_cmd, worker_seq;
static volatile int handled_by, handled_count, handled_sigusr1;
static volatile long long latency_ns[ROUNDS];
static int main_tid, worker_mode;
static char worker_stack[64 * 1024] __attribute__((aligned(16)));

static long sys(long n, long a, long b, long c, long d)
{
	return syscall(n, a, b, c, d);
}

static int gettid_(void)
{
	return (int)sys(SYS_gettid, 0, 0, 0, 0);
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;
	sys(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, (long)&ts, 0, 0);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_sigio(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	handled_by = gettid_();
	handled_count++;
}

static void on_sigusr1(int sig)
{
	(void)sig;
	handled_sigusr1++;
}

/* Block or unblock SIGIO in the calling thread (raw: per thread). */
static void mask_sigio(int block)
{
	uint64_t set = 1ULL << (SIGIO - 1);
	sys(SYS_rt_sigprocmask, block ? SIG_BLOCK : SIG_UNBLOCK, (long)&set, 0, 8);
}

static void futex_wait(volatile int *word, int val)
{
	sys(SYS_futex, (long)word, FUTEX_WAIT, val, 0);
}

static void futex_wake(volatile int *word)
{
	sys(SYS_futex, (long)word, FUTEX_WAKE, 1, 0);
}

/* Mode 0: wait for commands (1 block SIGIO, 2 unblock, 3 exit). */
static int worker_commands(void)
{
	worker_ready = 1;
	for (;;) {
		int seq = worker_seq;
		if (worker_cmd == 1)
			mask_sigio(1);
		else if (worker_cmd == 2)
			mask_sigio(0);
		else if (worker_cmd == 3)
			return worker_cmd = 0;
		worker_cmd = 0;
		futex_wait(&worker_seq, seq);
	}
}

/* Mode 1: ROUNDS times, SIGUSR1 to main and spin until it was handled
 * (or 500 ms of our CPU time went by): how much CPU we used meanwhile. */
static int worker_signaller(void)
{
	for (int i = 0; i < ROUNDS; i++) {
		int before = handled_sigusr1;
		long long t0 = thread_cpu_ns(), t = t0;
		sys(SYS_tgkill, getpid(), main_tid, SIGUSR1, 0);
		while (handled_sigusr1 == before && t - t0 < 500 * MS)
			t = thread_cpu_ns();
		latency_ns[i] = t - t0;
	}
	return 0;
}

static int worker_main(void)
{
	return worker_mode ? worker_signaller() : worker_commands();
}

/* pthread_create's clone: the new thread runs worker_main on its own
 * stack and exits with its value. The kernel sets worker_tid to its tid
 * and clears it when it exits. Returns the tid. */
static long start_worker(void)
{
	long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		     CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
		     CLONE_CHILD_CLEARTID;
	register long r10 __asm__("r10") = (long)&worker_tid;
	register long r8 __asm__("r8") = 0;
	long ret = SYS_clone;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "call *%%rbx\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "+a"(ret)
			 : "D"(flags), "S"(worker_stack + sizeof(worker_stack)),
			   "d"(&worker_tid), "r"(r10), "r"(r8), "b"(worker_main),
			   [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	return ret;
}

/* pthread_join: wait until the kernel cleared worker_tid. */
static void join_worker(void)
{
	int t;
	while ((t = worker_tid) != 0)
		futex_wait(&worker_tid, t);
}

static void command(int cmd)
{
	worker_cmd = cmd;
	worker_seq++;
	futex_wake(&worker_seq);
	for (int i = 0; i < 2000 && worker_cmd; i++)
		usleep(1000);
}

/* Make the pipe's reader ready: SIGIO goes to its owner. Who handled
 * it, waiting up to ms milliseconds (0: nobody). */
static int fire_wait(int p[2], int ms)
{
	char buf[8];
	handled_by = 0;
	int before = handled_count;
	if (write(p[1], "x", 1) != 1)
		return -1;
	for (int i = 0; i < ms && handled_count == before; i++)
		usleep(1000);
	if (read(p[0], buf, sizeof(buf)) < 0)
		return -1;
	return handled_count == before ? 0 : handled_by;
}

static int fire(int p[2])
{
	return fire_wait(p, 2000);
}

static int setown_ex(int fd, int type, int pid)
{
	struct f_owner_ex ex = { 0, pid };
	ex.type = type;
	return fcntl(fd, F_SETOWN_EX, &ex);
}

static int getown_ex_is(int fd, int type, int pid)
{
	struct f_owner_ex ex = { 0, -1 };
	int r = fcntl(fd, F_GETOWN_EX, &ex);
	if (r != 0 || (int)ex.type != type || ex.pid != pid)
		abi_note("F_GETOWN_EX: %d, type %d pid %d (want %d %d)", r,
		         (int)ex.type, ex.pid, type, pid);
	return r == 0 && (int)ex.type == type && ex.pid == pid;
}

static void test_owners(void)
{
	int p[2], w;

	if (!CHECK(pipe(p) == 0, "a pipe"))
		return;
	worker_mode = 0;
	w = (int)start_worker();
	if (!CHECK(w > 0 && worker_tid == w, "a worker thread (tid %d)", w))
		return;
	while (!worker_ready)
		usleep(1000);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC | O_NONBLOCK);

	CHECK(fcntl(p[0], F_SETOWN, w) == 0 && getown_ex_is(p[0], F_OWNER_PID, 0) &&
	      fcntl(p[0], F_GETOWN) == 0,
	      "F_SETOWN(worker): F_GETOWN 0, F_GETOWN_EX F_OWNER_PID 0 (no such process)");
	int by = fire(p);
	CHECK(by == w, "F_SETOWN(worker): the worker takes SIGIO (tid %d, want %d)", by, w);
	command(1);
	by = fire(p);
	CHECK(by == main_tid, "F_SETOWN(worker), the worker blocking SIGIO: main "
	      "takes it (tid %d, want %d)", by, main_tid);
	command(2);

	CHECK(setown_ex(p[0], F_OWNER_TID, w) == 0 && getown_ex_is(p[0], F_OWNER_TID, w),
	      "F_SETOWN_EX F_OWNER_TID worker: F_GETOWN_EX gives it back");
	CHECK(fcntl(p[0], F_GETOWN) == w, "F_GETOWN gives the worker's tid");
	by = fire(p);
	CHECK(by == w, "F_OWNER_TID worker: the worker takes SIGIO (tid %d)", by);

	CHECK(setown_ex(p[0], F_OWNER_TID, main_tid) == 0, "F_SETOWN_EX F_OWNER_TID main");
	by = fire(p);
	CHECK(by == main_tid, "F_OWNER_TID main: main takes SIGIO (tid %d)", by);
	mask_sigio(1);
	by = fire_wait(p, 100);
	sigset_t pending;
	sigemptyset(&pending);
	sigpending(&pending);
	CHECK(by == 0 && sigismember(&pending, SIGIO),
	      "F_OWNER_TID main, main blocking SIGIO: pending on main, the "
	      "worker does not take it (tid %d)", by);
	handled_by = 0;
	mask_sigio(0);
	CHECK(handled_by == main_tid, "unblocked: main takes it (tid %d)", handled_by);

	mask_sigio(1);
	CHECK(setown_ex(p[0], F_OWNER_PID, getpid()) == 0 &&
	      getown_ex_is(p[0], F_OWNER_PID, getpid()), "F_SETOWN_EX F_OWNER_PID getpid()");
	by = fire(p);
	CHECK(by == w, "F_OWNER_PID, main blocking SIGIO: the worker takes it (tid %d)", by);
	mask_sigio(0);

	CHECK(setown_ex(p[0], F_OWNER_PGRP, getpgrp()) == 0 &&
	      getown_ex_is(p[0], F_OWNER_PGRP, getpgrp()),
	      "F_SETOWN_EX F_OWNER_PGRP: F_GETOWN_EX gives it back");
	fcntl(p[0], F_SETOWN, 0);
	command(3);
	join_worker();
	close(p[0]);
	close(p[1]);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* Both threads on main's CPU: the worker's signals reach main blocked
 * in its join. */
static void test_join_signals(void)
{
	cpu_set_t one;
	unsigned cpu = 0;
	long long sorted[ROUNDS];

	sys(SYS_getcpu, (long)&cpu, 0, 0, 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0, "pinned to CPU %u", cpu);
	worker_mode = 1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!CHECK(start_worker() > 0, "a signalling worker on the same CPU"))
		return;
	join_worker();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long long wall = (t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec;
	for (int i = 0; i < ROUNDS; i++)
		sorted[i] = latency_ns[i];
	qsort(sorted, ROUNDS, sizeof(sorted[0]), cmp_ll);
	abi_note("%d signals in %lld ms of wall time: %lld/s; worker CPU time "
	         "until handled: median %lld us, max %lld us", handled_sigusr1,
	         wall / MS, wall ? handled_sigusr1 * 1000000000LL / wall : 0,
	         sorted[ROUNDS / 2] / 1000, sorted[ROUNDS - 1] / 1000);
	CHECK(handled_sigusr1 == ROUNDS, "main, blocked in the join, took all %d "
	      "signals (%d)", ROUNDS, handled_sigusr1);
	CHECK(sorted[ROUNDS / 2] < 10 * MS, "each within a few ms of the spinning "
	      "worker's CPU time: median %lld us (under 10 ms)", sorted[ROUNDS / 2] / 1000);
}

int main(void)
{
	struct sigaction sa;

	main_tid = gettid_();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigio;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGIO, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	test_owners();
	test_join_signals();
	return abi_done("sigthread");
}
