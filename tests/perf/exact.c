/*
 * exact.c [--icount SHIFT]: instructions and branches retired in user
 * mode are exact - the difference between a loop of n and 2n iterations
 * is the instructions and branches of n iterations, to the unit, and the
 * same on every run (as nanoBench reports counts). Needs a CPU PMU with
 * those events: on a Linux host without one (QEMU TCG) it says so and
 * checks nothing; on baremon the cpu PMU (the vpmu under TCG) must have
 * them.
 *
 *  - instructions:u, branches:u around two loops written in assembly:
 *    `dec; jnz` (2 instructions, 1 conditional branch an iteration) and
 *    `call; ret; dec; jnz` (4 instructions, 3 branches: a near call, a
 *    near return, a conditional);
 *  - on the vpmu, the raw branch umasks it models (C4H/01H conditional,
 *    02H near call, 08H near return, 10H not taken, 20H near taken);
 *  - a loop around `rep stosb`: the REP string instruction retires once
 *    (under --icount on the vpmu only shown: QEMU's clock counts each
 *    iteration);
 *  - sampling instructions:u every 1009: one sample per whole period, each
 *    at a user IP in the loop with PERF_RECORD_MISC_USER and PERIOD P;
 *  - on the vpmu, kernel-mode counting: instructions only with the
 *    instruction clock (--icount: the kernel was booted under QEMU
 *    -icount shift=SHIFT), branches never (EOPNOTSUPP).
 *
 * With --icount SHIFT it also reports what the model costs (the TSC
 * counts instructions there): kernel instructions per stepped user
 * instruction, and per system call with instructions counted.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include "perf.h"
#include "ring.h"

/* n iterations of `dec; jnz`; n iterations of `call; ret; dec; jnz`. */
__asm__(".text\n"
        ".globl exact_jcc_loop\n"
        "exact_jcc_loop:\n"
        "1:	dec %rdi\n"
        "	jnz 1b\n"
        "	ret\n"
        ".globl exact_call_loop\n"
        "exact_call_loop:\n"
        "1:	call 2f\n"
        "	dec %rdi\n"
        "	jnz 1b\n"
        "	ret\n"
        "2:	ret\n"
        ".globl exact_loops_end\n"
        "exact_loops_end:\n"
        ".globl exact_rep_loop\n"
        "exact_rep_loop:\n"          /* rdi: n, rsi: 16 bytes */
        "	mov %rdi, %rdx\n"
        "1:	mov %rsi, %rdi\n"
        "	mov $16, %ecx\n"
        "	rep stosb\n"
        "	dec %rdx\n"
        "	jnz 1b\n"
        "	ret\n");
void exact_rep_loop(unsigned long n, void *buf);
void exact_jcc_loop(unsigned long n);
void exact_call_loop(unsigned long n);
extern char exact_loops_end[];

/* Small: without the instruction clock every user instruction counted
 * is a single step (~2,000 kernel instructions), and the perf suite
 * runs this three times in one guest. */
#define N 1000UL
#define RUNS 3

struct counter {
	const char *name;
	uint32_t type;
	uint64_t config;
	uint64_t per_jcc, per_call;  /* per iteration of each loop */
};

