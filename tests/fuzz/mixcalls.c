/*
 * mixcalls.c: the calls the mix (mix.c) adds to the fuzzer's own
 * (calls.c), after a perf_event fuzzer written for Linux by others
 * (issue 34): trashing the control page of a mapped ring, a signal
 * handler that refreshes the event whose overflow it reports, and reads
 * and writes of the perf files in /proc/sys/kernel and
 * /sys/bus/event_source. Like calls.c, each call draws its arguments
 * from the seeded generator, and a failing call must give -1 and an
 * errno Linux has.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "attrgen.h"
#include "fuzz.h"

volatile long mix_overflows;      /* signals the handler took */

/* Overflow signal (SIGIO, or the F_SETSIG one): count it, and refresh
 * the event it names now and then, as the Linux fuzzer's handler does. */
static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	mix_overflows++;
	if (si && si->si_fd > 2 && (mix_overflows & 3) == 0)
		ioctl(si->si_fd, PERF_EVENT_IOC_REFRESH, 1);
}

void mix_calls_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGIO, &sa, NULL);
	sigaction(40, &sa, NULL); /* calls.c's F_SETSIG draws 40 */
}

/* An overflow signal armed on one of the events: O_ASYNC, owner self,
 * and SIGIO or a real-time signal with siginfo. */
static void do_arm_signal(void)
{
	int fd = fuzz_any_fd();
	int sig = (int)PICK(0, SIGIO, 40);
	long r = fcntl(fd, F_SETFL, O_ASYNC);

	if (r == 0)
		r = fcntl(fd, F_SETOWN, getpid());
	if (r == 0)
		r = fcntl(fd, F_SETSIG, sig);
	if (r == 0)
		r = ioctl(fd, PERF_EVENT_IOC_REFRESH, (int)PICK(0, 1, 3));
	fuzz_note("arm overflow signal %d on fd %d = %ld", sig, fd, r);
	fuzz_outcome(r);
}

/* Random words into a mapped ring's control page: data_tail and the
 * rest that user space may write, or anything at all. */
static void do_trash(void)
{
	size_t len;
	uint64_t *page = fuzz_any_map(&len);

	if (!page) {
		fuzz_note("trash: no mapping");
		return;
	}
	unsigned n = 1 + (unsigned)fz_below(8);
	for (unsigned i = 0; i < n; i++) {
		/* 8-byte words of the 4 KiB page; 0x408/8 is data_tail. */
		unsigned w = (unsigned)PICK(0x408 / 8, 0x408 / 8, 0x400 / 8, 0x410 / 8,
		                            0x418 / 8, fz_below(512));
		page[w] = PICK(0, 1, 4096, len, ~0ULL, fz_next());
	}
	fuzz_note("trash %u words of the control page at %p", n, (void *)page);
}

/* dst = a then b, cut to size. */
static void join(char *dst, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	la = la < size - 1 ? la : size - 1;
	lb = lb < size - 1 - la ? lb : size - 1 - la;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb);
	dst[la + lb] = 0;
}

/* A file under /sys/bus/event_source/devices/PMU/, or one level deeper
 * (format/, events/, caps/). */
static void pick_sysfs(char *path, size_t size)
{
	static const char *const dirs[] = { "", "format/", "events/", "caps/" };
	const char *base = "/sys/bus/event_source/devices/";
	char dir[192];
	struct dirent *d;

	snprintf(path, size, "%s", base);
	DIR *pmus = opendir(base);
	if (!pmus)
		return;
	long want = (long)fz_below(8), i = 0;
	char pmu[64] = "";
	while ((d = readdir(pmus)))
		if (d->d_name[0] != '.' && (i++ <= want || !pmu[0]))
			join(pmu, sizeof(pmu), d->d_name, "");
	closedir(pmus);
	snprintf(dir, sizeof(dir), "%s%s/%s", base, pmu, dirs[fz_below(4)]);
	snprintf(path, size, "%stype", dir);
	DIR *files = opendir(dir);
	if (!files)
		return;
	want = (long)fz_below(16), i = 0;
	while ((d = readdir(files)))
		if (d->d_name[0] != '.' && i++ <= want)
			join(path, size, dir, d->d_name);
	closedir(files);
}

/* Read a perf file, or write back what it holds (so the host's and
 * the guest's settings stay as they were; sysctl values in and out of
 * range are calls.c's). Read-only files refuse the write (EACCES), as on
 * Linux. */
static void do_perf_file(void)
{
	static const char *const knobs[] = {
		"/proc/sys/kernel/perf_event_paranoid",
		"/proc/sys/kernel/perf_event_max_sample_rate",
		"/proc/sys/kernel/perf_cpu_time_max_percent",
		"/proc/sys/kernel/perf_event_mlock_kb",
		"/proc/sys/kernel/perf_event_max_stack",
	};
	char path[256], buf[256];
	bool write_back = fz_below(4) == 0;

	if (fz_below(2))
		snprintf(path, sizeof(path), "%s", knobs[fz_below(5)]);
	else
		pick_sysfs(path, sizeof(path));
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fuzz_note("open(%s) = -1 (errno %d)", path, errno);
		fuzz_outcome(-1);
		return;
	}
	long r = read(fd, buf, write_back ? sizeof(buf) : (size_t)PICK(1, 16, sizeof(buf)));
	close(fd);
	fuzz_note("read(%s) = %ld", path, r);
	fuzz_outcome(r);
	if (!write_back || r <= 0)
		return;
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fuzz_note("open(%s, O_WRONLY) = -1 (errno %d)", path, errno);
		fuzz_outcome(-1);
		return;
	}
	r = write(fd, buf, (size_t)r);
	fuzz_note("write back(%s) = %ld", path, r);
	fuzz_outcome(r);
	close(fd);
}

static const struct { void (*fn)(void); const char *name; } kinds[] = {
	{ do_arm_signal, "overflow signal" }, { do_trash, "control page" },
	{ do_perf_file, "perf file" },
};

void mix_call(uint64_t seed, long i)
{
	/* One call in four is the mix's own, the others the fuzzer's. */
	fz_seed(seed * 0x9e3779b97f4a7c15ULL ^ (uint64_t)i);
	if (fz_below(4)) {
		fuzz_call(seed, i);
		return;
	}
	int k = (int)fz_below(sizeof(kinds) / sizeof(kinds[0]));
	me->cur = i;
	me->in = kinds[k].name;
	kinds[k].fn();
	me->calls++;
	me->in = NULL;
}
