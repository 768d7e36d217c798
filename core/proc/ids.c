/* Process identity system calls: ids, process groups, sessions. */
#include <linux/errno.h>
#include "core/kernel.h"
#include "core/mm/usermm.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"
#include "core/mm/uaccess.h"

SYSCALL_DEFINE0_FAST(getpid) { return current->tgid; }
SYSCALL_DEFINE0_FAST(gettid) { return current->tid; }
SYSCALL_DEFINE0_FAST(getuid) { return current->uid; }
SYSCALL_DEFINE0_FAST(geteuid) { return current->euid; }
SYSCALL_DEFINE0_FAST(getgid) { return current->gid; }
SYSCALL_DEFINE0_FAST(getegid) { return current->egid; }

SYSCALL_DEFINE0_FAST(getppid)
{
	struct task *leader = current->leader, *p = leader->parent;
	return p && p != leader ? p->tgid : 0;
}

/* A change of effective ids makes the process non-dumpable, as Linux's
 * commit_creds does (suid_dumpable 0): no ptrace or perf access by the
 * new uid to what the old one left in memory. */
static void creds_changed(struct task *t, uint32_t old_euid, uint32_t old_egid)
{
	if ((t->euid != old_euid || t->egid != old_egid) && t->mm)
		t->mm->dumpable = 0;
}

/* setuid/setgid as Linux does without capabilities beyond root's. */
SYSCALL_DEFINE1(setuid, uid_t, uid)
{
	struct task *t = current;
	uint32_t old = t->euid;
	if (t->euid == 0)
		t->uid = t->euid = uid;
	else if (uid == t->uid)
		t->euid = uid;
	else
		return -EPERM;
	creds_changed(t, old, t->egid);
	return 0;
}

SYSCALL_DEFINE1(setgid, gid_t, gid)
{
	struct task *t = current;
	uint32_t old = t->egid;
	if (t->euid == 0)
		t->gid = t->egid = gid;
	else if (gid == t->gid)
		t->egid = gid;
	else
		return -EPERM;
	creds_changed(t, t->euid, old);
	return 0;
}

/* Linux's ptrace_may_access(PTRACE_MODE_READ_REALCREDS): the caller's
 * own process; or root (CAP_SYS_PTRACE); or the caller's real ids equal
 * the target's real and effective ids and the target is dumpable. */
bool task_may_read(struct task *target)
{
	struct task *me = current;
	if (target->tgid == me->tgid || me->euid == 0)
		return true;
	if (me->uid != target->uid || me->uid != target->euid ||
	    me->gid != target->gid || me->gid != target->egid)
		return false;
	return !target->mm || target->mm->dumpable;
}

SYSCALL_DEFINE2(getgroups, int, size, gid_t __user *, list)
{
	return size < 0 ? -EINVAL : 0;
}

/* The process pid (0: the caller's), pinned (tasks.h): the caller
 * task_unpins it and does not sleep before that. NULL: no such process. */
static struct task *process_pinned(int pid)
{
	if (pid == 0) {
		task_pin(current->leader); /* lives while current does */
		return current->leader;
	}
	struct task *t = task_find_pinned(pid);
	if (t && t->tgid != pid) {
		task_unpin(t);
		return NULL;
	}
	return t;
}

SYSCALL_DEFINE1(getpgid, pid_t, pid)
{
	struct task *t = process_pinned(pid);
	if (!t)
		return -ESRCH;
	int pgid = t->pgid;
	task_unpin(t);
	return pgid;
}

SYSCALL_DEFINE0(getpgrp)
{
	return current->leader->pgid;
}

SYSCALL_DEFINE1(getsid, pid_t, pid)
{
	struct task *t = process_pinned(pid);
	if (!t)
		return -ESRCH;
	int sid = t->sid;
	task_unpin(t);
	return sid;
}

struct pgrp_exists {
	int pgid, sid;
	bool found;
};

static void check_pgrp(struct task *t, void *ctx)
{
	struct pgrp_exists *p = ctx;
	if (t->pgid == p->pgid && t->sid == p->sid && t->state != TASK_ZOMBIE)
		p->found = true;
}

/* setpgid's checks and change on t, which the caller holds pinned
 * (nothing here sleeps: task_for_each only takes task_lock). */
static int set_pgid(struct task *me, struct task *t, int pgid)
{
	if (t != me && t->parent != me)
		return -ESRCH;
	if (t->sid != me->sid)
		return -EPERM;
	if (t->sid == t->tgid)
		return -EPERM; /* a session leader cannot move */
	if (pgid == 0)
		pgid = t->tgid;
	if (pgid != t->tgid) {
		struct pgrp_exists p = { pgid, me->sid, false };
		task_for_each(check_pgrp, &p);
		if (!p.found)
			return -EPERM;
	}
	t->pgid = pgid;
	return 0;
}

SYSCALL_DEFINE2(setpgid, pid_t, pid, pid_t, pgid)
{
	if (pgid < 0)
		return -EINVAL;
	struct task *t = process_pinned(pid);
	if (!t)
		return -ESRCH;
	int r = set_pgid(current->leader, t, pgid);
	task_unpin(t);
	return r;
}

SYSCALL_DEFINE0(setsid)
{
	struct task *me = current->leader;
	struct pgrp_exists p = { me->tgid, me->sid, false };
	if (me->pgid == me->tgid)
		return -EPERM;
	task_for_each(check_pgrp, &p);
	if (p.found)
		return -EPERM;
	me->sid = me->pgid = me->tgid;
	return me->sid;
}

SYSCALL_DEFINE1(set_tid_address, uint64_t, tidptr)
{
	current->clear_child_tid = tidptr;
	return current->tid;
}

SYSCALL_DEFINE2(set_robust_list, uint64_t, head, size_t, len)
{
	if (len != 24) /* sizeof(struct robust_list_head) */
		return -EINVAL;
	current->robust_list = head;
	current->robust_len = len;
	return 0;
}

/* Linux reports the size of a robust_list_head (24) whatever
 * set_robust_list was given, and writes it before the head. */
SYSCALL_DEFINE3(get_robust_list, unsigned long, pid, uint64_t __user *, head_ptr,
		uint64_t __user *, len_ptr)
{
	uint64_t head;
	if (pid) {
		/* copied under the pin: put_user may sleep */
		struct task *t = task_find_pinned((int)pid);
		if (!t)
			return -ESRCH;
		head = t->robust_list;
		task_unpin(t);
	} else {
		head = current->robust_list;
	}
	if (put_user((uint64_t)24, len_ptr) || put_user(head, head_ptr))
		return -EFAULT;
	return 0;
}
