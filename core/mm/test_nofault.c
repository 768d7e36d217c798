/* Self-tests: user stores in .ex_table_nofault (uaccess.h's
 * copy_words_to_user_nofault) fail at once and are never resolved. */
#include "core/selftest.h"
#include "uaccess.h"
#include "mm.h"
#include "usermm.h"
#include "core/proc/task.h"

/* The tables' layout (uaccess.c): (fault rip, fixup rip) pairs, the
 * ordinary entries first. */
extern const uint64_t __ex_table_start[], __ex_table_nofault_start[], __ex_table_end[];

SELFTEST(uaccess_nofault_table)
{
	const uint64_t *e = __ex_table_start, *nofault = __ex_table_nofault_start,
		       *end = __ex_table_end;
	ST_CHECK(t, nofault > e && end > nofault);
	for (; e < nofault; e += 2)
		ST_CHECK(t, uaccess_may_resolve(e[0]) && uaccess_fixup(e[0]) == e[1]);
	for (; e < end; e += 2)
		ST_CHECK(t, !uaccess_may_resolve(e[0]) && uaccess_fixup(e[0]) == e[1]);
	/* With page faults disabled, no entry may resolve. */
	this_cpu()->pagefault_disabled++;
	ST_CHECK(t, !uaccess_may_resolve(__ex_table_start[0]));
	this_cpu()->pagefault_disabled--;
	ST_CHECK(t, !uaccess_may_resolve((uint64_t)&selftest_run)); /* not a copy */
}

/* A store to a user address nothing maps, and past the user half. */
SELFTEST(uaccess_nofault_store)
{
	uint64_t v[2] = { 1, 2 };
	struct mm *mm = current ? current->mm : NULL;
	uint64_t at = mm ? mm_find_free(mm, PAGE_SIZE) : 0x1000; /* in no mapping */
	if (!at || vm_lookup_flags(at) || (mm && mm_translate(mm, at, false))) {
		ST_FAIL(t, "no unmapped user page to store to");
		return;
	}
	ST_CHECK(t, copy_words_to_user_nofault((uint64_t *)at, v, 2) == -EFAULT);
	ST_CHECK(t, copy_words_to_user_nofault((uint64_t *)(USER_TOP - 8), v, 2) == -EFAULT);
	ST_CHECK(t, copy_words_to_user_nofault((uint64_t *)0xffff800000000000ULL, v, 1) == -EFAULT);
}
