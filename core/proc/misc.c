/* System calls about the machine and the scheduler: uname, sysinfo,
 * rlimits, affinity, prctl, arch_prctl, reboot. */
#include <string.h>
#include <asm/prctl.h>
#include <linux/errno.h>
#include <linux/prctl.h>
#include <linux/reboot.h>
#include <linux/resource.h>
#include <linux/sysinfo.h>
#include <linux/utsname.h>
#include "kernel.h"
#include "mm/usermm.h"
#include "log.h"
#include "mm/mm.h"
#include "arch/percpu.h"
#include "arch/power.h"
#include "pmu/perf.h"
#include "sched.h"
#include "syscall.h"
#include "task.h"
#include "arch/tsc.h"
#include "mm/uaccess.h"
#include "arch/x86.h"

#define MSR_FS_BASE 0xc0000100

SYSCALL_DEFINE(uname)
{
	SYSCALL_UNUSED_ARGS();
	struct new_utsname u;
	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, "Linux", sizeof(u.sysname));
	strlcpy(u.nodename, "baremon", sizeof(u.nodename));
	strlcpy(u.release, "6.1.0-baremon", sizeof(u.release));
	strlcpy(u.version, "#1 SMP baremon " BAREMON_VERSION, sizeof(u.version));
	strlcpy(u.machine, "x86_64", sizeof(u.machine));
	strlcpy(u.domainname, "(none)", sizeof(u.domainname));
	return copy_to_user((void *)a0, &u, sizeof(u)) ? -EFAULT : 0;
}

SYSCALL_DEFINE(sysinfo)
{
	SYSCALL_UNUSED_ARGS();
	struct sysinfo s;
	memset(&s, 0, sizeof(s));
	s.uptime = (long)(time_since_boot_ns() / 1000000000ULL);
	s.totalram = pmm_total_count() * PAGE_SIZE;
	s.freeram = pmm_free_count() * PAGE_SIZE;
	s.procs = 1;
	s.mem_unit = 1;
	return copy_to_user((void *)a0, &s, sizeof(s)) ? -EFAULT : 0;
}

/* Limits as a fresh Linux login sees them. Stored per process (the
 * leader's rlimits) and inherited by fork; RLIMIT_MEMLOCK is enforced
 * (perf ring buffers), the others are reported as set. */
