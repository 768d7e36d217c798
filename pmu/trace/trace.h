/*
 * Kernel tracepoints inside pmu/: the hooks, the tracepoint ids and the
 * record builders are public (perf.h, where core/ sees them); tp_emit,
 * which the builders call, is not.
 */
#ifndef BAREMON_PMU_TRACE_H
#define BAREMON_PMU_TRACE_H

#include <stdint.h>
#include "pmu/perf.h"

/* Report one occurrence: rec (size bytes, a record of tp_records.h whose
 * common_* header tp_emit fills) to the active events of tracepoint i. */
void tp_emit(enum tp_index i, void *rec, uint32_t size);

#endif
