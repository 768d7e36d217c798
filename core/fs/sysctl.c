/*
 * /proc/sys/kernel: tunables as Linux has them, with Linux's defaults
 * and bounds. Integers are written as one number (decimal, 0x hex or
 * 0 octal, as proc_dointvec takes them) with optional white space;
 * anything else, or a value out of range, fails with EINVAL and leaves
 * the value alone. Other subsystems read the values with sysctl_*().
 *
 * Locking: integers are single aligned words read and written
 * atomically; the strings are guarded by str_lock (irqsave).
 */
#include <stdio.h>
#include <linux/utsname.h>
#include "procfs.h"
#include "pmu/perf.h"

struct sysctl_int {
	const char *name;
	int value;
	int min, max;
	int (*may_write)(int v); /* 0 or the errno Linux's handler gives */
};

enum {
	PARANOID, MAX_SAMPLE_RATE, MLOCK_KB, MAX_STACK, MAX_CONTEXTS,
	CPU_TIME_MAX_PERCENT, KPTR_RESTRICT, PID_MAX, NMI_WATCHDOG, RANDOMIZE_VA,
};

static int get_int(int i);

/* Linux refuses a sample rate while perf's CPU time limit is off (0) or
 * is all of it (100): there is nothing to derive the rate's budget from. */
static int sample_rate_may_write(int v);
/* Linux refuses to change the callchain depth while callchain buffers
 * are in use. */
static int max_stack_may_write(int v)
{
	(void)v;
	return perf_callchain_events() ? -EBUSY : 0;
}

static struct sysctl_int ints[] = {
	[PARANOID] = { "perf_event_paranoid", 2, INT32_MIN, INT32_MAX },
	[MAX_SAMPLE_RATE] = { "perf_event_max_sample_rate", 100000, 1, INT32_MAX,
			      sample_rate_may_write },
	[MLOCK_KB] = { "perf_event_mlock_kb", 512 + 4, INT32_MIN, INT32_MAX },
	[MAX_STACK] = { "perf_event_max_stack", 127, 0, 640 * 1024, max_stack_may_write },
	[MAX_CONTEXTS] = { "perf_event_max_contexts_per_stack", 8, 0, 1000 },
	[CPU_TIME_MAX_PERCENT] = { "perf_cpu_time_max_percent", 25, 0, 100 },
	[KPTR_RESTRICT] = { "kptr_restrict", 0, 0, 2 },
	[PID_MAX] = { "pid_max", 32768, 301, 4194304 },
	[NMI_WATCHDOG] = { "nmi_watchdog", 0, 0, 1 },
	/* 0 here (Linux: 2): a benchmark sees the same layout every run */
	[RANDOMIZE_VA] = { "randomize_va_space", 0, 0, 2 },
};

static struct spinlock str_lock = SPINLOCK_INIT("sysctl");
static char hostname[__NEW_UTS_LEN + 1] = "baremon";
static char domainname[__NEW_UTS_LEN + 1] = "(none)";

static int get_int(int i)
{
	return __atomic_load_n(&ints[i].value, __ATOMIC_RELAXED);
}

static int sample_rate_may_write(int v)
{
	(void)v;
	int pct = get_int(CPU_TIME_MAX_PERCENT);
	return pct == 0 || pct == 100 ? -EINVAL : 0;
}

int sysctl_perf_event_paranoid(void) { return get_int(PARANOID); }
int sysctl_perf_event_max_sample_rate(void) { return get_int(MAX_SAMPLE_RATE); }
int sysctl_perf_event_mlock_kb(void) { return get_int(MLOCK_KB); }
int sysctl_perf_event_max_stack(void) { return get_int(MAX_STACK); }
int sysctl_perf_event_max_contexts_per_stack(void) { return get_int(MAX_CONTEXTS); }
int sysctl_perf_cpu_time_max_percent(void) { return get_int(CPU_TIME_MAX_PERCENT); }
int sysctl_kptr_restrict(void) { return get_int(KPTR_RESTRICT); }
int sysctl_pid_max(void) { return get_int(PID_MAX); }
int sysctl_randomize_va_space(void) { return get_int(RANDOMIZE_VA); }

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* One integer as proc_dointvec reads it: white space, the number, which
 * must end at white space or the end, and the white space after it.
 * Returns how many bytes that took (the rest, say "2" of "1 2", is
 * left unwritten, as Linux leaves it), or -EINVAL. */
