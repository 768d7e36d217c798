/*
 * procdirs.c: ABI test of what perf reads in /proc: /proc/<pid>/fd and
 * /proc/<pid>/task (perf test "DSO data cache" counts /proc/self/fd; its
 * thread maps list /proc/PID/task) and the memory lines of status (perf
 * takes a process without VmPeak for a kernel thread and synthesizes
 * none of its maps). fd/ holds one entry per open descriptor and
 * follows open and close; a directory's link reads as its path; task/
 * lists every thread of the process, a thread's own directory is found
 * there and under /proc, and a tid of another process is not in task/.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

/* Entries of dir other than "." and ".."; -1 if it cannot be opened.
 * If want >= 0, *seen says whether an entry named want was among them. */
static int count_entries(const char *dir, long want, int *seen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		if (want >= 0 && atoi(e->d_name) == want)
			*seen = 1;
	}
	closedir(d);
	return n;
}

static void test_fd_dir(void)
{
	char path[64], link[256];
	int seen = 0;
	int before = count_entries("/proc/self/fd", -1, &seen);

	CHECK(before >= 3, "/proc/self/fd lists the open descriptors (%d)", before);
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY);
	int n = count_entries("/proc/self/fd", fd, &seen);
	/* opendir's own descriptor is counted too, both times */
	CHECK(fd >= 0 && n == before + 1 && seen,
	      "an open adds its descriptor %d (%d -> %d)", fd, before, n);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct stat st;
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode), "fd/%d is a link", fd);
	long len = syscall(SYS_readlink, path, link, sizeof(link) - 1);
	if (len >= 0)
		link[len] = 0;
	CHECK(len == 4 && strcmp(link, "/tmp") == 0,
	      "fd/%d of a directory reads as its path (%s)", fd, len >= 0 ? link : "?");
	close(fd);
	/* A regular file reads as its path too, with " (deleted)" once
	 * it has lost its name (both as Linux's d_path). */
	char file[64];
	snprintf(file, sizeof(file), "/tmp/procdirs.%d", getpid());
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = syscall(SYS_readlink, path, link, sizeof(link) - 1);
	link[len > 0 ? len : 0] = 0;
	CHECK(fd >= 0 && strcmp(link, file) == 0, "fd/%d of a file reads as its path (%s)", fd, link);
	unlink(file);
	len = syscall(SYS_readlink, path, link, sizeof(link) - 1);
	link[len > 0 ? len : 0] = 0;
	char gone[80];
	snprintf(gone, sizeof(gone), "%s (deleted)", file);
	CHECK(strcmp(link, gone) == 0, "and as \"PATH (deleted)\" once unlinked (%s)", link);
	close(fd);
	CHECK(count_entries("/proc/self/fd", -1, &seen) == before, "close removes it");
	CHECK_ERR(syscall(SYS_readlink, path, link, sizeof(link)), ENOENT, "readlink of a closed fd");
	snprintf(path, sizeof(path), "/proc/%d/fd", getpid());
	CHECK(count_entries(path, -1, &seen) == before, "/proc/PID/fd is the same");
	CHECK_ERR(open("/proc/self/fd/x", O_RDONLY), ENOENT, "fd/x");
}

/* perf's DSO cache test lowers RLIMIT_NOFILE to what is open plus 3. */
static void test_nofile_limit(void)
{
	struct rlimit old, low;
	int seen = 0;
	int n = count_entries("/proc/self/fd", -1, &seen);

	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0, "getrlimit(RLIMIT_NOFILE)");
	low = old;
	low.rlim_cur = (unsigned long)n + 3;
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0, "setrlimit(RLIMIT_NOFILE, %d)", n + 3);
	int fds[16], got = 0, below = 1;
	errno = 0;
	for (int i = 0; i < 16; i++)
		if ((fds[got] = open("/proc/self/stat", O_RDONLY)) >= 0)
			below &= fds[got++] < n + 3;
	CHECK(got > 0 && got < 16 && below && errno == EMFILE,
	      "opens stop at the lowered limit with EMFILE (%d opened)", got);
	while (got > 0)
		close(fds[--got]);
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0, "the old limit restored");
}

