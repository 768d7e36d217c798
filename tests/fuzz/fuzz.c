/*
 * fuzz.c: a seeded system-call fuzzer for baremon's perf_event_open and
 * the calls around it (issue 11; the calls are in calls.c). Usage:
 *
 *   fuzz [OPTION...] [SEED [CALLS [WORKERS [SECONDS]]]]
 *     --soak TOTAL     rounds of WORKERS x CALLS, seeds SEED, SEED+WORKERS,
 *                      ... until TOTAL seconds have passed
 *     --replay LIST    one worker (seed SEED) makes only the calls whose
 *                      indices are in LIST (comma-separated; a-b ranges)
 *     --plant          count opens of type 99 as failures (tests the
 *                      reducer: they reduce to one call)
 *     --trials N       at most N replays to reduce a failure (default 60,
 *                      and at most 120 s of them)
 *   fuzz --mix [--max-share PCT] SECONDS SEED
 *                      the mix of issue 34 beside a busy child (mix.c)
 *
 * WORKERS processes (default 2) make CALLS calls each (default 2000, at
 * most 4096); call i of the worker with seed S is drawn from S and i, so
 * any subset of a worker's calls replays. Checks, per round:
 *  - every failing call gave -1 and an errno Linux has, and each worker
 *    exits 0 (no signal killed it);
 *  - the watchdog (this process): a worker that makes no call for
 *    SECONDS (default 60) hangs in the kernel; its /proc state is shown;
 *  - no leak: /proc/baremon/objects (heap blocks, free and heap pages,
 *    processes) comes back to where it was once the workers and their
 *    children are gone (skipped where the file does not exist).
 * A failure prints the seed, then the shortest sequence of the worker's
 * calls found that still fails the same way (delta debugging: replays of
 * subsets) and the command line that replays it. A kernel panic or a hang
 * of the whole machine is the runner's to see (tests/qemu/fuzz.sh).
 * Last line: "fuzz: N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fuzz.h"

enum verdict { PASS, BAD_ERRNO, DIED, HANG, LEAK };
static const char *const verdict_name[] = {
	"passes", "a failure without an errno", "the worker died", "a hang", "a leak",
};

static struct trace *traces;
/* The reducer's lists, here so that main can touch them before the
 * first leak check (its own pages are not the kernel's to give back). */
static struct {
	long list[MAX_CALLS], trial[MAX_CALLS], all[MAX_CALLS];
	unsigned char keep[MAX_CALLS], mask[MAX_CALLS];
} scratch;
static long limit = 60;          /* watchdog: seconds without a call */
static int max_trials = 60;
static long reduce_secs = 120;   /* and at most this long */
static long reduce_start;

static long seconds_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/* ---- workers and the watchdog ---- */

/* keep: NULL for every call, else keep[i] says whether call i is made. */
static void worker(struct trace *t, uint64_t seed, long calls, const unsigned char *keep)
{
	me = t;
	memset(me, 0, sizeof(*me));
	me->seed = seed;
	fuzz_calls_init();
	for (long i = 0; i < calls; i++)
		if (!keep || keep[i])
			fuzz_call(seed, i);
	me->in = "killing its children";
	fuzz_calls_end();
	me->done = 1;
	_exit(0);
}

/* What the kernel says of a task that makes no progress. */
void fuzz_show_task(pid_t pid)
{
	static const char *const files[] = { "stat", "wchan", "syscall" };
	char path[64], buf[512];

	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		buf[strcspn(buf, "\n")] = 0;
		printf("#   %s: %s\n", path, buf);
	}
}

static void show_calls(const struct trace *t, const unsigned char *keep, long upto, int last)
{
	long from = last && upto > last ? upto - last : 0;

	for (long i = from; i < upto && i < MAX_CALLS; i++)
		if ((!keep || keep[i]) && t->line[i][0])
			printf("#   %5ld: %s\n", i, t->line[i]);
	if (t->in)
		printf("#   ... then in %s (call %ld)\n", t->in, t->cur);
}

