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
#include "core/kernel.h"
#include "core/mm/usermm.h"
#include "core/log.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "core/arch/power.h"
#include "pmu/perf.h"
#include "sched.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"
#include "core/arch/tsc.h"
#include "core/mm/uaccess.h"
#include "core/arch/msr-index.h"
#include "core/arch/x86.h"

SYSCALL_DEFINE1(uname, struct new_utsname __user *, name)
{
	struct new_utsname u;
	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, "Linux", sizeof(u.sysname));
	strlcpy(u.nodename, "baremon", sizeof(u.nodename));
	strlcpy(u.release, "6.1.0-baremon", sizeof(u.release));
	strlcpy(u.version, "#1 SMP baremon " BAREMON_VERSION, sizeof(u.version));
	strlcpy(u.machine, "x86_64", sizeof(u.machine));
	strlcpy(u.domainname, "(none)", sizeof(u.domainname));
	return copy_to_user(name, &u, sizeof(u)) ? -EFAULT : 0;
}

SYSCALL_DEFINE1(sysinfo, struct sysinfo __user *, info)
{
	struct sysinfo s;
	memset(&s, 0, sizeof(s));
	s.uptime = (long)(time_since_boot_ns() / 1000000000ULL);
	s.totalram = pmm_total_count() * PAGE_SIZE;
	s.freeram = pmm_free_count() * PAGE_SIZE;
	s.procs = 1;
	s.mem_unit = 1;
	return copy_to_user(info, &s, sizeof(s)) ? -EFAULT : 0;
}

/* Limits as a fresh Linux login sees them. Stored per process (the
 * leader's rlimits) and inherited by fork; RLIMIT_MEMLOCK (perf ring
 * buffers) and RLIMIT_NOFILE (new descriptors, fdtable.c) are enforced,
 * the others are reported as set. */
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

/* The process of thread tid (0: the caller's), pinned (tasks.h): the
 * caller task_unpins it and does not sleep before that. */
static struct task *process_of_pinned(int tid)
{
	int tgid = current->tgid;
	if (tid) {
		struct task *t = task_find_pinned(tid);
		if (!t)
			return NULL;
		tgid = t->tgid;
		task_unpin(t);
	}
	/* by tgid, not t->leader: a leader outlives its threads in the
	 * list, and pinning it keeps its rlimits here */
	return task_find_pinned(tgid);
}

/* Linux's order: the new limit is read from the user before the lookup
 * (EFAULT before ESRCH). Only copies happen under the pin. */
