/*
 * lbr.c: branch stacks (PERF_SAMPLE_BRANCH_STACK), checked against a
 * loop whose branches are known. Runs on the host Linux and on baremon.
 *
 *  - errnos both kernels give before any PMU sees the event: an
 *    undefined branch_sample_type bit and a type with no branch kind
 *    (only privilege bits) are EINVAL; kernel branches for an
 *    unprivileged caller under perf_event_paranoid 2 are EACCES;
 *  - a user branch stack on instructions:u opens on baremon (the vpmu
 *    models legacy LBR on vpmu=intel, architectural LBR on intel-v5 and
 *    hybrid, LbrExtV2 on amd); on a host without a PMU it is ENOENT or
 *    EOPNOTSUPP and the rest is skipped;
 *  - sampling instructions:u of `1: call 2f; dec; jnz 1b; ret; 2: ret`
 *    with branch_sample_type ANY|USER|TYPE_SAVE: every sample's stack
 *    holds only the loop's three branches (call, return, taken jnz),
 *    newest first in the loop's cyclic order, with their perf types,
 *    and stacks are full (as deep as the deepest, 8 entries or more);
 *    ANY_CALL, ANY_RETURN and COND keep only the call, the return, the
 *    jnz; HW_INDEX adds the hw_idx word, below caps/branches (the
 *    depth) in every sample: Linux's legacy LBR gives its top of stack,
 *    AMD and arch LBR 0 (a note gives the range seen);
 *  - CALL_STACK|USER: every stack is the calls still open, innermost
 *    first: the call into the loop, under it (inside the callee) the
 *    loop's call; where the LBR has no call-stack mode (AMD) it is
 *    EOPNOTSUPP, as Linux gives it, and a note says so. The same again
 *    with a callee that yields the CPU to a child pinned beside it (two
 *    switches a call), and with a callee that moves the task to the
 *    other of two CPUs (sched_setaffinity; a note where there is one
 *    CPU): the stack survives the task's switches and migrations, as
 *    Linux's saved and restored call stack does;
 *  - while a pinned CPU event keeps the LBRs on, a task's event that
 *    comes back on after another task ran finds them cleared: no
 *    sample holds the other task's branches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"
#include "ring.h"

__asm__(".text\n"
        ".globl lbr_loop\n"
        "lbr_loop:\n"
        ".globl lbr_call\n"
        "lbr_call: call lbr_callee\n"
        ".globl lbr_after_call\n"
        "lbr_after_call: dec %rdi\n"
        ".globl lbr_jnz\n"
        "lbr_jnz: jnz lbr_call\n"
        "	ret\n"
        ".globl lbr_callee\n"
        "lbr_callee: ret\n"
        /* The same loop, its callee a sched_yield system call. */
        ".globl yield_loop\n"
        "yield_loop:\n"
        ".globl yield_call\n"
        "yield_call: call yield_callee\n"
        "	dec %rdi\n"
        "	jnz yield_call\n"
        "	ret\n"
        ".globl yield_callee\n"
        "yield_callee: mov $24, %eax\n" /* __NR_sched_yield */
        "	syscall\n"
        "	ret\n"
        /* Again, its callee moving the task to the other of two CPUs:
         * sched_setaffinity(0, 8, &migrate_masks[n & 1]). */
        ".globl migrate_loop\n"
        "migrate_loop:\n"
        ".globl migrate_call\n"
        "migrate_call: call migrate_callee\n"
        "	dec %rdi\n"
        "	jnz migrate_call\n"
        "	ret\n"
        ".globl migrate_callee\n"
        "migrate_callee: push %rdi\n"
        "	and $1, %edi\n"
        "	lea migrate_masks(%rip), %rdx\n"
        "	lea (%rdx,%rdi,8), %rdx\n"
        "	xor %edi, %edi\n"
        "	mov $8, %esi\n"
        "	mov $203, %eax\n" /* __NR_sched_setaffinity */
        "	syscall\n"
        "	pop %rdi\n"
        "	ret\n");
void lbr_loop(unsigned long n);
void yield_loop(unsigned long n);
void migrate_loop(unsigned long n);
extern char lbr_call[], lbr_after_call[], lbr_jnz[], lbr_callee[];
extern char yield_call[], yield_callee[], migrate_call[], migrate_callee[];
unsigned long migrate_masks[2]; /* migrate_loop's two CPUs, one bit each */

