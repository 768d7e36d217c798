/*
 * misc.c: ABI test of the rest: uname, getrandom, prctl names, CPU
 * affinity, user and group ids, sched_yield, the auxiliary vector,
 * sysconf, the generic syscall() and ENOSYS, TCGETS on a non-terminal,
 * and the registers across a bare SYSCALL.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "abi.h"
#include "bare_syscall.h"

static void test_uname(void)
{
	struct utsname u;

	memset(&u, 0, sizeof(u));
	CHECK(uname(&u) == 0, "uname");
	CHECK(strcmp(u.sysname, "Linux") == 0, "sysname is Linux (%s)",
	      u.sysname);
	CHECK(strcmp(u.machine, "x86_64") == 0, "machine is x86_64 (%s)",
	      u.machine);
	CHECK(u.release[0] != '\0', "release is set (%s)", u.release);
	CHECK(u.nodename[0] != '\0', "nodename is set (%s)", u.nodename);
}

static void test_getrandom(void)
{
	unsigned char a[64], b[64], zero[64] = { 0 };
	void *volatile null = NULL;

	memset(a, 0, sizeof(a));
	CHECK(getrandom(a, sizeof(a), 0) == 64, "getrandom 64 bytes");
	CHECK(memcmp(a, zero, 64) != 0, "they are not all zero");
	CHECK(getrandom(b, sizeof(b), GRND_NONBLOCK) == 64 &&
	      memcmp(a, b, 64) != 0, "a second call differs (GRND_NONBLOCK)");
	CHECK(getrandom(a, 0, 0) == 0, "getrandom of 0 bytes");
	CHECK_ERR(getrandom(a, 8, 0x1000), EINVAL, "getrandom bad flags");
	CHECK_ERR(getrandom(null, 8, 0), EFAULT, "getrandom into NULL");
}

static void test_prctl(void)
{
	char name[32];

	CHECK(prctl(PR_SET_NAME, "abi-misc", 0, 0, 0) == 0, "PR_SET_NAME");
	memset(name, 'x', sizeof(name));
	CHECK(prctl(PR_GET_NAME, name, 0, 0, 0) == 0 &&
	      strcmp(name, "abi-misc") == 0, "PR_GET_NAME reads it back");
	prctl(PR_SET_NAME, "a-name-longer-than-sixteen", 0, 0, 0);
	prctl(PR_GET_NAME, name, 0, 0, 0);
	CHECK(strcmp(name, "a-name-longer-t") == 0,
	      "names are cut to 15 characters (%s)", name);
	CHECK_ERR(prctl(0x7fff1234, 0, 0, 0, 0), EINVAL, "unknown option");
}

/* The raw system calls' size rules, as Linux has them: the kernel's
 * mask is whole longs covering nr_cpu_ids bits. */
static void test_affinity_sizes(void)
{
	unsigned char big[512], one[1] = { 1 };
	long got;

	memset(big, 0, sizeof(big));
	got = syscall(SYS_sched_getaffinity, 0, sizeof(big), big);
	CHECK(got > 0 && got % 8 == 0 && got <= (long)sizeof(big),
	      "getaffinity returns the bytes it wrote (%ld)", got);
	CHECK(big[0] & 1, "cpu 0 allowed");
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, 4, big), EINVAL,
		  "getaffinity: a size not in whole longs");
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, sizeof(big), (void *)8), EFAULT,
		  "getaffinity: a bad pointer");
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0x7ffffff0, sizeof(big), big), ESRCH,
		  "getaffinity: no such task");
	/* A mask shorter than the kernel's is zero-extended. */
	CHECK(syscall(SYS_sched_setaffinity, 0, sizeof(one), one) == 0,
	      "setaffinity with a one-byte mask");
	unsigned cpu = 99;
	CHECK(syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 && cpu == 0, "now on cpu 0 (%u)", cpu);
	memset(big, 0, sizeof(big));
	CHECK_ERR(syscall(SYS_sched_setaffinity, 0, sizeof(big), big), EINVAL,
		  "setaffinity: an empty mask");
	big[sizeof(big) - 1] = 0x80; /* CPU 4095 only: not online */
	CHECK_ERR(syscall(SYS_sched_setaffinity, 0, sizeof(big), big), EINVAL,
		  "setaffinity: only a CPU that does not exist");
	CHECK_ERR(syscall(SYS_sched_setaffinity, 0, sizeof(big), (void *)8), EFAULT,
		  "setaffinity: a bad pointer");
	memset(big, 0xff, sizeof(big));
	CHECK(syscall(SYS_sched_setaffinity, 0, sizeof(big), big) == 0,
	      "setaffinity: a mask longer than the kernel's");
}