/*
 * Run n workers (seeds seed0, seed0+1, ...) to their end, watching them;
 * verdicts[w] says how each ended. quiet: say nothing of hangs (replays).
 */
static void run_workers(int n, uint64_t seed0, long calls, const unsigned char *keep,
                        enum verdict *verdicts, bool quiet)
{
	pid_t pids[MAX_WORKERS];
	long seen[MAX_WORKERS], since[MAX_WORKERS];
	int st[MAX_WORKERS], left = n;
	bool over[MAX_WORKERS];

	for (int w = 0; w < n; w++) {
		traces[w].calls = 0;
		traces[w].done = 0;
		pids[w] = fork();
		if (pids[w] == 0) {
			setpgid(0, 0);   /* its children die with it */
			worker(&traces[w], seed0 + (uint64_t)w, calls, keep);
		}
		seen[w] = -1, since[w] = seconds_now(), over[w] = false;
		verdicts[w] = PASS;
	}
	long shown = seconds_now();
	while (left > 0) {
		usleep(50000);
		if (!quiet && seconds_now() - shown >= 30) {
			long made = 0;
			for (int w = 0; w < n; w++)
				made += traces[w].calls;
			printf("# ... %ld calls so far\n", made);
			fflush(stdout);
			shown = seconds_now();
		}
		for (int w = 0; w < n; w++) {
			if (over[w])
				continue;
			if (waitpid(pids[w], &st[w], WNOHANG) == pids[w]) {
				over[w] = true;
				left--;
			} else if (traces[w].calls != seen[w]) {
				seen[w] = traces[w].calls;
				since[w] = seconds_now();
			} else if (seconds_now() - since[w] >= limit) {
				if (!quiet) {
					printf("# worker %d (seed %llu) made no call for %ld s: it hangs\n",
					       w, (unsigned long long)traces[w].seed, limit);
					fuzz_show_task(pids[w]);
				}
				kill(-pids[w], SIGKILL);
				kill(pids[w], SIGKILL);
				waitpid(pids[w], NULL, 0);
				verdicts[w] = HANG;
				over[w] = true;
				left--;
			}
		}
	}
	for (int w = 0; w < n; w++) {
		kill(-pids[w], SIGKILL); /* children it left */
		if (verdicts[w] == HANG)
			continue;
		if (!WIFEXITED(st[w]) || WEXITSTATUS(st[w]) != 0 || !traces[w].done)
			verdicts[w] = DIED;
		else if (traces[w].bad_errno)
			verdicts[w] = BAD_ERRNO;
		if (verdicts[w] == DIED && !quiet)
			printf("# worker %d (seed %llu) ended with status %#x\n", w,
			       (unsigned long long)traces[w].seed, st[w]);
	}
}

/* ---- the perf knobs the calls write: put back after each round ---- */

static const char *const knobs[] = {
	"perf_event_paranoid", "perf_event_max_sample_rate", "perf_cpu_time_max_percent",
	"perf_event_mlock_kb", "perf_event_max_stack", "perf_event_max_contexts_per_stack",
};
static char knob_value[6][32];

static void knobs_io(bool save)
{
	char path[96];

	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "/proc/sys/kernel/%s", knobs[i]);
		int fd = open(path, save ? O_RDONLY : O_WRONLY);
		if (fd < 0)
			continue;
		if (save) {
			ssize_t n = read(fd, knob_value[i], sizeof(knob_value[i]) - 1);
			knob_value[i][n > 0 ? n : 0] = 0;
		} else if (knob_value[i][0]) {
			/* max_sample_rate and cpu_time_max_percent depend on each
			 * other: a second pass settles both. */
			if (write(fd, knob_value[i], strlen(knob_value[i])) < 0)
				knob_value[i][31] = 1;
		}
		close(fd);
	}
}

