/* abi.c: the harness's counts and lines (abi.h). */
#include <sys/utsname.h>
#include "abi.h"

int abi_passed, abi_failed;

int abi_check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		abi_passed++;
	else
		abi_failed++;
	return ok;
}

void abi_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int abi_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, abi_passed, abi_failed);
	fflush(stdout);
	return abi_failed != 0;
}

int abi_on_baremon(void)
{
	struct utsname u;

	return uname(&u) == 0 && (strstr(u.nodename, "baremon") ||
	                          strstr(u.release, "baremon"));
}
