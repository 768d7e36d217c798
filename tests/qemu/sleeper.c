/* sleeper [S]: prints "started", then sleeps S seconds (default 600)
 * and prints "woke". tests/qemu/host-tool.sh signals the host tool
 * while the target runs it: the command must end with the tool. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	printf("started\n");
	fflush(stdout);
	sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 600);
	printf("woke\n");
	return 0;
}
