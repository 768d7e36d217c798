/*
 * The vDSO: clock_gettime, gettimeofday, time, clock_getres and getcpu
 * in user mode, from the TSC and the kernel's data page (vvar.h),
 * exported under Linux's names and version (LINUX_2.6) for glibc and
 * musl. A clock it cannot serve (the CPU-time clocks, an unknown id, a
 * kernel whose clock is not the TSC) takes the system call.
 *
 * Built as its own shared object (vdso.lds: one PT_LOAD, no relocations,
 * no libc); the kernel maps it into every process (core/proc/vdso.c).
 */
#include <stdint.h>
#include <asm/unistd.h>
#include <linux/time.h>
#include <linux/time_types.h>
#include "vdso/vvar.h"

#define NS 1000000000ULL

/* The data page, placed one page below the text by vdso.lds. */
extern const volatile struct vdso_data vvar_page __attribute__((visibility("hidden")));

static long sys2(long nr, long a, long b)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return r;
}

static long sys3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;
	/* lfence: the TSC is read after earlier instructions, as Linux's
	 * rdtsc_ordered for its vDSO */
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* A consistent copy of what a clock reading needs; false when the
 * kernel's clock is not the TSC. */
struct snap {
	uint32_t mult, shift;
	uint64_t boot_ns, epoch_ns, tai_ns, tsc;
};

static int snapshot(struct snap *s)
{
	const volatile struct vdso_data *d = &vvar_page;
	uint32_t seq;
	do {
		while ((seq = d->seq) & 1)
			__asm__ volatile("pause");
		__asm__ volatile("" ::: "memory");
		if (d->clock_mode != VDSO_CLOCK_TSC)
			return 0;
		s->mult = d->mult;
		s->shift = d->shift;
		s->boot_ns = d->boot_ns;
		s->epoch_ns = d->epoch_ns;
		s->tai_ns = d->tai_offset_ns;
		s->tsc = rdtsc_ordered();
		__asm__ volatile("" ::: "memory");
	} while (d->seq != seq);
	return 1;
}

static uint64_t mono_ns(const struct snap *s)
{
	return (uint64_t)(((unsigned __int128)s->tsc * s->mult) >> (s->shift & 63)) - s->boot_ns;
}

/* The clock's reading in ns, or 0 when it takes the system call. */
static int read_clock(__kernel_clockid_t clk, uint64_t *ns)
{
	struct snap s;
	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_TAI:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		break;
	default:
		return 0;
	}
	if (!snapshot(&s))
		return 0;
	*ns = mono_ns(&s);
	if (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE)
		*ns += s.epoch_ns;
	else if (clk == CLOCK_TAI)
		*ns += s.epoch_ns + s.tai_ns;
	return 1;
}

int __vdso_clock_gettime(__kernel_clockid_t clk, struct __kernel_timespec *ts)
{
	uint64_t ns;
	if (!read_clock(clk, &ns))
		return (int)sys2(__NR_clock_gettime, clk, (long)ts);
	ts->tv_sec = (long long)(ns / NS);
	ts->tv_nsec = (long long)(ns % NS);
	return 0;
}

int __vdso_gettimeofday(struct __kernel_old_timeval *tv, struct timezone *tz)
{
	uint64_t ns;
	if (!read_clock(CLOCK_REALTIME, &ns))
		return (int)sys2(__NR_gettimeofday, (long)tv, (long)tz);
	if (tv) {
		tv->tv_sec = (long)(ns / NS);
		tv->tv_usec = (long)(ns % NS / 1000);
	}
	if (tz) {
		tz->tz_minuteswest = 0;
		tz->tz_dsttime = 0;
	}
	return 0;
}

__kernel_old_time_t __vdso_time(__kernel_old_time_t *t)
{
	uint64_t ns;
	if (!read_clock(CLOCK_REALTIME, &ns))
		return sys2(__NR_time, (long)t, 0);
	__kernel_old_time_t s = (__kernel_old_time_t)(ns / NS);
	if (t)
		*t = s;
	return s;
}

int __vdso_clock_getres(__kernel_clockid_t clk, struct __kernel_timespec *res)
{
	uint64_t ns;
	if (!read_clock(clk, &ns))
		return (int)sys2(__NR_clock_getres, clk, (long)res);
	if (res) {
		res->tv_sec = 0;
		res->tv_nsec = 1; /* the kernel's clock_getres says the same */
	}
	return 0;
}

long __vdso_getcpu(unsigned *cpu, unsigned *node, void *unused)
{
	if (vvar_page.cpu_mode != VDSO_CPU_RDTSCP)
		return sys3(__NR_getcpu, (long)cpu, (long)node, (long)unused);
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	if (cpu)
		*cpu = aux & 0xfff;
	if (node)
		*node = aux >> 12;
	return 0;
}

/* The names without the prefix, as Linux's vDSO exports them too. */
int clock_gettime(__kernel_clockid_t, struct __kernel_timespec *)
	__attribute__((weak, alias("__vdso_clock_gettime")));
int gettimeofday(struct __kernel_old_timeval *, struct timezone *)
	__attribute__((weak, alias("__vdso_gettimeofday")));
__kernel_old_time_t time(__kernel_old_time_t *) __attribute__((weak, alias("__vdso_time")));
int clock_getres(__kernel_clockid_t, struct __kernel_timespec *)
	__attribute__((weak, alias("__vdso_clock_getres")));
long getcpu(unsigned *, unsigned *, void *) __attribute__((weak, alias("__vdso_getcpu")));
