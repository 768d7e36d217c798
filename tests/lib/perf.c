/* perf.c: opening and reading events (perf.h). */
#include "perf.h"

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	      unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

void perf_attr(struct perf_event_attr *attr, uint32_t type, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
}

int perf_sw(uint64_t config, int disabled)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.disabled = disabled ? 1 : 0;
	return perf_open(&a, 0, -1, -1, 0);
}

uint64_t perf_value(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return PERF_BAD_VALUE;
	return v;
}

void check_opens(int fd, const char *what)
{
	int e = errno;

	if (!CHECK(fd >= 0, "%s opens", what))
		printf("#   got %d, errno %d (%s)\n", fd, e, strerror(e));
	if (fd >= 0)
		close(fd);
}