/* A loop sampled in call-stack mode: its entry, its call and callee. */
struct loop {
	void (*run)(unsigned long n);
	const char *entry, *call, *callee;
};
static const struct loop plain_loop = { lbr_loop, (const char *)lbr_loop, lbr_call, lbr_callee };
static const struct loop yielding_loop = { yield_loop, (const char *)yield_loop, yield_call,
	                                   yield_callee };
static const struct loop migrating_loop = { migrate_loop, (const char *)migrate_loop,
	                                    migrate_call, migrate_callee };

#define PERIOD 997ULL
#define ITERATIONS 3000UL
#define MAX_ENTRIES 64
#define FOREIGN_PERIOD 16

enum which { CALL, RET, JNZ, NONE };

static enum which classify(const struct perf_branch_entry *b)
{
	if (b->from == (uint64_t)lbr_call && b->to == (uint64_t)lbr_callee)
		return CALL;
	if (b->from == (uint64_t)lbr_callee && b->to == (uint64_t)lbr_after_call)
		return RET;
	if (b->from == (uint64_t)lbr_jnz && b->to == (uint64_t)lbr_call)
		return JNZ;
	return NONE;
}

static int open_branches(uint64_t bst, uint64_t period)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = bst;
	return perf_open(&a, 0, -1, -1, 0);
}

static void test_errnos(void)
{
	int fd = open_branches(1ULL << 30 | PERF_SAMPLE_BRANCH_ANY, PERIOD);
	CHECK(fd < 0 && errno == EINVAL, "an undefined branch_sample_type bit is EINVAL");
	if (fd >= 0)
		close(fd);
	fd = open_branches(PERF_SAMPLE_BRANCH_USER, PERIOD);
	CHECK(fd < 0 && errno == EINVAL, "privilege bits without a branch kind are EINVAL");
	if (fd >= 0)
		close(fd);
	if (geteuid() != 0 && file_long("/proc/sys/kernel/perf_event_paranoid", 2) >= 2) {
		fd = open_branches(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL, PERIOD);
		CHECK(fd < 0 && errno == EACCES, "kernel branches unprivileged are EACCES");
		if (fd >= 0)
			close(fd);
	}
}

struct stacks {
	unsigned samples, entries, full, deepest, bad_pair, bad_order, bad_type, bad_kind, bad_size;
	unsigned in_callee, bad_stack;
	uint64_t hw_idx_min, hw_idx_max; /* with HW_INDEX */
};

static const unsigned perf_type[] = { [CALL] = PERF_BR_CALL, [RET] = PERF_BR_RET,
	                              [JNZ] = PERF_BR_COND };

/* One sample's stack: every entry one of the loop's branches (only
 * `only`'s kind when a filter asks), each older entry the branch before
 * it in the loop (when all kinds are recorded). */
static void check_stack(struct stacks *st, const struct perf_branch_entry *b, uint64_t nr,
                        int only, int typed)
{
	static const enum which before[] = { [CALL] = JNZ, [RET] = CALL, [JNZ] = RET };

	st->entries += (unsigned)nr;
	for (uint64_t i = 0; i < nr; i++) {
		enum which w = classify(&b[i]);
		if (w == NONE) {
			/* the oldest may come from before the loop */
			if (i + 1 < nr)
				st->bad_pair++;
			continue;
		}
		if (only >= 0 && (int)w != only)
			st->bad_kind++;
		if (typed && b[i].type != perf_type[w])
			st->bad_type++;
		if (only < 0 && i + 1 < nr && classify(&b[i + 1]) != before[w])
			st->bad_order++;
	}
}

/* A call-stack mode stack: the call into the loop, with the loop's
 * call above it while the callee runs. */
static void check_call_stack(struct stacks *st, const struct loop *lp,
                             const struct perf_branch_entry *b, uint64_t nr)
{
	st->entries += (unsigned)nr;
	if (nr < 1 || nr > 2 || b[nr - 1].to != (uint64_t)lp->entry) {
		st->bad_stack++;
		return;
	}
	if (nr == 2 && (b[0].from != (uint64_t)lp->call || b[0].to != (uint64_t)lp->callee))
		st->bad_stack++;
	st->in_callee += nr == 2;
}

