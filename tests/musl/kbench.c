/*
 * kbench: /dev/kbench's interface (pmu/kbench/kbench_uapi.h) on baremon:
 * bad input gets Linux-style errnos (ENOTTY, EFAULT, EINVAL), a function
 * runs in ring 0 (mov rax, cr0) and returns, faults come back with their
 * vector and address, and after runs long enough for a timer expiry to
 * fall while the LVT entries were masked the CPU's timer still works (a
 * sleep ends). MSR operations: bad ones are EINVAL/EFAULT, a write is
 * seen by a read at the measurement points and undone after the run.
 * Prints "N passed, N failed"; exit status 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "pmu/kbench/kbench_uapi.h"

static int passed, failed;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	ok ? passed++ : failed++;
}

static uint64_t slot, readings[2 * KBENCH_STRIDE];

/* A function made of `code`, mapped read+exec. */
static void *function(const uint8_t *code, size_t len)
{
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, code, len);
	mprotect(p, 4096, PROT_READ | PROT_EXEC);
	return p;
}

static int run(int fd, void *fn, struct kbench_run *r)
{
	memset(r, 0, sizeof *r);
	r->code = (uint64_t)(uintptr_t)fn;
	r->callback_slot = (uint64_t)(uintptr_t)&slot;
	r->readings = (uint64_t)(uintptr_t)readings;
	return ioctl(fd, KBENCH_IOC_RUN, r);
}

/* run() with MSR operations; the first read's value at point 0. */
static int run_msrs(int fd, void *fn, struct kbench_msr *ops, unsigned n, uint64_t *first)
{
	struct kbench_run r;
	memset(&r, 0, sizeof r);
	r.code = (uint64_t)(uintptr_t)fn;
	r.callback_slot = (uint64_t)(uintptr_t)&slot;
	r.readings = (uint64_t)(uintptr_t)readings;
	r.msrs = (uint64_t)(uintptr_t)ops;
	r.nmsrs = n;
	int rc = ioctl(fd, KBENCH_IOC_RUN, &r);
	if (rc == 0 && r.fault_vector != KBENCH_NO_FAULT)
		return -2;
	*first = readings[KBENCH_NREAD];
	return rc;
}

/* A function that calls the kernel's reader once (phase 0), as the
 * generated code does: sub rsp, 8; xor esi, esi; mov rax, &slot;
 * call [rax]; add rsp, 8; ret. */
