/*
 * The perf event file's quick read: read(2) of a counting software
 * event's value (read_format 0) by the task it counts, straight from
 * the SYSCALL entry with no registers saved for it (proc/syscall.h's
 * quick handlers), no lock taken and no descriptor table walked.
 *
 * The descriptor is found through the table's one-entry cache
 * (struct files' read_fd and read_event), which the lean read
 * (lone_fd_ops.c) fills and fdtable.c empties whenever the slot may change
 * meaning (close, dup2/dup3 onto it, close-on-exec, the table becoming
 * shared). So a cached event is the one the descriptor names, its file
 * held by the slot, and the table is the caller's alone: nothing frees
 * the event until this call returns (interrupts are off).
 *
 * Why no perf_lock: the cache holds only an event of the caller's own
 * task (event.task == current), read only while ACTIVE. An active task
 * event is on the counters of the CPU its task runs on, here, and every
 * change to it (sched out, enable, disable, reset, period, exit of an
 * inherited copy into child_count) is made on that CPU, by IPI when
 * asked from elsewhere (core.c's perf_ctx_call), with interrupts off, or
 * by the task itself. Interrupts are off from SYSCALL to SYSRET, so none
 * of those runs during this read: the fields read below are as one
 * moment left them. With inherited copies out (child_list not empty)
 * their counts are summed under the lock by the lean or full path.
 *
 * Everything else declines, having changed nothing: a descriptor not in
 * the cache (the lean path looks it up and fills the cache), an event
 * not active or with copies, a buffer under 8 bytes (ENOSPC on the full
 * path), or a store that faults (a page to fault in, or EFAULT): the
 * store is in .ex_table_nofault, so a fault on it resolves straight to
 * the decline.
 */
#include "event.h"
#include "pmu/perf.h"
#include "core/arch/percpu.h"
#include "core/arch/tsc.h"
#include "core/fs/vfs.h"
#include "core/mm/uaccess.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"

/* time_since_boot_ns() in RAX, RDX and RCX only (tsc_to_ns's product
 * and shift, done by hand): every register the quick read touches is one
 * it saves and restores. */
static inline uint64_t quick_now_ns(void)
{
	uint64_t ns;
	__asm__ volatile("rdtsc\n\t"
			 "shl $32, %%rdx\n\t"
			 "or %%rdx, %%rax\n\t"
			 "mov %[mult], %%edx\n\t"
			 "mul %%rdx\n\t"
			 "shrd %%cl, %%rdx, %%rax"
			 : "=a"(ns)
			 : [mult] "m"(tsc_clock.mult), "c"(tsc_clock.shift) /* SHRD takes it mod 64 */
			 : "rdx");
	return ns - tsc_clock.boot_ns;
}

static SYSCALL_QUICK long perf_read_quick(uint64_t fd, uint64_t ubuf, uint64_t n)
{
	struct files *fs = current->files; /* a running program has its table */
	if ((uint32_t)fd != fs->read_fd) /* an unsigned int argument */
		return SYSCALL_QUICK_DECLINE(__NR_read);
	struct perf_event *e = fs->read_event;
	if (!e || n < sizeof(uint64_t) || e->state != EVENT_ACTIVE ||
	    !list_empty(&e->child_list))
		return SYSCALL_QUICK_DECLINE(__NR_read);
	uint64_t v = e->count + e->child_count;
	if (e->lean & PERF_LEAN_CLOCK) /* perf_sw_read */
		v += quick_now_ns() - e->start_value;
	if (copy_words_to_user_nofault((uint64_t *)ubuf, &v, 1))
		return SYSCALL_QUICK_DECLINE(__NR_read);
	return sizeof(v);
}

void perf_quick_remember(struct files *fs, unsigned fd, struct perf_event *e)
{
	if ((e->lean & PERF_LEAN_VALUE) && e->task == current && fs->refs == 1) {
		fs->read_fd = fd;
		fs->read_event = e;
	}
}

void perf_quick_init(void)
{
	syscall_quick_register(__NR_read, perf_read_quick);
}
