/*
 * switch.c: PERF_RECORD_SWITCH and SWITCH_CPU_WIDE (attr.context_switch),
 * with sample_id_all TID+TIME trailers, the process pinned to one CPU.
 *
 *  - a per-task dummy event: every record is SWITCH, header and trailer
 *    only (24 bytes), with our pid/tid; they alternate OUT (misc
 *    SWITCH_OUT), IN (misc 0), ... in time order; each nanosleep gives
 *    an OUT without SWITCH_OUT_PREEMPT (we blocked); sched_yield while a
 *    child spins on the same CPU gives an OUT with SWITCH_OUT_PREEMPT
 *    (we were still runnable);
 *  - a CPU-wide dummy event on that CPU: SWITCH_CPU_WIDE records (32
 *    bytes + trailer); each OUT (trailer: the task leaving, next_prev:
 *    the one coming) is followed by an IN from the task coming (trailer)
 *    naming the one that left (next_prev); our sleeps appear as OUTs
 *    from us.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include "perf.h"
#include "ring.h"

#define PAGES 64

struct rec {
	uint16_t type, misc, size;
	uint32_t np_pid, np_tid;       /* CPU-wide only */
	uint32_t pid, tid;             /* trailer */
	uint64_t time;
};

/* The next record, or 0. */
static int next(struct ring *r, struct rec *out)
{
	struct perf_event_header h;
	uint64_t tr[2];

	if (r->pos >= __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE))
		return 0;
	ring_copy(r, r->pos, &h, sizeof(h));
	memset(out, 0, sizeof(*out));
	out->type = (uint16_t)h.type;
	out->misc = h.misc;
	out->size = h.size;
	if (h.type == PERF_RECORD_SWITCH_CPU_WIDE) {
		ring_copy(r, r->pos + 8, &out->np_pid, 4);
		ring_copy(r, r->pos + 12, &out->np_tid, 4);
	}
	ring_copy(r, r->pos + h.size - 16, tr, sizeof(tr));
	out->pid = (uint32_t)tr[0];
	out->tid = (uint32_t)(tr[0] >> 32);
	out->time = tr[1];
	r->pos += h.size;
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
	return 1;
}

static int open_switch(pid_t pid, int cpu)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.context_switch = a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.exclude_kernel = a.exclude_hv = 1;
	return perf_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* A child spinning on our CPU, so that yielding switches to it. */
static pid_t spinner(void)
{
	pid_t kid = fork();

	if (kid == 0) {
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	return kid;
}

static void per_task(void)
{
	struct ring r;
	struct rec x;
	int fd = open_switch(0, -1);
	int outs = 0, ins = 0, blocked = 0, preempted = 0, alternate = 1, ours = 1, sizes = 1;
	int expect_out = 1;
	uint64_t last = 0;
	int ordered = 1;

	if (!CHECK(fd >= 0 && ring_map(fd, &r, PAGES, PROT_READ | PROT_WRITE) == 0, "per-task dummy event with context_switch, mapped"))
		return;
	for (int i = 0; i < 5; i++)
		sleep_ns(SWITCH_SLEEP_NS);
	pid_t kid = spinner();
	sleep_ns(20000000); /* let it start spinning here */
	for (int i = 0; i < 20; i++)
		sched_yield();
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	close(fd); /* no more records */
	while (next(&r, &x)) {
		int out = x.misc & PERF_RECORD_MISC_SWITCH_OUT;

		if (x.type != PERF_RECORD_SWITCH)
			continue;
		if (x.size != 8 + 16)
			sizes = 0;
		if (x.pid != (uint32_t)getpid() || x.tid != (uint32_t)getpid())
			ours = 0;
		if (!out != !expect_out)
			alternate = 0;
		expect_out = !out;
		if (x.time < last)
			ordered = 0;
		last = x.time;
		if (out) {
			outs++;
			if (x.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
				preempted++;
			else
				blocked++;
		} else {
			ins++;
		}
	}
	CHECK(sizes, "SWITCH records are header + trailer (24 bytes)");
	CHECK(ours, "their trailers carry our pid/tid");
	CHECK(alternate, "OUT, IN, OUT, IN...: every OUT is followed by an IN (%d out, %d in)",
	      outs, ins);
	CHECK(ordered, "trailer times never go back");
	CHECK(blocked >= 5, "5 sleeps: at least 5 OUTs without PREEMPT (%d)", blocked);
	CHECK(preempted >= 1, "yielding to a spinning child: OUT with SWITCH_OUT_PREEMPT (%d)",
	      preempted);
	CHECK(outs - ins <= 1 && outs - ins >= 0, "as many INs as OUTs, but for the last");
}

static void cpu_wide(int cpu)
{
	struct ring r;
	struct rec x, prev_out;
	int fd = open_switch(-1, cpu);
	int pairs = 0, broken = 0, mine = 0, sizes = 1, pending = 0;
	uint32_t me = (uint32_t)getpid();

	if (!CHECK(fd >= 0 && ring_map(fd, &r, PAGES, PROT_READ | PROT_WRITE) == 0, "CPU-wide dummy event with context_switch "
	           "on CPU %d, mapped", cpu))
		return;
	for (int i = 0; i < 5; i++)
		sleep_ns(SWITCH_SLEEP_NS);
	close(fd);
	memset(&prev_out, 0, sizeof(prev_out));
	while (next(&r, &x)) {
		if (x.type != PERF_RECORD_SWITCH_CPU_WIDE)
			continue;
		if (x.size != 8 + 8 + 16)
			sizes = 0;
		if (x.misc & PERF_RECORD_MISC_SWITCH_OUT) {
			if (pending)
				broken++;
			prev_out = x;
			pending = 1;
			if (x.pid == me && x.tid == me)
				mine++;
			continue;
		}
		if (!pending)
			continue; /* an IN whose OUT came before the event */
		pending = 0;
		if (x.pid == prev_out.np_pid && x.tid == prev_out.np_tid &&
		    x.np_pid == prev_out.pid && x.np_tid == prev_out.tid)
			pairs++;
		else
			broken++;
	}
	CHECK(sizes, "SWITCH_CPU_WIDE records are 32 bytes + trailer (16)");
	/* baremon pairs every record. The host Linux (6.18, on a busy
	 * machine) does not always: once in 43 pairs an OUT (A -> B) was
	 * followed by A's own IN from B, B's IN and OUT never written. A
	 * guarantee Linux does not keep is not asserted there. */
	if (abi_on_baremon())
		CHECK(pairs >= 5 && broken == 0, "each OUT (A -> B) is followed by "
		      "B's IN naming A (%d pairs, %d broken)", pairs, broken);
	else
		CHECK(pairs >= 5 && broken * 4 < pairs, "each OUT (A -> B) is "
		      "mostly followed by B's IN naming A (%d pairs, %d broken)",
		      pairs, broken);
	CHECK(mine >= 5, "5 sleeps: at least 5 OUTs from us (%d)", mine);
}

int main(void)
{
	if (!CHECK(pin(0) == 0, "run on CPU 0"))
		return abi_done("switch");
	per_task();
	cpu_wide(0);
	return abi_done("switch");
}
