/*
 * bench [CPU]: instruction counts of basic operations, the figures in
 * DESIGN.md's reference table. Run under QEMU -icount shift=0 (make
 * bench), where RDTSC advances one tick per guest instruction, so each
 * delta is an exact instruction count. Median of 201 runs; pinned to CPU
 * (default 1, isolated by make bench) so nothing else runs there.
 *
 * perf_event_open costs: read() of a counting task-clock fd, the ENABLE,
 * RESET and DISABLE ioctls, perf_event_open + close, perf_event_open
 * alone (fds closed outside the timed part), the context switch
 * with 4 counting software events on each of the two tasks, and a ring
 * buffer's poll() wake-up.
 *
 * Processes: fork+exit+wait, and fork+exec of a 1 MiB static program
 * (big1m, in the initrd). Self-monitoring: an RDPMC read through the
 * control page. `bench CPU calls` skips the sampling figures, `bench
 * CPU sample` runs them alone, `bench CPU pmi` the PMI sample alone,
 * `bench CPU switch` the context-switch figures alone (the third: with a
 * user call-stack LBR event on each task, whose stack every switch
 * saves and puts back), `bench CPU perf` getppid, the perf fd's read,
 * ioctls and open and the RDPMC read alone, `bench CPU proc`
 * fork+exit+wait and fork+exec alone, `bench CPU clock` getppid and the clocks:
 * clock_gettime(CLOCK_MONOTONIC) through musl (the vDSO where there is
 * one) and as the system call.
 *
 * Hardware sampling: what one PMI sample costs, from the overflow
 * interrupt to the PERF_RECORD_SAMPLE in the ring: a loop timed with a
 * user-only cycles event sampling every 100,000 cycles, less the same
 * loop with the event only counting, over the samples written. The loop
 * calls getppid every 1,000 iterations (both times alike), so the vpmu
 * sees each wrap within a few thousand instructions however its wrap
 * timer is driven; what differs is the PMI path alone.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include <linux/perf_event.h>
#include "interrupts.h"
#include "rdpmc.h"

#define RUNS 201
#define SWITCHES 1000

static uint64_t t[RUNS];

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void sort(void)
{
	qsort(t, RUNS, sizeof t[0], cmp);
}

static uint64_t median_of(uint64_t *v)
{
	qsort(v, RUNS, sizeof v[0], cmp);
	return v[RUNS / 2];
}

/* A counting software event on the calling thread; -1 on failure. */
static int perf_sw(uint64_t config, int disabled)
{
	struct perf_event_attr a = { 0 };
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.disabled = disabled;
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		perror("perf_event_open");
	return fd;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof set, &set);
	sched_yield();
}

static void bench_getppid(void)
{
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		getppid();
		t[i] = __rdtsc() - a;
	}
	sort();
	printf("getppid round trip: %llu\n", (unsigned long long)t[RUNS / 2]);
}

/* clock_gettime as a program calls it (musl takes the vDSO's
 * __vdso_clock_gettime when AT_SYSINFO_EHDR gives one) and as the
 * system call itself. */
static void bench_clock(void)
{
	struct timespec ts;
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t[i] = __rdtsc() - a;
	}
	sort();
	printf("clock_gettime (vDSO): %llu\n", (unsigned long long)t[RUNS / 2]);
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
		t[i] = __rdtsc() - a;
	}
	sort();
	printf("clock_gettime system call: %llu\n", (unsigned long long)t[RUNS / 2]);
}

static void bench_fork(void)
{
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
		t[i] = __rdtsc() - a;
	}
	sort();
	printf("fork+exit+wait: %llu\n", (unsigned long long)t[RUNS / 2]);
}

/* fork, then exec of a static program of a little over 1 MiB (big1m),
 * which exits at once; the parent waits. Fewer runs: each is long. */
#define EXEC_RUNS 21

static void bench_exec(void)
{
	static uint64_t e[EXEC_RUNS];
	char *argv[] = { "big1m", NULL }, *envp[] = { NULL };
	for (int i = 0; i < EXEC_RUNS; i++) {
		int status = -1;
		uint64_t a = __rdtsc();
		pid_t p = fork();
		if (p == 0) {
			execve("/bin/big1m", argv, envp);
			_exit(127);
		}
		waitpid(p, &status, 0);
		e[i] = __rdtsc() - a;
		if (status != 0) {
			printf("fork+exec of a 1 MiB static program: failed (status %#x)\n",
			       status);
			return;
		}
	}
	qsort(e, EXEC_RUNS, sizeof e[0], cmp);
	printf("fork+exec of a 1 MiB static program+exit+wait: %llu\n",
	       (unsigned long long)e[EXEC_RUNS / 2]);
}

