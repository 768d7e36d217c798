/*
 * signals.c: perf events that signal their owner. fcntl's owner and
 * signal settings on a perf fd (F_SETOWN, F_GETOWN, F_SETOWN_EX,
 * F_GETOWN_EX, F_SETSIG, F_GETSIG, O_ASYNC through F_SETFL) with Linux's
 * errnos; then what a sampling event sends with O_ASYNC set: the plain
 * SIGIO (si_code SI_KERNEL, no details) by default, or the F_SETSIG
 * signal with si_code POLL_IN, si_fd and si_band, one per overflow,
 * nothing without an owner or after O_ASYNC is cleared;
 * PERF_EVENT_IOC_REFRESH counting overflows down to a POLL_HUP that
 * disables the event (its count stops), the self-sampling pattern of
 * REFRESH 1 in the handler, and REFRESH's errnos. A ring buffer's
 * watermark wake-up with no overflow behind it (a COMM record of a
 * counting dummy event) signals too, POLL_IN, as it wakes poll() (Linux
 * 6.10's perf_output_wakeup). A pipe with O_ASYNC signals its reader's
 * owner when data arrives. The watchpoint's checks
 * need a host that delivers breakpoint hits (perf.h's probe).
 *
 * The event is a user-mode page-fault counter sampling every PERIOD
 * faults: each fault is one exact, synchronous occurrence on both
 * kernels, so every count below is exact.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "perf.h"

#ifndef O_ASYNC
#define O_ASYNC FASYNC        /* the uapi's name (libc-lite) */
#endif

#define PERIOD 4
#define RTSIG 40              /* a real-time signal on every libc */

static volatile int stage, stage_seen;
static volatile int got, got_code, got_fd, got_signo, hups, refresh_fd = -1;
static volatile long got_band;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got++;
	stage_seen = stage;
	got_signo = si->si_signo;
	got_code = si->si_code;
	got_fd = si->si_fd;
	got_band = si->si_band;
	if (si->si_code == POLL_HUP) {
		hups++;
		if (refresh_fd >= 0)
			ioctl(refresh_fd, PERF_EVENT_IOC_REFRESH, 1);
	}
	(void)sig;
}

static void catch(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(sig, &sa, NULL);
}

static void reset(void)
{
	got = got_code = got_fd = got_signo = hups = 0;
	stage = stage_seen = 0;
	got_band = 0;
}

/* A user-mode page-fault counter sampling every PERIOD faults. */
static int open_faults(int disabled, int inherit)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_period = PERIOD;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	a.disabled = disabled ? 1 : 0;
	a.inherit = inherit ? 1 : 0;
	return perf_open(&a, 0, -1, -1, 0);
}

/*
 * F_GETOWN's value. A process group id below 4096 comes back as -pgrp
 * in the range that a libc reading the raw system call (libc-lite) takes
 * for an error: -1 with errno pgrp (the BUGS of fcntl(2); glibc and musl
 * work around it). Only for fds known to be valid.
 */
static int getown(int fd)
{
	errno = 0;
	int r = fcntl(fd, F_GETOWN);

	if (r == -1 && errno > 0 && errno < 4096 && errno != EBADF)
		return -errno;
	return r;
}