static void test_affinity(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0,
	      "sched_getaffinity");
	CHECK(CPU_COUNT(&set) >= 1, "at least one CPU (%d)", CPU_COUNT(&set));
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0,
	      "sched_setaffinity to the same set");
	CHECK(sched_yield() == 0, "sched_yield");
	CHECK(sysconf(_SC_NPROCESSORS_ONLN) >= 1, "sysconf: CPUs online");
	test_affinity_sizes();
}

static void test_ids(void)
{
	CHECK(getuid() == geteuid(), "getuid == geteuid (%u)",
	      (unsigned)getuid());
	CHECK(getgid() == getegid(), "getgid == getegid (%u)",
	      (unsigned)getgid());
	CHECK(setuid(getuid()) == 0, "setuid to oneself");
	CHECK(setgid(getgid()) == 0, "setgid to oneself");
}

static void test_auxv(void)
{
	CHECK(getauxval(AT_PAGESZ) == 4096, "AT_PAGESZ 4096");
	CHECK(getauxval(AT_RANDOM) != 0, "AT_RANDOM is given");
	CHECK(getauxval(AT_PHDR) != 0 && getauxval(AT_PHNUM) > 0 &&
	      getauxval(AT_PHENT) == 56, "AT_PHDR, AT_PHNUM, AT_PHENT 56");
	CHECK(getauxval(AT_ENTRY) != 0, "AT_ENTRY is given");
	CHECK(sysconf(_SC_PAGESIZE) == 4096, "sysconf page size");
}

static void test_syscall(void)
{
	int p[2];

	CHECK(syscall(SYS_getpid) == getpid(), "syscall(SYS_getpid)");
	CHECK_ERR(syscall(100000), ENOSYS, "an unknown system call");
	pipe(p);
	CHECK(!isatty(p[0]), "a pipe is not a terminal");
	struct winsize ws;
	CHECK_ERR(ioctl(p[0], TIOCGWINSZ, &ws), ENOTTY, "TIOCGWINSZ on a pipe");
	close(p[0]);
	close(p[1]);
}

/*
 * A bare SYSCALL of `nr` (no arguments used) with a pattern in every
 * argument register and two callee-saved ones: the kernel returns the
 * result in RAX, the return address in RCX and RFLAGS in R11, and leaves
 * every other register as it was. baremon runs getppid on its lean path
 * and getpgrp on the full one: both must keep this.
 */
static void test_bare_syscall(long nr, const char *name)
{
	const uint64_t a[6] = { 0xd1d1d1d1d1d1d1d1ULL, 0x5151515151515151ULL, 0xd0d0d0d0d0d0d0d0ULL,
	                        0x1010101010101010ULL, 0x0808080808080808ULL, 0x0909090909090909ULL };
	struct bare_regs r = bare_syscall6(nr, a);

	CHECK((long)r.rax == syscall(nr), "%s: the result in rax", name);
	CHECK(r.rcx == r.after, "%s: rcx is the return address", name);
	CHECK((r.r11 & 0x302) == 0x202, "%s: r11 is rflags (IF and bit 1, no TF: %#llx)",
	      name, (unsigned long long)r.r11);
	CHECK(r.rdi == a[0] && r.rsi == a[1] && r.rdx == a[2], "%s: rdi, rsi, rdx kept", name);
	CHECK(r.r8 == a[4] && r.r9 == a[5] && r.r10 == a[3], "%s: r8, r9, r10 kept", name);
	CHECK(r.rbx == BARE_RBX && r.r12 == BARE_R12, "%s: rbx, r12 kept", name);
}

int main(void)
{
	test_uname();
	test_getrandom();
	test_prctl();
	test_affinity();
	test_ids();
	test_auxv();
	test_syscall();
	test_bare_syscall(SYS_getppid, "getppid");
	test_bare_syscall(SYS_getpgrp, "getpgrp");
	return abi_done("misc");
}
