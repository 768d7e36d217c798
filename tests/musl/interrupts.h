/* The interrupts (vectors 32 and up: devices, timer, IPIs) CPU `cpu` has
 * taken so far, summed from its column of /proc/interrupts. */
#include <stdio.h>
#include <stdlib.h>

static long interrupts_on(int cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	if (!f)
		return -1;
	char line[512];
	long sum = 0;
	fgets(line, sizeof line, f); /* header */
	while (fgets(line, sizeof line, f)) {
		char *p = line;
		long vector = strtol(p, &p, 10);
		if (*p++ != ':' || vector < 32)
			continue;
		for (int c = 0; c <= cpu; c++) {
			long v = strtol(p, &p, 10);
			if (c == cpu)
				sum += v;
		}
	}
	fclose(f);
	return sum;
}