/* A pid that no task has: a reaped child's. */
static pid_t dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void fcntl_settings(void)
{
	int fd = open_faults(1, 0);
	struct f_owner_ex ex = { 7, 7 };
	pid_t me = getpid(), gone = dead_pid();

	CHECK(fd >= 0, "open a sampling page-fault event");
	CHECK(getown(fd) == 0, "F_GETOWN of a new perf fd is 0");
	CHECK(fcntl(fd, F_GETOWN_EX, &ex) == 0 && ex.type == F_OWNER_TID && ex.pid == 0,
	      "F_GETOWN_EX of a new perf fd: F_OWNER_TID, pid 0 (got %d, %d)", ex.type, ex.pid);
	CHECK(fcntl(fd, F_GETSIG) == 0, "F_GETSIG of a new perf fd is 0");
	CHECK(!(fcntl(fd, F_GETFL) & O_ASYNC), "O_ASYNC is off at first");

	CHECK(fcntl(fd, F_SETOWN, me) == 0 && getown(fd) == me,
	      "F_SETOWN getpid() and F_GETOWN round trip");
	CHECK(fcntl(fd, F_GETOWN_EX, &ex) == 0 && ex.type == F_OWNER_PID && ex.pid == me,
	      "F_GETOWN_EX after F_SETOWN pid: F_OWNER_PID");
	CHECK(fcntl(fd, F_SETOWN, -getpgrp()) == 0 && getown(fd) == -getpgrp(),
	      "F_SETOWN -pgrp: F_GETOWN gives -pgrp");
	CHECK(fcntl(fd, F_GETOWN_EX, &ex) == 0 && ex.type == F_OWNER_PGRP && ex.pid == getpgrp(),
	      "F_GETOWN_EX after F_SETOWN -pgrp: F_OWNER_PGRP, pgrp");
	ex.type = F_OWNER_TID;
	ex.pid = (pid_t)syscall(__NR_gettid);
	CHECK(fcntl(fd, F_SETOWN_EX, &ex) == 0, "F_SETOWN_EX F_OWNER_TID");
	memset(&ex, 0x55, sizeof(ex));
	CHECK(fcntl(fd, F_GETOWN_EX, &ex) == 0 && ex.type == F_OWNER_TID &&
	      ex.pid == (pid_t)syscall(__NR_gettid), "F_GETOWN_EX round trip of F_OWNER_TID");
	CHECK(getown(fd) == (int)syscall(__NR_gettid), "F_GETOWN of a thread owner is its tid");
	ex.type = F_OWNER_PGRP;
	ex.pid = getpgrp();
	CHECK(fcntl(fd, F_SETOWN_EX, &ex) == 0 && getown(fd) == -getpgrp(),
	      "F_SETOWN_EX F_OWNER_PGRP: F_GETOWN gives -pgrp");

	ex.type = 3;
	ex.pid = me;
	CHECK_ERR(fcntl(fd, F_SETOWN_EX, &ex), EINVAL, "F_SETOWN_EX with owner type 3");
	ex.type = -1;
	CHECK_ERR(fcntl(fd, F_SETOWN_EX, &ex), EINVAL, "F_SETOWN_EX with owner type -1");
	ex.type = F_OWNER_PID;
	ex.pid = gone;
	CHECK_ERR(fcntl(fd, F_SETOWN_EX, &ex), ESRCH, "F_SETOWN_EX to a pid no task has");
	CHECK_ERR(fcntl(fd, F_SETOWN, gone), ESRCH, "F_SETOWN to a pid no task has");
	CHECK_ERR(fcntl(fd, F_SETOWN, INT_MIN), EINVAL, "F_SETOWN INT_MIN");
	CHECK_ERR(fcntl(fd, F_SETOWN_EX, (void *)8), EFAULT, "F_SETOWN_EX with a bad pointer");
	CHECK_ERR(fcntl(fd, F_GETOWN_EX, (void *)8), EFAULT, "F_GETOWN_EX with a bad pointer");
	CHECK(getown(fd) == -getpgrp(), "failed calls left the owner alone");
	CHECK(fcntl(fd, F_SETOWN, 0) == 0 && getown(fd) == 0, "F_SETOWN 0 clears the owner");

	CHECK_ERR(fcntl(fd, F_SETSIG, 65), EINVAL, "F_SETSIG 65");
	CHECK_ERR(fcntl(fd, F_SETSIG, -1), EINVAL, "F_SETSIG -1");
	CHECK(fcntl(fd, F_SETSIG, 64) == 0 && fcntl(fd, F_GETSIG) == 64, "F_SETSIG 64 round trip");
	CHECK(fcntl(fd, F_SETSIG, RTSIG) == 0 && fcntl(fd, F_GETSIG) == RTSIG, "F_SETSIG %d round trip", RTSIG);
	CHECK(fcntl(fd, F_SETSIG, 0) == 0 && fcntl(fd, F_GETSIG) == 0, "F_SETSIG 0 restores SIGIO");

	CHECK(fcntl(fd, F_SETFL, O_ASYNC) == 0 && (fcntl(fd, F_GETFL) & O_ASYNC),
	      "F_SETFL O_ASYNC shows in F_GETFL");
	CHECK(fcntl(fd, F_SETFL, 0) == 0 && !(fcntl(fd, F_GETFL) & O_ASYNC),
	      "F_SETFL 0 clears O_ASYNC");
	int on = 1;
	CHECK(ioctl(fd, FIOASYNC, &on) == 0 && (fcntl(fd, F_GETFL) & O_ASYNC), "FIOASYNC 1 sets O_ASYNC");
	on = 0;
	CHECK(ioctl(fd, FIOASYNC, &on) == 0 && !(fcntl(fd, F_GETFL) & O_ASYNC), "FIOASYNC 0 clears it");
	CHECK_ERR(ioctl(fd, FIOASYNC, (void *)8), EFAULT, "FIOASYNC with a bad pointer");
	close(fd);

	/* A file that cannot signal: F_SETFL takes O_ASYNC silently and
	 * does not keep it (the fasync op sets the flag); FIOASYNC fails. */
	fd = open("/dev/null", O_RDWR);
	on = 1;
	CHECK(fcntl(fd, F_SETFL, O_ASYNC) == 0 && !(fcntl(fd, F_GETFL) & O_ASYNC),
	      "/dev/null: F_SETFL O_ASYNC succeeds, the flag is not kept");
	CHECK_ERR(ioctl(fd, FIOASYNC, &on), ENOTTY, "/dev/null: FIOASYNC");
	close(fd);

	/* An owner that went away reads back as 0. */
	int p[2];
	char c;
	fd = open_faults(1, 0);
	if (pipe(p) == 0) {
		pid_t child = fork();
		if (child == 0) {
			read(p[0], &c, 1);
			_exit(0);
		}
		CHECK(fcntl(fd, F_SETOWN, child) == 0 && getown(fd) == child,
		      "F_SETOWN a live child");
		write(p[1], "x", 1);
		waitpid(child, NULL, 0);
		CHECK(getown(fd) == 0, "F_GETOWN is 0 once that child is reaped");
		close(p[0]);
		close(p[1]);
	}
	close(fd);
}

