/*
 * proclist.c [N]: ABI test that /proc lists every process. N children
 * (default 1100, more than the 1024 baremon's /proc used to show) wait
 * on a pipe while the program reads /proc: each must have its
 * directory, and /proc/loadavg must count at least N processes. Then
 * they all exit and are reaped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Is x in the sorted v[0..n)? (libc-lite has no bsearch) */
static int in_sorted(const int *v, int n, int x)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (v[mid] == x)
			return 1;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1100, made = 0, gate[2];
	int *kids = calloc((size_t)n, sizeof(int));

	if (!kids || pipe(gate))
		return abi_done("proclist");
	for (; made < n; made++) {
		pid_t pid = fork();
		if (pid == 0) {
			char x;
			close(gate[1]);
			while (read(gate[0], &x, 1) > 0)
				;
			_exit(0);
		}
		if (pid < 0)
			break;
		kids[made] = pid;
	}
	CHECK(made == n, "%d children waiting", made);
	qsort(kids, (size_t)made, sizeof(int), cmp_int);

	DIR *d = opendir("/proc");
	struct dirent *de;
	int listed = 0, entries = 0;
	while (d && (de = readdir(d))) {
		int pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		entries++;
		listed += in_sorted(kids, made, pid);
	}
	if (d)
		closedir(d);
	CHECK(listed == made, "/proc lists every one of them (%d of %d; %d pid "
	      "entries)", listed, made, entries);

	char buf[128] = "";
	int fd = open("/proc/loadavg", O_RDONLY);
	long r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[r > 0 ? r : 0] = '\0';
	char *slash = strchr(buf, '/');
	int total = slash ? atoi(slash + 1) : -1;
	CHECK(total >= made, "/proc/loadavg counts them (%d)", total);

	close(gate[0]);
	close(gate[1]);
	int reaped = 0;
	for (int i = 0; i < made; i++)
		reaped += waitpid(kids[i], NULL, 0) == kids[i];
	CHECK(reaped == made, "all exit and are reaped (%d)", reaped);
	free(kids);
	return abi_done("proclist");
}
