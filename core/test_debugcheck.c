/*
 * Self-tests of the debug build's checks (make DEBUG=1): each provokes
 * one on purpose with reports caught (debugcheck.h), and the report must
 * say what went wrong and name the site, here the test's own function.
 * Without BAREMON_DEBUG there is nothing to test.
 */
#ifdef BAREMON_DEBUG
#include <string.h>
#include "debugcheck.h"
#include "core/mm/mm.h"
#include "selftest.h"
#include "spinlock.h"

static char msg[256];

SELFTEST(debug_heap_double_free)
{
	char *p = kmalloc(40);
	ST_CHECK(t, p != NULL);
	if (!p)
		return;
	kfree(p);
	debug_catch_begin(msg, sizeof(msg));
	kfree(p); /* the second free: reported, dropped */
	ST_CHECK(t, debug_catch_end() == 1);
	ST_CHECK(t, strstr(msg, "double free") != NULL);
	ST_CHECK(t, strstr(msg, "allocated at selftest_debug_heap_double_free+") != NULL);
	ST_CHECK(t, strstr(msg, "freed at selftest_debug_heap_double_free+") != NULL);
}

SELFTEST(debug_heap_overflow)
{
	char *p = kmalloc(40);
	ST_CHECK(t, p != NULL);
	if (!p)
		return;
	char saved = p[41];
	p[41] = 0; /* two bytes past the end: into the red zone */
	debug_catch_begin(msg, sizeof(msg));
	kfree(p); /* reported, not freed */
	ST_CHECK(t, debug_catch_end() == 1);
	ST_CHECK(t, strstr(msg, "overflow") != NULL);
	ST_CHECK(t, strstr(msg, "(40 bytes, allocated at selftest_debug_heap_overflow+") != NULL);
	ST_CHECK(t, strstr(msg, "at byte 1 past its end") != NULL);
	p[41] = saved;
	debug_catch_begin(msg, sizeof(msg));
	kfree(p); /* repaired: a clean free */
	ST_CHECK(t, debug_catch_end() == 0);
}

SELFTEST(debug_heap_poison)
{
	uint8_t *p = kmalloc(100);
	ST_CHECK(t, p != NULL);
	if (!p)
		return;
	memset(p, 0, 100);
	kfree(p);
	/* Freed bytes read as poison (past the 16-byte free-list link).
	 * Another CPU could take the block meanwhile: the test runs on an
	 * idle kernel. */
	ST_CHECK(t, p[16] == 0x6b && p[99] == 0x6b);
}

SELFTEST(debug_spinlock_owner)
{
	static struct spinlock l = SPINLOCK_INIT("test-lock");
	uint64_t f = spin_lock_irqsave(&l);
	debug_catch_begin(msg, sizeof(msg));
	spin_lock(&l); /* this CPU holds it: a deadlock, reported */
	ST_CHECK(t, debug_catch_end() == 1);
	ST_CHECK(t, strstr(msg, "test-lock taken again") != NULL);
	ST_CHECK(t, strstr(msg, "since selftest_debug_spinlock_owner+") != NULL);
	spin_unlock_irqrestore(&l, f);
	debug_catch_begin(msg, sizeof(msg));
	spin_unlock(&l); /* not held */
	ST_CHECK(t, debug_catch_end() == 1);
	ST_CHECK(t, strstr(msg, "test-lock released") != NULL && strstr(msg, "not held") != NULL);
}
#endif
