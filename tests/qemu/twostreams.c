/* twostreams LINES STATUS: LINES numbered lines on stdout, one line on
 * stderr, exit STATUS. A local program tests/qemu/host-tool.sh has the
 * host tool push and run. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int lines = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < lines; i++)
		printf("line %d\n", i);
	fflush(stdout);
	fprintf(stderr, "to-stderr\n");
	return argc > 2 ? atoi(argv[2]) : 0;
}
