/*
 * mix.c: the mix of a perf_event fuzzer written for Linux by others
 * (issue 34), which once spent 97% of its time spinning in baremon's
 * kernel. Usage:
 *
 *   fuzz --mix [--max-share PCT] SECONDS SEED
 *
 * A busy child runs an instruction loop while the fuzzing task (a child
 * in its own process group) makes the fuzzer's calls and the mix's own
 * (mixcalls.c: control-page trashing, overflow signal handlers, the perf
 * files in /proc and /sys) for SECONDS. Checks:
 *  - the fuzzing task keeps making calls (no call for 20 s: it is stuck,
 *    and its /proc state is shown);
 *  - its kernel share, system time / (user + system) from its own
 *    getrusage, is at most PCT (the test compares with the same program
 *    on the host Linux: a kernel that spins where Linux sleeps or returns
 *    fails here instead of passing slowly; a ratio, not wall time, so a
 *    loaded machine does not change the verdict);
 *  - SIGKILL of its process group, sent while it is at work, ends it
 *    within 10 s.
 * It prints calls per second. Last line: "mix: N passed, N failed".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fuzz.h"

#define STUCK_SECONDS 20
#define KILL_SECONDS 10

/* What the fuzzing task publishes for the runner (shared memory). */
struct mix_state {
	struct trace trace;
	volatile long utime_us, stime_us;   /* its own getrusage, recent */
	volatile long overflows;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void publish_rusage(struct mix_state *s)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	s->utime_us = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec;
	s->stime_us = ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
	s->overflows = mix_overflows;
}

/* The fuzzing task: calls until killed (the runner ends it). */
static void fuzzing_task(struct mix_state *s, uint64_t seed)
{
	setpgid(0, 0); /* its children die with it */
	me = &s->trace;
	me->seed = seed;
	fuzz_calls_init();
	mix_calls_init();
	for (long i = 0;; i++) {
		mix_call(seed, i);
		if ((i & 31) == 0)
			publish_rusage(s);
	}
}

static void busy_child(void)
{
	volatile unsigned long n = 0;

	for (;;)
		n++;
}

static pid_t start(void (*fn)(struct mix_state *, uint64_t), struct mix_state *s,
                   uint64_t seed)
{
	pid_t p = fork();

	if (p == 0) {
		if (fn)
			fn(s, seed);
		busy_child();
	}
	return p;
}

/* Kill the fuzzing task's group and time its end; true within limit. */
static bool kill_group(pid_t pid, double *took)
{
	double t0 = now_s();

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	for (;;) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
		if (now_s() - t0 > KILL_SECONDS)
			return false;
		usleep(20000);
	}
	*took = now_s() - t0;
	return true;
}

int mix_main(int argc, char **argv)
{
	double max_share = -1;
	int a = 0, passed = 0, failed = 0;

	if (a + 1 < argc && !strcmp(argv[a], "--max-share")) {
		max_share = atof(argv[a + 1]);
		a += 2;
	}
	if (a + 2 > argc) {
		fprintf(stderr, "usage: fuzz --mix [--max-share PCT] SECONDS SEED\n");
		return 2;
	}
	double seconds = atof(argv[a]);
	uint64_t seed = strtoull(argv[a + 1], NULL, 0);
	struct mix_state *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
	                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return 2;
	memset(s, 0, sizeof(*s));
	fuzz_knobs_save();
	printf("# mix: seed %llu, %.0f s, a busy child beside the fuzzing task\n",
	       (unsigned long long)seed, seconds);
	fflush(stdout);

	pid_t busy = start(NULL, s, 0);
	pid_t task = start(fuzzing_task, s, seed);
	double t0 = now_s(), seen_at = t0, shown = t0;
	long seen = -1;
	bool stuck = false;
	int status = 0;
	pid_t died = 0;
	while (now_s() - t0 < seconds && !stuck && !died) {
		usleep(100000);
		died = waitpid(task, &status, WNOHANG) == task ? task : 0;
		if (died) {
			printf("# the fuzzing task ended (status %#x) at call %ld (%s):\n", status,
			       s->trace.cur, s->trace.in ? s->trace.in : "user code");
			for (long i = s->trace.cur > 8 ? s->trace.cur - 8 : 0; i <= s->trace.cur; i++)
				printf("#   %5ld: %s\n", i, s->trace.line[i % MAX_CALLS]);
		} else if (s->trace.calls != seen) {
			seen = s->trace.calls;
			seen_at = now_s();
		} else if (now_s() - seen_at >= STUCK_SECONDS) {
			stuck = true;
			printf("# the fuzzing task made no call for %d s, in %s (call %ld):\n",
			       STUCK_SECONDS, s->trace.in ? s->trace.in : "user code",
			       s->trace.cur);
			fuzz_show_task(task);
		}
		if (now_s() - shown >= 10) {
			printf("# ... %ld calls\n", s->trace.calls);
			fflush(stdout);
			shown = now_s();
		}
	}
	double elapsed = now_s() - t0;
	long calls = s->trace.calls, u = s->utime_us, k = s->stime_us;
	double took = 0;
	bool killed = died || kill_group(task, &took);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	fuzz_knobs_restore();

	double share = 100.0 * (double)k / 1e6 / elapsed;
	printf("# mix: %ld calls in %.1f s (%.0f calls/s), %ld overflow signals; "
	       "fuzzing task %.2f s user, %.2f s system: in the kernel %.1f%% of the time\n",
	       calls, elapsed, calls / elapsed, s->overflows, u / 1e6, k / 1e6, share);
	printf("# its last calls (now in %s):\n", s->trace.in ? s->trace.in : "user code");
	for (long i = calls > 4 ? calls - 4 : 0; i <= calls; i++)
		printf("#   %5ld: %s\n", i, s->trace.line[i % MAX_CALLS]);
	bool going = !stuck && !died;
	printf("%s - the fuzzing task kept making calls to the end (%ld)\n",
	       going ? "ok" : "not ok", calls);
	going ? passed++ : failed++;
	if (max_share >= 0) {
		bool ok = share <= max_share;
		printf("%s - in the kernel %.1f%% of the time, at most %.1f%%\n",
		       ok ? "ok" : "not ok", share, max_share);
		ok ? passed++ : failed++;
	}
	if (died)
		printf("not ok - the fuzzing task was not there to kill\n");
	else if (killed)
		printf("ok - SIGKILL ends the fuzzing task's group in %.2f s\n", took);
	else
		printf("not ok - the fuzzing task's group outlives SIGKILL by %d s\n",
		       KILL_SECONDS);
	killed ? passed++ : failed++;
	printf("mix: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