static struct rlimit default_limit(unsigned res)
{
	switch (res) {
	case RLIMIT_STACK: return (struct rlimit){ 8 << 20, RLIM_INFINITY };
	case RLIMIT_NOFILE: return (struct rlimit){ 1024, 1024 };
	case RLIMIT_NPROC: return (struct rlimit){ 1024, 1024 };
	case RLIMIT_CORE: return (struct rlimit){ 0, RLIM_INFINITY };
	case RLIMIT_MEMLOCK: return (struct rlimit){ 8 << 20, 8 << 20 };
	case RLIMIT_SIGPENDING: return (struct rlimit){ 1024, 1024 };
	case RLIMIT_MSGQUEUE: return (struct rlimit){ 819200, 819200 };
	case RLIMIT_RTPRIO: case RLIMIT_NICE: return (struct rlimit){ 0, 0 };
	default: return (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
	}
}

void rlimits_init(struct rlimit *r)
{
	for (unsigned i = 0; i < RLIM_NLIMITS; i++)
		r[i] = default_limit(i);
}

uint64_t rlimit_cur(unsigned res)
{
	return current->leader->rlimits[res].rlim_cur;
}

/* Set process p's limit res to want (checked as Linux does). */
static int set_limit(struct task *p, unsigned res, const struct rlimit *want)
{
	struct rlimit *cur = &p->leader->rlimits[res];
	if (want->rlim_cur > want->rlim_max)
		return -EINVAL;
	if (want->rlim_max > cur->rlim_max && current->euid != 0)
		return -EPERM;
	*cur = *want;
	return 0;
}

SYSCALL_DEFINE(prlimit64)
{
	SYSCALL_UNUSED_ARGS();
	unsigned res = (unsigned)a1;
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	struct task *p = a0 ? task_find((int)a0) : current;
	if (!p)
		return -ESRCH;
	struct rlimit old = p->leader->rlimits[res];
	if (a2) {
		struct rlimit want;
		if (copy_from_user(&want, (void *)a2, sizeof(want)))
			return -EFAULT;
		int r = set_limit(p, res, &want);
		if (r)
			return r;
	}
	if (a3 && copy_to_user((void *)a3, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(getrlimit)
{
	SYSCALL_UNUSED_ARGS();
	if (a0 >= RLIM_NLIMITS)
		return -EINVAL;
	struct rlimit cur = current->leader->rlimits[a0];
	return copy_to_user((void *)a1, &cur, sizeof(cur)) ? -EFAULT : 0;
}

SYSCALL_DEFINE(setrlimit)
{
	SYSCALL_UNUSED_ARGS();
	struct rlimit want;
	if (a0 >= RLIM_NLIMITS)
		return -EINVAL;
	if (copy_from_user(&want, (void *)a1, sizeof(want)))
		return -EFAULT;
	return set_limit(current, (unsigned)a0, &want);
}

SYSCALL_DEFINE(sched_yield)
{
	SYSCALL_UNUSED_ARGS();
	sched_yield_now();
	return 0;
}

static struct task *target_task(int pid)
{
	return pid == 0 ? current : task_find(pid);
}

SYSCALL_DEFINE(sched_setaffinity)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = target_task((int)a0);
	if (!t)
		return -ESRCH;
	uint64_t mask = 0;
	size_t len = a1 < sizeof(mask) ? a1 : sizeof(mask);
	if (copy_from_user(&mask, (void *)a2, len))
		return -EFAULT;
	mask &= sched_online_mask();
	if (!mask)
		return -EINVAL;
	t->affinity = mask;
	sched_apply_affinity(t);
	return 0;
}

SYSCALL_DEFINE(sched_getaffinity)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = target_task((int)a0);
	if (!t)
		return -ESRCH;
	if (a1 < sizeof(uint64_t) || (a1 & 7))
		return -EINVAL;
	uint64_t mask = t->affinity & sched_online_mask();
	if (clear_user((void *)a2, a1) || copy_to_user((void *)a2, &mask, sizeof(mask)))
		return -EFAULT;
	return sizeof(uint64_t);
}

SYSCALL_DEFINE(getcpu)
{
	SYSCALL_UNUSED_ARGS();
	unsigned cpu = this_cpu_id(), node = 0;
	if (a0 && put_user(cpu, (unsigned *)a0))
		return -EFAULT;
	if (a1 && put_user(node, (unsigned *)a1))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(sched_getscheduler)
{
	SYSCALL_UNUSED_ARGS();
	return target_task((int)a0) ? 0 /* SCHED_OTHER */ : -ESRCH;
}

SYSCALL_DEFINE(getpriority)
{
	SYSCALL_UNUSED_ARGS();
	return 20; /* nice 0, in the kernel's 40 - nice form */
}

SYSCALL_DEFINE(setpriority)
{
	SYSCALL_UNUSED_ARGS();
	return 0;
}

SYSCALL_DEFINE(prctl)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = current;
	char name[TASK_COMM_LEN];
	switch ((int)a0) {
	case PR_SET_NAME: {
		long n = strncpy_from_user(name, (const char *)a1, sizeof(name));
		if (n == -EFAULT)
			return -EFAULT;
		name[sizeof(name) - 1] = 0;
		strlcpy(t->comm, name, sizeof(t->comm));
		perf_record_comm(t, false);
		return 0;
	}
	case PR_GET_NAME:
		return copy_to_user((void *)a1, t->comm, sizeof(t->comm)) ? -EFAULT : 0;
	case PR_TASK_PERF_EVENTS_ENABLE:
	case PR_TASK_PERF_EVENTS_DISABLE:
		perf_task_enable_owned(t, (int)a0 == PR_TASK_PERF_EVENTS_ENABLE);
		return 0;
	case PR_GET_DUMPABLE:
		return t->mm ? t->mm->dumpable : 0;
	case PR_SET_DUMPABLE:
		if (a1 > 1)
			return -EINVAL;
		if (t->mm)
			t->mm->dumpable = (int)a1;
		return 0;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE(arch_prctl)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = current;
	switch ((int)a0) {
	case ARCH_SET_FS:
		if (a1 >= USER_TOP)
			return -EPERM;
		t->fs_base = a1;
		wrmsr(MSR_FS_BASE, a1);
		return 0;
	case ARCH_SET_GS:
		if (a1 >= USER_TOP)
			return -EPERM;
		t->gs_base = a1;
		wrmsr(MSR_KERNEL_GS_BASE, a1); /* the user's GS while in the kernel */
		return 0;
	case ARCH_GET_FS:
		return put_user(t->fs_base, (uint64_t *)a1) ? -EFAULT : 0;
	case ARCH_GET_GS:
		return put_user(t->gs_base, (uint64_t *)a1) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE(reboot)
{
	SYSCALL_UNUSED_ARGS();
	if ((uint32_t)a0 != LINUX_REBOOT_MAGIC1 ||
	    ((uint32_t)a1 != LINUX_REBOOT_MAGIC2 && (uint32_t)a1 != LINUX_REBOOT_MAGIC2A &&
	     (uint32_t)a1 != LINUX_REBOOT_MAGIC2B && (uint32_t)a1 != LINUX_REBOOT_MAGIC2C))
		return -EINVAL;
	if (current->euid != 0)
		return -EPERM;
	switch ((uint32_t)a2) {
	case LINUX_REBOOT_CMD_POWER_OFF:
	case LINUX_REBOOT_CMD_HALT:
	case LINUX_REBOOT_CMD_RESTART:
		machine_exit(0);
	case LINUX_REBOOT_CMD_CAD_ON:
	case LINUX_REBOOT_CMD_CAD_OFF:
		return 0;
	default:
		return -EINVAL;
	}
}

/* syslog(2): the kernel log ring (log.c). Reading needs no privilege
 * here (dmesg_restrict 0). */
SYSCALL_DEFINE(syslog)
{
	SYSCALL_UNUSED_ARGS();
	int type = (int)a0, len = (int)a2;
	switch (type) {
	case 0: case 1: case 5: case 6: case 7: case 8:
		return 0; /* close, open, clear, console on/off/level */
	case 9:
		return 0; /* unread bytes: reads do not consume */
	case 10:
		return LOG_RING_SIZE;
	case 2: case 3: case 4: {
		if (len < 0 || !a1)
			return -EINVAL;
		char *buf = kmalloc(LOG_RING_SIZE);
		if (!buf)
			return -ENOMEM;
		size_t n = log_read(buf, (size_t)len < LOG_RING_SIZE ? (size_t)len : LOG_RING_SIZE);
		long r = copy_to_user((void *)a1, buf, n) ? -EFAULT : (long)n;
		kfree(buf);
		return r;
	}
	default:
		return -EINVAL;
	}
}
