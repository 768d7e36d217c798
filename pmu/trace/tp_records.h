/*
 * The records of baremon's tracepoints: the bytes a PERF_SAMPLE_RAW
 * sample carries, laid out as Linux 6.x lays out the same events (the
 * format files of pmu/trace/tp_events.c are generated from these structs, and
 * the asserts pin the offsets Linux's format files give).
 *
 * A record is the common header, the fixed fields, then (for events with
 * __data_loc fields) the strings, packed, each with its NUL. A
 * __data_loc field holds (length << 16) | offset, the offset counted
 * from the start of the record. The payload handed to perf_event_hit is
 * exactly the record; the core pads PERF_SAMPLE_RAW to u64 alignment
 * (size field plus data) as Linux does.
 */
#ifndef BAREMON_PMU_TP_RECORDS_H
#define BAREMON_PMU_TP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define TP_COMM_LEN 16

/* Linux's struct trace_entry. */
struct tp_common {
	uint16_t common_type;           /* the tracepoint's id */
	uint8_t common_flags;           /* TRACE_FLAG_* */
	uint8_t common_preempt_count;
	int32_t common_pid;             /* the current task's tid */
};

/* common_flags bits (Linux's trace_flag_type). */
#define TRACE_FLAG_IRQS_OFF     0x01
#define TRACE_FLAG_NEED_RESCHED 0x04
#define TRACE_FLAG_HARDIRQ      0x08

struct tp_sched_switch {
	struct tp_common c;
	char prev_comm[TP_COMM_LEN];
	int32_t prev_pid;
	int32_t prev_prio;
	int64_t prev_state;             /* Linux's TASK_REPORT bits, 0 = R */
	char next_comm[TP_COMM_LEN];
	int32_t next_pid;
	int32_t next_prio;
};

struct tp_sched_wakeup {
	struct tp_common c;
	char comm[TP_COMM_LEN];
	int32_t pid;
	int32_t prio;
	int32_t target_cpu;
};

struct tp_sched_process_fork {
	struct tp_common c;
	uint32_t parent_comm;           /* __data_loc char[] */
	int32_t parent_pid;
	uint32_t child_comm;            /* __data_loc char[] */
	int32_t child_pid;
	char data[];
};

struct tp_sched_process_exec {
	struct tp_common c;
	uint32_t filename;              /* __data_loc char[] */
	int32_t pid;
	int32_t old_pid;
	char data[];
};

struct tp_sched_process_exit {
	struct tp_common c;
	char comm[TP_COMM_LEN];
	int32_t pid;
	int32_t prio;
	_Bool group_dead;
};

struct tp_sys_enter {
	struct tp_common c;
	int64_t id;
	uint64_t args[6];
};

struct tp_sys_exit {
	struct tp_common c;
	int64_t id;
	int64_t ret;
};

struct tp_irq_handler_entry {
	struct tp_common c;
	int32_t irq;
	uint32_t name;                  /* __data_loc char[] */
	char data[];
};

/* The offsets and sizes of Linux 6.x's format files. */
_Static_assert(sizeof(struct tp_common) == 8, "common header");
_Static_assert(offsetof(struct tp_sched_switch, prev_state) == 32 &&
	       offsetof(struct tp_sched_switch, next_prio) == 60 &&
	       sizeof(struct tp_sched_switch) == 64, "sched_switch");
_Static_assert(offsetof(struct tp_sched_wakeup, target_cpu) == 32 &&
	       sizeof(struct tp_sched_wakeup) == 36, "sched_wakeup");
_Static_assert(offsetof(struct tp_sched_process_fork, child_pid) == 20 &&
	       sizeof(struct tp_sched_process_fork) == 24, "sched_process_fork");
_Static_assert(offsetof(struct tp_sched_process_exec, old_pid) == 16 &&
	       sizeof(struct tp_sched_process_exec) == 20, "sched_process_exec");
_Static_assert(offsetof(struct tp_sched_process_exit, group_dead) == 32 &&
	       sizeof(struct tp_sched_process_exit) == 36, "sched_process_exit");
_Static_assert(offsetof(struct tp_sys_enter, args) == 16 &&
	       sizeof(struct tp_sys_enter) == 64, "sys_enter");
_Static_assert(sizeof(struct tp_sys_exit) == 24, "sys_exit");
_Static_assert(offsetof(struct tp_irq_handler_entry, name) == 12 &&
	       sizeof(struct tp_irq_handler_entry) == 16, "irq_handler_entry");

/* Append s (with its NUL, at most max bytes of it) at rec + *end and
 * return its __data_loc word; *end moves past it. */
static inline uint32_t tp_put_str(void *rec, uint32_t *end, const char *s,
				  uint32_t max)
{
	char *p = (char *)rec + *end;
	uint32_t n = 0;
	while (n + 1 < max && s[n]) {
		p[n] = s[n];
		n++;
	}
	p[n++] = 0;
	uint32_t loc = n << 16 | *end;
	*end += n;
	return loc;
}

/* syscalls:sys_enter_<call>: the call's arguments, as many as it has,
 * each an unsigned long (Linux's struct syscall_trace_enter). */
struct tp_syscall_enter {
	struct tp_common c;
	int32_t nr;                     /* __syscall_nr */
	uint32_t pad;
	uint64_t args[6];
};
_Static_assert(offsetof(struct tp_syscall_enter, args) == 16, "Linux's layout");

/* syscalls:sys_exit_<call> (struct syscall_trace_exit). */
struct tp_syscall_exit {
	struct tp_common c;
	int32_t nr;
	uint32_t pad;
	int64_t ret;
};
_Static_assert(offsetof(struct tp_syscall_exit, ret) == 16, "Linux's layout");

#endif
