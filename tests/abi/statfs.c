/*
 * statfs.c: ABI test of statfs and fstatfs: the magic numbers programs
 * find mounts by (perf's sysfs and tracefs checks), Linux's block size
 * and name length, a tmpfs's size, and the errnos.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>
#include "abi.h"

/* f_flags: Linux's include/linux/statfs.h (no uapi header). */
#define ST_VALID 0x0020

static long fs_type(const char *path, struct statfs *st)
{
	memset(st, 0xa5, sizeof(*st));
	return statfs(path, st) == 0 ? (long)st->f_type : -1;
}

static void test_magic(void)
{
	struct statfs st;
	CHECK(fs_type("/proc", &st) == PROC_SUPER_MAGIC, "/proc is proc");
	CHECK(st.f_bsize == 4096 && st.f_namelen == 255 && st.f_frsize == 4096,
	      "a page block size and NAME_MAX");
	CHECK(st.f_flags & ST_VALID, "ST_VALID in f_flags");
	CHECK(st.f_blocks == 0 && st.f_files == 0, "proc has no blocks or inodes to count");
	CHECK(fs_type("/proc/self/status", &st) == PROC_SUPER_MAGIC,
	      "a file in /proc is on proc");
	CHECK(fs_type("/sys", &st) == SYSFS_MAGIC, "/sys is sysfs");
	CHECK(fs_type("/sys/devices/system/cpu", &st) == SYSFS_MAGIC,
	      "/sys/devices/system/cpu is sysfs");
	CHECK(fs_type("/dev", &st) == TMPFS_MAGIC, "/dev is tmpfs (devtmpfs)");
	CHECK(st.f_blocks > 0 && st.f_bfree <= st.f_blocks &&
	      st.f_bavail <= st.f_blocks, "tmpfs counts blocks (%ld of %ld free)",
	      (long)st.f_bfree, (long)st.f_blocks);
	struct stat sb;
	if (stat("/sys/kernel/tracing/events", &sb) == 0)
		CHECK(fs_type("/sys/kernel/tracing", &st) == TRACEFS_MAGIC,
		      "/sys/kernel/tracing is tracefs");
	else
		abi_note("no tracefs at /sys/kernel/tracing here");
}

static void test_fstatfs(void)
{
	struct statfs st;
	int fd = open("/proc/self/status", O_RDONLY);
	CHECK(fd >= 0 && fstatfs(fd, &st) == 0 && st.f_type == PROC_SUPER_MAGIC,
	      "fstatfs of a /proc file");
	close(fd);
	fd = open("/sys", O_PATH);
	CHECK(fd >= 0 && fstatfs(fd, &st) == 0 && st.f_type == SYSFS_MAGIC,
	      "fstatfs of an O_PATH descriptor");
	close(fd);
}

static void test_errors(void)
{
	struct statfs st;
	void *volatile bad = (void *)8;
	CHECK_ERR(statfs("/no/such/dir", &st), ENOENT, "statfs of a missing path");
	CHECK_ERR(statfs("/proc/self/status/x", &st), ENOTDIR, "statfs through a file");
	/* the raw calls: musl copies the kernel's answer itself */
	CHECK_ERR(syscall(__NR_statfs, "/proc", bad), EFAULT, "statfs into a bad buffer");
	CHECK_ERR(syscall(__NR_statfs, bad, &st), EFAULT, "statfs of a bad path pointer");
	CHECK_ERR(statfs("", &st), ENOENT, "statfs of \"\"");
	CHECK_ERR(fstatfs(-1, &st), EBADF, "fstatfs(-1)");
	CHECK_ERR(syscall(__NR_fstatfs, 0, bad), EFAULT, "fstatfs into a bad buffer");
}

int main(void)
{
	test_magic();
	test_fstatfs();
	test_errors();
	return abi_done("statfs");
}