/*
 * A self-monitoring read of a user-only instructions counter. Under TCG
 * the vpmu emulates RDPMC (a trap per read), so the time per read is the
 * emulated one, not hardware's. The counter itself gives what hardware
 * would run: two reads back to back differ by the user-mode
 * instructions of one read (the emulation runs in the kernel, which the
 * event excludes).
 */
static void bench_rdpmc(void)
{
	struct perf_event_attr a = { 0 };
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("rdpmc self-monitoring read: no cpu PMU\n");
		return;
	}
	struct perf_event_mmap_page *pc = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		perror("mmap");
		close(fd);
		return;
	}
	if (!pc->cap_user_rdpmc || !pc->index) {
		printf("rdpmc self-monitoring read: the control page offers no RDPMC\n");
		munmap(pc, 4096);
		close(fd);
		return;
	}
	volatile uint64_t sink = 0;
	for (int i = 0; i < RUNS; i++) {
		uint64_t a0 = __rdtsc();
		sink += perf_self_read(pc, NULL);
		t[i] = __rdtsc() - a0;
	}
	sort();
	printf("rdpmc self-monitoring read (control page, emulated under TCG): %llu\n",
	       (unsigned long long)t[RUNS / 2]);
	for (int i = 0; i < RUNS; i++) {
		uint64_t c0 = perf_self_read(pc, NULL);
		uint64_t c1 = perf_self_read(pc, NULL);
		t[i] = c1 - c0;
	}
	sort();
	printf("rdpmc self-monitoring read, user instructions per read (as hardware runs it): %llu\n",
	       (unsigned long long)t[RUNS / 2]);
	(void)sink;
	munmap(pc, 4096);
	close(fd);
}

static void bench_perf_read(void)
{
	int fd = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 0);
	uint64_t v;
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		if (read(fd, &v, sizeof v) != sizeof v)
			perror("read");
		t[i] = __rdtsc() - a;
	}
	close(fd);
	sort();
	printf("read() of a task-clock counting fd: %llu\n",
	       (unsigned long long)t[RUNS / 2]);
}

/* ENABLE on a disabled task-clock event, RESET and DISABLE on an
 * enabled one. */
static void bench_perf_ioctl(void)
{
	static uint64_t reset[RUNS], off[RUNS];
	int fd = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 1);
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		uint64_t b = __rdtsc();
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		uint64_t c = __rdtsc();
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		uint64_t d = __rdtsc();
		t[i] = b - a;
		reset[i] = c - b;
		off[i] = d - c;
	}
	close(fd);
	printf("ioctl(PERF_EVENT_IOC_ENABLE): %llu\n",
	       (unsigned long long)median_of(t));
	printf("ioctl(PERF_EVENT_IOC_RESET): %llu\n",
	       (unsigned long long)median_of(reset));
	printf("ioctl(PERF_EVENT_IOC_DISABLE): %llu\n",
	       (unsigned long long)median_of(off));
}

static void bench_perf_open(void)
{
	static uint64_t open_only[RUNS];
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		int fd = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 0);
		uint64_t b = __rdtsc();
		close(fd);
		t[i] = __rdtsc() - a;
		open_only[i] = b - a;
	}
	printf("perf_event_open+close (task-clock): %llu (open alone %llu)\n",
	       (unsigned long long)median_of(t),
	       (unsigned long long)median_of(open_only));
}

/* perf_event_open() alone: OPEN_BATCH fds opened one after another, each
 * open timed, then all closed outside the timed part. A batch stays
 * within the kernel's object caches (32 freed objects per size), so
 * every open but a batch's first few finds its memory cached, as a
 * program reopening its events does. */
#define OPEN_BATCH 16
static void bench_perf_open_alone(void)
{
	int fd[OPEN_BATCH];
	for (int i = 0; i < RUNS;) {
		int n = 0;
		for (; n < OPEN_BATCH && i < RUNS; n++, i++) {
			uint64_t a = __rdtsc();
			fd[n] = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 0);
			t[i] = __rdtsc() - a;
		}
		while (n--)
			close(fd[n]);
	}
	sort();
	printf("perf_event_open() alone: %llu\n", (unsigned long long)t[RUNS / 2]);
}

