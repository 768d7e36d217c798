/*
 * Wall clock, clock_* system calls, sleeping and interval timers. The
 * timers themselves (a sleep's deadline, ITIMER_REAL) are hrtimers:
 * timers.c.
 */
#include <string.h>
#include <asm/siginfo.h>
#include <linux/errno.h>
#include <linux/time.h>
#include <linux/time_types.h>
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "cputime.h"
#include "timekeeping.h"
#include "timers.h"
#include "core/arch/tsc.h"
#include "core/mm/uaccess.h"
#include "core/arch/x86.h"

#define NS 1000000000ULL
#define TAI_OFFSET_NS (37ULL * NS)

static uint64_t epoch_at_boot_ns;

/* ---- the RTC ---- */

static uint8_t cmos(uint8_t reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

static unsigned bcd(uint8_t v, bool binary)
{
	return binary ? v : (v & 0xf) + (v >> 4) * 10;
}

static uint64_t days_from_civil(int y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (uint64_t)(era * 146097 + (int)doe - 719468);
}

void timekeeping_init(void)
{
	while (cmos(0x0a) & 0x80) /* update in progress */
		cpu_relax();
	uint8_t b = cmos(0x0b);
	bool binary = b & 4, h24 = b & 2;
	unsigned sec = bcd(cmos(0x00), binary), min = bcd(cmos(0x02), binary);
	uint8_t hraw = cmos(0x04);
	unsigned hour = bcd(hraw & 0x7f, binary);
	if (!h24 && (hraw & 0x80))
		hour = (hour % 12) + 12;
	unsigned day = bcd(cmos(0x07), binary), mon = bcd(cmos(0x08), binary);
	unsigned year = bcd(cmos(0x09), binary) + 2000;
	uint64_t secs = days_from_civil((int)year, mon, day) * 86400 + hour * 3600 +
			min * 60 + sec;
	epoch_at_boot_ns = secs * NS - time_since_boot_ns();
	timers_init();
	klog("time: RTC says %u-%02u-%02u %02u:%02u:%02u UTC", year, mon, day,
	     hour, min, sec);
}

uint64_t realtime_ns(void)
{
	return epoch_at_boot_ns + time_since_boot_ns();
}

/* ---- clocks ---- */

int clock_now(int clock, uint64_t *ns)
{
	struct task *t = current;
	switch (clock) {
	case CLOCK_REALTIME_ID:
	case CLOCK_REALTIME_COARSE_ID:
		*ns = realtime_ns();
		return 0;
	case CLOCK_TAI_ID:
		*ns = realtime_ns() + TAI_OFFSET_NS;
		return 0;
	case CLOCK_MONOTONIC_ID:
	case CLOCK_MONOTONIC_RAW_ID:
	case CLOCK_MONOTONIC_COARSE_ID:
	case CLOCK_BOOTTIME_ID:
		*ns = time_since_boot_ns();
		return 0;
	case CLOCK_PROCESS_CPUTIME: {
		struct cpu_usage u;
		cputime_process(t->leader, &u);
		*ns = tsc_to_ns(u.utime_tsc + u.stime_tsc);
		return 0;
	}
	case CLOCK_THREAD_CPUTIME:
		*ns = task_utime_ns(t) + task_stime_ns(t);
		return 0;
	default:
		return -EINVAL;
	}
}

/* Boot-relative deadline for an absolute time on `clock`. The clock's
 * reading comes from the same TSC read as the boot time: two reads would
 * put the deadline early by the time between them. */
uint64_t clock_to_boot_ns(int clock, uint64_t abs_ns)
{
	uint64_t boot = time_since_boot_ns(), now;
	switch (clock) {
	case CLOCK_REALTIME_ID:
	case CLOCK_REALTIME_COARSE_ID:
		now = epoch_at_boot_ns + boot;
		break;
	case CLOCK_TAI_ID:
		now = epoch_at_boot_ns + boot + TAI_OFFSET_NS;
		break;
	case CLOCK_MONOTONIC_ID:
	case CLOCK_MONOTONIC_RAW_ID:
	case CLOCK_MONOTONIC_COARSE_ID:
	case CLOCK_BOOTTIME_ID:
		now = boot;
		break;
	default:
		if (clock_now(clock, &now))
			return 0;
	}
	if (abs_ns <= now)
		return 0;
	return boot + (abs_ns - now);
}

static int get_timespec(uint64_t uptr, uint64_t *ns)
{
	struct __kernel_timespec ts;
	if (copy_from_user(&ts, (void *)uptr, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (long long)NS)
		return -EINVAL;
	*ns = (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
	return 0;
}

static int put_timespec(uint64_t uptr, uint64_t ns)
{
	struct __kernel_timespec ts = { (long long)(ns / NS), (long long)(ns % NS) };
	return copy_to_user((void *)uptr, &ts, sizeof(ts)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(clock_gettime, clockid_t, which, uint64_t, utp)
{
	uint64_t ns;
	int r = clock_now(which, &ns);
	return r ? r : put_timespec(utp, ns);
}

SYSCALL_DEFINE2(clock_getres, clockid_t, which, uint64_t, utp)
{
	uint64_t ns;
	if (clock_now(which, &ns))
		return -EINVAL;
	return utp ? put_timespec(utp, 1) : 0;
}

SYSCALL_DEFINE2(gettimeofday, struct __kernel_old_timeval __user *, utv,
		struct timezone __user *, utz)
{
	if (utv) {
		uint64_t ns = realtime_ns();
		struct __kernel_old_timeval tv = { (long)(ns / NS), (long)(ns % NS / 1000) };
		if (copy_to_user(utv, &tv, sizeof(tv)))
			return -EFAULT;
	}
	if (utz) {
		struct timezone tz = { 0, 0 };
		if (copy_to_user(utz, &tz, sizeof(tz)))
			return -EFAULT;
	}
	return 0;
}

SYSCALL_DEFINE1(time, long __user *, tloc)
{
	long t = (long)(realtime_ns() / NS);
	if (tloc && put_user(t, tloc))
		return -EFAULT;
	return t;
}

/* ---- sleeping ---- */

/* Sleep until deadline or a signal. Returns 0 or -EINTR. */
static long sleep_until(uint64_t deadline)
{
	struct task *self = current;
	while (time_since_boot_ns() < deadline) {
		self->state = TASK_SLEEPING; /* before the check: no lost wake-up */
		if (signal_pending_current()) {
			self->state = TASK_RUNNABLE;
			return -EINTR;
		}
		schedule_until(deadline);
		self->state = TASK_RUNNABLE;
	}
	return 0;
}

SYSCALL_DEFINE2(nanosleep, uint64_t, rqtp, uint64_t, rmtp)
{
	uint64_t ns;
	int r = get_timespec(rqtp, &ns);
	if (r)
		return r;
	uint64_t deadline = time_since_boot_ns() + ns;
	long s = sleep_until(deadline);
	if (s && rmtp) {
		uint64_t now = time_since_boot_ns();
		put_timespec(rmtp, deadline > now ? deadline - now : 0);
	}
	return s;
}

SYSCALL_DEFINE4(clock_nanosleep, clockid_t, clock, int, flags, uint64_t, rqtp, uint64_t, rmtp)
{
	uint64_t ns, now;
	if (clock == CLOCK_THREAD_CPUTIME)
		return -EINVAL;
	if (clock_now(clock, &now))
		return -EINVAL;
	int r = get_timespec(rqtp, &ns);
	if (r)
		return r;
	uint64_t deadline = (flags & TIMER_ABSTIME) ? clock_to_boot_ns(clock, ns)
						    : time_since_boot_ns() + ns;
	if (!deadline)
		return 0;
	long s = sleep_until(deadline);
	if (s && rmtp && !(flags & TIMER_ABSTIME)) {
		uint64_t t = time_since_boot_ns();
		put_timespec(rmtp, deadline > t ? deadline - t : 0);
	}
	return s;
}

/* ---- interval timers (setitimer, getitimer, alarm) ---- */

static void (*poll_hook)(void);

void timers_set_poll_hook(void (*fn)(void))
{
	poll_hook = fn;
}

void timers_tick(void)
{
	if (poll_hook)
		poll_hook();
}

/* ITIMER_REAL counts wall time (timers.c); ITIMER_VIRTUAL and
 * ITIMER_PROF the process's CPU time (cputime.c). */
static void itimer_get(struct task *leader, int which, struct __kernel_old_itimerval *v)
{
	uint64_t left, interval;
	if (which == ITIMER_REAL)
		itimer_get_real(leader, &left, &interval);
	else
		cpu_itimer_get(leader, which == ITIMER_VIRTUAL ? CPU_ITIMER_VIRT : CPU_ITIMER_PROF,
			       &left, &interval);
	v->it_value.tv_sec = (long)(left / NS);
	v->it_value.tv_usec = (long)(left % NS / 1000);
	v->it_interval.tv_sec = (long)(interval / NS);
	v->it_interval.tv_usec = (long)(interval % NS / 1000);
}

static void itimer_set(struct task *leader, int which, uint64_t value_ns, uint64_t interval_ns)
{
	if (which == ITIMER_REAL)
		itimer_set_real(leader, value_ns, interval_ns);
	else
		cpu_itimer_set(leader, which == ITIMER_VIRTUAL ? CPU_ITIMER_VIRT : CPU_ITIMER_PROF,
			       value_ns, interval_ns);
}

SYSCALL_DEFINE2(getitimer, int, which, struct __kernel_old_itimerval __user *, value)
{
	struct __kernel_old_itimerval v;
	if (which < ITIMER_REAL || which > ITIMER_PROF)
		return -EINVAL;
	itimer_get(current->leader, which, &v);
	return copy_to_user(value, &v, sizeof(v)) ? -EFAULT : 0;
}

static uint64_t tv_ns(const struct __kernel_old_timeval *tv)
{
	return (uint64_t)tv->tv_sec * NS + (uint64_t)tv->tv_usec * 1000;
}

SYSCALL_DEFINE3(setitimer, int, which, const struct __kernel_old_itimerval __user *, value,
		struct __kernel_old_itimerval __user *, ovalue)
{
	struct __kernel_old_itimerval v, old;
	if (which < ITIMER_REAL || which > ITIMER_PROF)
		return -EINVAL;
	if (value && copy_from_user(&v, value, sizeof(v)))
		return -EFAULT;
	if (value && (v.it_value.tv_usec < 0 || v.it_value.tv_usec >= 1000000 ||
		   v.it_interval.tv_usec < 0 || v.it_interval.tv_usec >= 1000000 ||
		   v.it_value.tv_sec < 0 || v.it_interval.tv_sec < 0))
		return -EINVAL;
	struct task *leader = current->leader;
	itimer_get(leader, which, &old);
	/* A NULL value disarms, as on Linux (which logs it as deprecated). */
	if (value)
		itimer_set(leader, which, tv_ns(&v.it_value), tv_ns(&v.it_interval));
	else
		itimer_set(leader, which, 0, 0);
	if (ovalue && copy_to_user(ovalue, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE1(alarm, unsigned int, seconds)
{
	struct task *leader = current->leader;
	struct __kernel_old_itimerval old;
	itimer_get(leader, ITIMER_REAL, &old);
	itimer_set(leader, ITIMER_REAL, (uint64_t)seconds * NS, 0);
	long left = old.it_value.tv_sec + (old.it_value.tv_usec >= 500000 ||
					   (old.it_value.tv_sec == 0 && old.it_value.tv_usec));
	return left;
}