static volatile int stop_thread;
static volatile int thread_tid = 1;     /* cleared by the kernel at exit */
static char thread_stack[64 * 1024] __attribute__((aligned(16)));

/* A thread that waits for stop_thread in sched_yield and exits; it
 * touches no libc. Returns its tid or -errno. */
static long start_thread(void)
{
	long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		     CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
	register long r10 __asm__("r10") = (long)&thread_tid;
	register long r8 __asm__("r8") = 0;
	long ret = SYS_clone;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 2f\n"
			 "1:\n\t"
			 "mov %[yield], %%eax\n\t"
			 "syscall\n\t"
			 "cmpl $0, %[stop]\n\t"
			 "je 1b\n\t"
			 "mov %[exit], %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n"
			 "2:"
			 : "+a"(ret)
			 : "D"(flags), "S"(thread_stack + sizeof(thread_stack)),
			   "d"(0L), "r"(r10), "r"(r8), [stop] "m"(stop_thread),
			   [exit] "i"(SYS_exit), [yield] "i"(SYS_sched_yield)
			 : "rcx", "r11", "memory");
	return ret;
}

static void test_task_dir(void)
{
	char path[64];
	int seen = 0;
	pid_t me = getpid();

	CHECK(count_entries("/proc/self/task", me, &seen) == 1 && seen,
	      "task/ of a single-threaded process is its pid");
	long tid = start_thread();
	CHECK(tid > 0, "a second thread (tid %ld)", tid);
	if (tid <= 0)
		return;
	seen = 0;
	int n = count_entries("/proc/self/task", tid, &seen);
	CHECK(n == 2 && seen, "task/ lists both threads (%d)", n);
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", me, tid);
	int fd = open(path, O_RDONLY);
	char buf[64] = "";
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (len > 0)
		buf[len] = 0;
	CHECK(len > 0 && atoi(buf) == tid, "task/%ld/stat is the thread's (%s)",
	      tid, len > 0 ? "read" : "not read");
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/proc/%ld/status", tid);
	CHECK(access(path, R_OK) == 0, "/proc/TID is found by lookup");
	snprintf(path, sizeof(path), "/proc/%d/task/%ld/maps", me, tid);
	CHECK(access(path, R_OK) == 0, "task/%ld/maps", tid);
	pid_t kid = fork();
	if (kid == 0)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/task/%d", me, kid);
	CHECK_ERR(access(path, F_OK), ENOENT, "another process's pid under task/");
	waitpid(kid, NULL, 0);
	stop_thread = 1;
	while (thread_tid != 0)
		sched_yield();
	seen = 0;
	for (int i = 0; i < 1000 && count_entries("/proc/self/task", -1, &seen) != 1; i++)
		sched_yield();   /* the kernel clears the tid just before it is gone */
	CHECK(count_entries("/proc/self/task", -1, &seen) == 1, "an exited thread leaves task/");
}

/* The value of "Key:" in /proc/self/status, -1 if it is missing. */
static long status_value(const char *key)
{
	static char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	long len = 0, r;

	if (fd < 0)
		return -1;
	while (len < (long)sizeof(buf) - 1 &&
	       (r = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += r;
	close(fd);
	buf[len] = 0;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, strlen(key)) == 0 && p[strlen(key)] == ':')
			return atoi(p + strlen(key) + 1);
	return -1;
}

static void test_status_memory(void)
{
	long size = status_value("VmSize"), rss = status_value("VmRSS");

	CHECK(status_value("VmPeak") >= size && size > 0,
	      "status: VmPeak and VmSize of a user process (%ld kB)", size);
	CHECK(rss > 0 && rss <= size, "status: VmRSS within VmSize (%ld kB)", rss);
	CHECK(status_value("VmStk") > 0, "status: VmStk");
	CHECK(status_value("Threads") == 1, "status: Threads after the memory lines");
}

int main(void)
{
	test_status_memory();
	test_fd_dir();
	test_nofile_limit();
	test_task_dir();
	return abi_done("procdirs");
}
