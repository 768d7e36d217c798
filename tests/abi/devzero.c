/*
 * devzero.c: ABI test of mapping /dev/zero. A MAP_SHARED mapping is
 * shared anonymous memory: zero-filled, and a write on either side of a
 * fork is seen on the other; /proc/self/maps names it "/dev/zero". A
 * MAP_PRIVATE one is private zero-filled memory (a child's writes stay
 * in the child). A shared writable mapping of a read-only open is
 * EACCES, a private one is allowed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

#define LEN (4 * 4096)

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The child writes its mark at every page; returns the child's status. */
static int child_writes(volatile unsigned char *p, unsigned char mark)
{
	pid_t pid = fork();
	int st = -1;

	if (pid == 0) {
		for (size_t off = 0; off < LEN; off += 4096)
			p[off] = mark;
		_exit(0);
	}
	waitpid(pid, &st, 0);
	return st;
}

static int maps_mention(const char *what)
{
	char buf[16384];
	int fd = open("/proc/self/maps", O_RDONLY);
	long n = 0, r;

	if (fd < 0)
		return 0;
	while (n < (long)sizeof(buf) - 1 &&
	       (r = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	buf[n] = '\0';
	return strstr(buf, what) != NULL;
}

int main(void)
{
	int fd = open("/dev/zero", O_RDWR);
	unsigned char *shared, *priv;

	CHECK(fd >= 0, "open /dev/zero read-write");
	shared = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(shared != MAP_FAILED, "MAP_SHARED mapping"))
		return abi_done("devzero");
	CHECK(all_zero(shared, LEN), "it reads zeros");
	shared[0] = 1;
	CHECK(child_writes(shared, 0x5a) == 0, "a child writes to it");
	int seen = 1;
	for (size_t off = 0; off < LEN; off += 4096)
		seen &= shared[off] == 0x5a;
	CHECK(seen, "the parent sees the child's writes on every page");
	CHECK(maps_mention("/dev/zero"), "/proc/self/maps names it /dev/zero");
	CHECK(munmap(shared, LEN) == 0, "munmap");

	priv = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (CHECK(priv != MAP_FAILED, "MAP_PRIVATE mapping")) {
		CHECK(all_zero(priv, LEN), "it reads zeros");
		CHECK(child_writes(priv, 0x5a) == 0 && all_zero(priv, LEN),
		      "a child's writes stay in the child");
		munmap(priv, LEN);
	}
	close(fd);

	fd = open("/dev/zero", O_RDONLY);
	CHECK_ERR(mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
	          EACCES, "shared writable mapping of a read-only open");
	priv = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(priv != MAP_FAILED, "a private writable one is allowed");
	shared = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(shared != MAP_FAILED && all_zero(shared, LEN),
	      "a shared read-only one too");
	close(fd);
	return abi_done("devzero");
}