/* Sample instructions:u over a loop with branch_sample_type bst. */
static int sample_any_loop(const struct loop *lp, uint64_t bst, int only, struct stacks *st)
{
	struct ring ring;
	int hw_index = !!(bst & PERF_SAMPLE_BRANCH_HW_INDEX);
	int fd = open_branches(bst, PERIOD);

	memset(st, 0, sizeof(*st));
	st->hw_idx_min = ~0ULL;
	if (fd < 0)
		return -errno;
	if (ring_map(fd, &ring, 16, PROT_READ | PROT_WRITE) < 0) {
		close(fd);
		return -errno;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	lp->run(ITERATIONS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t head = ring_head(&ring);
	while (ring.pos + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t words[3 + 1 + 3 * MAX_ENTRIES];

		ring_copy(&ring, ring.pos, &h, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(h) + sizeof(words)) {
			ring_copy(&ring, ring.pos + sizeof(h), words, h.size - sizeof(h));
			uint64_t nr = words[1];
			unsigned first = 2 + hw_index;
			st->samples++;
			if (hw_index) {
				st->hw_idx_min = words[2] < st->hw_idx_min ? words[2] : st->hw_idx_min;
				st->hw_idx_max = words[2] > st->hw_idx_max ? words[2] : st->hw_idx_max;
			}
			if (sizeof(h) + 8 * (first + 3 * nr) != h.size || nr > MAX_ENTRIES) {
				st->bad_size++;
			} else if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
				check_call_stack(st, lp, (const struct perf_branch_entry *)&words[first], nr);
			} else {
				check_stack(st, (const struct perf_branch_entry *)&words[first], nr,
				            only, !!(bst & PERF_SAMPLE_BRANCH_TYPE_SAVE));
				if (nr > st->deepest)
					st->deepest = (unsigned)nr, st->full = 0;
				st->full += nr == st->deepest;
			}
		}
		ring.pos += h.size ? h.size : 8;
	}
	ring_release(&ring);
	ring_unmap(&ring);
	close(fd);
	return 0;
}

static void report(const char *what, const struct stacks *st, int ordered)
{
	CHECK(st->samples >= 4 * ITERATIONS / PERIOD - 1 && st->entries,
	      "%s: %u samples, %u entries", what, st->samples, st->entries);
	CHECK(!st->bad_size, "%s: every sample's size is its nr's", what);
	CHECK(!st->bad_pair && !st->bad_kind,
	      "%s: every entry is the loop's branch of the kinds asked (%u not the loop's, "
	      "%u of another kind)", what, st->bad_pair, st->bad_kind);
	CHECK(!st->bad_type, "%s: every entry has its branch's perf type", what);
	if (ordered)
		CHECK(!st->bad_order && st->deepest >= 8 && st->full >= st->samples - 1,
		      "%s: newest first in the loop's order (%u out of order), full stacks: %u "
		      "of %u entries", what, st->bad_order, st->full, st->deepest);
}

/* The LBR depth sysfs shows (cpu/ or a hybrid CPU's cpu_core/), or -1. */
static long lbr_depth(void)
{
	char path[96];

	return core_pmu_file(path, sizeof(path), "caps/branches") ? -1 : file_long(path, -1);
}

static void hw_index_range(const struct stacks *st)
{
	long depth = lbr_depth();

	CHECK(depth > 0 && st->hw_idx_max < (uint64_t)depth,
	      "cond, hw_index: every hw_idx below caps/branches (%ld)", depth);
	abi_note("cond, hw_index: hw_idx in [%llu, %llu]", (unsigned long long)st->hw_idx_min,
		 (unsigned long long)st->hw_idx_max);
}

static int sample_loop(uint64_t bst, int only, struct stacks *st)
{
	return sample_any_loop(&plain_loop, bst, only, st);
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Call-stack mode across switches: the loop's callee yields to a child
 * pinned on the same CPU that yields back, so the task is switched out
 * and in at every call; each stack must still be the calls still open. */
static void call_stack_switching(void)
{
	struct stacks st;
	cpu_set_t old;

	if (sched_getaffinity(0, sizeof(old), &old) || pin_to(0)) {
		CHECK(0, "call_stack, switching: pinned to CPU 0 (%s)", strerror(errno));
		return;
	}
	pid_t child = fork();
	if (child == 0) {
		for (;;)
			sched_yield();
	}
	int r = child < 0 ? -errno : sample_any_loop(&yielding_loop,
	                                              PERF_SAMPLE_BRANCH_CALL_STACK |
	                                              PERF_SAMPLE_BRANCH_USER, -1, &st);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	sched_setaffinity(0, sizeof(old), &old);
	CHECK(r == 0 && st.samples >= 2 && !st.bad_size,
	      "call_stack, switching: %u samples (%s)", st.samples, r ? strerror(-r) : "opened");
	CHECK(!st.bad_stack,
	      "call_stack, switching: the calls still open after each switch, innermost first "
	      "(%u wrong of %u, %u in the callee)", st.bad_stack, st.samples, st.in_callee);
}

/* The first two CPUs of set into c[0], c[1]; false if it has fewer. */
static int two_cpus(const cpu_set_t *set, int c[2])
{
	int n = 0;

	for (int cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, set))
			c[n++] = cpu;
	return n == 2;
}

/* Call-stack mode across migrations: the loop's callee moves the task
 * to the other of two CPUs at every call (a cpu-migrations counter
 * shows it moved), so each stack after the first call was left on one
 * CPU and sampled on the other: it must still be the calls still open,
 * as Linux's saved and restored call stack is. */
static void call_stack_migrating(void)
{
	struct stacks st;
	cpu_set_t old;
	int c[2];

	if (sched_getaffinity(0, sizeof(old), &old) || !two_cpus(&old, c)) {
		abi_note("call_stack, migrating: fewer than two CPUs: not checked");
		return;
	}
	migrate_masks[0] = 1UL << c[0];
	migrate_masks[1] = 1UL << c[1];
	int moves = perf_sw(PERF_COUNT_SW_CPU_MIGRATIONS, 0);
	int r = sample_any_loop(&migrating_loop,
	                        PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER, -1, &st);
	uint64_t moved = moves >= 0 ? perf_value(moves) : 0;
	if (moves >= 0)
		close(moves);
	sched_setaffinity(0, sizeof(old), &old);
	CHECK(r == 0 && st.samples >= 2 && !st.bad_size,
	      "call_stack, migrating: %u samples (%s)", st.samples, r ? strerror(-r) : "opened");
	CHECK(moved != PERF_BAD_VALUE && moved >= ITERATIONS / 2,
	      "call_stack, migrating: the task moved between CPUs %d and %d (%llu migrations, "
	      "%lu calls)", c[0], c[1], (unsigned long long)moved, ITERATIONS);
	CHECK(!st.bad_stack,
	      "call_stack, migrating: the calls still open after each move, innermost first "
	      "(%u wrong of %u, %u in the callee)", st.bad_stack, st.samples, st.in_callee);
}

/* What the parent and the child of foreign_records tell each other. */
struct handshake {
	volatile int child_on;     /* the child's event is on */
	volatile int parent_done;  /* the parent ran its loop */
};

/* The child of foreign_records: its own event on, it yields to the
 * parent until the parent has run lbr_loop, then returns how many of its
 * samples hold one of the loop's branches (it never runs the loop); 200
 * and up: it could not sample. */
static int count_foreign(struct handshake *hs)
{
	struct ring ring;
	int foreign = 0;
	int fd = open_branches(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER, FOREIGN_PERIOD);

	if (fd < 0)
		return 201;
	if (ring_map(fd, &ring, 64, PROT_READ | PROT_WRITE) < 0)
		return 202;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	hs->child_on = 1;
	while (!hs->parent_done)
		sched_yield();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t head = ring_head(&ring);
	int samples = 0;
	while (ring.pos + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t words[2 + 3 * MAX_ENTRIES];

		ring_copy(&ring, ring.pos, &h, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof(h) + sizeof(words)) {
			ring_copy(&ring, ring.pos + sizeof(h), words, h.size - sizeof(h));
			const struct perf_branch_entry *b = (const void *)&words[2];
			int theirs = 0;
			for (uint64_t i = 0; i < words[1] && i < MAX_ENTRIES; i++)
				theirs |= classify(&b[i]) != NONE;
			foreign += theirs;
			samples++;
		}
		ring.pos += h.size ? h.size : 8;
	}
	return samples ? (foreign < 200 ? foreign : 199) : 203;
}

/* No task sees another's branches: while a pinned CPU event keeps CPU
 * 0's LBRs on, a child with its own branch stack event yields to the
 * parent, which runs lbr_loop; when the child comes back on, its event
 * comes back on with it, and none of its samples may hold the parent's
 * loop (Linux clears the LBRs when a task's event comes on over another
 * task's records: intel_pmu_lbr_add's lbr_context check). */
static void foreign_records(void)
{
	struct perf_event_attr a;
	cpu_set_t old;

	if (sched_getaffinity(0, sizeof(old), &old) || pin_to(0)) {
		CHECK(0, "foreign records: pinned to CPU 0 (%s)", strerror(errno));
		return;
	}
	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	a.pinned = 1; /* stays on while the task's events go on and off */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = 1ULL << 40;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	int cpu_fd = perf_open(&a, -1, 0, -1, 0);
	struct handshake *hs = mmap(NULL, sizeof(*hs), PROT_READ | PROT_WRITE,
	                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(cpu_fd >= 0 && hs != MAP_FAILED, "foreign records: a pinned CPU event's branch "
	      "stack on CPU 0 (%s)", cpu_fd < 0 || hs == MAP_FAILED ? strerror(errno) : "opened");
	if (cpu_fd >= 0 && hs != MAP_FAILED) {
		pid_t child = fork();
		if (child == 0)
			_exit(count_foreign(hs));
		while (child > 0 && !hs->child_on)
			sched_yield();
		lbr_loop(ITERATIONS);
		hs->parent_done = 1;
		int status = 0;
		waitpid(child, &status, 0);
		int n = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
		CHECK(n == 0, "foreign records: no sample of a task holds another task's "
		      "branches (%d %s)", n, n < 200 ? "samples did" : "- no samples");
	}
	if (cpu_fd >= 0)
		close(cpu_fd);
	if (hs != MAP_FAILED)
		munmap(hs, sizeof(*hs));
	sched_setaffinity(0, sizeof(old), &old);
}

static void call_stack(void)
{
	struct stacks st;
	int r = sample_loop(PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER, -1, &st);

	if (r == -EOPNOTSUPP) {
		abi_note("call_stack: no call-stack mode here (EOPNOTSUPP)");
		return;
	}
	CHECK(r == 0 && st.samples >= 4 * ITERATIONS / PERIOD - 1 && !st.bad_size,
	      "call_stack: %u samples (%s)", st.samples, r ? strerror(-r) : "opened");
	CHECK(!st.bad_stack && st.in_callee,
	      "call_stack: the calls still open, innermost first (%u wrong, %u in the callee)",
	      st.bad_stack, st.in_callee);
	call_stack_switching();
	call_stack_migrating();
}

int main(void)
{
	struct stacks st;
	uint64_t user = PERF_SAMPLE_BRANCH_USER;

	setvbuf(stdout, NULL, _IONBF, 0);
	test_errnos();
	int r = sample_loop(PERF_SAMPLE_BRANCH_ANY | user | PERF_SAMPLE_BRANCH_TYPE_SAVE, -1, &st);
	if (r < 0) {
		CHECK(!abi_on_baremon(), "baremon samples user branch stacks (%s)", strerror(-r));
		CHECK(r == -ENOENT || r == -EOPNOTSUPP, "without LBR: ENOENT or EOPNOTSUPP (%s)",
		      strerror(-r));
		abi_note("no branch stacks here (%s): the stacks are not checked", strerror(-r));
		return abi_done("lbr");
	}
	report("any", &st, 1);
	sample_loop(PERF_SAMPLE_BRANCH_ANY_CALL | user | PERF_SAMPLE_BRANCH_TYPE_SAVE, CALL, &st);
	report("any_call", &st, 0);
	sample_loop(PERF_SAMPLE_BRANCH_ANY_RETURN | user, RET, &st);
	report("any_return", &st, 0);
	sample_loop(PERF_SAMPLE_BRANCH_COND | user | PERF_SAMPLE_BRANCH_HW_INDEX, JNZ, &st);
	report("cond, hw_index", &st, 0);
	hw_index_range(&st);
	call_stack();
	foreign_records();
	return abi_done("lbr");
}
