/*
 * procperf.c: ABI test of the /proc and /sys text that perf and libnuma
 * parse: /proc/self/maps' columns (a name at column 73, as Linux pads
 * it), /proc/self/status's ids, capabilities and Mems_allowed (32 groups:
 * Debian's 1024 nodes), /proc/self/root, and the CPU and
 * NUMA node lists and the SMT state under /sys/devices/system.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "abi.h"

static char buf[65536];

static long slurp(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	size_t n = 0;
	long r;
	while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = 0;
	return (long)n;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* "START-END PERM OFFSET MAJ:MIN INODE" then, if named, blanks to column 73. */
static int maps_line_ok(const char *p, const char *end, int *named)
{
	const char *s = p;
	while (is_hex(*s)) s++;
	if (s - p < 8 || *s++ != '-') return 0;
	const char *e = s;
	while (is_hex(*e)) e++;
	if (e - s < 8 || *e++ != ' ') return 0;
	for (int i = 0; i < 4; i++)
		if (!strchr("rwxps-", e[i])) return 0;
	if (e[4] != ' ') return 0;
	e += 5;
	for (int i = 0; i < 8; i++)
		if (!is_hex(e[i])) return 0;
	e += 8;
	if (*e++ != ' ' || !is_hex(e[0]) || !is_hex(e[1]) || e[2] != ':') return 0;
	e += 5;
	if (*e++ != ' ') return 0;
	while (*e >= '0' && *e <= '9') e++;
	if (*e++ != ' ') return 0;
	*named = e < end;
	if (!*named) return 1;
	while (*e == ' ') e++;
	return e - p == 73 && e < end;
}

static void test_maps(void)
{
	CHECK(slurp("/proc/self/maps") > 0, "read /proc/self/maps");
	int lines = 0, bad = 0, text = 0, stack = 0;
	for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1, lines++) {
		int named = 0;
		if (!maps_line_ok(p, nl, &named)) {
			if (!bad)
				abi_note("bad line: %.*s", (int)(nl - p), p);
			bad++;
		}
		text += strncmp(strchr(p, ' ') + 1, "r-xp", 4) == 0;
		stack += named && nl - p > 7 && strncmp(nl - 7, "[stack]", 7) == 0;
	}
	CHECK(lines > 2 && bad == 0, "each of %d lines is in Linux's columns", lines);
	CHECK(text > 0 && stack == 1, "an r-xp mapping and one [stack]");
}

/* The value of "Key:\t" in buf, or NULL. */
static const char *field(const char *key)
{
	size_t n = strlen(key);
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, n) == 0 && p[n] == ':' && p[n + 1] == '\t')
			return p + n + 2;
	return NULL;
}

static void test_status(void)
{
	CHECK(slurp("/proc/self/status") > 0, "read /proc/self/status");
	const char *v;
	CHECK((v = field("Name")) && *v != '\n', "Name");
	CHECK((v = field("Tgid")) && atoi(v) == getpid(), "Tgid is getpid()");
	CHECK((v = field("PPid")) && atoi(v) == getppid(), "PPid is getppid()");
	CHECK((v = field("NStgid")) && atoi(v) == getpid(), "NStgid");
	v = field("Mems_allowed");
	int groups = 0, ok = v != NULL;
	for (; ok && v; groups++) {
		for (int i = 0; i < 8; i++)
			ok &= is_hex(v[i]);
		v = v[8] == ',' ? v + 9 : NULL;
	}
	CHECK(ok && groups == 32, "Mems_allowed: 32 groups of 8 hex digits (%d)", groups);
	v = field("Mems_allowed");
	CHECK(v && v[32 * 9 - 2] & 1, "node 0 is allowed");
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	CHECK(syscall(__NR_capget, &h, d) == 0 && (v = field("CapEff")) &&
	      strtoull(v, NULL, 16) == (d[0].effective | (uint64_t)d[1].effective << 32),
	      "CapEff is capget's effective set");
}

/* CPUs in a Linux list such as "0-3,6": -1 when malformed. */
static int list_count(const char *s)
{
	int n = 0;
	while (*s && *s != '\n') {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (e == s) return -1;
		if (*e == '-') {
			s = e + 1;
			b = strtol(s, &e, 10);
			if (e == s || b < a) return -1;
		}
		n += (int)(b - a + 1);
		s = *e == ',' ? e + 1 : e;
	}
	return n;
}

static void test_sys(void)
{
	int online = 0, present = 0, possible = 0;
	CHECK(slurp("/sys/devices/system/cpu/online") > 0 &&
	      (online = list_count(buf)) >= 1, "cpu/online lists CPUs");
	CHECK(slurp("/sys/devices/system/cpu/present") > 0 &&
	      (present = list_count(buf)) >= online, "cpu/present has them all");
	CHECK(slurp("/sys/devices/system/cpu/possible") > 0 &&
	      (possible = list_count(buf)) >= present, "cpu/possible has them all");
	CHECK(slurp("/sys/devices/system/cpu/cpu0/topology/die_cpus_list") > 0 &&
	      list_count(buf) >= 1, "cpu0/topology/die_cpus_list");
	CHECK(slurp("/sys/devices/system/cpu/smt/active") == 2 &&
	      (buf[0] == '0' || buf[0] == '1'), "smt/active is 0 or 1");
	CHECK(slurp("/sys/devices/system/cpu/smt/control") > 0 &&
	      (!strcmp(buf, "on\n") || !strcmp(buf, "off\n") || !strcmp(buf, "forceoff\n") ||
	       !strcmp(buf, "notsupported\n") || !strcmp(buf, "notimplemented\n")),
	      "smt/control is one of Linux's words");
	CHECK(slurp("/sys/devices/system/node/online") > 0 && buf[0] == '0' &&
	      list_count(buf) >= 1, "node/online starts at node 0");
	CHECK(slurp("/sys/devices/system/node/possible") > 0 && list_count(buf) >= 1,
	      "node/possible");
	CHECK(slurp("/sys/devices/system/node/node0/cpulist") > 0 && list_count(buf) >= 0,
	      "node0/cpulist");
	CHECK(slurp("/sys/devices/system/node/node0/distance") > 0 &&
	      strncmp(buf, "10", 2) == 0, "node0/distance: 10 to itself first");
	CHECK(slurp("/sys/devices/system/node/node0/meminfo") > 0 &&
	      strncmp(buf, "Node 0 MemTotal:", 16) == 0, "node0/meminfo");
	CHECK(syscall(__NR_readlink, "/proc/self/root", buf, sizeof(buf)) == 1 &&
	      buf[0] == '/', "/proc/self/root is /");
}

int main(void)
{
	test_maps();
	test_status();
	test_sys();
	return abi_done("procperf");
}
