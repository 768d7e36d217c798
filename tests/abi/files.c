/*
 * files.c: ABI test of files and directories: open/read/write/lseek/close,
 * pread/pwrite, readv/writev, the errno values of the usual mistakes,
 * stat, dup/dup2/dup3, fcntl, getdents64, mkdir/rmdir/unlink, chdir and
 * getcwd. Everything happens in a fresh directory under /tmp.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "abi.h"

static char dir[64];

/* dir/name in a static buffer (one of two, so two can be live at once). */
static const char *at(const char *name)
{
	static char buf[2][128];
	static int which;

	which ^= 1;
	snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
	return buf[which];
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (off_t)st.st_size : -1;
}

static void test_read_write(void)
{
	char buf[64];
	int fd = open(at("a"), O_CREAT | O_EXCL | O_RDWR, 0644);

	CHECK(fd >= 0, "open O_CREAT|O_EXCL|O_RDWR a new file");
	CHECK(write(fd, "hello, world\n", 13) == 13, "write 13 bytes");
	CHECK(lseek(fd, 0, SEEK_CUR) == 13, "offset is 13 after the write");
	CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek SEEK_SET 0");
	memset(buf, 0, sizeof(buf));
	CHECK(read(fd, buf, sizeof(buf)) == 13 &&
	      memcmp(buf, "hello, world\n", 13) == 0, "read returns the data");
	CHECK(read(fd, buf, sizeof(buf)) == 0, "read at end of file returns 0");
	CHECK(lseek(fd, -6, SEEK_END) == 7, "lseek SEEK_END -6 gives 7");
	CHECK(read(fd, buf, 5) == 5 && memcmp(buf, "world", 5) == 0,
	      "read from the middle");
	CHECK(pread(fd, buf, 5, 0) == 5 && memcmp(buf, "hello", 5) == 0 &&
	      lseek(fd, 0, SEEK_CUR) == 12, "pread reads at 0, offset unmoved");
	CHECK(pwrite(fd, "J", 1, 0) == 1 && pread(fd, buf, 1, 0) == 1 &&
	      buf[0] == 'J', "pwrite writes at an offset");
	CHECK_ERR(lseek(fd, -1, SEEK_SET), EINVAL, "lseek to -1");
	CHECK(lseek(fd, 100, SEEK_SET) == 100 && write(fd, "x", 1) == 1,
	      "write past the end");
	CHECK(size_of(at("a")) == 101, "the file grew to 101 bytes");
	CHECK(pread(fd, buf, 4, 50) == 4 && memcmp(buf, "\0\0\0\0", 4) == 0,
	      "the hole reads as zeros");
	CHECK(close(fd) == 0, "close");
	CHECK_ERR(close(fd), EBADF, "close of a closed fd");
}

static void test_errors(void)
{
	void *volatile null = NULL;   /* keep the compiler from objecting */
	int fd;

	CHECK_ERR(open(at("a"), O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST,
	          "O_CREAT|O_EXCL on an existing file");
	CHECK_ERR(open(at("missing"), O_RDONLY), ENOENT, "open a missing file");
	CHECK_ERR(open(at("missing/x"), O_RDONLY), ENOENT,
	          "open under a missing directory");
	CHECK_ERR(open(at("a/x"), O_RDONLY), ENOTDIR, "open under a file");
	CHECK_ERR(open(at("a"), O_RDONLY | O_DIRECTORY), ENOTDIR,
	          "O_DIRECTORY on a file");
	CHECK_ERR(close(-1), EBADF, "close(-1)");
	CHECK_ERR(read(-1, NULL, 0), EBADF, "read(-1)");
	CHECK_ERR(write(1000, "x", 1), EBADF, "write to an unopened fd");

	fd = open(at("a"), O_RDONLY);
	CHECK(fd >= 0, "open a read-only");
	CHECK_ERR(read(fd, null, 10), EFAULT, "read into a NULL pointer");
	CHECK_ERR(write(fd, "x", 1), EBADF, "write to an O_RDONLY fd");
	close(fd);
	fd = open(at("a"), O_WRONLY);
	char c;
	CHECK_ERR(read(fd, &c, 1), EBADF, "read from an O_WRONLY fd");
	CHECK_ERR(write(fd, null, 10), EFAULT, "write from a NULL pointer");
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0, "open a directory with O_DIRECTORY");
	CHECK_ERR(read(fd, &c, 1), EISDIR, "read from a directory");
	close(fd);
	CHECK_ERR(open(dir, O_WRONLY), EISDIR, "open a directory for writing");
}