/*
 * Two threads on one CPU hand the CPU back and forth with sched_yield,
 * each with `events` counting software events of its own.
 */
static volatile int stop, ready;

static const uint64_t switch_events[4] = {
	PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CPU_CLOCK,
};

/* bench_switch's `events` for one instructions:u event per task with
 * a user call-stack branch stack (perf record --call-graph lbr's), its
 * period too long to sample: what a switch costs it is the LBR layer's
 * save and restore of the stack. */
#define CALL_STACK_EVENT (-1)

static int open_call_stack(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS, .sample_period = 1ULL << 40,
		.sample_type = PERF_SAMPLE_BRANCH_STACK, .exclude_kernel = 1, .exclude_hv = 1,
		.branch_sample_type = PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER,
	};
	return (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

static void open_events(int *fd, int n)
{
	if (n == CALL_STACK_EVENT)
		fd[0] = open_call_stack();
	for (int i = 0; i < n; i++)
		fd[i] = perf_sw(switch_events[i], 0);
}

static void close_events(int *fd, int n)
{
	for (int i = 0; i < (n == CALL_STACK_EVENT ? 1 : n); i++)
		close(fd[i]);
}

static void *yielder(void *arg)
{
	int n = (int)(long)arg, fd[4];
	open_events(fd, n);
	ready = 1;
	while (!stop)
		sched_yield();
	close_events(fd, n);
	return arg;
}

static void bench_switch(int events)
{
	pthread_t other;
	int fd[4];
	stop = ready = 0;
	/* The new thread inherits our affinity: both share the CPU. */
	pthread_create(&other, NULL, yielder, (void *)(long)events);
	open_events(fd, events);
	while (!ready)
		sched_yield();
	/* fewer with the LBR event: the vpmu steps the user code it records */
	int lbr = events == CALL_STACK_EVENT, runs = lbr ? 21 : RUNS;
	int switches = lbr ? 100 : SWITCHES;
	for (int i = 0; i < runs; i++) {
		uint64_t a = __rdtsc();
		for (int k = 0; k < switches; k++)
			sched_yield();
		t[i] = (__rdtsc() - a) / (2 * (uint64_t)switches);
	}
	stop = 1;
	pthread_join(other, NULL);
	close_events(fd, events);
	qsort(t, (size_t)runs, sizeof t[0], cmp);
	if (lbr)
		printf("context switch with a call-stack LBR event per task (yield ping-pong, "
		       "per switch): %llu%s\n", (unsigned long long)t[runs / 2],
		       fd[0] < 0 ? " (no LBR: not opened)" : "");
	else if (events)
		printf("context switch with %d events per task (yield ping-pong, "
		       "per switch): %llu\n", events,
		       (unsigned long long)t[RUNS / 2]);
	else
		printf("context switch (yield ping-pong, per switch): %llu\n",
		       (unsigned long long)t[RUNS / 2]);
}

/*
 * A ring buffer's wake-up: a thread blocked in poll() on a dummy event
 * with comm records and a watermark of 1 byte; the other thread, on the
 * same CPU, renames itself (one COMM record: the buffer wakes its
 * pollers) and yields. Measured: from before the rename to poll()'s
 * return in the waiting thread (the record, the wake-up, one switch).
 * For scale, the same with a pipe: a 1-byte write() wakes the poller.
 */
static volatile int poll_waiting, poll_done, poll_wakes;
static volatile uint64_t poll_woke;
static int poll_fd, poll_pipe;  /* what the poller waits on; a pipe? */

static void *poller(void *arg)
{
	(void)arg;
	struct pollfd p = { .fd = poll_fd, .events = POLLIN };
	struct perf_event_mmap_page *meta = NULL;
	char c;
	if (!poll_pipe)
		meta = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, p.fd, 0);
	if (meta == MAP_FAILED) {
		perror("mmap");
		poll_done = 1;
		return NULL;
	}
	for (int i = 0; i < RUNS; i++) {
		poll_waiting = 1;
		poll(&p, 1, -1);
		poll_woke = __rdtsc();
		if (meta)
			meta->data_tail = meta->data_head; /* every record read */
		else if (read(p.fd, &c, 1) != 1)
			perror("read");
		poll_waiting = 0;
		poll_wakes++;
	}
	poll_done = 1;
	return NULL;
}

