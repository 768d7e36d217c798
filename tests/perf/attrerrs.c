/*
 * attrerrs.c: perf_event_open's errnos where baremon once differed from
 * Linux (found by comparing random attrs): sample_regs_user and
 * sample_regs_intr masks, sample_stack_user sizes, the inherit and
 * exec flag combinations, and PERF_EVENT_IOC_SET_OUTPUT or a group_fd
 * naming something that is not a perf event. Each case gives the errno
 * (0: it opens) that Linux 6.18 gives on x86-64; the same binary checks
 * it on the host and on baremon.
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <asm/perf_regs.h>
#include "perf.h"

#define REG(r) (1ULL << PERF_REG_X86_##r)

struct attr_case {
	const char *what;
	uint64_t sample_type, regs_user, regs_intr;
	uint32_t stack_user;
	int inherit, inherit_thread, remove_on_exec, enable_on_exec;
	int want;  /* errno, or 0 */
};

static const struct attr_case cases[] = {
	{ "REGS_USER with no registers", PERF_SAMPLE_REGS_USER, 0, 0, 0, 0, 0, 0, 0, EINVAL },
	{ "REGS_USER with AX and IP", PERF_SAMPLE_REGS_USER, REG(AX) | REG(IP), 0, 0, 0, 0, 0, 0, 0 },
	{ "REGS_USER with DS (not on x86-64)", PERF_SAMPLE_REGS_USER, REG(AX) | REG(DS), 0, 0, 0, 0, 0, 0, EINVAL },
	{ "REGS_USER with FS", PERF_SAMPLE_REGS_USER, REG(FS), 0, 0, 0, 0, 0, 0, EINVAL },
	{ "REGS_USER with a bit past R15", PERF_SAMPLE_REGS_USER, REG(AX) | 1ULL << 30, 0, 0, 0, 0, 0, 0, EINVAL },
	{ "regs_user without REGS_USER is ignored", 0, REG(DS) | 1ULL << 30, 0, 0, 0, 0, 0, 0, 0 },
	{ "regs_user with XMM0 on a PMU without them", 0, 1ULL << PERF_REG_X86_XMM0, 0, 0, 0, 0, 0, 0, EOPNOTSUPP },
	{ "REGS_USER with XMM0", PERF_SAMPLE_REGS_USER, REG(AX) | 1ULL << PERF_REG_X86_XMM0, 0, 0, 0, 0, 0, 0, EOPNOTSUPP },
	{ "regs_intr with XMM0 on a PMU without them", 0, 0, 1ULL << PERF_REG_X86_XMM0, 0, 0, 0, 0, 0, EOPNOTSUPP },
	{ "REGS_INTR with no registers", PERF_SAMPLE_REGS_INTR, 0, 0, 0, 0, 0, 0, 0, EINVAL },
	{ "REGS_INTR with AX", PERF_SAMPLE_REGS_INTR, 0, REG(AX), 0, 0, 0, 0, 0, 0 },
	{ "STACK_USER of 0 bytes", PERF_SAMPLE_STACK_USER, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "STACK_USER of 8192 bytes", PERF_SAMPLE_STACK_USER, 0, 0, 8192, 0, 0, 0, 0, 0 },
	{ "STACK_USER of 100 bytes (not 8-aligned)", PERF_SAMPLE_STACK_USER, 0, 0, 100, 0, 0, 0, 0, EINVAL },
	{ "STACK_USER of 65528 bytes", PERF_SAMPLE_STACK_USER, 0, 0, 65528, 0, 0, 0, 0, 0 },
	{ "STACK_USER of 65536 bytes", PERF_SAMPLE_STACK_USER, 0, 0, 65536, 0, 0, 0, 0, EINVAL },
	{ "stack_user without STACK_USER is ignored", 0, 0, 0, 100, 0, 0, 0, 0, 0 },
	{ "inherit_thread without inherit", 0, 0, 0, 0, 0, 1, 0, 0, EINVAL },
	{ "inherit with inherit_thread", 0, 0, 0, 0, 1, 1, 0, 0, 0 },
	{ "remove_on_exec with enable_on_exec", 0, 0, 0, 0, 0, 0, 1, 1, EINVAL },
	{ "inherit with remove_on_exec", 0, 0, 0, 0, 1, 0, 1, 0, 0 },
};

static int open_case(const struct attr_case *c)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = 1000000;
	a.sample_type = c->sample_type;
	a.sample_regs_user = c->regs_user;
	a.sample_regs_intr = c->regs_intr;
	a.sample_stack_user = c->stack_user;
	a.inherit = (uint64_t)c->inherit;
	a.inherit_thread = (uint64_t)c->inherit_thread;
	a.remove_on_exec = (uint64_t)c->remove_on_exec;
	a.enable_on_exec = (uint64_t)c->enable_on_exec;
	a.disabled = 1;
	a.exclude_kernel = 1;
	return perf_open(&a, 0, -1, -1, 0);
}

static void attr_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct attr_case *c = &cases[i];
		errno = 0;
		int fd = open_case(c);
		int got = fd >= 0 ? 0 : errno;

		CHECK(got == c->want, "%s: %s (got %s)", c->what,
		      c->want ? strerror(c->want) : "opens", got ? strerror(got) : "it opens");
		if (fd >= 0)
			close(fd);
	}
}

/* Group leaders and outputs must be perf events. */
static void not_perf_fds(void)
{
	int p[2], fd = perf_sw(PERF_COUNT_SW_DUMMY, 1), other = perf_sw(PERF_COUNT_SW_DUMMY, 1);
	struct perf_event_attr a;

	if (!CHECK(fd >= 0 && other >= 0 && pipe(p) == 0, "two dummy events and a pipe"))
		return;
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, p[0]), EBADF,
	          "SET_OUTPUT to a pipe");
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, 1000), EBADF,
	          "SET_OUTPUT to an fd not open");
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, -1L) == 0, "SET_OUTPUT -1 (none)");
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, 0xffffffffUL), EBADF,
	          "SET_OUTPUT 0xffffffff (an int -1 widened without sign)");
	CHECK_ERR(ioctl(p[0], PERF_EVENT_IOC_SET_OUTPUT, fd), ENOTTY,
	          "SET_OUTPUT on a pipe");
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	CHECK_ERR(perf_open(&a, 0, -1, p[0], 0), EBADF, "group_fd a pipe");
	CHECK_ERR(perf_open(&a, 0, -1, 1000, 0), EBADF, "group_fd not open");
	close(p[0]);
	close(p[1]);
	close(fd);
	close(other);
}

int main(void)
{
	attr_cases();
	not_perf_fds();
	return abi_done("attrerrs");
}
