/* Dies the way argv[1] says: null, privileged, divide, abort. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "null";
	printf("crashing: %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "null")) {
		volatile int *volatile null = 0;
		return *null;
	}
	if (!strcmp(how, "privileged"))
		__asm__ volatile("hlt");
	if (!strcmp(how, "divide")) {
		volatile int zero = 0;
		int r;
		__asm__ volatile("idivl %2" : "=a"(r) : "a"(1), "r"(zero), "d"(0));
		return r;
	}
	if (!strcmp(how, "abort"))
		abort();
	return 0;
}
