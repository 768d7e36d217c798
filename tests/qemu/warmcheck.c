/*
 * warmcheck: does this command find a fresh machine, and then leave it
 * dirty for the next one (tests/qemu/warm.sh)?
 *
 * Fresh: no process but this one and its ancestors (the agent, stat,
 * the session's shell) and kernel threads; /tmp holds nothing but this
 * program; perf_event_paranoid has its boot value (2). It prints
 * "fresh" or each thing that is left, then makes a mess the agent must
 * clear before the next command: a file and a directory in /tmp, a
 * detached process (its own session, its output on /dev/null) that
 * would run forever, and perf_event_paranoid set to -1.
 * Exit status 0 when fresh, 1 otherwise. warmcheck --clean checks and
 * leaves no mess; warmcheck --spin only spins (a fixed count).
 */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

/* The parent of pid and its flags (9th field of /proc/PID/stat). */
static pid_t parent_of(pid_t pid, unsigned long *flags)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	int ppid = 0;
	if (!p || sscanf(p + 2, "%*c %d %*d %*d %*d %*d %lu", &ppid, flags) != 2)
		return 0;
	return ppid;
}

static bool ancestor(pid_t pid)
{
	unsigned long flags;
	for (pid_t p = getpid(); p > 0; p = parent_of(p, &flags))
		if (p == pid)
			return true;
	return false;
}

static int stray_processes(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		unsigned long flags = 0;
		if (pid <= 0 || ancestor(pid))
			continue;
		parent_of(pid, &flags);
		if (flags & 0x00200000UL)
			continue;   /* PF_KTHREAD */
		printf("left: process %d\n", (int)pid);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static int stray_files(const char *self)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, self))
			continue;
		printf("left: /tmp/%s\n", e->d_name);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static int changed_sysctl(void)
{
	char buf[32] = "";
	FILE *f = fopen(PARANOID, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	if (atoi(buf) == 2)
		return 0;
	printf("left: perf_event_paranoid %s", buf);
	return 1;
}

static void make_mess(void)
{
	int fd = open("/tmp/warmcheck-file", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && write(fd, "x\n", 2) != 2)
		perror("write");
	if (fd >= 0)
		close(fd);
	mkdir("/tmp/warmcheck-dir", 0755);
	fd = open("/tmp/warmcheck-dir/inner", O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	fd = open(PARANOID, O_WRONLY);
	if (fd >= 0 && write(fd, "-1\n", 3) != 3)
		perror("paranoid");
	if (fd >= 0)
		close(fd);
	fflush(stdout);
	if (fork() == 0) {
		setsid();
		if (fork() == 0) {
			int null = open("/dev/null", O_RDWR);
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			for (;;)
				pause();
		}
		_exit(0);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--spin")) {
		/* A fixed amount of user-mode work and nothing else: its
		 * user instruction count is the same every time. */
		for (volatile long i = 0; i < 100000; i++)
			;
		return 0;
	}
	const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int left = stray_processes() + stray_files(self) + changed_sysctl();
	if (!left)
		printf("fresh\n");
	if (argc < 2 || strcmp(argv[1], "--clean"))
		make_mess();
	return left ? 1 : 0;
}