static void knobs_restore(void)
{
	knobs_io(false);
	knobs_io(false);
}

void fuzz_knobs_save(void) { knobs_io(true); }
void fuzz_knobs_restore(void) { knobs_restore(); }

/* ---- leaks: /proc/baremon/objects ---- */

struct objects {
	long blocks, bytes, heap_pages, free_pages, procs;
};

static bool objects_read(struct objects *o)
{
	char buf[512], name[32];
	long v;
	int fd = open("/proc/baremon/objects", O_RDONLY);

	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	memset(o, 0, sizeof(*o));
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "%31s %ld", name, &v) != 2)
			continue;
		if (!strcmp(name, "heap_blocks")) o->blocks = v;
		else if (!strcmp(name, "heap_bytes")) o->bytes = v;
		else if (!strcmp(name, "heap_pages")) o->heap_pages = v;
		else if (!strcmp(name, "free_pages")) o->free_pages = v;
		else if (!strcmp(name, "processes")) o->procs = v;
	}
	return true;
}

/* Some slack for what the kernel keeps on purpose (the log, caches that
 * grow to a high-water mark); a leak per call or per child is far more. */
#define SLACK_BLOCKS 64
#define SLACK_PAGES 64

static bool objects_back(const struct objects *a, const struct objects *b)
{
	return b->procs <= a->procs && b->blocks <= a->blocks + SLACK_BLOCKS &&
	       b->free_pages + b->heap_pages + SLACK_PAGES >= a->free_pages + a->heap_pages;
}

/* Wait (up to 10 s: orphans are reaped, freed memory comes back) for the
 * counts to return to `before`. */
static bool no_leak(const struct objects *before, struct objects *after)
{
	for (int i = 0; i < 100; i++) {
		if (!objects_read(after))
			return true;
		if (objects_back(before, after))
			return true;
		usleep(100000);
	}
	return false;
}

static void show_objects(const char *when, const struct objects *o)
{
	printf("#   %s: %ld heap blocks (%ld bytes), %ld heap pages, %ld free pages, "
	       "%ld processes\n", when, o->blocks, o->bytes, o->heap_pages, o->free_pages,
	       o->procs);
}

/* ---- reduction ---- */

/* Does worker `seed` making only calls `list` (n of them, of the first
 * `calls`) fail as `want` again? */
static bool fails_again(uint64_t seed, long calls, const long *list, long n, enum verdict want)
{
	unsigned char *keep = scratch.keep;
	struct objects before, after;
	enum verdict v;

	memset(keep, 0, MAX_CALLS);
	for (long i = 0; i < n; i++)
		keep[list[i]] = 1;
	bool counts = objects_read(&before);
	run_workers(1, seed, calls, keep, &v, true);
	knobs_restore();
	if (want == LEAK)
		return v == PASS && counts && !no_leak(&before, &after);
	return v == want;
}

static void print_list(const long *list, long n)
{
	for (long i = 0; i < n; i++) {
		long j = i;
		while (j + 1 < n && list[j + 1] == list[j] + 1)
			j++;
		printf(i ? ",%ld" : "%ld", list[i]);
		if (j > i)
			printf("-%ld", list[j]);
		i = j;
	}
}

/*
 * ddmin (Zeller): split the list in n parts; keep one part, or drop
 * one, if the rest still fails the same way; else split finer. Stops at
 * max_trials replays.
 */
