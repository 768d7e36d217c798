/*
 * Branch stacks on AMD from LbrExtV2 (lbr_extv2.c), for the AMD driver:
 * init at boot (after the PMU is found); event_init 0 or the errno for
 * an event's branch stack request (after the event's own checks);
 * add/del with the event's counter; read into an overflow's hit (PMI).
 */
#ifndef BAREMON_PMU_AMD_LBR_H
#define BAREMON_PMU_AMD_LBR_H

#include "pmu/events/event.h"

struct perf_hit;

void amd_lbr_init(void);
unsigned amd_lbr_depth(void);         /* 0: no LbrExtV2 */
int amd_lbr_event_init(const struct perf_event *e);
void amd_lbr_add(const struct perf_event *e);
void amd_lbr_del(const struct perf_event *e);
void amd_lbr_read(const struct perf_event *e, struct perf_hit *hit);

#endif