/* Owner, signal and O_ASYNC on fd; sig 0: plain SIGIO. */
static int arm(int fd, int owner, int sig)
{
	int r = fcntl(fd, F_SETOWN, owner);

	if (!r)
		r = fcntl(fd, F_SETSIG, sig);
	if (!r)
		r = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
	return r;
}

/* Overflows of a page-fault event since its open: its count says how
 * many faults there were, the ones we made and any other (a loaded host
 * may evict a page of the program and fault it back in). */
static int overflows(int fd)
{
	uint64_t v = perf_value(fd);

	return v == PERF_BAD_VALUE ? -1 : (int)(v / PERIOD);
}

static void sigio_default(void)
{
	int fd = open_faults(0, 0);

	reset();
	CHECK(fd >= 0 && arm(fd, getpid(), 0) == 0, "O_ASYNC, owner getpid(), no F_SETSIG");
	touch_pages(5 * PERIOD);
	CHECK(got == overflows(fd) && got >= 5, "one SIGIO per overflow: at least 5 for %d "
	      "faults, as many as the count's overflows (got %d, %d)", 5 * PERIOD, got,
	      overflows(fd));
	CHECK(got_signo == SIGIO && got_code == SI_KERNEL,
	      "plain SIGIO: si_signo SIGIO, si_code SI_KERNEL (got %d, %d)", got_signo, got_code);
	CHECK(got_fd == 0 && got_band == 0, "plain SIGIO carries no si_fd/si_band (got %d, %ld)",
	      got_fd, got_band);

	reset();
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_ASYNC);
	touch_pages(3 * PERIOD);
	CHECK(got == 0, "no signal after O_ASYNC is cleared (got %d)", got);

	reset();
	fcntl(fd, F_SETOWN, 0);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
	touch_pages(3 * PERIOD);
	CHECK(got == 0, "no signal with O_ASYNC but no owner (got %d)", got);
	close(fd);
}

