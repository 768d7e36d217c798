/*
 * rdpmc.c [--icount SHIFT]: self-monitoring as perf_event_open(2)
 * describes it - map an event's control page, read the counter with
 * RDPMC inside the page's seqlock loop, add the page's offset. Needs a
 * CPU PMU: on a Linux host without one (QEMU TCG) it says so and checks
 * nothing; on baremon the cpu PMU (the vpmu under TCG, whose RDPMC #UD
 * the kernel completes) must be there.
 *
 *  - cycles:u and instructions:u (on Intel fixed counter 0, RDPMC bit
 *    30; AMD has no fixed counters, so never bit 30 there):
 *    cap_user_rdpmc set, index not 0, pmc_width the counter's; the
 *    self-read agrees with read() (self <= read() <= self, as user
 *    counts do not move in the kernel); the page's lock is even;
 *  - disabled: index 0, the offset is the count, equal to read();
 *  - RDPMC of a counter that does not exist: SIGSEGV (#GP);
 *  - the core PMU's rdpmc file (devices/cpu/rdpmc, or on a hybrid CPU
 *    cpu_core's, one setting behind both PMUs' files) 0 (root): index 0,
 *    cap_user_rdpmc 0, RDPMC faults with SIGSEGV; 1 again: it works,
 *    but not in a forked child, which maps no buffer (as on Linux);
 *  - a task event bound to CPU 1 (pid 0, cpu 1) read from CPU 0: not
 *    on a counter there, so index 0 and nothing counted (the self-read
 *    needs no RDPMC and agrees with read()); from CPU 1 it reads through
 *    RDPMC, as on Linux (perf_event_index is 0 for an inactive event);
 *  - a CPU-wide group {cycles:u, instructions:u} on CPU 1 (pid -1, needs
 *    perf_event_paranoid <= 0), read through RDPMC by a task on CPU 1
 *    around a loop of 20,000 x 3 user instructions: the sibling's delta
 *    is the loop's (at least 60,000, at most 10% more), as read() says;
 *  - what one self-monitoring read costs: its user instructions
 *    (instructions:u read around it), and under -icount (--icount
 *    SHIFT, where the TSC counts instructions) all it costs, the
 *    emulated RDPMC included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include "perf.h"
#include "rdpmc.h"


static inline uint64_t tsc_now(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static int open_user(uint64_t config)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, config);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

static volatile struct perf_event_mmap_page *map_page(int fd)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Run RDPMC(counter) in a child: the signal that ended it, 0 if none. */
static int rdpmc_signal(uint32_t counter)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		rdpmc(counter);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* CPUID says AuthenticAMD or HygonGenuine: counters without bit 30. */
static int amd_cpu(void)
{
	unsigned a = 0, b, c, d;
	char v[13];

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
	memcpy(v, &b, 4);
	memcpy(v + 4, &d, 4);
	memcpy(v + 8, &c, 4);
	v[12] = '\0';
	return strcmp(v, "AuthenticAMD") == 0 || strcmp(v, "HygonGenuine") == 0;
}

