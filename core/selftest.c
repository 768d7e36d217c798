/* The self-test runner. Tests run one after another on the calling CPU. */
#include <string.h>
#include "selftest.h"

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
