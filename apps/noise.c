/*
 * noise: an OS-noise meter in the spirit of sysjitter and Linux's osnoise
 * tracer. On each chosen CPU in turn the program pins itself there and
 * spins reading the TSC for S seconds; any gap between two consecutive
 * reads longer than the threshold is an interruption (the CPU was taken
 * away: an interrupt, an NMI, a preemption, a VM exit). Per CPU it
 * reports how many, their median, 99th and 99.9th percentile and the
 * longest, and the share of the time they took.
 *
 *   noise [-c LIST] [-s SECONDS] [-t NS] [-f HZ]
 *
 * The TSC frequency converts ticks to time: on baremon /proc/cpuinfo's
 * "cpu MHz" is the TSC's (the kernel calibrated it); on Linux that field
 * is the core clock, so the program calibrates the TSC against
 * CLOCK_MONOTONIC_RAW instead. -f overrides both. docs/noise.md.
 *
 * The same static binary runs on Linux and on baremon.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "perftool.h"

#define MAX_CPUS 256
#define MAX_GAPS (1 << 20) /* gaps kept for the percentiles; all are counted */

struct opts {
	int cpus[MAX_CPUS];
	int ncpus;
	uint64_t duration_us; /* per CPU */
	uint64_t threshold_ns;
	uint64_t tsc_hz;      /* 0: find it */
};

struct result {
	uint64_t count;       /* interruptions */
	uint64_t lost_ticks;  /* their total length */
	uint64_t span_ticks;  /* the time measured */
	uint64_t kept;        /* gaps[0..kept) hold the first ones */
};

static uint64_t *gaps;

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static void usage(void)
{
	fprintf(stderr, "usage: noise [-c LIST] [-s SECONDS] [-t NS] [-f HZ]\n"
		"  -c LIST     CPUs to measure, e.g. 1 or 0,2-3 (default: every online CPU)\n"
		"  -s SECONDS  how long to spin on each CPU, e.g. 1 or 0.25 (default 1)\n"
		"  -t NS       a gap longer than this is an interruption (default 5000)\n"
		"  -f HZ       the TSC frequency (default: /proc/cpuinfo on baremon,\n"
		"              else calibrated against CLOCK_MONOTONIC_RAW)\n");
	exit(2);
}

/* "1", "0.25", "2.5": seconds as microseconds; 0 if malformed. */
static uint64_t parse_seconds_us(const char *s)
{
	char *end;
	uint64_t whole = strtoull(s, &end, 10), frac = 0, scale = 1000000;
	if (end == s && *end != '.')
		return 0;
	if (*end == '.') {
		for (end++; *end >= '0' && *end <= '9'; end++) {
			scale /= 10;
			frac += (uint64_t)(*end - '0') * scale;
		}
	}
	if (*end)
		return 0;
	return whole * 1000000 + frac;
}

static uint64_t parse_positive(const char *s, const char *what)
{
	char *end;
	errno = 0;
	uint64_t v = strtoull(s, &end, 10);
	if (!*s || *end || errno || v == 0) {
		fprintf(stderr, "noise: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	o->ncpus = 0;
	o->duration_us = 1000000;
	o->threshold_ns = 5000;
	o->tsc_hz = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc || a[0] != '-' || !a[1] || a[2])
			usage();
		const char *v = argv[++i];
		switch (a[1]) {
		case 'c':
			o->ncpus = cpu_list_parse(v, o->cpus, MAX_CPUS);
			if (o->ncpus <= 0) {
				fprintf(stderr, "noise: bad CPU list '%s'\n", v);
				exit(2);
			}
			break;
		case 's':
			o->duration_us = parse_seconds_us(v);
			if (!o->duration_us) {
				fprintf(stderr, "noise: bad duration '%s'\n", v);
				exit(2);
			}
			break;
		case 't': o->threshold_ns = parse_positive(v, "threshold"); break;
		case 'f': o->tsc_hz = parse_positive(v, "frequency"); break;
		default: usage();
		}
	}
	if (!o->ncpus) {
		o->ncpus = cpus_online(o->cpus, MAX_CPUS);
		if (o->ncpus <= 0) {
			fprintf(stderr, "noise: cannot read the online CPUs\n");
			exit(1);
		}
	}
}

static bool on_baremon(void)
{
	struct utsname u;
	return uname(&u) == 0 && strstr(u.release, "baremon");
}

