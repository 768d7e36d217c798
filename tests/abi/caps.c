/*
 * caps.c: ABI test of capget and capset: Linux's version negotiation
 * (a bad version is answered with _LINUX_CAPABILITY_VERSION_3 and EINVAL,
 * or 0 for capget with no data), root's capabilities, capset's rules
 * (no new permitted bits, effective within permitted, only the caller),
 * and a dropped capability seen by capget and by a forked child.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include "abi.h"

struct caps {
	uint64_t eff, perm, inh;
};

static long capget_v(uint32_t version, int pid, struct __user_cap_data_struct *d,
		     uint32_t *got)
{
	struct __user_cap_header_struct h = { version, pid };
	long r = syscall(__NR_capget, &h, d);
	*got = h.version;
	return r;
}

static int get_caps(int pid, struct caps *c)
{
	struct __user_cap_data_struct d[2];
	uint32_t v;
	if (capget_v(_LINUX_CAPABILITY_VERSION_3, pid, d, &v))
		return -1;
	c->eff = d[0].effective | (uint64_t)d[1].effective << 32;
	c->perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c->inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static long set_caps(int pid, const struct caps *c)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, pid };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)c->eff, (uint32_t)c->perm, (uint32_t)c->inh },
		{ (uint32_t)(c->eff >> 32), (uint32_t)(c->perm >> 32),
		  (uint32_t)(c->inh >> 32) },
	};
	return syscall(__NR_capset, &h, d);
}

#define BIT(cap) (1ULL << (cap))

static void test_versions(void)
{
	struct __user_cap_data_struct d[2];
	uint32_t v;
	CHECK(capget_v(_LINUX_CAPABILITY_VERSION_1, 0, d, &v) == 0,
	      "capget version 1");
	CHECK(capget_v(_LINUX_CAPABILITY_VERSION_2, 0, d, &v) == 0,
	      "capget version 2");
	CHECK(capget_v(0x12345678, 0, NULL, &v) == 0 &&
	      v == _LINUX_CAPABILITY_VERSION_3,
	      "a bad version with no data: 0, version 3 written back");
	errno = 0;
	CHECK(capget_v(0x12345678, 0, d, &v) == -1 && errno == EINVAL &&
	      v == _LINUX_CAPABILITY_VERSION_3,
	      "a bad version with data: EINVAL, version 3 written back");
	CHECK_ERR(capget_v(_LINUX_CAPABILITY_VERSION_3, -1, d, &v), EINVAL,
		  "capget of pid -1");
	CHECK_ERR(capget_v(_LINUX_CAPABILITY_VERSION_3, 999999, d, &v), ESRCH,
		  "capget of no such pid");
	void *volatile bad = (void *)8;
	CHECK_ERR(syscall(__NR_capget, bad, d), EFAULT, "capget of a bad header");
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	CHECK_ERR(syscall(__NR_capget, &h, bad), EFAULT, "capget into bad data");
}

static void test_root(void)
{
	struct caps c;
	CHECK(get_caps(0, &c) == 0, "capget of self");
	if (geteuid() != 0) {
		abi_note("not root: root's sets not checked");
		return;
	}
	CHECK((c.eff & BIT(CAP_PERFMON)) && (c.eff & BIT(CAP_SYS_PTRACE)) &&
	      (c.eff & BIT(CAP_SETPCAP)), "root has CAP_PERFMON, CAP_SYS_PTRACE, CAP_SETPCAP");
	CHECK(c.eff == c.perm, "root's effective set is its permitted set");
	CHECK(!(c.perm >> (CAP_LAST_CAP + 1)), "no bit past CAP_LAST_CAP");
	struct caps p;
	CHECK(get_caps(getppid(), &p) == 0, "capget of the parent by pid");
}

static void test_capset(void)
{
	struct caps c, now;
	if (get_caps(0, &c) || !(c.perm & BIT(CAP_SYS_NICE))) {
		abi_note("no CAP_SYS_NICE to drop: capset not checked");
		return;
	}
	CHECK(set_caps(0, &c) == 0, "capset of the same sets");
	struct caps grow = c;
	grow.eff &= ~BIT(CAP_SYS_NICE);
	grow.perm &= ~BIT(CAP_SYS_NICE);
	pid_t pid = fork();
	if (pid == 0) {
		/* the child drops CAP_SYS_NICE, then may not take it back */
		int ok = set_caps(0, &grow) == 0;
		ok &= get_caps(0, &now) == 0 && !(now.perm & BIT(CAP_SYS_NICE)) &&
		      !(now.eff & BIT(CAP_SYS_NICE));
		errno = 0;
		ok &= set_caps(0, &c) == -1 && errno == EPERM;
		pid_t g = fork();
		if (g == 0)
			_exit(get_caps(0, &now) == 0 && !(now.perm & BIT(CAP_SYS_NICE)) ? 0 : 1);
		int st = 1;
		waitpid(g, &st, 0);
		ok &= st == 0;
		_exit(ok ? 0 : 1);
	}
	int st = 1;
	CHECK(waitpid(pid, &st, 0) == pid && st == 0,
	      "a child drops CAP_SYS_NICE, cannot take it back, its child inherits the loss");
	CHECK(get_caps(0, &now) == 0 && now.perm == c.perm, "the parent keeps its sets");
	struct caps bad = c;
	bad.eff |= BIT(CAP_SYS_NICE);
	bad.perm &= ~BIT(CAP_SYS_NICE);
	CHECK_ERR(set_caps(0, &bad), EPERM, "capset of effective outside permitted");
	CHECK_ERR(set_caps(getppid(), &c), EPERM, "capset of another process");
	struct __user_cap_header_struct h = { 0x12345678, 0 };
	struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	errno = 0;
	CHECK(syscall(__NR_capset, &h, d) == -1 && errno == EINVAL &&
	      h.version == _LINUX_CAPABILITY_VERSION_3, "capset with a bad version: EINVAL");
}

int main(void)
{
	test_versions();
	test_root();
	test_capset();
	return abi_done("caps");
}