static void sigio_setsig(void)
{
	int fd = open_faults(0, 0);
	int dupfd;

	reset();
	CHECK(fd >= 0 && arm(fd, getpid(), RTSIG) == 0, "O_ASYNC with F_SETSIG %d", RTSIG);
	touch_pages(3 * PERIOD);
	CHECK(got == overflows(fd) && got >= 3, "one signal per overflow: at least 3, as "
	      "many as the count's overflows (got %d, %d)", got, overflows(fd));
	CHECK(got_signo == RTSIG && got_code == POLL_IN,
	      "F_SETSIG signal with si_code POLL_IN (got %d, %d)", got_signo, got_code);
	CHECK(got_fd == fd, "si_fd is the perf fd (got %d, want %d)", got_fd, fd);
	CHECK(got_band == (POLLIN | POLLRDNORM), "si_band is POLLIN|POLLRDNORM (got %#lx)", got_band);

	/* Blocked meanwhile: a real-time signal keeps one instance per
	 * overflow, the plain SIGIO just one. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, RTSIG);
	sigprocmask(SIG_BLOCK, &set, &old);
	reset();
	touch_pages(3 * PERIOD);
	CHECK(got == 0, "blocked: nothing yet");
	sigprocmask(SIG_SETMASK, &old, NULL);
	CHECK(got == 3 && got_code == POLL_IN && got_fd == fd,
	      "unblocked: the three queued signals arrive (got %d)", got);
	fcntl(fd, F_SETSIG, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigprocmask(SIG_BLOCK, &set, &old);
	reset();
	touch_pages(3 * PERIOD);
	sigprocmask(SIG_SETMASK, &old, NULL);
	CHECK(got == 1 && got_signo == SIGIO, "plain SIGIO blocked meanwhile: one (got %d)", got);
	fcntl(fd, F_SETSIG, RTSIG);

	/* The fd that turned O_ASYNC on is the one si_fd names. */
	dupfd = dup(fd);
	fcntl(fd, F_SETFL, 0);
	fcntl(dupfd, F_SETFL, O_ASYNC);
	reset();
	touch_pages(PERIOD);
	CHECK(got == 1 && got_fd == dupfd, "si_fd follows the fd O_ASYNC was set on (got %d, %d)",
	      got, got_fd);
	close(dupfd);

	/* A thread owner gets it as well; SIGUSR1 keeps POLL_IN. */
	struct f_owner_ex ex = { F_OWNER_TID, (pid_t)syscall(__NR_gettid) };
	fcntl(fd, F_SETOWN_EX, &ex);
	fcntl(fd, F_SETSIG, SIGUSR1);
	fcntl(fd, F_SETFL, O_ASYNC);
	reset();
	touch_pages(2 * PERIOD);
	CHECK(got == 2 && got_signo == SIGUSR1 && got_code == POLL_IN,
	      "F_OWNER_TID owner gets SIGUSR1 with POLL_IN (got %d, %d, %d)", got, got_signo, got_code);
	/* A signal with codes of its own (SIGBUS) gets SI_SIGIO instead. */
	fcntl(fd, F_SETSIG, SIGBUS);
	reset();
	touch_pages(PERIOD);
	/* O_ASYNC stayed on through dupfd's F_SETFL (the file's flag did
	 * not change since): si_fd still names dupfd, closed or not. */
	CHECK(got == 1 && got_signo == SIGBUS && got_code == SI_SIGIO && got_fd == dupfd,
	      "F_SETSIG SIGBUS: si_code SI_SIGIO, si_fd (got %d, %d, %d)", got, got_code, got_fd);
	close(fd);
}

/* In a child leading a process group of its own (signalling the group
 * the test runs in would reach its shell): a group owner gets it. */
static void pgrp_owner(long unused)
{
	int fd;

	(void)unused;
	setpgid(0, 0);
	fd = open_faults(0, 0);
	reset();
	CHECK(fd >= 0 && arm(fd, -getpgrp(), RTSIG) == 0, "owner: our own process group");
	touch_pages(2 * PERIOD);
	/* After fork, Linux's copy-on-write faults count too: at least 2. */
	CHECK(got >= 2 && got_code == POLL_IN && got_fd == fd,
	      "the process group's processes get it (got %d)", got);
	close(fd);
}

