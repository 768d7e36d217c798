/*
 * The type of a recorded branch, found by decoding its instruction, for
 * the branch stacks whose records carry no type (Intel legacy LBR, AMD
 * LbrExtV2), as Linux's branch_type() does for them: with
 * PERF_SAMPLE_BRANCH_TYPE_SAVE the type goes into the entry, and a
 * filter the hardware could not apply exactly drops the entries of
 * other kinds (Linux's software LBR filter).
 */
#ifndef BAREMON_PMU_BRANCH_TYPE_H
#define BAREMON_PMU_BRANCH_TYPE_H

#include <stdbool.h>
#include <stdint.h>

struct perf_branch_entry;

/* The records entries[0..nr) of an event with branch_sample_type bst,
 * typed and filtered in place; the number kept. Reads the user code
 * the records point at (in the PMI, on the task's CPU). */
uint32_t branch_type_filter(struct perf_branch_entry *entries, uint32_t nr, uint64_t bst);

/* The perf type (PERF_BR_*) of a decoded kind (VPMU_BR_*). */
unsigned branch_type_of_kind(unsigned kind);

/* Does a decoded kind pass branch_sample_type bst's branch kinds? */
bool branch_type_wanted(unsigned kind, uint64_t bst);

#endif
