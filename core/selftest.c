/*
 * The self-test runner. Tests run one after another on the calling CPU.
 * A kernel built without them (no BAREMON_SELFTEST: the release
 * kernel, `make`) links no test_*.o and its runner says so: nothing
 * ran, which counts as one failure.
 */
#include <string.h>
#include "selftest.h"

#ifndef BAREMON_SELFTEST
int selftest_run(const char *filter)
{
	int passed;
	return selftest_run_counted(filter, &passed);
}

int selftest_run_counted(const char *filter, int *passed_out)
{
	(void)filter;
	kprintf("selftest: self-tests are not built in this kernel (make SELFTEST=1)\n");
	*passed_out = 0;
	return 1;
}
#else

extern const struct selftest __selftests_start[], __selftests_end[];

void selftest_fail(struct selftest_ctx *t, const char *file, int line,
		   const char *fmt, ...)
{
	if (t->failures++ == 0)
		kprintf("selftest: %s: FAIL (%s:%d: ", t->name, file, line);
	else
		kprintf("selftest: %s:   also (%s:%d: ", t->name, file, line);
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
	kprintf(")\n");
}

int selftest_run(const char *filter)
{
	int passed;
	return selftest_run_counted(filter, &passed);
}

int selftest_run_counted(const char *filter, int *passed_out)
{
	int passed = 0, failed = 0;
	for (const struct selftest *s = __selftests_start; s < __selftests_end; s++) {
		if (filter && *filter && !strstr(s->name, filter))
			continue;
		struct selftest_ctx t = { .name = s->name, .failures = 0 };
		s->fn(&t);
		if (t.failures) {
			failed++;
		} else {
			passed++;
			kprintf("selftest: %s: PASS\n", s->name);
		}
	}
	kprintf("selftest: %d passed, %d failed\n", passed, failed);
	*passed_out = passed;
	return failed;
}
#endif