static void test_modes(void)
{
	char buf[32];
	int fd;

	fd = open(at("a"), O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && size_of(at("a")) == 0, "O_TRUNC empties the file");
	CHECK(write(fd, "abc", 3) == 3, "write abc");
	close(fd);
	fd = open(at("a"), O_WRONLY | O_APPEND);
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && write(fd, "def", 3) == 3,
	      "write with O_APPEND after seeking to 0");
	close(fd);
	fd = open(at("a"), O_RDONLY);
	CHECK(read(fd, buf, sizeof(buf)) == 6 && memcmp(buf, "abcdef", 6) == 0,
	      "O_APPEND wrote at the end");
	CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY,
	      "fcntl F_GETFL gives O_RDONLY");
	close(fd);

	struct iovec w[2] = { { "one", 3 }, { "two!", 4 } };
	char r1[4] = { 0 }, r2[8] = { 0 };
	struct iovec r[2] = { { r1, 3 }, { r2, 8 } };
	fd = open(at("v"), O_CREAT | O_RDWR | O_TRUNC, 0600);
	CHECK(writev(fd, w, 2) == 7, "writev of two buffers");
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && readv(fd, r, 2) == 7 &&
	      strcmp(r1, "one") == 0 && strcmp(r2, "two!") == 0,
	      "readv splits the data");
	close(fd);
	unlink(at("v"));
}

static void test_stat(void)
{
	struct stat st, fst;
	int fd;

	umask(022);
	fd = open(at("m"), O_CREAT | O_WRONLY, 0666);
	CHECK(fd >= 0 && write(fd, "12345", 5) == 5, "create m with 5 bytes");
	CHECK(stat(at("m"), &st) == 0 && st.st_size == 5, "stat size is 5");
	CHECK(S_ISREG(st.st_mode), "stat says regular file");
	CHECK((st.st_mode & 0777) == 0644, "mode 0666 & ~umask 022 = 0644 "
	      "(got %o)", (unsigned)(st.st_mode & 0777));
	CHECK(st.st_nlink == 1, "one link");
	CHECK(st.st_uid == getuid() && st.st_gid == getgid(),
	      "owned by the caller");
	CHECK(fstat(fd, &fst) == 0 && fst.st_ino == st.st_ino &&
	      fst.st_dev == st.st_dev, "fstat names the same inode");
	close(fd);
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "stat a directory");
	CHECK(lstat(at("m"), &st) == 0 && S_ISREG(st.st_mode), "lstat a file");
	CHECK_ERR(stat(at("nope"), &st), ENOENT, "stat a missing file");
	CHECK(access(at("m"), F_OK) == 0, "access F_OK");
	CHECK_ERR(access(at("nope"), F_OK), ENOENT, "access a missing file");
	unlink(at("m"));
}

static void test_dup(void)
{
	char c;
	int fd = open(at("a"), O_RDONLY);
	int d = dup(fd);

	CHECK(d > fd, "dup gives a new fd (%d -> %d)", fd, d);
	CHECK(read(d, &c, 1) == 1 && c == 'a' && lseek(fd, 0, SEEK_CUR) == 1,
	      "dup'd fds share the offset");
	close(d);
	CHECK(dup(fd) == d, "dup takes the lowest free fd");
	CHECK(dup2(fd, fd) == fd, "dup2(fd, fd) returns fd");
	CHECK(dup2(fd, 50) == 50 && read(50, &c, 1) == 1 && c == 'b',
	      "dup2 to 50");
	CHECK_ERR(dup2(-1, 50), EBADF, "dup2 from a bad fd");
	CHECK(fcntl(50, F_GETFD) == 0, "dup2 leaves FD_CLOEXEC clear");
	CHECK_ERR(dup3(fd, fd, 0), EINVAL, "dup3(fd, fd)");
	CHECK(dup3(fd, 51, O_CLOEXEC) == 51 &&
	      fcntl(51, F_GETFD) == FD_CLOEXEC, "dup3 O_CLOEXEC sets it");
	int hi = fcntl(fd, F_DUPFD, 60);
	CHECK(hi >= 60, "F_DUPFD gives an fd >= 60");
	close(hi);
	CHECK(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 &&
	      fcntl(fd, F_GETFD) == FD_CLOEXEC, "F_SETFD sets FD_CLOEXEC");
	close(fd);
	CHECK(read(50, &c, 1) == 1 && c == 'c',
	      "the dup stays open after the original is closed");
	close(d);
	close(50);
	close(51);
}