SYSCALL_DEFINE4(prlimit64, unsigned long, pid, unsigned int, res,
		const struct rlimit __user *, new_rlim, struct rlimit __user *, old_rlim)
{
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	struct rlimit want;
	if (new_rlim && copy_from_user(&want, new_rlim, sizeof(want)))
		return -EFAULT;
	struct task *p = process_of_pinned((int)pid);
	if (!p)
		return -ESRCH;
	struct rlimit old = p->rlimits[res];
	int r = new_rlim ? set_limit(p, res, &want) : 0;
	task_unpin(p);
	if (r)
		return r;
	if (old_rlim && copy_to_user(old_rlim, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE2(getrlimit, unsigned long, resource, struct rlimit __user *, rlim)
{
	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	struct rlimit cur = current->leader->rlimits[resource];
	return copy_to_user(rlim, &cur, sizeof(cur)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(setrlimit, unsigned long, resource, const struct rlimit __user *, rlim)
{
	struct rlimit want;
	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (copy_from_user(&want, rlim, sizeof(want)))
		return -EFAULT;
	return set_limit(current, resource, &want);
}

SYSCALL_DEFINE0(sched_yield)
{
	sched_yield_now();
	return 0;
}

/* Thread pid (0: the caller), pinned (tasks.h): the caller task_unpins
 * it and does not sleep before that. */
static struct task *target_pinned(int pid)
{
	if (pid == 0) {
		task_pin(current);
		return current;
	}
	return task_find_pinned(pid);
}

/*
 * Linux's rules: a user mask shorter than the kernel's (cpumask_user_size
 * bytes) is read as is, the rest taken as clear; a longer one is read
 * only that far, before the lookup. No allowed CPU online: EINVAL.
 */
SYSCALL_DEFINE3(sched_setaffinity, pid_t, pid, unsigned long, cpusetsize,
		const void __user *, user_mask)
{
	struct cpumask mask;
	size_t len = cpumask_user_size();
	cpumask_clear(&mask);
	if (cpusetsize < len)
		len = cpusetsize;
	if (copy_from_user(&mask, user_mask, len))
		return -EFAULT;
	struct task *t = target_pinned(pid);
	if (!t)
		return -ESRCH;
	if (!cpumask_and(&mask, &mask, sched_online_mask())) {
		task_unpin(t);
		return -EINVAL;
	}
	t->affinity = mask;
	bool self = t == current;
	if (!self)
		sched_apply_affinity(t); /* migrate_other: spinlocks only */
	task_unpin(t);
	if (self)
		sched_apply_affinity(t); /* may schedule(): not under a pin */
	return 0;
}

/* Linux's rules: the buffer must hold nr_cpu_ids bits and be whole
 * longs (else EINVAL, checked before the lookup); the kernel writes
 * min(size, its mask's size) bytes, leaves the rest alone, and returns
 * how many it wrote. */
SYSCALL_DEFINE3(sched_getaffinity, pid_t, pid, unsigned long, cpusetsize,
		void __user *, user_mask)
{
	if (cpusetsize * 8 < cpu_ids || (cpusetsize & (sizeof(long) - 1)))
		return -EINVAL;
	struct task *t = target_pinned(pid);
	if (!t)
		return -ESRCH;
	struct cpumask mask;
	cpumask_and(&mask, &t->affinity, sched_online_mask());
	task_unpin(t); /* copy_to_user may sleep */
	size_t len = cpumask_user_size();
	if (cpusetsize < len)
		len = cpusetsize;
	if (copy_to_user(user_mask, &mask, len))
		return -EFAULT;
	return (long)len;
}

SYSCALL_DEFINE3(getcpu, unsigned __user *, cpup, unsigned __user *, nodep, void __user *, unused)
{
	unsigned cpu = this_cpu_id(), node = 0;
	if (cpup && put_user(cpu, cpup))
		return -EFAULT;
	if (nodep && put_user(node, nodep))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE1(sched_getscheduler, pid_t, pid)
{
	/* only whether it exists: the pointer is never dereferenced */
	return pid == 0 || task_find(pid) ? 0 /* SCHED_OTHER */ : -ESRCH;
}

SYSCALL_DEFINE2(getpriority, int, which, int, who)
{
	return 20; /* nice 0, in the kernel's 40 - nice form */
}

SYSCALL_DEFINE3(setpriority, int, which, int, who, int, niceval)
{
	return 0;
}

SYSCALL_DEFINE5(prctl, int, option, unsigned long, arg2, unsigned long, arg3,
		unsigned long, arg4, unsigned long, arg5)
{
	struct task *t = current;
	char name[TASK_COMM_LEN];
	switch (option) {
	case PR_SET_NAME: {
		long n = strncpy_from_user(name, (const char *)arg2, sizeof(name));
		if (n == -EFAULT)
			return -EFAULT;
		name[sizeof(name) - 1] = 0;
		strlcpy(t->comm, name, sizeof(t->comm));
		perf_record_comm(t, false);
		return 0;
	}
	case PR_GET_NAME:
		return copy_to_user((void *)arg2, t->comm, sizeof(t->comm)) ? -EFAULT : 0;
	case PR_TASK_PERF_EVENTS_ENABLE:
	case PR_TASK_PERF_EVENTS_DISABLE:
		perf_task_enable_owned(t, option == PR_TASK_PERF_EVENTS_ENABLE);
		return 0;
	case PR_GET_DUMPABLE:
		return t->mm ? t->mm->dumpable : 0;
	case PR_SET_DUMPABLE:
		if (arg2 > 1)
			return -EINVAL;
		if (t->mm)
			t->mm->dumpable = (int)arg2;
		return 0;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE2(arch_prctl, int, option, unsigned long, addr)
{
	struct task *t = current;
	switch (option) {
	case ARCH_SET_FS:
		if (addr >= USER_TOP)
			return -EPERM;
		t->fs_base = addr;
		wrmsr(MSR_FS_BASE, addr);
		return 0;
	case ARCH_SET_GS:
		if (addr >= USER_TOP)
			return -EPERM;
		t->gs_base = addr;
		wrmsr(MSR_KERNEL_GS_BASE, addr); /* the user's GS while in the kernel */
		return 0;
	case ARCH_GET_FS:
		return put_user(t->fs_base, (uint64_t *)addr) ? -EFAULT : 0;
	case ARCH_GET_GS:
		return put_user(t->gs_base, (uint64_t *)addr) ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE4(reboot, unsigned int, magic1, unsigned int, magic2, unsigned int, cmd,
		void __user *, arg)
{
	if (magic1 != LINUX_REBOOT_MAGIC1 ||
	    (magic2 != LINUX_REBOOT_MAGIC2 && magic2 != LINUX_REBOOT_MAGIC2A &&
	     magic2 != LINUX_REBOOT_MAGIC2B && magic2 != LINUX_REBOOT_MAGIC2C))
		return -EINVAL;
	if (current->euid != 0)
		return -EPERM;
	switch (cmd) {
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
SYSCALL_DEFINE3(syslog, int, type, char __user *, ubuf, int, len)
{
	switch (type) {
	case 0: case 1: case 5: case 6: case 7: case 8:
		return 0; /* close, open, clear, console on/off/level */
	case 9:
		return 0; /* unread bytes: reads do not consume */
	case 10:
		return LOG_RING_SIZE;
	case 2: case 3: case 4: {
		if (len < 0 || !ubuf)
			return -EINVAL;
		char *buf = kmalloc(LOG_RING_SIZE);
		if (!buf)
			return -ENOMEM;
		size_t n = log_read(buf, (size_t)len < LOG_RING_SIZE ? (size_t)len : LOG_RING_SIZE);
		long r = copy_to_user(ubuf, buf, n) ? -EFAULT : (long)n;
		kfree(buf);
		return r;
	}
	default:
		return -EINVAL;
	}
}
