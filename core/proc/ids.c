/* Process identity system calls: ids, process groups, sessions. */
#include <linux/errno.h>
#include "kernel.h"
#include "mm/usermm.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"
#include "mm/uaccess.h"

SYSCALL_DEFINE(getpid) { SYSCALL_UNUSED_ARGS(); return current->tgid; }
SYSCALL_DEFINE(gettid) { SYSCALL_UNUSED_ARGS(); return current->tid; }
SYSCALL_DEFINE(getuid) { SYSCALL_UNUSED_ARGS(); return current->uid; }
SYSCALL_DEFINE(geteuid) { SYSCALL_UNUSED_ARGS(); return current->euid; }
SYSCALL_DEFINE(getgid) { SYSCALL_UNUSED_ARGS(); return current->gid; }
SYSCALL_DEFINE(getegid) { SYSCALL_UNUSED_ARGS(); return current->egid; }

SYSCALL_DEFINE(getppid)
{
	SYSCALL_UNUSED_ARGS();
	struct task *p = current->leader->parent;
	return p && p != current->leader ? p->tgid : 0;
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
SYSCALL_DEFINE(setuid)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = current;
	uint32_t uid = (uint32_t)a0, old = t->euid;
	if (t->euid == 0)
		t->uid = t->euid = uid;
	else if (uid == t->uid)
		t->euid = uid;
	else
		return -EPERM;
	creds_changed(t, old, t->egid);
	return 0;
}

SYSCALL_DEFINE(setgid)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = current;
	uint32_t gid = (uint32_t)a0, old = t->egid;
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

SYSCALL_DEFINE(getgroups)
{
	SYSCALL_UNUSED_ARGS();
	return (int)a0 < 0 ? -EINVAL : 0;
}

static struct task *process(int pid)
{
	if (pid == 0)
		return current->leader;
	struct task *t = task_find(pid);
	return t && t->tgid == pid ? t : NULL;
}

SYSCALL_DEFINE(getpgid)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = process((int)a0);
	return t ? t->pgid : -ESRCH;
}

SYSCALL_DEFINE(getpgrp)
{
	SYSCALL_UNUSED_ARGS();
	return current->leader->pgid;
}

SYSCALL_DEFINE(getsid)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = process((int)a0);
	return t ? t->sid : -ESRCH;
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

SYSCALL_DEFINE(setpgid)
{
	SYSCALL_UNUSED_ARGS();
	int pid = (int)a0, pgid = (int)a1;
	if (pgid < 0)
		return -EINVAL;
	struct task *me = current->leader, *t = process(pid);
	if (!t)
		return -ESRCH;
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

SYSCALL_DEFINE(setsid)
{
	SYSCALL_UNUSED_ARGS();
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

SYSCALL_DEFINE(set_tid_address)
{
	SYSCALL_UNUSED_ARGS();
	current->clear_child_tid = a0;
	return current->tid;
}

SYSCALL_DEFINE(set_robust_list)
{
	SYSCALL_UNUSED_ARGS();
	if (a1 != 24) /* sizeof(struct robust_list_head) */
		return -EINVAL;
	current->robust_list = a0;
	current->robust_len = a1;
	return 0;
}

SYSCALL_DEFINE(get_robust_list)
{
	SYSCALL_UNUSED_ARGS();
	struct task *t = a0 ? task_find((int)a0) : current;
	if (!t)
		return -ESRCH;
	if (put_user(t->robust_list, (uint64_t *)a1) ||
	    put_user(t->robust_len, (uint64_t *)a2))
		return -EFAULT;
	return 0;
}