/* Names found by getdents64 in dir; bit 0 ".", 1 "..", 2 "a", 3 "sub". */
static unsigned list_dir(int *types_ok)
{
	char buf[4096] __attribute__((aligned(8)));
	unsigned seen = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	long n;

	*types_ok = 1;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent *e = (struct dirent *)(buf + off);
			if (strcmp(e->d_name, ".") == 0)
				seen |= 1;
			else if (strcmp(e->d_name, "..") == 0)
				seen |= 2;
			else if (strcmp(e->d_name, "a") == 0)
				seen |= 4, *types_ok &= e->d_type == DT_REG;
			else if (strcmp(e->d_name, "sub") == 0)
				seen |= 8, *types_ok &= e->d_type == DT_DIR;
			else
				seen |= 16;
			off += e->d_reclen;
		}
	}
	CHECK(n == 0, "getdents64 ends with 0");
	close(fd);
	return seen;
}

static void test_dirs(void)
{
	int types_ok, fd;
	char cwd[256];

	CHECK(mkdir(at("sub"), 0755) == 0, "mkdir");
	CHECK_ERR(mkdir(at("sub"), 0755), EEXIST, "mkdir of an existing name");
	CHECK(list_dir(&types_ok) == 15, "getdents64 lists . .. a sub");
	CHECK(types_ok, "d_type is DT_REG for a file, DT_DIR for sub");
	fd = open(at("sub/f"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	CHECK_ERR(rmdir(at("sub")), ENOTEMPTY, "rmdir a non-empty directory");
	CHECK_ERR(rmdir(at("a")), ENOTDIR, "rmdir a file");
	CHECK_ERR(unlink(at("sub")), EISDIR, "unlink a directory");
	CHECK_ERR(unlink(at("nope")), ENOENT, "unlink a missing file");
	CHECK(unlink(at("sub/f")) == 0 && rmdir(at("sub")) == 0,
	      "unlink then rmdir");
	CHECK_ERR(stat(at("sub"), &(struct stat){ 0 }), ENOENT,
	          "the directory is gone");

	CHECK(chdir(dir) == 0, "chdir");
	CHECK(getcwd(cwd, sizeof(cwd)) == cwd && strcmp(cwd, dir) == 0,
	      "getcwd names it (%s)", cwd);
	CHECK(getcwd(cwd, 3) == NULL && errno == ERANGE,
	      "getcwd into a short buffer: ERANGE");
	fd = open("a", O_RDONLY);
	CHECK(fd >= 0, "open a relative path");
	CHECK(unlink("a") == 0, "unlink an open file");
	char c;
	CHECK(read(fd, &c, 1) == 1 && c == 'a',
	      "an unlinked file stays readable while open");
	close(fd);
	CHECK(access("a", F_OK) == -1, "and its name is gone");
	CHECK(chdir("/") == 0, "chdir /");
	CHECK_ERR(chdir(at("nope")), ENOENT, "chdir to a missing directory");
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/abi-files-%d", (int)getpid());
	if (!CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir))
		return abi_done("files");
	test_read_write();
	test_errors();
	test_modes();
	test_stat();
	test_dup();
	test_dirs();
	CHECK(rmdir(dir) == 0, "rmdir %s", dir);
	return abi_done("files");
}
