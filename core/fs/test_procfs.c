/* Self-tests: /proc and /sys generated files, /proc/sys validation. */
#include "fstest.h"
#include "core/mm/mm.h"
#include "procfs.h"

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

SELFTEST(sysctl_parse)
{
	int v = 0;
	ST_CHECK(t, sysctl_parse_int(" 42\n", &v) == 4 && v == 42);
	ST_CHECK(t, sysctl_parse_int("-5", &v) == 2 && v == -5);
	ST_CHECK(t, sysctl_parse_int("0x10", &v) == 4 && v == 16);
	ST_CHECK(t, sysctl_parse_int("010", &v) == 3 && v == 8);
	ST_CHECK(t, sysctl_parse_int("0", &v) == 1 && v == 0);
	ST_CHECK(t, sysctl_parse_int("-2147483648", &v) == 11 && v == INT32_MIN);
	ST_CHECK(t, sysctl_parse_int("2147483648", &v) == -EINVAL);
	ST_CHECK(t, sysctl_parse_int("99999999999999999999", &v) == -EINVAL);
	ST_CHECK(t, sysctl_parse_int("1 2", &v) == 2 && v == 1); /* "2" left */
	ST_CHECK(t, sysctl_parse_int("1x", &v) == -EINVAL);
	ST_CHECK(t, sysctl_parse_int("", &v) == -EINVAL);
	ST_CHECK(t, sysctl_parse_int("\n", &v) == -EINVAL);
	ST_CHECK(t, sysctl_parse_int("abc", &v) == -EINVAL);
	ST_CHECK(t, sysctl_parse_int("08", &v) == -EINVAL);
}

SELFTEST(procfs_sysctl_round_trip)
{
	fs_test_init();
	char buf[64];
	ST_CHECK(t, fs_test_read(PARANOID, buf, sizeof(buf)) == 2 && strcmp(buf, "2\n") == 0);
	ST_CHECK(t, sysctl_perf_event_paranoid() == 2);
	ST_CHECK(t, fs_test_write(PARANOID, "-1\n", 0) == 3);
	ST_CHECK(t, sysctl_perf_event_paranoid() == -1);
	ST_CHECK(t, fs_test_read(PARANOID, buf, sizeof(buf)) == 3 && strcmp(buf, "-1\n") == 0);
	ST_CHECK(t, fs_test_write(PARANOID, "garbage", 0) == -EINVAL);
	ST_CHECK(t, fs_test_write(PARANOID, "1x", 0) == -EINVAL);
	ST_CHECK(t, sysctl_perf_event_paranoid() == -1);
	ST_CHECK(t, fs_test_write(PARANOID, "2", O_TRUNC) == 1);
	ST_CHECK(t, sysctl_perf_event_paranoid() == 2);

	const char *pct = "/proc/sys/kernel/perf_cpu_time_max_percent";
	ST_CHECK(t, fs_test_write(pct, "101", 0) == -EINVAL);
	ST_CHECK(t, fs_test_write(pct, "-1", 0) == -EINVAL);
	ST_CHECK(t, fs_test_write(pct, "100", 0) == 3 && sysctl_perf_cpu_time_max_percent() == 100);
	ST_CHECK(t, fs_test_write(pct, "25", 0) == 2 && sysctl_perf_cpu_time_max_percent() == 25);
	ST_CHECK(t, fs_test_write("/proc/sys/kernel/perf_event_max_sample_rate", "0", 0) == -EINVAL);
	ST_CHECK(t, fs_test_write("/proc/sys/kernel/pid_max", "300", 0) == -EINVAL);
	ST_CHECK(t, sysctl_perf_event_max_sample_rate() == 100000);
	ST_CHECK(t, sysctl_perf_event_mlock_kb() == 516);
	ST_CHECK(t, sysctl_perf_event_max_stack() == 127);
	ST_CHECK(t, fs_test_read("/proc/sys/kernel/perf_event_mlock_kb", buf, sizeof(buf)) > 0 &&
		    strcmp(buf, "516\n") == 0);
}

SELFTEST(procfs_sysctl_strings)
{
	fs_test_init();
	char buf[80];
	ST_CHECK(t, fs_test_read("/proc/sys/kernel/ostype", buf, sizeof(buf)) > 0 &&
		    strcmp(buf, "Linux\n") == 0);
	ST_CHECK(t, fs_test_read("/proc/sys/kernel/osrelease", buf, sizeof(buf)) > 0 &&
		    strcmp(buf, "6.1.0-baremon\n") == 0);
	struct file *f;
	ST_CHECK(t, vfs_open("/proc/sys/kernel/ostype", O_WRONLY, 0, &f) == -EACCES);
	ST_CHECK(t, fs_test_write("/proc/sys/kernel/hostname", "box\n", 0) == 4);
	sysctl_hostname(buf, sizeof(buf));
	ST_CHECK(t, strcmp(buf, "box") == 0);
	ST_CHECK(t, fs_test_write("/proc/sys/kernel/hostname", "baremon", 0) == 7);
	ST_CHECK(t, fs_test_read("/proc/sys/kernel/hostname", buf, sizeof(buf)) > 0 &&
		    strcmp(buf, "baremon\n") == 0);
	ST_CHECK(t, vfs_open("/proc/newfile", O_CREAT | O_WRONLY, 0644, &f) == -EACCES);
	ST_CHECK(t, vfs_mkdir("/proc/newdir", 0755) == -EPERM);
}

