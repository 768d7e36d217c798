/* sysfs.c: small files, the core PMU's directory, CPU lists (perf.h). */
#include "perf.h"

long file_long(const char *path, long fail)
{
	char buf[32];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fail;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return fail;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

const char *core_pmu_dir(void)
{
	static const char *const dirs[] = {
		"/sys/bus/event_source/devices/cpu",
		"/sys/bus/event_source/devices/cpu_core",
		"/sys/bus/event_source/devices/cpu_atom",
	};
	char path[64];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/type", dirs[i]);
		if (file_long(path, -1) >= 0)
			return dirs[i];
	}
	return NULL;
}

int core_pmu_file(char *path, size_t size, const char *name)
{
	const char *dir = core_pmu_dir();

	if (!dir)
		return -1;
	snprintf(path, size, "%s/%s", dir, name);
	return 0;
}

int core_pmu_is_vpmu(void)
{
	char name[32] = "", path[96];
	int fd = core_pmu_file(path, sizeof(path), "caps/pmu_name") ? -1 : open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	return n > 0 && strncmp(name, "vpmu\n", 5) == 0;
}

int cpu_list(const char *path, unsigned char *set, int max)
{
	char buf[256], *p = buf, *end;
	int fd = open(path, O_RDONLY), top = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (set)
		memset(set, 0, (size_t)max);
	while (*p >= '0' && *p <= '9') {
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long i = lo; i <= hi; i++)
			if (set && i < max)
				set[i] = 1;
		if (hi + 1 > top)
			top = (int)hi + 1;
		if (*end != ',')
			break;
		p = end + 1;
	}
	return top;
}