static void bench_poll_wakeup(int use_pipe)
{
	struct perf_event_attr a = { 0 };
	int pfd[2];
	pthread_t other;
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.comm = a.watermark = 1;
	a.wakeup_watermark = 1;
	a.exclude_kernel = 1;
	poll_pipe = use_pipe;
	if (use_pipe && pipe(pfd) == 0)
		poll_fd = pfd[0];
	else if (use_pipe || (poll_fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0)) < 0) {
		perror(use_pipe ? "pipe" : "perf_event_open");
		return;
	}
	poll_done = poll_wakes = poll_waiting = 0;
	pthread_create(&other, NULL, poller, NULL);
	for (int i = 0; i < RUNS && !poll_done; i++) {
		while (!poll_waiting && !poll_done)
			sched_yield();
		sched_yield(); /* the poller is asleep in poll() now */
		uint64_t start = __rdtsc();
		if (use_pipe) {
			if (write(pfd[1], "x", 1) != 1)
				perror("write");
		} else {
			prctl(PR_SET_NAME, i & 1 ? "bench1" : "bench2", 0, 0, 0);
		}
		while (poll_wakes == i && !poll_done)
			sched_yield();
		t[i] = poll_woke - start;
	}
	pthread_join(other, NULL);
	close(poll_fd);
	if (use_pipe)
		close(pfd[1]);
	sort();
	if (use_pipe)
		printf("poll() wake-up by a pipe write (write, wake, switch): %llu\n",
		       (unsigned long long)t[RUNS / 2]);
	else
		printf("poll() wake-up by a COMM record (rename, record, wake, switch): %llu\n",
		       (unsigned long long)t[RUNS / 2]);
}

static void bench_loop(int cpu)
{
	long irq_before = interrupts_on(cpu);
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		for (volatile int k = 0; k < 100000; k++)
			;
		t[i] = __rdtsc() - a;
	}
	sort();
	int above = 0;
	for (int i = 0; i < RUNS; i++)
		above += t[i] > t[0];
	long irqs = interrupts_on(cpu) - irq_before;
	printf("100k-iteration loop: min %llu max %llu spread %llu (%d of %d runs above min, "
	       "%ld interrupts on cpu %d)\n",
	       (unsigned long long)t[0], (unsigned long long)t[RUNS - 1],
	       (unsigned long long)(t[RUNS - 1] - t[0]), above, RUNS, irqs, cpu);
}

#define PMI_PERIOD 100000
#define PMI_LOOP 500      /* x 1,000 iterations and a getppid: ~4M instructions */
#define PMI_PAGES 64

/* Whether `cpu` is in the cpu list at `path` ("0,2-3"); 0 without it. */
static int cpu_listed(const char *path, int cpu)
{
	FILE *f = fopen(path, "r");
	char list[256];
	int found = 0;
	if (!f)
		return 0;
	if (fgets(list, sizeof list, f))
		for (char *p = list; *p && *p != '\n';) {
			long lo = strtol(p, &p, 10), hi = lo;
			if (*p == '-')
				hi = strtol(p + 1, &p, 10);
			found |= lo <= cpu && cpu <= hi;
			if (*p == ',')
				p++;
			else
				break;
		}
	fclose(f);
	return found;
}

/* The extended type (config bits 63-32) naming cpu_atom when the bench
 * runs on one of its CPUs: on a hybrid CPU a plain hardware event goes
 * to cpu_core, which never counts there (perf opens one per PMU). */
static uint64_t core_pmu_ext(void)
{
	const char *dev = "/sys/bus/event_source/devices/cpu_atom";
	char path[128];
	snprintf(path, sizeof path, "%s/cpus", dev);
	if (!cpu_listed(path, sched_getcpu()))
		return 0;
	snprintf(path, sizeof path, "%s/type", dev);
	FILE *f = fopen(path, "r");
	unsigned long long type = 0;
	if (f) {
		if (fscanf(f, "%llu", &type) != 1)
			type = 0;
		fclose(f);
	}
	return (uint64_t)type << PERF_PMU_TYPE_SHIFT;
}

/* A user-only cycles event of this CPU's core PMU, disabled; sampling
 * every `period` (0: just counting). -1 where there is no cpu PMU. */
