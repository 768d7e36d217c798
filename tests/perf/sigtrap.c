/*
 * sigtrap.c: attr.sigtrap, a synchronous SIGTRAP to the task whose event
 * overflowed. The open rules (remove_on_exec needed, a task needed);
 * the siginfo: si_code TRAP_PERF, si_perf_data = attr.sig_data,
 * si_perf_type = attr.type, si_addr the occurrence's data address (the
 * faulting address for a page fault, bp_addr for a breakpoint, 0 when
 * the event has none), si_perf_flags 0 when delivered at once and
 * TRAP_PERF_FLAG_ASYNC when SIGTRAP was blocked; the signal arrives
 * before the next user instruction runs (a watchpoint's handler sees
 * the program between the watched write and the next statement); one
 * signal per overflow; none after the event is disabled.
 *
 * musl and glibc have no si_perf_* names: the fields are read through
 * the uapi layout of the _sigfault member (struct trap_info below).
 * The breakpoint checks need a host that delivers breakpoint hits
 * (perf.h's probe): where none are, they are skipped and it says so.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "perf.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#ifndef TRAP_PERF_FLAG_ASYNC
#define TRAP_PERF_FLAG_ASYNC 1u
#endif

#define SIG_DATA 0xfeedface12345678ULL

/* x86-64 siginfo with si_code TRAP_PERF (<asm-generic/siginfo.h>). */
struct trap_info {
	int signo, errno_, code, pad;
	void *addr;
	unsigned long perf_data;
	uint32_t perf_type, perf_flags;
};

static volatile int traps, stage, stage_seen;
static struct trap_info last;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	memcpy(&last, si, sizeof(last));
	stage_seen = stage;
	traps++;
}

static void catch_trap(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
}

static void reset(void)
{
	traps = stage = stage_seen = 0;
	memset(&last, 0, sizeof(last));
}

static void sigtrap_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	perf_attr(a, type, config);
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = SIG_DATA;
}

static void open_rules(void)
{
	struct perf_event_attr a;
	int fd;

	sigtrap_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.remove_on_exec = 0;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "sigtrap without remove_on_exec");
	sigtrap_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_ERR(perf_open(&a, -1, 0, -1, 0), EINVAL, "sigtrap on a CPU event (no task)");
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "sigtrap with remove_on_exec on the calling task opens");
	close(fd);
}