static long ddmin(uint64_t seed, long calls, long *list, long n, enum verdict want, int *trials)
{
	long *trial = scratch.trial;
	long parts = 2;

	while (n >= 2 && *trials < max_trials && seconds_now() - reduce_start < reduce_secs) {
		long size = (n + parts - 1) / parts;
		bool reduced = false;
		for (long p = 0; p < parts && !reduced && *trials < max_trials; p++) {
			long lo = p * size, hi = lo + size < n ? lo + size : n, m = 0;
			if (lo >= n)
				break;
			for (long i = lo; i < hi; i++)                 /* the part */
				trial[m++] = list[i];
			++*trials;
			if (fails_again(seed, calls, trial, m, want)) {
				memcpy(list, trial, (size_t)m * sizeof(*list));
				n = m, parts = 2, reduced = true;
				break;
			}
			m = 0;
			for (long i = 0; i < n; i++)                   /* its complement */
				if (i < lo || i >= hi)
					trial[m++] = list[i];
			if (parts == 2 || *trials >= max_trials)
				continue; /* with 2 parts the complement is the other part */
			++*trials;
			if (fails_again(seed, calls, trial, m, want)) {
				memcpy(list, trial, (size_t)m * sizeof(*list));
				n = m, parts = parts > 2 ? parts - 1 : 2, reduced = true;
			}
		}
		if (!reduced) {
			if (parts >= n)
				break;
			parts = parts * 2 < n ? parts * 2 : n;
		}
	}
	return n;
}

/* Reduce worker w's failure and print what replays it. */
static void reduce(int w, long calls, enum verdict want, const unsigned char *keep)
{
	long *list = scratch.list;
	struct trace *t = &traces[w];
	uint64_t seed = t->seed;
	long end = want == BAD_ERRNO ? t->first_bad + 1 : want == HANG ? t->cur + 1 : calls;
	long n = 0;
	int trials = 0;

	reduce_start = seconds_now();
	printf("# worker %d, seed %llu: %s; its last calls:\n", w, (unsigned long long)seed,
	       verdict_name[want]);
	show_calls(t, keep, end, 24);
	for (long i = 0; i < end && i < MAX_CALLS; i++)
		if (!keep || keep[i])
			list[n++] = i;
	trials++;
	if (!fails_again(seed, end, list, n, want)) {
		printf("# worker %d's calls alone do not fail so again: not reduced\n", w);
		return;
	}
	n = ddmin(seed, end, list, n, want, &trials);
	bool again = fails_again(seed, end, list, n, want);
	printf("# reduced to %ld call%s in %d replays; it fails again: %s\n", n,
	       n == 1 ? "" : "s", trials + 1, again ? "yes" : "no");
	unsigned char *mask = scratch.mask;
	memset(mask, 0, MAX_CALLS);
	for (long i = 0; i < n; i++)
		mask[list[i]] = 1;
	show_calls(&traces[0], mask, end, 0);
	printf("# replay: fuzz%s --replay ", planted ? " --plant" : "");
	print_list(list, n);
	printf(" %llu %ld 1 %ld\n", (unsigned long long)seed, end, limit);
}

/* ---- rounds ---- */

static long total_calls;

/* One round: returns the number of failed checks; adds to *passed. */
static int round_of(uint64_t seed, long calls, int workers, const unsigned char *keep,
                    int *passed)
{
	enum verdict v[MAX_WORKERS];
	struct objects before, after;
	int failed = 0;
	bool counts = objects_read(&before);

	run_workers(workers, seed, calls, keep, v, false);
	knobs_restore();
	for (int w = 0; w < workers; w++) {
		total_calls += traces[w].calls;
		bool ok = v[w] == PASS;
		printf("%s - worker %d (seed %llu): %ld calls, %s\n", ok ? "ok" : "not ok", w,
		       (unsigned long long)traces[w].seed, traces[w].calls,
		       ok ? "every failure an errno" : verdict_name[v[w]]);
		ok ? ++*passed : ++failed;
	}
	for (int w = 0; w < workers; w++)
		if (v[w] != PASS)
			reduce(w, calls, v[w], keep);
	if (!counts) {
		printf("# no /proc/baremon/objects here: no leak check\n");
		return failed;
	}
	bool ok = no_leak(&before, &after);
	printf("%s - seed %llu: heap, pages and processes come back after the workers\n",
	       ok ? "ok" : "not ok", (unsigned long long)seed);
	if (!ok) {
		show_objects("before", &before);
		show_objects("after", &after);
		for (int w = 0; w < workers; w++) {
			uint64_t s = seed + (uint64_t)w;
			long *list = scratch.all;
			for (long i = 0; i < calls; i++)
				list[i] = i;
			if (fails_again(s, calls, list, calls, LEAK)) {
				traces[w].seed = s;
				reduce(w, calls, LEAK, NULL);
				break;
			}
		}
	}
	ok ? ++*passed : ++failed;
	return failed;
}

