/*
 * msrconfig.h: nanoBench's -msr_config files (kernel mode only): MSRs
 * read at the measurement points, each after optional MSR writes.
 *
 *   msr_ADDR=VALUE(.msr_ADDR=VALUE)* msr_ADDR Name
 *   msr_ADDR Name
 *
 * ADDR is hex (an optional 0x, an optional trailing h or H); VALUE a C
 * number (0x.. hex, else decimal); "msr_" may be "MSR_". The last msr_
 * field is the MSR read; the writes before it happen, in order, before
 * the run. '#' starts a comment; blank lines are skipped. Pure: no I/O.
 */
#ifndef BENCH_MSRCONFIG_H
#define BENCH_MSRCONFIG_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_MSR_CONFIGS 8   /* reading slots left after the fixed ones */
#define BENCH_MSR_WRITES 10

struct bench_msr_cfg {
	char name[64];
	unsigned line;
	uint32_t read;
	uint32_t wr[BENCH_MSR_WRITES];
	uint64_t wrval[BENCH_MSR_WRITES];
	int nwr;
};

/* Parse a file's text into mc[0..max): the count, or -1 with
 * "line N: why" in err. */
int msrconfig_parse(const char *text, struct bench_msr_cfg *mc, int max,
		    char *err, size_t errlen);

#endif
