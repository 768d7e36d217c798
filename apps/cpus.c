/* cpus: the CPUs the kernel found and what performance counters they
 * offer, as the kernel reports them in /proc/baremon/cpus. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/proc/baremon/cpus", O_RDONLY);
	if (fd < 0) {
		perror("cpus: /proc/baremon/cpus");
		return 1;
	}
	char buf[4096];
	long n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		write(1, buf, (size_t)n);
	close(fd);
	return n < 0;
}
