/*
 * In-kernel self-tests. A test is a function registered with SELFTEST();
 * it records failures with ST_CHECK / ST_FAIL and keeps going, or says
 * with ST_SKIP that this machine gives it nothing to check. Results go
 * to the serial console in KTAP version 1 (core/selftest.c), parseable
 * by tests/qemu and tests/ktap.py:
 *   ok <number> <name>
 *   ok <number> <name> # SKIP <why>
 *   # <name>: FAIL (<where>: <what>)
 *   not ok <number> <name>
 *   selftest: N passed, N failed
 */
#ifndef BAREMON_SELFTEST_H
#define BAREMON_SELFTEST_H

#include "kernel.h"

struct selftest_ctx {
	const char *name;
	int failures;
	char skip[96];      /* ST_SKIP's reason; "" when the test ran */
};

struct selftest {
	const char *name;
	void (*fn)(struct selftest_ctx *t);
};

#define SELFTEST(id)                                                      \
	static void selftest_##id(struct selftest_ctx *t);                \
	static const struct selftest selftest_entry_##id                  \
		__attribute__((section(".selftests"), used, aligned(8))) = \
			{ #id, selftest_##id };                            \
	static void selftest_##id(struct selftest_ctx *t)

void selftest_fail(struct selftest_ctx *t, const char *file, int line,
		   const char *fmt, ...) __printf(4, 5);

/* The test has nothing to check on this machine (its caller returns):
 * reported as "ok N name # SKIP <why>". */
void selftest_skip(struct selftest_ctx *t, const char *fmt, ...) __printf(2, 3);
#define ST_SKIP(t, ...) selftest_skip(t, __VA_ARGS__)

#define ST_FAIL(t, ...) selftest_fail(t, __FILE__, __LINE__, __VA_ARGS__)
#define ST_CHECK(t, cond)                                                 \
	do {                                                              \
		if (!(cond))                                              \
			ST_FAIL(t, "%s", #cond);                          \
	} while (0)

/* Run every test whose name contains `filter` (NULL or "" = all).
 * Returns the number that failed (1 when the kernel has no self-tests
 * built in: make SELFTEST=1). */
int selftest_run(const char *filter);
int selftest_run_counted(const char *filter, int *passed);

/*
 * Knobs: the one seam between production code and the self-tests. A
 * self-test turns a knob on for its own CPU (interrupts off or pinned)
 * and off again before it returns; production code asks
 * selftest_knob(), which is constant false in a kernel built without
 * the self-tests (core/selftest_knobs.c says what each does). Helpers
 * only self-tests call are declared here too, and built only with them.
 */
enum selftest_knob {
	SELFTEST_STUCK_STATUS,  /* x86 PMI: the status comes back each round */
	SELFTEST_NMI_DIRECT,    /* x86 PMI: an NMI on the model is not deferred */
	SELFTEST_NR_KNOBS,
};
#ifdef BAREMON_SELFTEST
bool selftest_knob(enum selftest_knob k);
void selftest_set_knob(enum selftest_knob k, bool on);
#else
static inline bool selftest_knob(enum selftest_knob k)
{
	(void)k;
	return false;
}
#endif

/* core/fs/tty.c: change the console's c_lflag (flushing input); the
 * old value. */
unsigned tty_test_set_lflag(unsigned set, unsigned clear);

#endif
