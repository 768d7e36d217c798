/*
 * cpudev.c: ABI test of Linux's cpuid and msr drivers, /dev/cpu/N/cpuid
 * and /dev/cpu/N/msr (offset = leaf | subleaf << 32, or the MSR index),
 * and of /proc/kallsyms's address hiding (kptr_restrict and
 * perf_event_paranoid, as Linux's kallsyms_show_value). The msr part runs
 * where the device exists (Linux without the msr module has none).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

/* MSR numbers and bits (arch/x86/include/asm/msr-index.h, not uapi) */
#define MSR_EFER        0xc0000080
#define EFER_LME_LMA    0x500
#define MSR_APIC_BASE   0x1b
#define APIC_BASE_ENABLE 0x800
#define MSR_IA32_A_PMC0 0x4c1

static void cpuid_insn(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

/* A child as uid 65534: its exit status is fn's result. */
static int as_nobody(int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(setgid(65534) == 0 && setuid(65534) == 0 ? fn() : 99);
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 98;
}

static int open_cpuid_errno(void)
{
	errno = 0;
	return open("/dev/cpu/0/cpuid", O_RDONLY) < 0 ? errno : 0;
}

static void test_cpuid(void)
{
	uint32_t dev[4], insn[4];
	struct stat st;
	CHECK(stat("/dev/cpu/0/cpuid", &st) == 0 && S_ISCHR(st.st_mode) &&
	      (st.st_mode & 0777) == 0600 && st.st_uid == 0,
	      "/dev/cpu/0/cpuid: a character device, 0600 root");
	int fd = open("/dev/cpu/0/cpuid", O_RDONLY);
	CHECK(fd >= 0, "open /dev/cpu/0/cpuid");
	cpuid_insn(0, 0, insn);
	CHECK(pread(fd, dev, 16, 0) == 16 && memcmp(dev, insn, 16) == 0,
	      "leaf 0 (the vendor) as the CPUID instruction gives it");
	cpuid_insn(1, 0, insn);
	CHECK(pread(fd, dev, 16, 1) == 16 && dev[0] == insn[0],
	      "leaf 1: the same family, model and stepping");
	cpuid_insn(7, 0, insn);
	CHECK(pread(fd, dev, 16, 7) == 16 && dev[1] == insn[1],
	      "leaf 7 subleaf 0 (offset 7 | 0 << 32)");
	cpuid_insn(0xb, 1, insn);
	CHECK(pread(fd, dev, 16, 0xb | 1LL << 32) == 16 && dev[1] == insn[1] &&
	      dev[2] == insn[2], "leaf 0BH subleaf 1 (offset 0xb | 1 << 32)");
	uint32_t two[8];
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, two, 32) == 32 &&
	      lseek(fd, 0, SEEK_CUR) == 2, "a read of two leaves moves two leaves on");
	CHECK_ERR(pread(fd, dev, 8, 0), EINVAL, "a read of 8 bytes");
	CHECK_ERR(lseek(fd, 0, SEEK_END), EINVAL, "SEEK_END");
	close(fd);
	fd = open("/dev/cpu/0/cpuid", O_RDWR);
	CHECK_ERR(write(fd, dev, 16), EINVAL, "a write");
	close(fd);
	CHECK_ERR(open("/dev/cpu/4095/cpuid", O_RDONLY), ENOENT, "a CPU that is not there");
	if (geteuid() == 0)
		CHECK(as_nobody(open_cpuid_errno) == EACCES, "uid 65534 may not open it (EACCES)");
}

static void test_msr(void)
{
	int fd = open("/dev/cpu/0/msr", O_RDWR);
	if (fd < 0 && errno == ENOENT) {
		abi_note("no /dev/cpu/0/msr here (msr module not loaded)");
		return;
	}
	CHECK(fd >= 0, "open /dev/cpu/0/msr");
	uint64_t a = 0, b = 0;
	CHECK(pread(fd, &a, 8, MSR_EFER) == 8 && (a & EFER_LME_LMA) == EFER_LME_LMA,
	      "EFER at offset 0xc0000080: long mode enabled and active");
	CHECK(pread(fd, &b, 8, MSR_APIC_BASE) == 8 && (b & APIC_BASE_ENABLE),
	      "IA32_APIC_BASE: the APIC is enabled");
	CHECK(lseek(fd, MSR_EFER, SEEK_SET) == MSR_EFER && read(fd, &a, 8) == 8 &&
	      read(fd, &b, 8) == 8 && a == b && lseek(fd, 0, SEEK_CUR) == MSR_EFER,
	      "read does not move the position: the same MSR again");
	uint64_t two[2];
	CHECK(pread(fd, two, 16, MSR_EFER) == 16 && two[0] == two[1],
	      "a read of 16 bytes reads the MSR twice");
	CHECK_ERR(pread(fd, &a, 4, MSR_EFER), EINVAL, "a read of 4 bytes");
	/* every CPU raises #GP for this write: past a full-width counter's
	 * width, or no such register */
	uint64_t ones = ~0ULL;
	CHECK_ERR(pwrite(fd, &ones, 8, MSR_IA32_A_PMC0), EIO,
		  "a write that raises #GP (all ones to IA32_A_PMC0)");
	close(fd);
}

/* The first bytes of a file (NUL-terminated), or -1. */
static long read_head(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	size_t n = 0;
	long r;
	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = 0;
	return (long)n;
}

/* Of the first lines of /proc/kallsyms ("%016llx T name"): 0 when every
 * address is 0, 1 when some are not, 2 when unreadable or malformed. */
static int kallsyms_hidden(void)
{
	static char buf[8192];
	if (read_head("/proc/kallsyms", buf, sizeof(buf)) <= 0)
		return 2;
	int lines = 0, shown = 0;
	for (char *p = buf; *p && strchr(p, '\n'); p = strchr(p, '\n') + 1, lines++) {
		for (int i = 0; i < 16; i++)
			if (!strchr("0123456789abcdef", p[i]))
				return 2;
		if (p[16] != ' ' || p[18] != ' ')
			return 2;
		shown |= strncmp(p, "0000000000000000", 16) != 0;
	}
	return lines == 0 ? 2 : shown;
}

static int read_int(const char *path)
{
	char buf[32];
	if (read_head(path, buf, sizeof(buf)) <= 0 || buf[0] < '0' || buf[0] > '9')
		return -100;
	return atoi(buf);
}

static void test_kallsyms(void)
{
	int kptr = read_int("/proc/sys/kernel/kptr_restrict");
	int paranoid = read_int("/proc/sys/kernel/perf_event_paranoid");
	CHECK(kptr >= 0 && kptr <= 2, "kptr_restrict reads %d", kptr);
	if (geteuid() == 0)
		CHECK(kallsyms_hidden() == (kptr < 2 ? 1 : 0),
		      "root (CAP_SYSLOG) sees addresses unless kptr_restrict is 2");
	int expect = kptr == 0 && paranoid <= 1 ? 1 : 0;
	if (geteuid() == 0)
		CHECK(as_nobody(kallsyms_hidden) == expect,
		      "uid 65534 sees addresses only with kptr_restrict 0 and paranoid <= 1 "
		      "(%d, %d)", kptr, paranoid);
}

int main(void)
{
	test_cpuid();
	test_msr();
	test_kallsyms();
	return abi_done("cpudev");
}
