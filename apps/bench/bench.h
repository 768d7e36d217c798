/*
 * bench.h: nanoBench's interface on baremon and Linux (docs/bench.md).
 *
 *   options.c   the command line as nanoBench spells it
 *   config.c    counter config files (pure; unit-tested)
 *   msrconfig.c -msr_config files (pure; unit-tested)
 *   codegen.c   the generated benchmark function (pure)
 *   stats.c     aggregates (pure; unit-tested)
 *   report.c    text, CSV, JSON (pure; unit-tested)
 *   counters.c  user mode: perf_event_open groups read by rdpmc or read()
 *   variant.c   a generated function in memory: build, call, faults
 *   kmode.c     kernel mode: /dev/kbench
 *   run.c       runs, differences, normalization
 *   main.c      the order of things
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include "codegen.h"
#include "config.h"
#include "ctx.h"
#include "msrconfig.h"
#include "stats.h"

struct bench_opts {
	const char *code, *code_init, *code_late_init, *code_one_time_init;
	const char *config, *msr_config;
	bool fixed_counters, basic_mode, no_mem, no_normalization, df;
	bool remove_empty_events, verbose, range, kernel, csv, json;
	uint64_t n_measurements, unroll_count, loop_count;
	uint64_t warm_up_count, initial_warm_up_count, alignment_offset;
	enum bench_agg agg;
	int cpu;              /* -1: the CPU bench started on */
	int usr, os;          /* -1: the mode's default */
};

/* options.c: parse argv; prints the problem and exits 2 on bad input. */
void options_parse(int argc, char **argv, struct bench_opts *o);

/* A counter a measurement point reads into ctx->reading[phase][slot]. */
struct bench_counter {
	char name[64];
	int slot;
};

/* counters.c (user mode). Counter sets hold at most counters_per_set()
 * programmable events; the fixed counters, when asked for, ride along. */
int counters_per_set(void);
/* Open the fixed counters (if wanted) and events ev[0..n) as the current
 * set; fill out[] with what will be read (RDTSC first). Returns how many
 * counters, or -1 (message printed). */
int counters_open(const struct bench_opts *o, const struct bench_event *ev,
		  int n, struct bench_counter *out, int max);
void counters_close(void);
/* The reader the generated code calls in user mode. */
void counters_read(struct bench_ctx *ctx, int phase);
/* -no_mem: the RDPMC indexes of the open counters in slot order (slot
 * 1 + i), or -1 if there are more than max or one cannot use RDPMC. */
int counters_pmc_indexes(uint32_t *idx, int max);
/* "rdpmc" or "read()": how the current set is read (for -verbose). */
const char *counters_method(void);

/* The machine code of the four snippets (empty ones have len 0). */
struct bench_code {
	struct snippet code, init, late_init, one_time;
};

/* variant.c: one generated function, mapped read+exec. */
struct variant {
	uint8_t *buf;
	size_t len, cap;
	struct codegen_map map;
	void (*fn)(void);
	size_t code_len, init_len, late_len;  /* to name a faulting part */
	const char *init_name;                /* "-code_init" or "-code_one_time_init" */
};
/* (Re)generate v from in; exits if it cannot. */
void variant_build(struct variant *v, const struct codegen_in *in, const char *init_name);
/* Run v once (kernel: in ring 0); a fault is reported and bench exits 1. */
void variant_call(const struct variant *v, struct bench_ctx *ctx, bool kernel);
/* Report user-mode faults of the snippet (SIGSEGV, SIGILL, ...). */
void variant_catch_faults(void);

/* What to count besides RDTSC and the fixed counters. */
struct bench_events {
	const struct bench_event *ev;
	int nev;
	const struct bench_msr_cfg *mc;   /* -msr_config (kernel mode) */
	int nmc;
};

/* run.c: measure every counter set, print the report; the exit status. */
int run_all(const struct bench_opts *o, const struct bench_code *c,
	    const struct bench_events *what);

/* One kernel-mode counter set: events on counters ctr[], MSR lines. */
struct kbench_set {
	const struct bench_event *ev;
	const int *ctr;
	int nev;
	const struct bench_msr_cfg *mc;
	int nmc;
};

/* kmode.c (kernel mode). Open the fixed counters and plan the set's MSR
 * operations; fill out[] (slots of the kernel's readings). */
int kmode_open(const struct bench_opts *o, const struct kbench_set *set,
	       struct bench_counter *out, int max);
/* Which config line the MSR operation i came from, and its MSR. */
const char *kmode_msr_origin(uint32_t i);
uint32_t kmode_msr_address(uint32_t i);
/* Run fn in ring 0: 0, 1 if it faulted (r says where), -1 on error. */
int kmode_call(void (*fn)(void), struct bench_ctx *ctx, struct kbench_run *r);
void kmode_close(void);

#endif
