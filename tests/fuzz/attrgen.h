/*
 * attrgen.h: the fuzzers' seeded generator and their perf_event_attrs
 * drawn from every field's valid and invalid values (attrgen.c). Shared
 * by the system-call fuzzer (fuzz.c) and the differential errno fuzzer
 * (errnos.c), so both draw the same cases from the same seed.
 */
#ifndef FUZZ_ATTRGEN_H
#define FUZZ_ATTRGEN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* Restart the generator: the same seed gives the same draws. */
void fz_seed(uint64_t seed);
uint64_t fz_next(void);
uint64_t fz_below(uint64_t n);        /* 0..n-1 (0 when n is 0) */
uint64_t fz_pick(const uint64_t *v, size_t n);

#define PICK(...) ({ const uint64_t v_[] = { __VA_ARGS__ }; \
	fz_pick(v_, sizeof(v_) / sizeof(v_[0])); })

/* Half plausible attrs (they open, so later calls have work to do),
 * half drawn field by field. */
void fz_random_attr(struct perf_event_attr *a);
/* Only the field-by-field half. */
void fz_wild_attr(struct perf_event_attr *a);

#endif
