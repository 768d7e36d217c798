/*
 * Kernel tracepoints inside pmu/: the hooks, the tracepoint ids and the
 * record builders are public (perf.h, where core/ sees them); tp_emit,
 * which the builders call, is not.
 */
#ifndef BAREMON_PMU_TRACE_H
#define BAREMON_PMU_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu/perf.h"

/* Report one occurrence: rec (size bytes, a record of tp_records.h whose
 * common_* header tp_emit fills) to the active events of tracepoint i. */
/* The same for the tracepoint whose id (attr.config) is config: the
 * sample's ip and frame are its caller's, a record builder's. */
void tp_emit_config(uint64_t config, void *rec, uint32_t size);
static inline void tp_emit(enum tp_index i, void *rec, uint32_t size)
{
	tp_emit_config(TP_ID_BASE + (uint64_t)i, rec, size);
}

/* ---- syscalls:* (tp_syscalls.c) ---- */

/* Active syscalls:sys_enter_* ([0]) and sys_exit_* ([1]) events
 * (atomic, as tp_active). */
extern int tp_sc_active[2];
/* Is config the id of a syscalls:* tracepoint? *exit: a sys_exit_ one. */
bool tp_sc_event(uint64_t config, bool *exit);
/* The records, from the raw_syscalls hooks. */
void tp_syscall_enter(const struct trap_frame *f);
void tp_syscall_exit(const struct trap_frame *f);
/* tracefs: events/syscalls/<event>/{id,format} under root, and the
 * events' available_events lines. */
struct seqbuf;
void tp_syscalls_tracefs(const char *root);
void tp_syscalls_available(struct seqbuf *out);

#endif
