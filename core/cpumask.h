/*
 * CPU masks: one bit per CPU number (0 = the boot CPU, numbers dense in
 * MADT order), MAX_CPUS bits in all. Plain helpers change a mask that
 * one owner writes; the _atomic ones are for masks several CPUs change
 * at once (the online mask, an mm's active CPUs).
 */
#ifndef BAREMON_CPUMASK_H
#define BAREMON_CPUMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPU numbers the kernel can give: a compile-time bound on masks and on
 * the small per-CPU tables; the large per-CPU data is sized at boot for
 * the CPUs numbered (arch/percpu_table.h's percpu_slots, >= cpu_ids). */
#define MAX_CPUS 1024
#define CPUMASK_WORDS (MAX_CPUS / 64)

struct cpumask {
	uint64_t bits[CPUMASK_WORDS];
};

/* CPU numbers in use: 1 + the highest one given at boot (Linux's
 * nr_cpu_ids). Set once by smp_init, before any user task runs. */
extern unsigned cpu_ids;

static inline void cpumask_clear(struct cpumask *m)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = 0;
}

static inline void cpumask_setall(struct cpumask *m)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = ~0ULL;
}

static inline void cpumask_set(struct cpumask *m, unsigned c)
{
	if (c < MAX_CPUS)
		m->bits[c / 64] |= 1ULL << (c % 64);
}

static inline void cpumask_clear_cpu(struct cpumask *m, unsigned c)
{
	if (c < MAX_CPUS)
		m->bits[c / 64] &= ~(1ULL << (c % 64));
}

static inline bool cpumask_test(const struct cpumask *m, unsigned c)
{
	return c < MAX_CPUS && (m->bits[c / 64] >> (c % 64) & 1);
}

/* The mask with only CPU c set. */
static inline struct cpumask cpumask_of(unsigned c)
{
	struct cpumask m;
	cpumask_clear(&m);
	cpumask_set(&m, c);
	return m;
}

static inline void cpumask_set_atomic(struct cpumask *m, unsigned c)
{
	if (c < MAX_CPUS)
		__atomic_or_fetch(&m->bits[c / 64], 1ULL << (c % 64), __ATOMIC_ACQ_REL);
}

static inline void cpumask_clear_atomic(struct cpumask *m, unsigned c)
{
	if (c < MAX_CPUS)
		__atomic_and_fetch(&m->bits[c / 64], ~(1ULL << (c % 64)), __ATOMIC_ACQ_REL);
}

/* An atomic snapshot of each word (not of the whole mask at once). */
static inline void cpumask_load_atomic(struct cpumask *dst, const struct cpumask *src)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = __atomic_load_n(&src->bits[i], __ATOMIC_ACQUIRE);
}

/* dst = a & b; true if dst has any CPU. */
bool cpumask_and(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b);
void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b);
void cpumask_andnot(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b);
bool cpumask_empty(const struct cpumask *m);
bool cpumask_equal(const struct cpumask *a, const struct cpumask *b);
unsigned cpumask_weight(const struct cpumask *m);
/* The lowest CPU in m after `after` (-1: the first); MAX_CPUS if none. */
unsigned cpumask_next(const struct cpumask *m, int after);
static inline unsigned cpumask_first(const struct cpumask *m)
{
	return cpumask_next(m, -1);
}
/* The n-th CPU of m (0-based); MAX_CPUS if m has no more than n. */
unsigned cpumask_nth(const struct cpumask *m, unsigned n);

#define for_each_cpu(c, m) \
	for (unsigned c = cpumask_first(m); c < MAX_CPUS; c = cpumask_next((m), (int)c))

/* The bytes of a user mask as Linux sizes them: whole longs covering
 * cpu_ids bits (Linux's cpumask_size()). */
size_t cpumask_user_size(void);

/* "0-3,5" for m; out gets at most `len` bytes with the NUL. */
void cpumask_format(char *out, size_t len, const struct cpumask *m);

#endif
