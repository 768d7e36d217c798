/*
 * perf.h: what every perf_event_open ABI test shares (tests/lib, built
 * into libtest.a once per C library). The tests use the harness of
 * abi.h (CHECK, CHECK_ERR, abi_note, abi_done) and add:
 *
 *   perf.c    perf_open(attr, pid, cpu, group_fd, flags)  the raw system call
 *             perf_attr(&attr, type, config)   a zeroed attr, size set
 *             perf_sw(config, disabled)        a software counter on the
 *                                              calling task, any CPU
 *             perf_value(fd)                   read() one u64 (or ~0)
 *             check_opens(fd, "what")          a check that fd opened; closes it
 *   clock.c   now_ns(), cpu_ns()               monotonic, thread CPU time
 *             spin_ns(ns), work_ns(ns)         busy for ns of wall time, or
 *                                              of CPU time
 *             sleep_ns(ns)                     nanosleep
 *             touch_pages(n)                   n fresh page faults
 *   sysfs.c   file_long(path, fail)            the integer in a small file
 *             core_pmu_dir(), core_pmu_file()  cpu/, cpu_core/ or cpu_atom/
 *             core_pmu_is_vpmu()               it is baremon's model
 *             cpu_list(path, set, max)         parse a sysfs CPU list
 *   bp.c      bp_hits_checked()                breakpoint hits can be
 *                                              asserted here (a probe)
 *             CHECK_HIT(cond, "what", ...)     CHECK when they can
 *   child.c   waiting_child(fd), release_child(pid, fd)  a child that
 *                                              waits on a pipe
 *   rdpmc.h   perf_self_read(pc, &used)        the control page's RDPMC loop
 *
 * Everything here is POSIX or Linux uapi, and within what libc-lite
 * offers, so each test builds with libc-lite, musl and glibc. The system
 * call goes through syscall() rather than a library wrapper: glibc and
 * musl have none.
 */
#ifndef TESTS_LIB_PERF_H
#define TESTS_LIB_PERF_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include "abi.h"

#define PERF_BAD_VALUE (~(uint64_t)0)

/* perf.c */
/* Returns the new fd, or -1 with errno set. */
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	      unsigned long flags);
void perf_attr(struct perf_event_attr *attr, uint32_t type, uint64_t config);
/* A software counter on the calling task (pid 0, any CPU, no group). */
int perf_sw(uint64_t config, int disabled);
/* The counter's value (read_format 0), or PERF_BAD_VALUE if read fails. */
uint64_t perf_value(int fd);
/* "WHAT opens" passes if fd >= 0 (else says the errno); fd is closed. */
void check_opens(int fd, const char *what);

/* clock.c */
uint64_t clock_ns(clockid_t clock);
uint64_t now_ns(void);
/* The calling thread's CPU time. */
uint64_t cpu_ns(void);
/* Keep the CPU busy for ns of wall time; returns the time it took. */
uint64_t spin_ns(uint64_t ns);
/* Work until this thread has had ns of CPU time, however loaded the
 * machine; returns the CPU time it had. A thread clock that does not
 * advance ends it after 50 ns + 100 ms of wall time. */
uint64_t work_ns(uint64_t ns);
void sleep_ns(long ns);
/* n fresh anonymous pages, one byte written to each: n minor faults
 * (huge pages refused; the mapping is left in place). 0, or -1. */
int touch_pages(long n);

/*
 * A sleep that is meant to switch the task out (one context switch
 * each). A sleep whose timer expires before the task blocks returns
 * without a switch, on Linux as on baremon (whose sleeps are hrtimers);
 * under TCG on a loaded host the vCPU may stall for a millisecond
 * between the two, so these sleeps are 10 ms.
 */
#define SWITCH_SLEEP_NS 10000000L

/* sysfs.c */
/* The integer at the start of a small file (sysfs, /proc/sys), or
 * `fail` if it cannot be read. */
long file_long(const char *path, long fail);
/* The core PMU's sysfs directory as Linux's perf finds it: devices/cpu,
 * or on a hybrid CPU devices/cpu_core, else devices/cpu_atom; NULL if
 * there is none. */
const char *core_pmu_dir(void);
/* path = the core PMU's file `name` ("caps/pmu_name"); 0, or -1 with
 * no core PMU. */
int core_pmu_file(char *path, size_t size, const char *name);
/* The core PMU says it is baremon's software model (caps/pmu_name
 * "vpmu"). */
int core_pmu_is_vpmu(void);
/* The CPUs in a sysfs CPU list ("0-3,6"): set[i] = 1 for each listed
 * i < max. One more than the highest CPU listed, or -1 if unreadable.
 * (musl and libc-lite's sysconf count the CPUs the task may run on.) */
int cpu_list(const char *path, unsigned char *set, int max);

/* bp.c */
/* Whether checks that need a breakpoint hit apply here: some Linux
 * hosts (a Firecracker VM) open breakpoint events but never deliver a
 * hit. On baremon the probe is a check of its own and they always
 * apply. Probed once. */
int bp_hits_checked(void);

/* A check that needs a breakpoint hit: skipped where none is delivered. */
#define CHECK_HIT(...)                                                      \
	do {                                                                \
		if (bp_hits_checked())                                      \
			CHECK(__VA_ARGS__);                                 \
	} while (0)

/* child.c */
/* A child that waits until its parent writes to (or closes) fd[1];
 * its pid, or -1. */
pid_t waiting_child(int fd[2]);
/* Let it go (close fd[1]) and reap it. */
void release_child(pid_t pid, int fd[2]);

#endif