static const struct counter generic[] = {
	{ "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 2, 4 },
	{ "branches:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1, 3 },
};

/* BR_INST_RETIRED umasks the vpmu models. */
static const struct counter umasks[] = {
	{ "C4H/01H conditional:u", PERF_TYPE_RAW, 0x01c4, 1, 1 },
	{ "C4H/02H near call:u", PERF_TYPE_RAW, 0x02c4, 0, 1 },
	{ "C4H/08H near return:u", PERF_TYPE_RAW, 0x08c4, 0, 1 },
	{ "C4H/10H not taken:u", PERF_TYPE_RAW, 0x10c4, 0, 0 },
	{ "C4H/20H near taken:u", PERF_TYPE_RAW, 0x20c4, 1, 3 },
};

static inline uint64_t tsc_now(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static int open_user(const struct counter *c)
{
	struct perf_event_attr a;

	perf_attr(&a, c->type, c->config);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

/* The user-mode count of c around loop(n). */
static uint64_t count_loop(int fd, void (*loop)(unsigned long), unsigned long n)
{
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return perf_value(fd);
}

/* The n-to-2n difference of c around loop, RUNS times: exactly
 * n * per each time. */
static void check_difference(const struct counter *c, int fd, void (*loop)(unsigned long),
                             const char *loop_name, uint64_t per)
{
	uint64_t diff[RUNS];
	int same = 1, exact = 1;

	for (int r = 0; r < RUNS; r++) {
		uint64_t once = count_loop(fd, loop, N), twice = count_loop(fd, loop, 2 * N);
		diff[r] = twice - once;
		exact &= diff[r] == N * per;
		same &= diff[r] == diff[0];
	}
	CHECK(exact && same, "%s of %s: 2n - n iterations = %llu x n, exactly, %d runs "
	      "(%llu, %llu, %llu)", c->name, loop_name, (unsigned long long)per, RUNS,
	      (unsigned long long)diff[0], (unsigned long long)diff[1],
	      (unsigned long long)diff[2]);
}

static void test_counter(const struct counter *c)
{
	int fd = open_user(c);

	CHECK(fd >= 0, "%s opens (%s)", c->name, fd < 0 ? strerror(errno) : "ok");
	if (fd < 0)
		return;
	check_difference(c, fd, exact_jcc_loop, "dec;jnz", c->per_jcc);
	check_difference(c, fd, exact_call_loop, "call;ret;dec;jnz", c->per_call);
	close(fd);
}

/* ---- REP string instructions retire once ---- */

static void rep_loop(unsigned long n)
{
	static char buf[16];

	exact_rep_loop(n, buf);
}

/* n iterations of `mov; mov ecx, 16; rep stosb; dec; jnz`: 5
 * instructions and 1 branch each, as hardware retires a REP string
 * instruction once, however many iterations (single-stepping traps
 * after each). QEMU's instruction clock counts every iteration, so
 * under --icount the count is not checked, only shown. */
static void test_rep(int icount)
{
	static const struct counter insns = {
		"instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 5, 0,
	};
	static const struct counter branches = {
		"branches:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1, 0,
	};
	int fd = open_user(&insns), bfd = open_user(&branches);

	if (fd < 0 || bfd < 0) {
		CHECK(0, "instructions:u and branches:u open for the REP loop");
		return;
	}
	if (icount)
		abi_note("rep stosb (16 bytes): %llu instructions:u for %lu iterations of 5 "
		         "instructions (the instruction clock counts each REP iteration)",
		         (unsigned long long)(count_loop(fd, rep_loop, 2 * N) -
		                              count_loop(fd, rep_loop, N)), N);
	else
		check_difference(&insns, fd, rep_loop, "mov;mov;rep stosb;dec;jnz", 5);
	check_difference(&branches, bfd, rep_loop, "mov;mov;rep stosb;dec;jnz", 1);
	close(fd);
	close(bfd);
}

/* ---- sampling ---- */

struct sample {
	struct perf_event_header h;
	uint64_t ip;
	uint64_t period;
};

static void test_sampling(void)
{
	const uint64_t period = 1009;
	struct perf_event_attr a;
	struct ring ring;
	uint64_t count, whole, n = 0, in_loop = 0, bad = 0, head;
	int fd;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "instructions:u with sample_period %llu opens",
	      (unsigned long long)period);
	if (fd < 0)
		return;
	if (ring_map(fd, &ring, 16, PROT_READ | PROT_WRITE) < 0) {
		CHECK(0, "the ring buffer maps (%s)", strerror(errno));
		close(fd);
		return;
	}
	count = count_loop(fd, exact_call_loop, 10000);
	whole = count / period;
	head = ring_head(&ring);
	while (ring.pos + sizeof(struct perf_event_header) <= head) {
		struct sample s;

		ring_copy(&ring, ring.pos, &s.h, sizeof(s.h));
		if (s.h.type == PERF_RECORD_SAMPLE) {
			ring_copy(&ring, ring.pos, &s, sizeof(s));
			n++;
			if (s.ip >= (uint64_t)exact_call_loop && s.ip <= (uint64_t)exact_loops_end)
				in_loop++;
			if (s.period != period ||
			    (s.h.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
				bad++;
		}
		ring.pos += s.h.size ? s.h.size : 8;
	}
	ring_release(&ring);
	CHECK(n == whole || n + 1 == whole,
	      "instructions:u every %llu: %llu samples for %llu whole periods",
	      (unsigned long long)period, (unsigned long long)n, (unsigned long long)whole);
	CHECK(n && in_loop + 1 >= n, "%llu of %llu samples at an IP in the loop",
	      (unsigned long long)in_loop, (unsigned long long)n);
	CHECK(bad == 0, "every sample has PERIOD %llu and MISC_USER (%llu do not)",
	      (unsigned long long)period, (unsigned long long)bad);
	ring_unmap(&ring);
	close(fd);
}

/* ---- the vpmu's modes and cost ---- */

static int open_all_modes(uint64_t config)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, config);
	a.disabled = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

static void test_kernel_mode(int icount)
{
	int fd = open_all_modes(PERF_COUNT_HW_INSTRUCTIONS);

	if (icount)
		CHECK(fd >= 0, "instructions (user and kernel) open with the instruction clock");
	else
		CHECK(fd < 0 && errno == EOPNOTSUPP,
		      "instructions (user and kernel) are EOPNOTSUPP without the instruction clock");
	if (fd >= 0)
		close(fd);
	fd = open_all_modes(PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	CHECK(fd < 0 && errno == EOPNOTSUPP, "branches (user and kernel) are EOPNOTSUPP");
	if (fd >= 0)
		close(fd);
}

/* CLOCK_MONOTONIC by the system call (no vDSO's RDTSC, which the model
 * would give its task's own view of): under -icount it advances
 * 2^shift ns per guest instruction, the model's own included. */
static uint64_t mono_ns(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* Under -icount shift=S the guest's clocks count instructions: what
 * stepping costs per user instruction, and what counting instructions
 * costs a system call. The TSC a stepped task reads leaves the model's
 * time out (docs/pmu.md), so the loop's cost is read from
 * CLOCK_MONOTONIC, scaled by a long unstepped loop's ns per
 * instruction. */
static void report_cost(unsigned shift)
{
	const struct counter *branches = &generic[1];
	int fd = open_user(branches), ifd = open_all_modes(PERF_COUNT_HW_INSTRUCTIONS);
	uint64_t t0, plain, stepped, calls_plain, calls_counted, long_ns, step_ns;
	const unsigned long long_n = 1000000;

	if (fd < 0 || ifd < 0) {
		CHECK(0, "branches:u and instructions open for the cost figures");
		return;
	}
	t0 = tsc_now();
	exact_jcc_loop(N);
	plain = (tsc_now() - t0) >> shift;
	t0 = mono_ns();
	exact_jcc_loop(long_n);
	long_ns = mono_ns() - t0;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = mono_ns();
	exact_jcc_loop(N);
	step_ns = mono_ns() - t0;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	stepped = (uint64_t)((double)step_ns * (double)(2 * long_n) / (double)long_ns);
	abi_note("cost: a %lu-instruction loop takes %llu instructions, %llu stepped: "
	         "%llu kernel instructions per stepped instruction", 2 * N,
	         (unsigned long long)plain, (unsigned long long)stepped,
	         (unsigned long long)((stepped - plain) / (2 * N)));
	t0 = mono_ns();
	for (int i = 0; i < 1000; i++)
		getppid();
	calls_plain = (uint64_t)((double)(mono_ns() - t0) * (double)(2 * long_n) / (double)long_ns);
	ioctl(ifd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = mono_ns();
	for (int i = 0; i < 1000; i++)
		getppid();
	calls_counted = (uint64_t)((double)(mono_ns() - t0) * (double)(2 * long_n) / (double)long_ns);
	ioctl(ifd, PERF_EVENT_IOC_DISABLE, 0);
	abi_note("cost: getppid takes %llu instructions, %llu with instructions counted "
	         "(the instruction clock)", (unsigned long long)(calls_plain / 1000),
	         (unsigned long long)(calls_counted / 1000));
	close(fd);
	close(ifd);
}

int main(int argc, char **argv)
{
	int icount = argc == 3 && strcmp(argv[1], "--icount") == 0;
	int fd = open_user(&generic[0]);

	setvbuf(stdout, NULL, _IONBF, 0);
	if (fd < 0) {
		CHECK(!abi_on_baremon(), "baremon counts instructions:u (%s)", strerror(errno));
		abi_note("no instructions:u (%s): exact counts not checked", strerror(errno));
		return abi_done("exact");
	}
	close(fd);
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		test_counter(&generic[i]);
	test_sampling();
	test_rep(icount && core_pmu_is_vpmu());
	if (core_pmu_is_vpmu()) {
		for (size_t i = 0; i < sizeof(umasks) / sizeof(umasks[0]); i++)
			test_counter(&umasks[i]);
		test_kernel_mode(icount);
	}
	if (icount)
		report_cost((unsigned)atoi(argv[2]));
	return abi_done("exact");
}
