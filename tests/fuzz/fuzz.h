/*
 * fuzz.h: what the system-call fuzzer's runner (fuzz.c) and its calls
 * (calls.c) share.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MAX_WORKERS 8
#define MAX_CALLS 4096      /* calls per worker and round */
#define LINE 100

/* What a worker leaves in shared memory for the runner: line[i] says
 * what call i did (empty when the replay mask skipped it). */
struct trace {
	uint64_t seed;
	long calls;              /* calls made so far */
	long cur;                /* index of the call under way */
	long bad_errno;          /* failures that were not -1 with an errno */
	long first_bad;          /* index of the first of them, or -1 */
	const char *in;          /* the kind of call under way (a literal) */
	volatile int done;
	char line[MAX_CALLS][LINE];
};

extern struct trace *me;    /* this worker's trace */
extern bool planted;        /* --plant: opens of type 99 count as failures */
extern const char *self_exe; /* this program, for exec */

/* Make call `i` of a worker: its kind and arguments come from the seed
 * and i alone (the generator is reseeded per call), its effect on the
 * fds and children from the calls made before it. */
void fuzz_call(uint64_t seed, long i);
void fuzz_calls_init(void);  /* once per worker, before its calls */
void fuzz_calls_end(void);   /* kill and reap the worker's children */
/* The program run by exec (`fuzz --exec-child SEED`): a few calls on
 * whatever event fds it inherited. */
int fuzz_exec_child(uint64_t seed);

/* fuzz.c's, for the mix: /proc state of a stuck task; the perf knobs
 * saved and put back. */
void fuzz_show_task(pid_t pid);
void fuzz_knobs_save(void);
void fuzz_knobs_restore(void);
/* For the mix's calls (mixcalls.c): note what call me->cur did, check a
 * result, draw an fd (sometimes a bad one) or a writable mapped ring (NULL:
 * none; *len its length) of this worker's. */
void fuzz_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fuzz_outcome(long r);
int fuzz_any_fd(void);
void *fuzz_any_map(size_t *len);

/* The mix (mix.c): the fuzzer's calls and mixcalls.c's beside a busy
 * child, for a time; its kernel share is checked against a bound. */
void mix_calls_init(void);
void mix_call(uint64_t seed, long i);
extern volatile long mix_overflows;
int mix_main(int argc, char **argv);

#endif
