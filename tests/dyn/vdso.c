/*
 * vdso: glibc's clock_gettime, gettimeofday, time and sched_getcpu go
 * through the vDSO: a loop of them makes no system call at all (counted
 * by a ptrace tracer stopping the child at every call), and their values
 * agree with the system calls'. The vDSO's own symbols are found in the
 * image at AT_SYSINFO_EHDR under LINUX_2.6 and called directly too.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "abi.h"

#define LOOPS 1000

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

/* The child's part: between two getppid() calls, only vDSO calls. */
static void timed_loop(void)
{
	struct timespec ts;
	struct timeval tv;
	uint64_t sum = 0;
	syscall(SYS_getppid);
	for (int i = 0; i < LOOPS; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += ns_of(&ts);
		clock_gettime(CLOCK_REALTIME, &ts);
		gettimeofday(&tv, NULL);
		sum += (uint64_t)time(NULL) + (uint64_t)sched_getcpu();
	}
	syscall(SYS_getppid);
	_exit(sum ? 0 : 1);
}

/* System calls the traced child made between its two getppid()s. */
static long calls_in_loop(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		timed_loop();
	}
	int st;
	waitpid(pid, &st, 0);
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD);
	long markers = 0, between = 0;
	for (int entry = 1;; entry = !entry) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, 0) != 0 || waitpid(pid, &st, 0) != pid)
			return -1;
		if (WIFEXITED(st))
			break;
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != (SIGTRAP | 0x80) || !entry)
			continue;
		struct user_regs_struct r;
		ptrace(PTRACE_GETREGS, pid, 0, &r);
		if (r.orig_rax == SYS_getppid)
			markers++;
		else if (markers == 1) {
			between++;
			printf("#   system call %llu in the loop\n", r.orig_rax);
		}
	}
	return markers == 2 ? between : -1;
}

/* A symbol of the vDSO, found through its dynamic section. */
static void *vdso_sym(const char *name)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return NULL;
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff);
	uintptr_t load = 0;
	const Elf64_Dyn *dyn = NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			load = (uintptr_t)base - ph[i].p_vaddr;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(base + ph[i].p_offset);
	}
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	const Elf32_Word *hash = NULL;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const void *)(load + dyn->d_un.d_ptr);
		if (dyn->d_tag == DT_STRTAB)
			str = (const void *)(load + dyn->d_un.d_ptr);
		if (dyn->d_tag == DT_HASH)
			hash = (const void *)(load + dyn->d_un.d_ptr);
	}
	if (!sym || !str || !hash)
		return NULL;
	for (Elf32_Word i = 0; i < hash[1]; i++)
		if (sym[i].st_shndx != SHN_UNDEF && strcmp(str + sym[i].st_name, name) == 0)
			return (void *)(load + sym[i].st_value);
	return NULL;
}

static int vdso_has_version(const char *version)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	if (!base || !eh->e_shoff)
		return 0;
	/* The version definitions' names are in .dynstr: find the string. */
	const Elf64_Shdr *sh = (const void *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_GNU_verdef)
			continue;
		const char *strs = (const char *)base + sh[sh[i].sh_link].sh_offset;
		const Elf64_Verdef *vd = (const void *)(base + sh[i].sh_offset);
		for (;;) {
			const Elf64_Verdaux *aux = (const void *)((const char *)vd + vd->vd_aux);
			if (strcmp(strs + aux->vda_name, version) == 0)
				return 1;
			if (!vd->vd_next)
				break;
			vd = (const void *)((const char *)vd + vd->vd_next);
		}
	}
	return 0;
}

static void check_agreement(void)
{
	int mono_ok = 1, real_ok = 1, tv_ok = 1, time_ok = 1;
	for (int i = 0; i < 100; i++) {
		struct timespec a, s, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &s);
		clock_gettime(CLOCK_MONOTONIC, &b);
		mono_ok &= ns_of(&a) <= ns_of(&s) && ns_of(&s) <= ns_of(&b);
		clock_gettime(CLOCK_REALTIME, &a);
		syscall(SYS_clock_gettime, CLOCK_REALTIME, &s);
		clock_gettime(CLOCK_REALTIME, &b);
		real_ok &= ns_of(&a) <= ns_of(&s) && ns_of(&s) <= ns_of(&b);
		struct timeval tv, stv;
		gettimeofday(&tv, NULL);
		syscall(SYS_gettimeofday, &stv, NULL);
		uint64_t u = (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
		uint64_t su = (uint64_t)stv.tv_sec * 1000000 + (uint64_t)stv.tv_usec;
		tv_ok &= u <= su && su - u < 1000000;
		time_t t1 = time(NULL), st = syscall(SYS_time, NULL), t2 = time(NULL);
		time_ok &= t1 <= st && st <= t2;
	}
	CHECK(mono_ok, "CLOCK_MONOTONIC from the vDSO brackets the system call's");
	CHECK(real_ok, "CLOCK_REALTIME from the vDSO brackets the system call's");
	CHECK(tv_ok, "gettimeofday agrees with the system call's");
	CHECK(time_ok, "time agrees with the system call's");
	struct timespec r1, r2;
	CHECK(clock_getres(CLOCK_MONOTONIC, &r1) == 0 &&
	      syscall(SYS_clock_getres, CLOCK_MONOTONIC, &r2) == 0 &&
	      r1.tv_sec == r2.tv_sec && r1.tv_nsec == r2.tv_nsec,
	      "clock_getres agrees with the system call's");
	struct timespec cpu;
	CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0 && ns_of(&cpu) > 0,
	      "a clock the vDSO does not serve still reads (CPU time)");
	CHECK(clock_gettime(12345, &cpu) == -1 && errno == EINVAL,
	      "an unknown clock is EINVAL");
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	unsigned c = 99, n = 99;
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0 && sched_getcpu() == 0 &&
	      syscall(SYS_getcpu, &c, &n, NULL) == 0 && c == 0,
	      "getcpu on CPU 0 agrees with the system call's");
}

static void check_symbols(void)
{
	CHECK(vdso_has_version("LINUX_2.6"), "the vDSO defines version LINUX_2.6");
	int (*gettime)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))vdso_sym("__vdso_clock_gettime");
	struct timespec a, b;
	CHECK(gettime && gettime(CLOCK_MONOTONIC, &a) == 0 &&
	      clock_gettime(CLOCK_MONOTONIC, &b) == 0 && ns_of(&a) <= ns_of(&b),
	      "__vdso_clock_gettime called directly reads the clock");
	CHECK(vdso_sym("__vdso_gettimeofday") && vdso_sym("__vdso_time") &&
	      vdso_sym("__vdso_getcpu"), "__vdso_gettimeofday, __vdso_time, __vdso_getcpu");
}

int main(void)
{
	check_symbols();
	check_agreement();
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	volatile uint64_t x = 0;
	for (int i = 0; i < 100000; i++)
		x += (uint64_t)i;
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(ns_of(&b) > ns_of(&a), "a loop timed with the vDSO takes time");
	long calls = calls_in_loop();
	CHECK(calls == 0, "%d rounds of vDSO calls enter the kernel 0 times (%ld)", LOOPS, calls);
	return abi_done("dyn-vdso");
}