/* "1,4-7,9" into keep[]. */
static bool parse_list(const char *s, unsigned char *keep)
{
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s)
			return false;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long i = a; i <= b && i >= 0 && i < MAX_CALLS; i++)
			keep[i] = 1;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	static unsigned char keep_list[MAX_CALLS];
	const unsigned char *keep = NULL;
	long soak = 0;
	int a = 1;

	if (argc > 2 && !strcmp(argv[1], "--exec-child"))
		return fuzz_exec_child(strtoull(argv[2], NULL, 0));
	if (access("/proc/self/exe", X_OK) != 0)
		self_exe = argv[0];
	if (argc > 1 && !strcmp(argv[1], "--mix"))
		return mix_main(argc - 2, argv + 2);
	for (; a < argc && !strncmp(argv[a], "--", 2); a++) {
		if (!strcmp(argv[a], "--plant"))
			planted = true;
		else if (!strcmp(argv[a], "--soak") && a + 1 < argc)
			soak = strtol(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--trials") && a + 1 < argc)
			max_trials = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--replay") && a + 1 < argc) {
			if (!parse_list(argv[++a], keep_list)) {
				fprintf(stderr, "fuzz: bad list %s\n", argv[a]);
				return 2;
			}
			keep = keep_list;
		} else {
			fprintf(stderr, "fuzz: unknown option %s\n", argv[a]);
			return 2;
		}
	}
	uint64_t seed = a < argc ? strtoull(argv[a], NULL, 0) : (uint64_t)time(NULL);
	long calls = a + 1 < argc ? strtol(argv[a + 1], NULL, 0) : 2000;
	int workers = a + 2 < argc ? atoi(argv[a + 2]) : 2;
	limit = a + 3 < argc ? strtol(argv[a + 3], NULL, 0) : 60;
	workers = keep ? 1 : workers < 1 ? 1 : workers > MAX_WORKERS ? MAX_WORKERS : workers;
	calls = calls < 1 ? 1 : calls > MAX_CALLS ? MAX_CALLS : calls;
	if (access("/proc/self/exe", X_OK) != 0)
		self_exe = argv[0];
	traces = mmap(NULL, sizeof(*traces) * MAX_WORKERS, PROT_READ | PROT_WRITE,
	              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (traces == MAP_FAILED)
		return 2;
	/* Touch the shared traces now: pages a worker touches first would
	 * count as the kernel's in the leak check. */
	memset(traces, 0, sizeof(*traces) * MAX_WORKERS);
	memset(&scratch, 0, sizeof(scratch));
	knobs_io(true);
	printf("# fuzz: seed %llu, %d workers x %ld calls, watchdog %ld s%s\n",
	       (unsigned long long)seed, workers, calls, limit,
	       soak ? ", soak" : keep ? ", replay" : "");
	fflush(stdout);
	long t0 = seconds_now();
	int passed = 0, failed = 0, rounds = 0;
	do {
		failed += round_of(seed, calls, workers, keep, &passed);
		seed += (uint64_t)workers;
		rounds++;
		fflush(stdout);
	} while (soak && seconds_now() - t0 < soak);
	long secs = seconds_now() - t0;
	printf("# %d round%s, %ld calls in %ld s (%ld calls/s)\n", rounds, rounds == 1 ? "" : "s",
	       total_calls, secs, secs ? total_calls / secs : total_calls);
	printf("fuzz: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
