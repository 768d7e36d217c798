/* ps: the processes, from /proc/<pid>/stat: pid, parent, state, threads
 * and name. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Print one line for /proc/<name>/stat; 0 on success. */
static int show(const char *name)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%s/stat", name);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1; /* it exited meanwhile */
	long n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* "pid (comm) state ppid pgrp session ... num_threads(20th) ..." */
	char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren)
		return -1;
	*close_paren = 0;
	char state = close_paren[2];
	char *p = close_paren + 3;
	long field[18] = { 0 };
	for (int i = 0; i < 18 && *p; i++)
		field[i] = strtol(p, &p, 10);
	/* field[0] ppid ... field[16] num_threads */
	printf("%5s %5ld %c %4ld %s\n", name, field[0], state, field[16], open_paren + 1);
	return 0;
}

int main(void)
{
	DIR *d = opendir("/proc");
	if (!d) {
		perror("ps: /proc");
		return 1;
	}
	printf("  PID  PPID S  THR COMMAND\n");
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			show(e->d_name);
	closedir(d);
	return 0;
}
