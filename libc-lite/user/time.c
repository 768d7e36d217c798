/* time.c: clocks, sleeping and interval timers. */
#include <errno.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "sys.h"

int clock_gettime(clockid_t clock, struct timespec *ts)
{
	return __syscall_ret(sys2(__NR_clock_gettime, clock, ts));
}

int clock_getres(clockid_t clock, struct timespec *res)
{
	return __syscall_ret(sys2(__NR_clock_getres, clock, res));
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return __syscall_ret(sys2(__NR_nanosleep, req, rem));
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	return __syscall_ret(sys2(__NR_gettimeofday, tv, tz));
}

int getitimer(int which, struct itimerval *cur)
{
	return __syscall_ret(sys2(__NR_getitimer, which, cur));
}

int setitimer(int which, const struct itimerval *restrict value,
              struct itimerval *restrict old)
{
	return __syscall_ret(sys3(__NR_setitimer, which, value, old));
}

time_t time(time_t *t)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return -1;
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

/* Rounds the seconds left after a signal up, as POSIX asks. */
unsigned sleep(unsigned seconds)
{
	struct timespec req = { seconds, 0 }, rem = req;

	if (nanosleep(&req, &rem) == 0)
		return 0;
	return (unsigned)rem.tv_sec + (rem.tv_nsec > 0);
}

int usleep(useconds_t usec)
{
	struct timespec req = { usec / 1000000, (long)(usec % 1000000) * 1000 };

	return nanosleep(&req, NULL);
}
