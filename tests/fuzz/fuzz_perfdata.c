/*
 * fuzz_perfdata: libFuzzer target for the host tool's perf data reader:
 * arbitrary bytes as the guest's pipe-format stream, converted to a
 * seekable perf.data (host/perfdata.c) written to /dev/null. No build-id
 * cache is touched (no programs, no kernel, no bin directory).
 * Property: no crash, no sanitizer report, no hang.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "host/perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz-perfdata.%d", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	struct machine_info m = { .hostname = "fuzz", .nr_cpus = 1 };
	int saved = dup(2);
	freopen("/dev/null", "w", stderr);   /* its error lines */
	perfdata_convert(path, "/dev/null", NULL, 0, NULL, NULL, &m, "fuzz");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	unlink(path);
	return 0;
}