static int cycles_event(uint64_t period)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = core_pmu_ext() | PERF_COUNT_HW_CPU_CYCLES;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	a.exclude_kernel = 1;
	return (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

/* The loop's TSC time with fd enabled around it. */
static uint64_t timed_loop(int fd)
{
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	uint64_t a = __rdtsc();
	for (int j = 0; j < PMI_LOOP; j++) {
		for (volatile int k = 0; k < 1000; k++)
			;
		getppid();
	}
	uint64_t b = __rdtsc();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return b - a;
}

/* SAMPLE records in the ring since the last call (the space released). */
static uint64_t samples_in(struct perf_event_mmap_page *meta)
{
	unsigned char *data = (unsigned char *)meta + 4096;
	uint64_t size = PMI_PAGES * 4096ULL, head = meta->data_head, pos = meta->data_tail, n = 0;
	__sync_synchronize();
	while (pos < head) {
		struct perf_event_header h;
		memcpy(&h, data + pos % size, sizeof h); /* records never straddle 8 */
		n += h.type == PERF_RECORD_SAMPLE;
		pos += h.size ? h.size : 8;
	}
	meta->data_tail = pos;
	return n;
}

static void bench_pmi_sample(void)
{
	enum { TRIES = 7 };
	int counting = cycles_event(0), sampling = cycles_event(PMI_PERIOD);
	if (counting < 0 || sampling < 0) {
		printf("PMI sample: no cpu PMU\n");
		return;
	}
	void *ring = mmap(NULL, (1 + PMI_PAGES) * 4096UL, PROT_READ | PROT_WRITE, MAP_SHARED,
			  sampling, 0);
	if (ring == MAP_FAILED) {
		perror("mmap");
		return;
	}
	uint64_t base = ~0ULL, best = ~0ULL, n_best = 0;
	for (int i = 0; i < TRIES; i++) {
		uint64_t c = timed_loop(counting), s = timed_loop(sampling);
		uint64_t n = samples_in(ring);
		if (c < base)
			base = c;
		if (s < best) {
			best = s;
			n_best = n;
		}
	}
	if (!n_best || best <= base) {
		printf("PMI sample: %llu samples, no cost measured\n", (unsigned long long)n_best);
	} else {
		printf("PMI sample (overflow interrupt to SAMPLE record, user-only cycles every %d): "
		       "%llu (%llu samples in a %llu-instruction loop)\n", PMI_PERIOD,
		       (unsigned long long)((best - base) / n_best), (unsigned long long)n_best,
		       (unsigned long long)base);
	}
	munmap(ring, (1 + PMI_PAGES) * 4096UL);
	close(sampling);
	close(counting);
}

/* ---- clock-event sampling (pmu/sw/clock_sample.c) ---- */

#define GAPS 201
#define GAP_MIN 200  /* back-to-back RDTSCs differ by far less */

struct sampler {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t pages, map_len;
	uint64_t samples, lost;
};

/* task-clock on this thread every period ns, IP|TID|TIME|CALLCHAIN into
 * a ring of `pages` data pages; exclude_user: the timer fires and takes
 * no sample while this loop runs in user mode. */
static int sampler_open(struct sampler *s, uint64_t period, size_t pages, int exclude_user)
{
	struct perf_event_attr a = { 0 };
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CALLCHAIN;
	a.exclude_user = exclude_user;
	a.disabled = 1;
	s->fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (s->fd < 0) {
		perror("perf_event_open");
		return -1;
	}
	s->pages = pages;
	s->map_len = (pages + 1) * 4096;
	void *p = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		close(s->fd);
		return -1;
	}
	s->meta = p;
	s->data = (unsigned char *)p + 4096;
	s->samples = s->lost = 0;
	return 0;
}

static void sampler_close(struct sampler *s)
{
	munmap(s->meta, s->map_len);
	close(s->fd);
}

/* Read every record, count samples and lost ones, free the space. */
static void sampler_drain(struct sampler *s)
{
	uint64_t head = __atomic_load_n(&s->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = s->meta->data_tail, size = s->pages * 4096;
	while (pos < head) {
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof h; i++)
			((unsigned char *)&h)[i] = s->data[(pos + i) % size];
		if (h.type == PERF_RECORD_SAMPLE)
			s->samples++;
		else if (h.type == PERF_RECORD_LOST) {
			uint64_t n;
			for (size_t i = 0; i < 8; i++)
				((unsigned char *)&n)[i] = s->data[(pos + 16 + i) % size];
			s->lost += n;
		}
		pos += h.size;
	}
	__atomic_store_n(&s->meta->data_tail, pos, __ATOMIC_RELEASE);
}

