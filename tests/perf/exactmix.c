/*
 * exactmix.c [--icount SHIFT]: exact and stepped events counted together
 * each keep their true value. On the vpmu, branches are counted by
 * single-stepping the user code (and instructions too without the
 * instruction clock); the traps that costs are the model's own and must
 * show in no counter: not in the user's cycles, not in the kernel's
 * instructions, not in the branches.
 *
 * One group - instructions:u, branches:u, cycles:u, ref-cycles:u, and
 * with the instruction clock instructions:k too - around a `dec; jnz`
 * loop of n and 2n iterations (no system call), and around a loop of n
 * and 2n getppid() calls, five times:
 *  - instructions:u and branches:u: 2n - n is exactly n x the loop's;
 *  - cycles:u and ref-cycles:u: exactly instructions:u << SHIFT under
 *    the instruction clock (the TSC counts instructions); without it a
 *    stepped instruction is one cycle (docs/pmu.md), so the same;
 *  - instructions:k (instruction clock): the user-only loop's kernel
 *    count is only the group's ENABLE/DISABLE edges and the rare
 *    interrupt landing there: 2n - n is 0 but for such a tick (one
 *    stepping trap per user instruction would be ~2,000 each), and the
 *    getppid loop's kernel count per call is what it is with no
 *    stepped event open, within 10% (the model's traps add nothing;
 *    its trap flag sends the return through IRETQ rather than SYSRET).
 * On a host without a PMU it says so and checks nothing; on Linux with
 * one it checks what holds on hardware (instructions and branches).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include "perf.h"

__asm__(".text\n"
        ".globl mix_jcc_loop\n"
        "mix_jcc_loop:\n"
        "1:	dec %rdi\n"
        "	jnz 1b\n"
        "	ret\n");
void mix_jcc_loop(unsigned long n);

/* Each stepped user instruction is one trap: kept small. */
#define N 500UL
#define CALLS 100UL
#define RUNS 5
/* A timer tick's kernel instructions (~700 measured) land in the
 * ENABLE/DISABLE edges of a run now and then (they are real kernel
 * work); the least of RUNS runs is below this. */
#define TICK_BOUND 2000

enum { INSNS_U, BRANCHES_U, CYCLES_U, REF_U, INSNS_K, NEV };
static const char *const names[NEV] = {
	"instructions:u", "branches:u", "cycles:u", "ref-cycles:u", "instructions:k",
};
static const uint64_t configs[NEV] = {
	PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_REF_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
};

struct group {
	int fd[NEV];
	int n;
};

static int open_one(int i, int leader)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, configs[i]);
	a.disabled = leader < 0;
	a.exclude_hv = 1;
	if (i == INSNS_K)
		a.exclude_user = 1;
	else
		a.exclude_kernel = 1;
	return perf_open(&a, 0, -1, leader, 0);
}

/* The events in `want` as one group (the first the leader); -1 on
 * failure with errno set. */
static int open_group(struct group *g, unsigned want)
{
	int leader = -1;

	g->n = 0;
	for (int i = 0; i < NEV; i++) {
		g->fd[i] = -1;
		if (!(want >> i & 1))
			continue;
		g->fd[i] = open_one(i, leader);
		if (g->fd[i] < 0)
			return -1;
		if (leader < 0)
			leader = g->fd[i];
		g->n++;
	}
	return 0;
}

static void close_group(struct group *g)
{
	for (int i = 0; i < NEV; i++)
		if (g->fd[i] >= 0)
			close(g->fd[i]);
}

static int leader(const struct group *g)
{
	for (int i = 0; i < NEV; i++)
		if (g->fd[i] >= 0)
			return g->fd[i];
	return -1;
}

static void calls(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		getppid();
}