static bool contains(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

SELFTEST(procfs_system_files)
{
	fs_test_init();
	char *buf = kmalloc(16384);
	if (!buf) {
		ST_FAIL(t, "no memory");
		return;
	}
	ST_CHECK(t, fs_test_read("/proc/cpuinfo", buf, 16384) > 0);
	ST_CHECK(t, strncmp(buf, "processor\t: 0\n", 14) == 0);
	ST_CHECK(t, contains(buf, "\nflags\t\t: fpu ") && contains(buf, "\nvendor_id\t: "));
	ST_CHECK(t, contains(buf, "\ncpu MHz\t\t: ") && contains(buf, "\naddress sizes\t: "));
	ST_CHECK(t, fs_test_read("/proc/meminfo", buf, 16384) > 0);
	ST_CHECK(t, strncmp(buf, "MemTotal:", 9) == 0 && contains(buf, "\nMemFree:"));
	ST_CHECK(t, fs_test_read("/proc/uptime", buf, 16384) > 0 && buf[0] >= '0' &&
		    buf[0] <= '9' && contains(buf, "."));
	ST_CHECK(t, fs_test_read("/proc/interrupts", buf, 16384) > 0 && contains(buf, "CPU0"));
	ST_CHECK(t, fs_test_read("/proc/mounts", buf, 16384) > 0 &&
		    contains(buf, "tmpfs /tmp tmpfs rw 0 0\n"));
	ST_CHECK(t, fs_test_read("/proc/version", buf, 16384) > 0 &&
		    strncmp(buf, "Linux version 6.1.0-baremon", 27) == 0);
	struct stat st;
	ST_CHECK(t, vfs_stat("/proc/self", &st, false) == 0 && S_ISLNK(st.st_mode));
	ST_CHECK(t, vfs_stat("/proc/999999", &st, true) == -ENOENT);
	ST_CHECK(t, vfs_stat("/proc/0", &st, true) == -ENOENT);
	kfree(buf);
}

/* A snapshot stays the same however the reads are split. */
SELFTEST(procfs_snapshot_reads)
{
	fs_test_init();
	struct file *f;
	char whole[256], parts[256];
	if (vfs_open("/proc/sys/kernel/perf_event_max_sample_rate", O_RDONLY, 0, &f)) {
		ST_FAIL(t, "open");
		return;
	}
	long n = kernel_read(f, whole, sizeof(whole), 0);
	long a = kernel_read(f, parts, 3, 0);
	long b = kernel_read(f, parts + 3, sizeof(parts) - 3, 3);
	ST_CHECK(t, n == 7 && a == 3 && b == 4 && memcmp(whole, parts, 7) == 0);
	ST_CHECK(t, kernel_read(f, parts, 10, 7) == 0);
	file_put(f);
}

SELFTEST(sysfs_files)
{
	fs_test_init();
	char buf[64];
	ST_CHECK(t, fs_test_read("/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0 &&
		    buf[0] == '0' && buf[strlen(buf) - 1] == '\n');
	ST_CHECK(t, fs_test_read("/sys/devices/system/cpu/possible", buf, sizeof(buf)) > 0 &&
		    buf[0] == '0');
	ST_CHECK(t, fs_test_read("/sys/bus/event_source/devices/software/type", buf,
				 sizeof(buf)) == 2 && strcmp(buf, "1\n") == 0);
	ST_CHECK(t, fs_test_read("/sys/bus/event_source/devices/tracepoint/type", buf,
				 sizeof(buf)) == 2 && strcmp(buf, "2\n") == 0);
	int r = sysfs_register_string("kernel/selftest_probe", "probe");
	ST_CHECK(t, r == 0 || r == -EEXIST);
	ST_CHECK(t, sysfs_register_string("kernel/selftest_probe", "again") == -EEXIST);
	ST_CHECK(t, fs_test_read("/sys/kernel/selftest_probe", buf, sizeof(buf)) == 6 &&
		    strcmp(buf, "probe\n") == 0);
	struct stat st;
	ST_CHECK(t, vfs_stat("/sys/bus/event_source/devices", &st, true) == 0 &&
		    S_ISDIR(st.st_mode));
}