/* A fresh page: its first write faults at exactly p + off. */
static volatile char *fresh_page(void)
{
	volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void page_faults(void)
{
	struct perf_event_attr a;
	volatile char *p[4];
	int fd;

	for (int i = 0; i < 4; i++)
		p[i] = fresh_page();
	sigtrap_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_type = PERF_SAMPLE_IP; /* no PERF_SAMPLE_ADDR: si_addr all the same */
	reset();
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "open a sigtrap page-fault event (period 1)");
	stage = 1;
	p[0][123] = 1;
	stage = 2;
	CHECK(traps == 1, "one SIGTRAP for one page fault (got %d)", traps);
	CHECK(stage_seen == 1, "delivered before the next statement (stage %d)", stage_seen);
	CHECK(last.signo == SIGTRAP && last.code == TRAP_PERF,
	      "si_signo SIGTRAP, si_code TRAP_PERF (got %d, %d)", last.signo, last.code);
	CHECK(last.addr == (void *)(p[0] + 123), "si_addr is the faulting address (got %p, want %p)",
	      last.addr, (void *)(p[0] + 123));
	CHECK(last.perf_data == SIG_DATA, "si_perf_data is attr.sig_data (got %#lx)", last.perf_data);
	CHECK(last.perf_type == PERF_TYPE_SOFTWARE, "si_perf_type is attr.type (got %u)", last.perf_type);
	CHECK(last.perf_flags == 0, "si_perf_flags 0: synchronous (got %u)", last.perf_flags);

	p[1][0] = 1;
	p[1][1] = 1; /* no new fault */
	CHECK(traps == 2, "one SIGTRAP per overflow (got %d)", traps);

	/* Blocked: it waits, and says it came asynchronously. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigprocmask(SIG_BLOCK, &set, &old);
	p[2][8] = 1;
	CHECK(traps == 2, "blocked SIGTRAP waits");
	sigprocmask(SIG_SETMASK, &old, NULL);
	CHECK(traps == 3 && last.perf_flags == TRAP_PERF_FLAG_ASYNC && last.addr == (void *)(p[2] + 8),
	      "unblocked: delivered with TRAP_PERF_FLAG_ASYNC (got %d, flags %u)", traps, last.perf_flags);

	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	p[3][0] = 1;
	CHECK(traps == 3, "no SIGTRAP once disabled (got %d)", traps);
	close(fd);
}

/* A software event without a data address: si_addr 0. */
static void context_switches(void)
{
	struct perf_event_attr a;
	int fd;

	sigtrap_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	a.exclude_kernel = 0;
	a.sig_data = 42;
	reset();
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "open a sigtrap context-switch event");
	/* A sleep whose time is up before the task gets to sleep (a loaded
	 * host, an emulated CPU) does not switch: sleep until one does. */
	for (int i = 0; i < 100 && !traps; i++)
		sleep_ns(1000000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	CHECK(traps >= 1, "sleeping switches out: SIGTRAP (got %d)", traps);
	CHECK(last.code == TRAP_PERF && last.addr == NULL && last.perf_data == 42 &&
	      last.perf_type == PERF_TYPE_SOFTWARE,
	      "context switch: TRAP_PERF, si_addr 0, sig_data 42 (got %d, %p, %lu)",
	      last.code, last.addr, last.perf_data);
	close(fd);
}

static volatile uint64_t watched __attribute__((aligned(8)));

__attribute__((noinline)) static void target_fn(void)
{
	__asm__ volatile("");
}
static void (*volatile call_target)(void) = target_fn;

static void breakpoints(void)
{
	struct perf_event_attr a;
	int fd;

	sigtrap_attr(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&watched;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_type = PERF_SAMPLE_ADDR;
	a.sig_data = 7;
	reset();
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "open a sigtrap write watchpoint");
	stage = 1;
	watched = 5;
	stage = 2;
	watched = 6;
	stage = 3;
	CHECK_HIT(traps == 2, "one SIGTRAP per watched write (got %d)", traps);
	CHECK_HIT(stage_seen == 2, "the handler runs right after the write (stage %d)", stage_seen);
	CHECK_HIT(last.code == TRAP_PERF && last.addr == (void *)&watched && last.perf_data == 7 &&
	      last.perf_type == PERF_TYPE_BREAKPOINT && last.perf_flags == 0,
	      "watchpoint: TRAP_PERF, si_addr bp_addr, sig_data, type BREAKPOINT (got %d, %p, %lu, %u, %u)",
	      last.code, last.addr, last.perf_data, last.perf_type, last.perf_flags);
	close(fd);

	sigtrap_attr(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uint64_t)(uintptr_t)target_fn;
	a.bp_len = sizeof(long);
	a.sample_type = PERF_SAMPLE_IP; /* si_addr is bp_addr all the same */
	reset();
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "open a sigtrap execute breakpoint");
	for (int i = 0; i < 3; i++)
		call_target();
	CHECK_HIT(traps == 3, "one SIGTRAP per call (got %d)", traps);
	CHECK_HIT(last.code == TRAP_PERF && last.addr == (void *)target_fn &&
	      last.perf_type == PERF_TYPE_BREAKPOINT && last.perf_data == SIG_DATA,
	      "execute: TRAP_PERF, si_addr the function (got %d, %p)", last.code, last.addr);
	close(fd);
}

/* An inherited copy signals the child it counts. */
static void inherited(void)
{
	struct perf_event_attr a;
	int fd, st = -1;
	pid_t child;

	sigtrap_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.inherit = 1;
	a.sig_data = 99;
	reset();
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "open an inherited sigtrap page-fault event");
	child = fork();
	if (child == 0) {
		volatile char *p = fresh_page();
		reset();
		p[5] = 1;
		_exit(traps == 1 && last.code == TRAP_PERF && last.perf_data == 99 &&
		      last.addr == (void *)(p + 5) ? 0 : 1);
	}
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child gets its own SIGTRAP with the parent's sig_data (status %#x)", st);
	close(fd);
}

/* Fault in, before any event counts, the pages the checks use later
 * (printf's tables, the handler, the signal frame's stack): a lazily
 * loaded page of the program is a page fault of its own. */
static void warm_up(void)
{
	sigset_t set, old;

	raise(SIGTRAP);
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigprocmask(SIG_BLOCK, &set, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	abi_note("warm-up: %d %u %lu %#lx %p %s", traps, 1u, 2ul, 3ul, (void *)&last, "ok");
	reset();
}

int main(void)
{
	catch_trap();
	bp_hits_checked();
	warm_up();
	open_rules();
	page_faults();
	context_switches();
	breakpoints();
	inherited();
	return abi_done("sigtrap");
}