/* Each event's count around work(n). */
static void count(const struct group *g, void (*work)(unsigned long), unsigned long n,
                  uint64_t *v)
{
	int fd = leader(g);

	ioctl(fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	work(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	for (int i = 0; i < NEV; i++)
		v[i] = g->fd[i] >= 0 ? perf_value(g->fd[i]) : 0;
}

struct runs {
	uint64_t once[RUNS][NEV], twice[RUNS][NEV];
};

static void measure(const struct group *g, void (*work)(unsigned long), unsigned long n,
                    struct runs *r)
{
	for (int k = 0; k < RUNS; k++) {
		count(g, work, n, r->once[k]);
		count(g, work, 2 * n, r->twice[k]);
	}
}

static uint64_t diff(const struct runs *r, int k, int i)
{
	return r->twice[k][i] - r->once[k][i];
}

/* 2n - n of event i is `want` in every run. */
static void check_exact(const struct runs *r, int i, uint64_t want, const char *loop)
{
	int ok = 1;

	for (int k = 0; k < RUNS; k++)
		ok &= diff(r, k, i) == want;
	CHECK(ok, "%s of %s, mixed: 2n - n = %llu exactly, %d runs (first %llu, last %llu)",
	      names[i], loop, (unsigned long long)want, RUNS, (unsigned long long)diff(r, 0, i),
	      (unsigned long long)diff(r, RUNS - 1, i));
}

/* Cycles of the user loop are its instructions << shift, in every run. */
static void check_cycles(const struct runs *r, int i, unsigned shift)
{
	int ok = 1;

	for (int k = 0; k < RUNS; k++)
		ok &= r->twice[k][i] == r->twice[k][INSNS_U] << shift &&
		      r->once[k][i] == r->once[k][INSNS_U] << shift;
	CHECK(ok, "%s = instructions:u << %u exactly, mixed with stepped branches "
	      "(%llu for %llu instructions)", names[i], shift,
	      (unsigned long long)r->twice[0][i], (unsigned long long)r->twice[0][INSNS_U]);
}

/* The least over the runs of event i's 2n - n. */
static uint64_t least_diff(const struct runs *r, int i)
{
	uint64_t m = diff(r, 0, i);

	for (int k = 1; k < RUNS; k++)
		if (diff(r, k, i) < m)
			m = diff(r, k, i);
	return m;
}

/* The least over the runs of |2n - n| of event i. */
static uint64_t least_abs_diff(const struct runs *r, int i)
{
	uint64_t m = ~0ULL;

	for (int k = 0; k < RUNS; k++) {
		int64_t d = (int64_t)diff(r, k, i);
		uint64_t a = d < 0 ? (uint64_t)-d : (uint64_t)d;

		if (a < m)
			m = a;
	}
	return m;
}

/* Kernel instructions: the model's step traps are in none of them. */
static void check_kernel(const struct runs *user, const struct runs *mixed_calls)
{
	struct group plain;
	struct runs alone;
	uint64_t per_plain, per_mixed;

	/* One trap per stepped instruction costs ~2,000 kernel instructions
	 * (docs/pmu.md): n more user instructions stepped would be
	 * millions; the ENABLE/DISABLE edges are alike in both loops. */
	CHECK(least_abs_diff(user, INSNS_K) < TICK_BOUND,
	      "instructions:k around a user loop with stepped branches: 2n - n is 0 "
	      "but for interrupts (least |2n - n| of %d runs %llu; the model's traps not counted)",
	      RUNS, (unsigned long long)least_abs_diff(user, INSNS_K));
	if (open_group(&plain, 1u << INSNS_K) < 0) {
		CHECK(0, "instructions:k alone opens (%s)", strerror(errno));
		close_group(&plain);
		return;
	}
	measure(&plain, calls, CALLS, &alone);
	close_group(&plain);
	per_plain = least_diff(&alone, INSNS_K) / CALLS;
	per_mixed = least_diff(mixed_calls, INSNS_K) / CALLS;
	/* The same kernel path either way, but for its way out: IRETQ with
	 * the trap flag, where SYSRET can be taken without (~25 of ~420
	 * instructions), and the interrupts that land: 10%. */
	CHECK(per_mixed <= per_plain + per_plain / 10 && per_plain <= per_mixed + per_mixed / 10,
	      "instructions:k per getppid: %llu with stepped branches, %llu without",
	      (unsigned long long)per_mixed, (unsigned long long)per_plain);
}

int main(int argc, char **argv)
{
	int icount = argc == 3 && strcmp(argv[1], "--icount") == 0;
	unsigned shift = icount ? (unsigned)atoi(argv[2]) : 0;
	unsigned want = 1u << INSNS_U | 1u << BRANCHES_U | 1u << CYCLES_U | 1u << REF_U;
	struct group g;
	struct runs user, sys;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (open_group(&g, 1u << INSNS_U) < 0) {
		CHECK(!abi_on_baremon(), "baremon counts instructions:u (%s)", strerror(errno));
		abi_note("no instructions:u (%s): nothing to check", strerror(errno));
		close_group(&g);
		return abi_done("exactmix");
	}
	close_group(&g);
	if (abi_on_baremon() && icount)
		want |= 1u << INSNS_K;
	if (open_group(&g, want) < 0) {
		CHECK(!abi_on_baremon(), "the mixed group opens on baremon (%s)", strerror(errno));
		close_group(&g);
		return abi_done("exactmix");
	}
	measure(&g, mix_jcc_loop, N, &user);
	check_exact(&user, INSNS_U, 2 * N, "dec;jnz");
	check_exact(&user, BRANCHES_U, N, "dec;jnz");
	if (abi_on_baremon()) {
		/* The model's cycles: exact there, not on hardware. */
		check_cycles(&user, CYCLES_U, shift);
		check_cycles(&user, REF_U, shift);
	}
	if (want >> INSNS_K & 1) {
		measure(&g, calls, CALLS, &sys);
		check_kernel(&user, &sys);
	}
	close_group(&g);
	return abi_done("exactmix");
}
