/*
 * init.c: /init of the Linux reference guest (tools/linux-ref.sh). The
 * kernel passes what follows "--" on its command line as our arguments:
 * the program to run and its own arguments. We give it what a program of
 * the test suite expects (/proc, /sys, /dev, /tmp, tracefs, debugfs), run it, print its
 * exit status and power the machine off. Static; runs as PID 1.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void mount_one(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, NULL) < 0)
		fprintf(stderr, "linux-ref: mount %s on %s: %m\n", type, dir);
}

/*
 * linux_ref_online=N (a kernel argument, so an environment variable of
 * init): bring CPUs 1..N online through sysfs. The guest boots with
 * maxcpus=1 because Linux's boot-time bring-up of a second CPU hangs
 * under QEMU's -icount; a hot-plugged one comes up.
 */
static void online_cpus(void)
{
	const char *s = getenv("linux_ref_online");
	int n = s ? atoi(s) : 0;
	for (int cpu = 1; cpu <= n; cpu++) {
		char path[64];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/online", cpu);
		int fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "1", 1) != 1)
			fprintf(stderr, "linux-ref: cannot bring CPU %d online: %m\n", cpu);
		if (fd >= 0)
			close(fd);
	}
}

static int run(char **argv)
{
	pid_t pid = fork();
	if (pid < 0) {
		perror("linux-ref: fork");
		return -1;
	}
	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "linux-ref: %s: %m\n", argv[0]);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		;
	return status;
}

int main(int argc, char **argv)
{
	mount_one("proc", "/proc");
	mount_one("sysfs", "/sys");
	mount_one("devtmpfs", "/dev");
	mount_one("tmpfs", "/tmp");
	mount_one("tracefs", "/sys/kernel/tracing");
	mount_one("debugfs", "/sys/kernel/debug");
	setvbuf(stdout, NULL, _IONBF, 0);
	online_cpus();
	if (argc < 2) {
		fprintf(stderr, "linux-ref: no program (append '-- PROGRAM ARGS')\n");
	} else {
		int status = run(argv + 1);
		if (status >= 0 && WIFEXITED(status))
			printf("linux-ref: exit %d\n", WEXITSTATUS(status));
		else if (status >= 0)
			printf("linux-ref: killed by signal %d\n", WTERMSIG(status));
	}
	sync();
	reboot(RB_POWER_OFF);
	return 0; /* not reached: PID 1 exiting would panic the kernel */
}