static uint64_t count_of(int fd)
{
	uint64_t v = perf_value(fd);

	return v;
}

static void refresh(void)
{
	int fd = open_faults(1, 0);
	int plain, inh;
	struct perf_event_attr a;

	reset();
	CHECK(fd >= 0 && arm(fd, getpid(), RTSIG) == 0, "a disabled sampling event with O_ASYNC");
	touch_pages(2 * PERIOD);
	CHECK(got == 0 && count_of(fd) == 0, "disabled: no count, no signal");
	CHECK(ioctl(fd, PERF_EVENT_IOC_REFRESH, 3) == 0, "REFRESH 3 enables it");
	touch_pages(2 * PERIOD);
	CHECK(got == 2 && hups == 0 && got_code == POLL_IN, "two overflows: two POLL_IN (got %d, %d)",
	      got, hups);
	touch_pages(PERIOD);
	CHECK(got == 3 && hups == 1 && got_code == POLL_HUP,
	      "the third: POLL_HUP (got %d signals, %d hups, code %d)", got, hups, got_code);
	CHECK(got_band == (POLLHUP | POLLERR), "POLL_HUP's si_band is POLLHUP|POLLERR (got %#lx)", got_band);
	uint64_t c = count_of(fd);
	CHECK(c == 3 * PERIOD, "counted exactly %d faults (got %llu)", 3 * PERIOD, (unsigned long long)c);
	touch_pages(4 * PERIOD);
	CHECK(count_of(fd) == c && got == 3, "disabled at the limit: the count stops, no more signals");
	CHECK(ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) == 0, "REFRESH 1");
	touch_pages(PERIOD);
	CHECK(got == 4 && hups == 2 && count_of(fd) == c + PERIOD,
	      "REFRESH 1: one overflow, POLL_HUP at once, disabled again (got %d, %d)", got, hups);
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE without a limit");
	reset();
	touch_pages(3 * PERIOD);
	CHECK(got == 3 && hups == 0, "after ENABLE: unlimited POLL_IN (got %d, %d)", got, hups);
	close(fd);

	/* The self-sampling pattern: REFRESH 1 again in the handler. */
	fd = open_faults(1, 0);
	reset();
	refresh_fd = fd;
	arm(fd, getpid(), RTSIG);
	ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
	touch_pages(6 * PERIOD);
	CHECK(hups == 6 && got == 6 && count_of(fd) == 6 * PERIOD,
	      "REFRESH 1 in the handler: a POLL_HUP per overflow (got %d, %d)", hups, got);
	refresh_fd = -1;
	close(fd);

	plain = perf_sw(PERF_COUNT_SW_PAGE_FAULTS, 1);
	CHECK_ERR(ioctl(plain, PERF_EVENT_IOC_REFRESH, 1), EINVAL, "REFRESH on a counting event");
	close(plain);
	inh = open_faults(1, 1);
	CHECK_ERR(ioctl(inh, PERF_EVENT_IOC_REFRESH, 1), EINVAL, "REFRESH on an inherited event");
	close(inh);
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_period = PERIOD;
	a.exclude_kernel = 1;
	a.disabled = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(ioctl(fd, PERF_EVENT_IOC_REFRESH, 0) == 0, "REFRESH 0 just enables");
	touch_pages(PERIOD);
	CHECK(count_of(fd) == PERIOD, "REFRESH 0: counting with no limit");
	close(fd);
}

static volatile uint64_t watched __attribute__((aligned(8)));

/* A watchpoint's signal reaches the handler before the program goes on. */
static void watchpoint(void)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&watched;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	reset();
	CHECK(fd >= 0 && arm(fd, getpid(), RTSIG) == 0, "O_ASYNC on a write watchpoint");
	stage = 1;
	watched = 1;
	stage = 2;
	watched = 2;
	stage = 3;
	CHECK_HIT(got == 2 && got_code == POLL_IN && got_fd == fd, "a signal per watched write (got %d)", got);
	CHECK_HIT(stage_seen == 2, "each arrives right after the write (stage %d)", stage_seen);
	close(fd);
}