int sysctl_parse_int(const char *s, int *out)
{
	const char *start = s;
	while (is_space(*s))
		s++;
	bool neg = *s == '-';
	s += neg;
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16)
		base = 16, s += 2;
	else if (s[0] == '0')
		base = 8;
	if (digit_value(*s) >= base)
		return -EINVAL;
	uint64_t v = 0;
	for (; digit_value(*s) < base; s++) {
		v = v * (uint64_t)base + (uint64_t)digit_value(*s);
		if (v > (uint64_t)INT32_MAX + neg)
			return -EINVAL;
	}
	if (*s && !is_space(*s))
		return -EINVAL;
	while (is_space(*s))
		s++;
	*out = neg ? (int)-(int64_t)v : (int)v;
	return (int)(s - start);
}

static int gen_int(struct seqbuf *out, void *arg)
{
	struct sysctl_int *e = arg;
	sb_printf(out, "%d\n", __atomic_load_n(&e->value, __ATOMIC_RELAXED));
	return 0;
}

static int write_int(const char *data, size_t len, void *arg)
{
	struct sysctl_int *e = arg;
	int v;
	int used = sysctl_parse_int(data, &v);
	if (used < 0 || v < e->min || v > e->max)
		return -EINVAL;
	int r = e->may_write ? e->may_write(v) : 0;
	if (r)
		return r;
	__atomic_store_n(&e->value, v, __ATOMIC_RELAXED);
	return used;
}

static void get_string(const char *src, char *buf, size_t size)
{
	uint64_t fl = spin_lock_irqsave(&str_lock);
	strlcpy(buf, src, size);
	spin_unlock_irqrestore(&str_lock, fl);
}

void sysctl_hostname(char *buf, size_t size) { get_string(hostname, buf, size); }
void sysctl_domainname(char *buf, size_t size) { get_string(domainname, buf, size); }

static int gen_string(struct seqbuf *out, void *arg)
{
	char buf[__NEW_UTS_LEN + 1];
	get_string(arg, buf, sizeof(buf));
	sb_printf(out, "%s\n", buf);
	return 0;
}

/* Like proc_dostring: up to the first newline, cut at the buffer size. */
static int write_string(const char *data, size_t len, void *arg)
{
	char *dst = arg;
	size_t n = 0;
	while (n < len && n < __NEW_UTS_LEN && data[n] && data[n] != '\n')
		n++;
	uint64_t fl = spin_lock_irqsave(&str_lock);
	memcpy(dst, data, n);
	dst[n] = 0;
	spin_unlock_irqrestore(&str_lock, fl);
	return 0;
}

static int gen_const(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%s\n", (const char *)arg);
	return 0;
}

void sysctl_init(void)
{
	char path[96];
	for (unsigned i = 0; i < ARRAY_SIZE(ints); i++) {
		snprintf(path, sizeof(path), "sys/kernel/%s", ints[i].name);
		procfs_register(path, gen_int, write_int, &ints[i]);
	}
	procfs_register("sys/kernel/hostname", gen_string, write_string, hostname);
	procfs_register("sys/kernel/domainname", gen_string, write_string, domainname);
	procfs_register("sys/kernel/ostype", gen_const, NULL, SYSCTL_OSTYPE);
	procfs_register("sys/kernel/osrelease", gen_const, NULL, SYSCTL_OSRELEASE);
}