static void *reader_caller(void)
{
	uint8_t code[32] = { 0x48, 0x83, 0xec, 0x08, 0x31, 0xf6, 0x48, 0xb8 };
	uint64_t at = (uint64_t)(uintptr_t)&slot;
	memcpy(code + 8, &at, 8);
	static const uint8_t tail[] = { 0xff, 0x10, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	memcpy(code + 16, tail, sizeof tail);
	return function(code, 16 + sizeof tail);
}

static void msr_operations(int fd)
{
	void *fn = reader_caller();
	struct kbench_msr ops[KBENCH_MAX_MSRS + 1];
	uint64_t v0 = 0, v1 = 0, v2 = 0;
	memset(ops, 0, sizeof ops);
	for (int i = 0; i <= KBENCH_MAX_MSRS; i++)
		ops[i] = (struct kbench_msr){ .msr = 0x187, .op = KBENCH_MSR_READ };
	check(run_msrs(fd, fn, ops, KBENCH_MAX_MSR_READS + 1, &v0) < 0 && errno == EINVAL,
	      "more MSR reads than slots: EINVAL");
	check(run_msrs(fd, fn, ops, KBENCH_MAX_MSRS + 1, &v0) < 0 && errno == EINVAL,
	      "more than KBENCH_MAX_MSRS operations: EINVAL");
	check(run_msrs(fd, fn, (void *)8, 1, &v0) < 0 && errno == EFAULT,
	      "unmapped operations: EFAULT");
	ops[0].op = 7;
	check(run_msrs(fd, fn, ops, 1, &v0) < 0 && errno == EINVAL, "an unknown operation: EINVAL");
	ops[0] = (struct kbench_msr){ .msr = 31, .op = KBENCH_MSR_PMC, .value = 0xc0 };
	check(run_msrs(fd, fn, ops, 1, &v0) < 0 && errno == EINVAL,
	      "a counter the PMU does not have: EINVAL");
	/* IA32_PERFEVTSEL1: read, written and read, read again. */
	ops[0] = (struct kbench_msr){ .msr = 0x187, .op = KBENCH_MSR_READ };
	ops[1] = (struct kbench_msr){ .msr = 0x187, .op = KBENCH_MSR_WRITE, .value = 0x4300c0 };
	ops[2] = ops[0];
	int ok = fn && run_msrs(fd, fn, ops, 1, &v0) == 0;
	ok = ok && run_msrs(fd, fn, ops + 1, 2, &v1) == 0;
	ok = ok && run_msrs(fd, fn, ops, 1, &v2) == 0;
	check(ok && v1 == 0x4300c0, "a written MSR reads back at the measurement points");
	/* v1 shows the reader ran; v2 is what the perf core had before. */
	check(ok && v2 == v0, "the write is undone after the run");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	static const uint8_t cr0[] = { 0x0f, 0x20, 0xc0, 0xc3 };          /* mov rax, cr0; ret */
	static const uint8_t gp[] = { 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0x80, /* mov rax, 1 << 63 */
				      0x48, 0x8b, 0x18, 0xc3 };            /* mov rbx, [rax]; ret */
	static const uint8_t pf[] = { 0x48, 0x8b, 0x04, 0x25, 8, 0, 0, 0, 0xc3 }; /* mov rax, [8] */
	static const uint8_t spin[] = { 0xb9, 0x00, 0x2d, 0x31, 0x01,       /* mov ecx, 20000000 */
					0xff, 0xc9, 0x75, 0xfc, 0xc3 };     /* dec ecx; jnz; ret */
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof set, &set); /* CPU 0 has a ticking timer */
	int fd = open("/dev/kbench", O_RDWR);
	check(fd >= 0, "/dev/kbench opens");
	struct kbench_run r;
	void *f_cr0 = function(cr0, sizeof cr0), *f_gp = function(gp, sizeof gp);
	void *f_spin = function(spin, sizeof spin), *f_pf = function(pf, sizeof pf);

	check(ioctl(fd, _IO('K', 99)) < 0 && errno == ENOTTY, "unknown request: ENOTTY");
	check(ioctl(fd, KBENCH_IOC_RUN, NULL) < 0 && errno == EFAULT, "NULL argument: EFAULT");
	check(ioctl(fd, KBENCH_IOC_RUN, (void *)0xffff800000000000ull) < 0 && errno == EFAULT,
	      "kernel-address argument: EFAULT");
	memset(&r, 0, sizeof r);
	r.code = 0xffffffff80000000ull; /* the kernel's own text */
	r.callback_slot = (uint64_t)(uintptr_t)&slot;
	r.readings = (uint64_t)(uintptr_t)readings;
	check(ioctl(fd, KBENCH_IOC_RUN, &r) < 0 && errno == EFAULT, "code in the kernel: EFAULT");
	r.code = (uint64_t)(uintptr_t)f_cr0;
	r.readings = (uint64_t)(uintptr_t)readings + 4;
	check(ioctl(fd, KBENCH_IOC_RUN, &r) < 0 && errno == EINVAL, "misaligned readings: EINVAL");
	r.readings = 8;
	check(ioctl(fd, KBENCH_IOC_RUN, &r) < 0 && errno == EFAULT, "unmapped readings: EFAULT");

	check(run(fd, f_cr0, &r) == 0 && r.fault_vector == KBENCH_NO_FAULT,
	      "mov rax, cr0 runs in ring 0 and returns");
	check(slot >= 0xffff800000000000ull, "the callback slot holds the kernel's reader");
	check(run(fd, f_gp, &r) == 0 && r.fault_vector == 13 &&
	      r.fault_rip == (uint64_t)(uintptr_t)f_gp + 10, "#GP comes back with its rip");
	check(run(fd, f_pf, &r) == 0 && r.fault_vector == 14 && r.fault_addr == 8 &&
	      r.fault_rip == (uint64_t)(uintptr_t)f_pf, "#PF comes back with its address");
	/* A page mapped and unmapped again: nothing is there (the page
	 * after the program's own code may belong to its text segment). */
	char *gone = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check(gone != MAP_FAILED && munmap(gone, 4096) == 0 &&
	      run(fd, gone, &r) < 0 && errno == EFAULT, "unmapped code: EFAULT");

	msr_operations(fd);

	double t0 = now();
	int ok = 1;
	for (int i = 0; i < 5; i++)
		ok &= run(fd, f_spin, &r) == 0 && r.fault_vector == KBENCH_NO_FAULT;
	double spun = now() - t0;
	check(ok, "five long runs with the LVT entries masked");
	t0 = now();
	usleep(30000);
	double slept = now() - t0;
	check(slept >= 0.029 && slept < 5, "the timer still fires after them (a 30 ms sleep ends)");
	printf("spun %.3f s, slept %.3f s\n", spun, slept);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