/* REFRESH on a clock event: its timer stops at the limit too. */
static void refresh_clock(void)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = 1000000; /* 1 ms of task time */
	a.exclude_kernel = 1;
	a.disabled = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	reset();
	CHECK(fd >= 0 && arm(fd, getpid(), RTSIG) == 0, "a task-clock event sampling every 1 ms");
	ioctl(fd, PERF_EVENT_IOC_REFRESH, 2);
	for (int i = 0; i < 200 && !hups; i++)
		work_ns(1000000);
	CHECK(hups == 1 && got == 2, "REFRESH 2: POLL_IN then POLL_HUP (got %d, %d)", got, hups);
	uint64_t c = perf_value(fd);
	work_ns(20000000);
	CHECK(perf_value(fd) == c && got == 2, "then the clock stops counting and signalling");
	close(fd);
}

/* A dummy event recording COMM, waking at every record: prctl's rename
 * writes one, and the owner gets the wake-up's signal. */
static void watermark_sigio(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	struct pollfd pfd;
	char name[16] = "";
	void *ring;
	int fd;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.comm = 1;
	a.watermark = 1;
	a.wakeup_watermark = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	ring = fd >= 0 ? mmap(NULL, (size_t)(3 * page), PROT_READ | PROT_WRITE,
	                      MAP_SHARED, fd, 0) : MAP_FAILED;
	if (!CHECK(ring != MAP_FAILED, "watermark: a COMM-recording dummy event "
	           "and its ring")) {
		if (fd >= 0)
			close(fd);
		return;
	}
	CHECK(arm(fd, getpid(), RTSIG) == 0, "watermark: O_ASYNC, F_SETSIG %d", RTSIG);
	prctl(PR_GET_NAME, name);
	reset();
	prctl(PR_SET_NAME, "watermark");
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	int ready = poll(&pfd, 1, 1000);
	CHECK(ready == 1 && (pfd.revents & POLLIN),
	      "watermark: the COMM record wakes poll() (revents %#x)", pfd.revents);
	for (int i = 0; i < 100 && !got; i++)
		sleep_ns(10000000);
	CHECK(got >= 1 && got_signo == RTSIG && got_code == POLL_IN && got_fd == fd,
	      "watermark: the wake-up signals the owner: POLL_IN, si_fd "
	      "(got %d, %d, %d, %d)", got, got_signo, got_code, got_fd);
	prctl(PR_SET_NAME, name);
	munmap(ring, (size_t)(3 * page));
	close(fd);
}

static void pipe_async(void)
{
	int p[2];
	char buf[8];

	if (pipe(p) != 0) {
		CHECK(0, "pipe");
		return;
	}
	reset();
	CHECK(arm(p[0], getpid(), RTSIG) == 0, "O_ASYNC on a pipe's read end");
	write(p[1], "abc", 3);
	CHECK(got == 1 && got_signo == RTSIG && got_code == POLL_IN && got_fd == p[0],
	      "a write signals the reader's owner: POLL_IN, si_fd (got %d, %d, %d)", got, got_code, got_fd);
	CHECK(arm(p[1], getpid(), SIGUSR1) == 0, "O_ASYNC on its write end, SIGUSR1");
	reset();
	read(p[0], buf, sizeof(buf));
	CHECK(got == 1 && got_signo == SIGUSR1 && got_code == POLL_OUT && got_fd == p[1] &&
	      got_band == (POLLOUT | POLLWRNORM | POLLWRBAND),
	      "a read signals the writer's owner: POLL_OUT, si_fd, si_band (got %d, %d, %d, %#lx)",
	      got, got_code, got_fd, got_band);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	bp_hits_checked();
	catch(SIGIO);
	catch(RTSIG);
	catch(SIGUSR1);
	catch(SIGBUS);
	sigio_default();
	sigio_setsig();
	refresh();
	watchpoint();
	refresh_clock();
	watermark_sigio();
	pipe_async();
	/* Last, as they fork: after a fork, copy-on-write faults would
	 * disturb the exact fault counts above. */
	fcntl_settings();
	in_child(pgrp_owner, 0, "F_SETOWN -pgrp");
	return abi_done("signals");
}
