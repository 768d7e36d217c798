/*
 * Reports of the debug build's self-checks. See debugcheck.h.
 *
 * Locking: catch_lock guards the catcher; a report that is not caught
 * panics, so it needs no lock of its own.
 */
#include <stdarg.h>
#include <stdio.h>
#include "debugcheck.h"
#include "ksyms.h"
#include "panic.h"

static char *catch_buf;
static size_t catch_len;
static int caught;

const char *debug_site(uint64_t addr, char *buf, size_t len)
{
	uint64_t off = 0;
	const char *name = addr ? ksym_lookup(addr, &off) : NULL;
	if (name)
		snprintf(buf, len, "%s+%#llx", name, (unsigned long long)off);
	else
		snprintf(buf, len, "%#llx", (unsigned long long)addr);
	return buf;
}

bool debug_report(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char *buf = __atomic_load_n(&catch_buf, __ATOMIC_ACQUIRE);
	if (buf) {
		snprintf(buf, catch_len, "%s", msg);
		__atomic_add_fetch(&caught, 1, __ATOMIC_RELAXED);
		return true;
	}
	panic("%s", msg);
}

void debug_catch_begin(char *buf, size_t len)
{
	buf[0] = 0;
	catch_len = len;
	caught = 0;
	__atomic_store_n(&catch_buf, buf, __ATOMIC_RELEASE);
}

int debug_catch_end(void)
{
	__atomic_store_n(&catch_buf, NULL, __ATOMIC_RELEASE);
	return caught;
}