/* The first "cpu MHz : 2419.200" of /proc/cpuinfo in Hz; 0 if none. */
static uint64_t cpuinfo_hz(void)
{
	static char buf[8192];
	int fd = open("/proc/cpuinfo", O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strstr(buf, "cpu MHz");
	if (!p || !(p = strchr(p, ':')))
		return 0;
	char *end;
	uint64_t mhz = strtoull(p + 1, &end, 10), khz_frac = 0, scale = 1000;
	if (*end == '.')
		for (end++; *end >= '0' && *end <= '9' && scale > 1; end++) {
			scale /= 10;
			khz_frac += (uint64_t)(*end - '0') * scale;
		}
	return (mhz * 1000 + khz_frac) * 1000;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* TSC ticks over 200 ms of CLOCK_MONOTONIC_RAW, in Hz. */
static uint64_t calibrate_hz(void)
{
	uint64_t t0 = mono_ns(), c0 = rdtsc(), t1, c1;
	do {
		t1 = mono_ns();
		c1 = rdtsc();
	} while (t1 - t0 < 200000000ull);
	return (uint64_t)((unsigned __int128)(c1 - c0) * 1000000000ull / (t1 - t0));
}

static int pin_to(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0)
		return -1;
	sched_yield();
	unsigned now = ~0u;
	syscall(SYS_getcpu, &now, NULL, NULL);
	return (int)now == cpu ? 0 : -1;
}

/*
 * Spin for `span` ticks; every step between two TSC reads longer than
 * `threshold` ticks is an interruption.
 */
static void spin(uint64_t span, uint64_t threshold, struct result *r)
{
	memset(r, 0, sizeof *r);
	uint64_t start = rdtsc(), last = start, now;
	do {
		now = rdtsc();
		uint64_t d = now - last;
		if (d > threshold) {
			r->count++;
			r->lost_ticks += d;
			if (r->kept < MAX_GAPS)
				gaps[r->kept++] = d;
		}
		last = now;
	} while (now - start < span);
	r->span_ticks = now - start;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The nearest-rank percentile (per mille) of sorted v[0..n), n > 0. */
static uint64_t percentile(const uint64_t *v, uint64_t n, unsigned permille)
{
	uint64_t rank = (n * permille + 999) / 1000;
	return v[rank ? rank - 1 : 0];
}

static uint64_t ticks_ns(uint64_t ticks, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000ull / hz);
}

/* ns as microseconds with two decimals, right-aligned in `width`. */
static void print_us(uint64_t ns, int width)
{
	char b[32];
	uint64_t hundredths = (ns + 5) / 10;
	snprintf(b, sizeof b, "%llu.%02llu", (unsigned long long)(hundredths / 100),
		 (unsigned long long)(hundredths % 100));
	printf(" %*s", width, b);
}

static void print_row(int cpu, const struct result *r, uint64_t hz)
{
	printf("%4d %13llu", cpu, (unsigned long long)r->count);
	if (r->kept) {
		qsort(gaps, r->kept, sizeof gaps[0], cmp_u64);
		print_us(ticks_ns(percentile(gaps, r->kept, 500), hz), 11);
		print_us(ticks_ns(percentile(gaps, r->kept, 990), hz), 11);
		print_us(ticks_ns(percentile(gaps, r->kept, 999), hz), 11);
		print_us(ticks_ns(gaps[r->kept - 1], hz), 11);
	} else {
		printf(" %11s %11s %11s %11s", "-", "-", "-", "-");
	}
	/* lost time in parts per million, shown as a percentage */
	uint64_t ppm = (uint64_t)((unsigned __int128)r->lost_ticks * 1000000 / r->span_ticks);
	printf(" %6llu.%04llu\n", (unsigned long long)(ppm / 10000),
	       (unsigned long long)(ppm % 10000));
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_opts(argc, argv, &o);
	gaps = malloc(MAX_GAPS * sizeof gaps[0]);
	if (!gaps) {
		fprintf(stderr, "noise: out of memory\n");
		return 1;
	}
	const char *source = "-f";
	if (!o.tsc_hz && on_baremon() && (o.tsc_hz = cpuinfo_hz()))
		source = "/proc/cpuinfo";
	if (!o.tsc_hz) {
		o.tsc_hz = calibrate_hz();
		source = "calibrated";
	}
	uint64_t span = (uint64_t)((unsigned __int128)o.duration_us * o.tsc_hz / 1000000);
	uint64_t threshold = (uint64_t)((unsigned __int128)o.threshold_ns * o.tsc_hz / 1000000000ull);
	printf("noise: TSC %llu.%03llu MHz (%s), threshold %llu ns, %llu.%06llu s per CPU\n",
	       (unsigned long long)(o.tsc_hz / 1000000),
	       (unsigned long long)(o.tsc_hz / 1000 % 1000), source,
	       (unsigned long long)o.threshold_ns,
	       (unsigned long long)(o.duration_us / 1000000),
	       (unsigned long long)(o.duration_us % 1000000));
	printf("%4s %13s %11s %11s %11s %11s %11s\n", "cpu", "interruptions",
	       "median_us", "p99_us", "p99.9_us", "max_us", "lost_%");
	int status = 0;
	for (int i = 0; i < o.ncpus; i++) {
		if (pin_to(o.cpus[i]) < 0) {
			fprintf(stderr, "noise: cannot run on CPU %d\n", o.cpus[i]);
			status = 1;
			continue;
		}
		struct result r;
		spin(span, threshold, &r);
		print_row(o.cpus[i], &r, o.tsc_hz);
	}
	return status;
}
