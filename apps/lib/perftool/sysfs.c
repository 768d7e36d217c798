/*
 * The sysfs tree the tools read, the way perf reads Linux's: the PMUs under
 * bus/event_source/devices/ and devices/system/cpu/online. The root is
 * /sys, or $BAREMON_SYSFS when set: a testing knob that points a tool at a
 * fixture tree (tests/apps/stat-host.sh builds one).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "perftool.h"

const char *sysfs_root(void)
{
	const char *root = getenv("BAREMON_SYSFS");
	return root && *root ? root : "/sys";
}

static int open_rel(const char *rel, int flags)
{
	char path[512];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", sysfs_root(), rel) >= sizeof path)
		return -1;
	return open(path, flags);
}

bool sysfs_read(const char *rel, char *buf, size_t n)
{
	int fd = open_rel(rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return false;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = 0;
	return true;
}

bool sysfs_exists(const char *rel)
{
	int fd = open_rel(rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}
