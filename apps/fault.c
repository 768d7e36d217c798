/* fault KIND: make the kernel fault on purpose (pagefault, gp, ud, stack,
 * divide, panic) to see its panic report. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fault pagefault|gp|ud|divide|stack|panic\n");
		return 2;
	}
	int fd = open("/proc/baremon/fault", O_WRONLY);
	if (fd < 0) {
		perror("fault: /proc/baremon/fault");
		return 1;
	}
	if (write(fd, argv[1], strlen(argv[1])) < 0) {
		perror("fault");
		return 2;
	}
	return 1; /* the kernel should not have come back */
}
