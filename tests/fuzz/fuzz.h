/*
 * fuzz.h: what the system-call fuzzer's runner (fuzz.c) and its calls
 * (calls.c) share.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
