/* dmesg: print the kernel log (syslog(2) READ_ALL). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

int main(void)
{
	long size = syscall(SYS_syslog, SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	if (size <= 0) {
		perror("dmesg: syslog");
		return 1;
	}
	char *buf = malloc((size_t)size);
	long n = buf ? syscall(SYS_syslog, SYSLOG_ACTION_READ_ALL, buf, size) : -1;
	if (n < 0) {
		perror("dmesg: syslog");
		return 1;
	}
	write(1, buf, (size_t)n);
	return 0;
}