static void check_event(const char *name, uint64_t config, int fixed)
{
	int fd = open_user(config), used = 0;
	volatile struct perf_event_mmap_page *pc;
	uint64_t a, b, c;

	if (!CHECK(fd >= 0, "%s opens", name))
		return;
	pc = map_page(fd);
	if (!CHECK(pc != NULL, "%s: the control page maps", name)) {
		close(fd);
		return;
	}
	CHECK(pc->cap_user_rdpmc, "%s: cap_user_rdpmc", name);
	CHECK(pc->index != 0 && (fixed < 0 || !!((pc->index - 1) & (1u << 30)) == fixed),
	      "%s: index %#x", name, pc->index);
	CHECK(pc->pmc_width >= 32 && pc->pmc_width <= 64, "%s: pmc_width %u", name,
	      pc->pmc_width);
	CHECK((pc->lock & 1) == 0, "%s: the lock is even outside an update", name);
	a = perf_self_read(pc, &used);
	b = perf_value(fd);
	c = perf_self_read(pc, &used);
	CHECK(used, "%s: the read loop used RDPMC", name);
	CHECK(a > 0 && a <= b && b <= c, "%s: RDPMC agrees with read(): %llu <= %llu <= %llu",
	      name, (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	a = perf_self_read(pc, &used);
	b = perf_value(fd);
	CHECK(pc->index == 0 && !used && a == b,
	      "%s disabled: index 0, offset = read() (%llu, %llu)", name,
	      (unsigned long long)a, (unsigned long long)b);
	munmap((void *)pc, (size_t)sysconf(_SC_PAGESIZE));
	close(fd);
}

/* CPU 1 is online (sysfs: musl's sysconf counts the CPUs the task may
 * run on, which pinning changes). */
static int have_cpu1(void)
{
	static unsigned char online[1024];

	return cpu_list("/sys/devices/system/cpu/online", online, 1024) > 1 && online[0] &&
	       online[1];
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int open_on(uint64_t config, pid_t pid, int cpu, int group)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, config);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_open(&a, pid, cpu, group, 0);
}

/* 3 user instructions an iteration (dec, jnz and a nop), no memory. */
static void user_loop(uint64_t n)
{
	__asm__ volatile("1: nop; dec %0; jnz 1b" : "+r"(n) : : "cc");
}

#define LOOP_N 20000
#define LOOP_INSNS (3 * LOOP_N)

/* A task event bound to CPU 1 is on no counter while the task runs on
 * CPU 0: RDPMC is not for it there. */
static void check_other_cpu(void)
{
	int fd, used = 1;
	volatile struct perf_event_mmap_page *pc = NULL;

	if (!have_cpu1() || pin(0) != 0) {
		abi_note("one CPU: RDPMC of an event bound to another CPU not checked");
		return;
	}
	fd = open_on(PERF_COUNT_HW_INSTRUCTIONS, 0, 1, -1);
	if (!CHECK(fd >= 0 && (pc = map_page(fd)) != NULL,
	           "instructions:u on this task, CPU 1 only: opens and maps"))
		return;
	user_loop(LOOP_N);
	uint64_t a = perf_self_read(pc, &used), b = perf_value(fd);
	CHECK(pc->index == 0 && !used && a == b && b == 0,
	      "bound to CPU 1, read on CPU 0: index 0, no RDPMC, nothing counted (index %u, "
	      "self %llu, read() %llu)", pc->index, (unsigned long long)a, (unsigned long long)b);
	if (CHECK(pin(1) == 0, "moves to CPU 1")) {
		user_loop(LOOP_N);
		a = perf_self_read(pc, &used);
		b = perf_value(fd);
		CHECK(pc->index != 0 && used && a > 0 && a <= b,
		      "on CPU 1: index %u, RDPMC %llu <= read() %llu", pc->index,
		      (unsigned long long)a, (unsigned long long)b);
	}
	pin(0);
	munmap((void *)pc, (size_t)sysconf(_SC_PAGESIZE));
	close(fd);
}

/* A CPU-wide group read through RDPMC on its CPU counts the loop. */
static void check_cpu_group(void)
{
	int lead, sib, used = 0, used2 = 0;
	volatile struct perf_event_mmap_page *pl = NULL, *ps = NULL;

	if (!have_cpu1() || pin(1) != 0) {
		abi_note("one CPU: the CPU-wide group on CPU 1 not checked");
		return;
	}
	lead = open_on(PERF_COUNT_HW_CPU_CYCLES, -1, 1, -1);
	if (lead < 0) {
		abi_note("CPU-wide cycles:u on CPU 1: %s (perf_event_paranoid?): not checked",
		         strerror(errno));
		pin(0);
		return;
	}
	sib = open_on(PERF_COUNT_HW_INSTRUCTIONS, -1, 1, lead);
	if (!CHECK(sib >= 0 && (pl = map_page(lead)) != NULL && (ps = map_page(sib)) != NULL,
	           "CPU-wide group {cycles:u, instructions:u} on CPU 1: opens and maps")) {
		close(lead);
		pin(0);
		return;
	}
	uint64_t c0 = perf_self_read(pl, &used), i0 = perf_self_read(ps, &used2), r0 = perf_value(sib);
	user_loop(LOOP_N);
	uint64_t i1 = perf_self_read(ps, &used2), c1 = perf_self_read(pl, &used), r1 = perf_value(sib);
	uint64_t d = i1 - i0;
	abi_note("CPU-wide group: instructions:u %llu by RDPMC, %llu by read(), cycles:u %llu",
	         (unsigned long long)d, (unsigned long long)(r1 - r0),
	         (unsigned long long)(c1 - c0));
	CHECK(used && used2 && pl->index != 0 && ps->index != 0,
	      "CPU-wide group: both read through RDPMC (index %u, %u)", pl->index, ps->index);
	CHECK(d >= LOOP_INSNS && d <= LOOP_INSNS + LOOP_INSNS / 10,
	      "CPU-wide group: the sibling counts the loop's %d instructions by RDPMC (%llu)",
	      LOOP_INSNS, (unsigned long long)d);
	CHECK(r1 - r0 >= d, "CPU-wide group: read() agrees (%llu >= %llu)",
	      (unsigned long long)(r1 - r0), (unsigned long long)d);
	CHECK(c1 > c0, "CPU-wide group: the leader's cycles:u move (%llu)",
	      (unsigned long long)(c1 - c0));
	munmap((void *)pl, (size_t)sysconf(_SC_PAGESIZE));
	munmap((void *)ps, (size_t)sysconf(_SC_PAGESIZE));
	close(sib);
	close(lead);
	pin(0);
}

/* The core PMU's rdpmc file (cpu/, or a hybrid CPU's cpu_core/). */
static const char *rdpmc_file(void)
{
	static char path[96];

	if (!path[0] && core_pmu_file(path, sizeof(path), "rdpmc"))
		snprintf(path, sizeof(path), "(no core PMU directory)");
	return path;
}

static int write_mode(const char *v)
{
	int fd = open(rdpmc_file(), O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

static void check_mode_zero(void)
{
	int fd, used;
	volatile struct perf_event_mmap_page *pc;
	uint64_t a, b;

	if (getuid() != 0 || write_mode("0") != 0) {
		abi_note("rdpmc=0 not checked (needs root and %s)", rdpmc_file());
		return;
	}
	fd = open_user(PERF_COUNT_HW_CPU_CYCLES);
	pc = fd >= 0 ? map_page(fd) : NULL;
	if (CHECK(pc != NULL, "rdpmc=0: cycles:u opens and maps")) {
		CHECK(pc->index == 0 && !pc->cap_user_rdpmc, "rdpmc=0: index 0, no cap_user_rdpmc");
		a = perf_self_read(pc, &used);
		b = perf_value(fd);
		CHECK(!used && a <= b, "rdpmc=0: the read loop takes the offset alone (%llu <= %llu)",
		      (unsigned long long)a, (unsigned long long)b);
		CHECK(rdpmc_signal(0) == SIGSEGV, "rdpmc=0: RDPMC faults (SIGSEGV)");
	}
	CHECK(write_mode("1") == 0, "rdpmc=1 again");
	if (pc) {
		/* the page is rewritten when the event next goes on a counter */
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		CHECK(pc->cap_user_rdpmc && pc->index != 0, "rdpmc=1: index back (%#x)", pc->index);
		a = perf_self_read(pc, &used);
		CHECK(used && a > 0, "rdpmc=1: the mapping process reads with RDPMC again");
		/* the buffer is not mapped in a forked child (Linux's
		 * VM_DONTCOPY): RDPMC is not its to use */
		CHECK(rdpmc_signal(pc->index - 1) == SIGSEGV,
		      "rdpmc=1: a forked child, mapping nothing, faults");
		munmap((void *)pc, (size_t)sysconf(_SC_PAGESIZE));
	}
	if (fd >= 0)
		close(fd);
}

/* One self-monitoring read's instructions: its user ones from an
 * instructions:u counter read by RDPMC itself (the difference of two
 * back-to-back reads is one read), and under -icount everything. */
static void report_cost(int icount, unsigned shift)
{
	int fd = open_user(PERF_COUNT_HW_INSTRUCTIONS), used;
	volatile struct perf_event_mmap_page *pc = fd >= 0 ? map_page(fd) : NULL;
	uint64_t a, b, t0, t1;

	if (!CHECK(pc != NULL, "instructions:u maps for the cost figure"))
		return;
	a = perf_self_read(pc, &used);
	b = perf_self_read(pc, &used);
	abi_note("cost: one self-monitoring read is %llu user instructions",
	         (unsigned long long)(b - a));
	if (icount) {
		t0 = tsc_now();
		perf_self_read(pc, &used);
		t1 = tsc_now();
		abi_note("cost: one self-monitoring read takes %llu instructions in all "
		         "(RDPMC emulated from #UD)", (unsigned long long)((t1 - t0) >> shift));
	}
	munmap((void *)pc, (size_t)sysconf(_SC_PAGESIZE));
	close(fd);
}

int main(int argc, char **argv)
{
	int icount = argc == 3 && strcmp(argv[1], "--icount") == 0;
	int fd = open_user(PERF_COUNT_HW_CPU_CYCLES);

	setvbuf(stdout, NULL, _IONBF, 0);
	if (fd < 0) {
		CHECK(!abi_on_baremon(), "baremon has a cpu PMU (cycles:u: %s)", strerror(errno));
		abi_note("no cpu PMU (cycles:u: %s): RDPMC not checked", strerror(errno));
		return abi_done("rdpmc");
	}
	close(fd);
	check_event("cycles:u", PERF_COUNT_HW_CPU_CYCLES, -1); /* fixed 1 or GP */
	check_event("instructions:u", PERF_COUNT_HW_INSTRUCTIONS, amd_cpu() ? 0 : 1);
	CHECK(rdpmc_signal(1000) == SIGSEGV, "RDPMC of counter 1000: SIGSEGV (#GP)");
	check_other_cpu();
	check_cpu_group();
	check_mode_zero();
	report_cost(icount, icount ? (unsigned)atoi(argv[2]) : 0);
	return abi_done("rdpmc");
}