/* Median instructions RDTSC-to-RDTSC across the next GAPS interrupts. */
static uint64_t gap_median(void)
{
	int n = 0;
	uint64_t prev = __rdtsc();
	while (n < GAPS) {
		uint64_t now = __rdtsc();
		if (now - prev > GAP_MIN)
			t[n++] = now - prev;
		prev = now;
	}
	sort();
	return t[GAPS / 2];
}

/*
 * (a) What one sampling timer interrupt costs the interrupted loop: the
 * instructions it steals (entry, the hrtimer callback, the complete
 * SAMPLE record with a user callchain, re-arming, exit), against the
 * same timer firing with the sample excluded (exclude_user).
 */
static void bench_clock_sample(void)
{
	struct sampler s;
	uint64_t with, without;
	if (sampler_open(&s, 100000, 64, 1))
		return;
	ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);
	without = gap_median();
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	sampler_close(&s);
	if (sampler_open(&s, 100000, 64, 0))
		return;
	ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);
	with = gap_median();
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	sampler_drain(&s);
	sampler_close(&s);
	printf("clock-event timer interrupt, stolen from a user loop: %llu with a "
	       "SAMPLE (IP|TID|TIME|CALLCHAIN, %llu written), %llu with the sample "
	       "excluded: the sample %llu\n", (unsigned long long)with,
	       (unsigned long long)s.samples, (unsigned long long)without,
	       (unsigned long long)(with - without));
}

/*
 * (b) The sample rate one CPU sustains: task-clock sampling at falling
 * periods while this thread spins and drains an 8-page ring every 100k
 * instructions (a reader as perf record's, on the same CPU); samples per
 * second of task-clock, and LOST records.
 */
/* Rounds of a 10k-iteration loop (and a drain) in 50 M instructions. */
static uint64_t spin_rounds(struct sampler *s)
{
	uint64_t start = __rdtsc(), spins = 0;
	while (__rdtsc() - start < 50000000) {
		for (volatile int k = 0; k < 10000; k++)
			;
		spins++;
		if (s)
			sampler_drain(s);
	}
	return spins;
}

static void bench_sample_rate(void)
{
	static const uint64_t periods[] = { 1000000, 200000, 100000, 50000, 20000, 10000 };
	uint64_t alone = spin_rounds(NULL);
	for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
		struct sampler s;
		if (sampler_open(&s, periods[i], 8, 0))
			return;
		ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0);
		uint64_t spins = spin_rounds(&s);
		ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
		uint64_t ns = 0;
		read(s.fd, &ns, sizeof ns);
		sampler_drain(&s);
		sampler_close(&s);
		printf("task-clock sampling every %llu ns: %llu samples/s of task-clock, "
		       "%llu lost, the loop kept %llu%% of its speed\n",
		       (unsigned long long)periods[i],
		       (unsigned long long)(ns ? s.samples * 1000000000ULL / ns : 0),
		       (unsigned long long)s.lost,
		       (unsigned long long)(alone ? spins * 100 / alone : 0));
	}
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 1;
	pin(cpu);
	printf("bench on cpu %d\n", sched_getcpu());
	int calls_only = argc > 2 && !strcmp(argv[2], "calls");
	if (argc > 2 && !strcmp(argv[2], "switch")) { /* bench CPU switch: those alone */
		bench_switch(0);
		bench_switch(4);
		bench_switch(CALL_STACK_EVENT);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "perf")) { /* bench CPU perf: the perf fd's calls */
		bench_getppid();
		bench_perf_read();
		bench_perf_ioctl();
		bench_perf_open_alone();
		bench_rdpmc();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "proc")) { /* bench CPU proc: fork, exec */
		bench_fork();
		bench_exec();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "clock")) { /* bench CPU clock: the clocks */
		bench_getppid(); /* the scale: a known figure */
		bench_clock();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "pmi")) { /* bench CPU pmi: that figure alone */
		bench_pmi_sample();
		return 0;
	}
	if (!calls_only) {
		bench_clock_sample();
		bench_sample_rate();
		bench_pmi_sample();
	}
	if (argc > 2 && !calls_only) /* bench CPU sample: the sampling figures */
		return 0;
	bench_getppid();
	bench_clock();
	bench_switch(0);
	bench_switch(4);
	bench_perf_read();
	bench_perf_ioctl();
	bench_perf_open();
	bench_perf_open_alone();
	bench_fork();
	bench_exec();
	bench_rdpmc();
	bench_poll_wakeup(0);
	bench_poll_wakeup(1);
	bench_loop(cpu);
	return 0;
}
