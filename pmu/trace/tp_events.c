/*
 * The tracepoints as tracefs describes them: group, name, fields and
 * print format, as Linux 6.x (6.18) prints them in
 * /sys/kernel/tracing/events/<group>/<name>/format. Offsets and sizes
 * come from the record structs (tp_records.h), so the format files
 * cannot disagree with the records.
 */
#include <stddef.h>
#include "tp_events.h"
#include "tp_records.h"

/* A field of struct tp_<ev>: its declaration as Linux prints it. */
#define FIELD(ev, member, decl, sgn)                                          \
	{ decl, offsetof(struct tp_##ev, member),                             \
	  sizeof(((struct tp_##ev *)0)->member), sgn }
#define END { NULL, 0, 0, false }

const struct tp_field tp_common_fields[] = {
	FIELD(common, common_type, "unsigned short common_type", false),
	FIELD(common, common_flags, "unsigned char common_flags", false),
	FIELD(common, common_preempt_count, "unsigned char common_preempt_count", false),
	FIELD(common, common_pid, "int common_pid", true),
	END,
};

static const struct tp_field sched_switch[] = {
	FIELD(sched_switch, prev_comm, "char prev_comm[16]", false),
	FIELD(sched_switch, prev_pid, "pid_t prev_pid", true),
	FIELD(sched_switch, prev_prio, "int prev_prio", true),
	FIELD(sched_switch, prev_state, "long prev_state", true),
	FIELD(sched_switch, next_comm, "char next_comm[16]", false),
	FIELD(sched_switch, next_pid, "pid_t next_pid", true),
	FIELD(sched_switch, next_prio, "int next_prio", true),
	END,
};

static const struct tp_field sched_wakeup[] = {
	FIELD(sched_wakeup, comm, "char comm[16]", false),
	FIELD(sched_wakeup, pid, "pid_t pid", true),
	FIELD(sched_wakeup, prio, "int prio", true),
	FIELD(sched_wakeup, target_cpu, "int target_cpu", true),
	END,
};

static const struct tp_field sched_process_fork[] = {
	FIELD(sched_process_fork, parent_comm, "__data_loc char[] parent_comm", false),
	FIELD(sched_process_fork, parent_pid, "pid_t parent_pid", true),
	FIELD(sched_process_fork, child_comm, "__data_loc char[] child_comm", false),
	FIELD(sched_process_fork, child_pid, "pid_t child_pid", true),
	END,
};

static const struct tp_field sched_process_exec[] = {
	FIELD(sched_process_exec, filename, "__data_loc char[] filename", false),
	FIELD(sched_process_exec, pid, "pid_t pid", true),
	FIELD(sched_process_exec, old_pid, "pid_t old_pid", true),
	END,
};

static const struct tp_field sched_process_exit[] = {
	FIELD(sched_process_exit, comm, "char comm[16]", false),
	FIELD(sched_process_exit, pid, "pid_t pid", true),
	FIELD(sched_process_exit, prio, "int prio", true),
	FIELD(sched_process_exit, group_dead, "bool group_dead", false),
	END,
};

static const struct tp_field sys_enter[] = {
	FIELD(sys_enter, id, "long id", true),
	FIELD(sys_enter, args, "unsigned long args[6]", false),
	END,
};

static const struct tp_field sys_exit[] = {
	FIELD(sys_exit, id, "long id", true),
	FIELD(sys_exit, ret, "long ret", true),
	END,
};

static const struct tp_field irq_handler_entry[] = {
	FIELD(irq_handler_entry, irq, "int irq", true),
	FIELD(irq_handler_entry, name, "__data_loc char[] name", false),
	END,
};

/* sched_switch's prev_state: Linux's TASK_REPORT states, TASK_REPORT_MAX
 * (0x100) marking a preempted task ("R+"). */
#define REPORT "(0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | " \
	       "0x00000008 | 0x00000010 | 0x00000020 | 0x00000040)"
#define STATE_BITS "REC->prev_state & (((" REPORT " + 1) << 1) - 1)"
#define STATE_NAMES "{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, " \
	"{ 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, " \
	"{ 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }"

const struct tp_event tp_events[TP_NR] = {
	[TP_SCHED_SWITCH] = { "sched", "sched_switch", sched_switch,
		"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
		"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "
		"REC->prev_pid, REC->prev_prio, (" STATE_BITS ") ? "
		"__print_flags(" STATE_BITS ", \"|\", " STATE_NAMES ") : \"R\", "
		"REC->prev_state & ((" REPORT " + 1) << 1) ? \"+\" : \"\", "
		"REC->next_comm, REC->next_pid, REC->next_prio" },
	[TP_SCHED_WAKEUP] = { "sched", "sched_wakeup", sched_wakeup,
		"\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, "
		"REC->pid, REC->prio, REC->target_cpu" },
	[TP_SCHED_PROCESS_FORK] = { "sched", "sched_process_fork", sched_process_fork,
		"\"comm=%s pid=%d child_comm=%s child_pid=%d\", "
		"__get_str(parent_comm), REC->parent_pid, __get_str(child_comm), "
		"REC->child_pid" },
	[TP_SCHED_PROCESS_EXEC] = { "sched", "sched_process_exec", sched_process_exec,
		"\"filename=%s pid=%d old_pid=%d\", __get_str(filename), "
		"REC->pid, REC->old_pid" },
	[TP_SCHED_PROCESS_EXIT] = { "sched", "sched_process_exit", sched_process_exit,
		"\"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, REC->pid, "
		"REC->prio, REC->group_dead ? \"true\" : \"false\"" },
	[TP_SYS_ENTER] = { "raw_syscalls", "sys_enter", sys_enter,
		"\"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, "
		"REC->args[0], REC->args[1], REC->args[2], REC->args[3], "
		"REC->args[4], REC->args[5]", true },
	[TP_SYS_EXIT] = { "raw_syscalls", "sys_exit", sys_exit,
		"\"NR %ld = %ld\", REC->id, REC->ret", true },
	[TP_IRQ_HANDLER_ENTRY] = { "irq", "irq_handler_entry", irq_handler_entry,
		"\"irq=%d name=%s\", REC->irq, __get_str(name)" },
};
