/*
 * O_ASYNC: owners (fcntl F_SETOWN, F_SETOWN_EX, F_SETSIG) and the
 * signals they get when a file with O_ASYNC becomes ready (Linux's
 * fs/fcntl.c: f_setown, send_sigio, fasync_helper, kill_fasync).
 * See fasync.h for the model and the locking rule.
 *
 * An owner is kept as a type and a number, as Linux keeps a struct pid:
 * F_OWNER_TID (a thread), F_OWNER_PID (a process), F_OWNER_PGRP (a
 * process group); number 0 means none. F_GETOWN reads 0 once nobody
 * has that number any more. The setter's uid and euid decide, at
 * sending time, whom the signal may reach (Linux's sigio_perm).
 */
#include <asm/siginfo.h>
#include <linux/poll.h>
#include "fasync.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/proc/signal.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"
#include "core/mm/uaccess.h"
#include "vfs.h"

static struct spinlock fasync_lock = SPINLOCK_INIT("fasync");

/* ---- who has a number ---- */

struct pid_probe {
	int nr;
	bool any, tid, leader, pgrp;
};

static void probe_one(struct task *t, void *ctx)
{
	struct pid_probe *p = ctx;
	if (t->state == TASK_DEAD)
		return;
	if (t->tid == p->nr) {
		p->any = p->tid = true;
		p->leader |= t->tgid == p->nr;
	}
	if (t->pgid == p->nr)
		p->any = p->pgrp = true;
	if (t->sid == p->nr)
		p->any = true;
}

static struct pid_probe probe(int nr)
{
	struct pid_probe p = { .nr = nr };
	if (nr > 0)
		task_for_each(probe_one, &p);
	return p;
}

/* Linux's pid_task(owner pid, type): is the owner still there? */
static bool owner_alive(int type, int nr)
{
	struct pid_probe p = probe(nr);
	switch (type) {
	case F_OWNER_TID: return p.tid;
	case F_OWNER_PID: return p.leader;
	default: return p.pgrp;
	}
}

/* ---- fcntl ---- */

static void set_owner(struct file *f, int type, int nr)
{
	uint64_t fl = spin_lock_irqsave(&fasync_lock);
	f->owner_type = type;
	f->owner_pid = nr;
	f->owner_uid = current->uid;
	f->owner_euid = current->euid;
	spin_unlock_irqrestore(&fasync_lock, fl);
}

/* F_SETOWN: a pid, or -pgrp; ESRCH when no task has the number. */
static long setown(struct file *f, int who)
{
	int type = F_OWNER_PID;
	if (who < 0) {
		if (who == INT32_MIN)
			return -EINVAL;
		type = F_OWNER_PGRP;
		who = -who;
	}
	if (who && !probe(who).any)
		return -ESRCH;
	set_owner(f, type, who);
	return 0;
}

static long setown_ex(struct file *f, void *uarg)
{
	struct f_owner_ex ex;
	if (copy_from_user(&ex, uarg, sizeof(ex)))
		return -EFAULT;
	if (ex.type != F_OWNER_TID && ex.type != F_OWNER_PID && ex.type != F_OWNER_PGRP)
		return -EINVAL;
	if (ex.pid && !probe(ex.pid).any)
		return -ESRCH;
	set_owner(f, ex.type, ex.pid);
	return 0;
}

long fasync_owner_fcntl(struct file *f, unsigned cmd, unsigned long arg)
{
	if (cmd == F_SETOWN)
		return setown(f, (int)arg);
	if (cmd == F_SETOWN_EX)
		return setown_ex(f, (void *)arg);
	int type = f->owner_type, nr = f->owner_pid;
	if (nr && !owner_alive(type, nr))
		nr = 0;
	if (cmd == F_GETOWN)
		return type == F_OWNER_PGRP ? -nr : nr;
	struct f_owner_ex ex = { .type = type, .pid = nr }; /* F_GETOWN_EX */
	return copy_to_user((void *)arg, &ex, sizeof(ex)) ? -EFAULT : 0;
}

int fasync_setfl(struct file *f, int fd, bool on)
{
	bool was = __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & FASYNC;
	if (on == was || !f->ops || !f->ops->fasync)
		return 0;
	int r = f->ops->fasync(f, fd, on);
	return r < 0 ? r : 0;
}

/* ---- the lists ---- */

int fasync_helper(int fd, struct file *f, bool on, struct fasync **list)
{
	struct fasync *spare = on ? kzalloc(sizeof(*spare)) : NULL;
	if (on && !spare)
		return -ENOMEM;
	uint64_t fl = spin_lock_irqsave(&fasync_lock);
	struct fasync **p = list;
	while (*p && (*p)->file != f)
		p = &(*p)->next;
	if (on && *p) {
		(*p)->fd = fd;          /* already there: the new fd counts */
	} else if (on) {
		spare->file = f;
		spare->fd = fd;
		spare->next = *list;
		*list = spare;
		spare = NULL;
	} else if (*p) {
		spare = *p;             /* freed below */
		*p = spare->next;
	}
	if (on)
		__atomic_or_fetch(&f->flags, FASYNC, __ATOMIC_RELAXED);
	else
		__atomic_and_fetch(&f->flags, ~(unsigned)FASYNC, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&fasync_lock, fl);
	kfree(spare);
	return 0;
}

void fasync_release(struct file *f)
{
	if ((__atomic_load_n(&f->flags, __ATOMIC_RELAXED) & FASYNC) && f->ops && f->ops->fasync)
		f->ops->fasync(f, -1, false);
}

/* ---- sending ---- */

/* si_band for each reason, POLL_IN..POLL_HUP (Linux's band_table). */
static const long band_of[] = {
	POLLIN | POLLRDNORM,                  /* POLL_IN */
	POLLOUT | POLLWRNORM | POLLWRBAND,    /* POLL_OUT */
	POLLIN | POLLRDNORM | POLLMSG,        /* POLL_MSG */
	POLLERR,                              /* POLL_ERR */
	POLLPRI | POLLRDBAND,                 /* POLL_PRI */
	POLLHUP | POLLERR,                    /* POLL_HUP */
};

/* Signals whose si_codes mean something of their own: POLL_* would be
 * ambiguous there, so they get SI_SIGIO (Linux's sig_specific_sicodes). */
static bool own_codes(int sig)
{
	return sig == SIGILL || sig == SIGFPE || sig == SIGSEGV || sig == SIGBUS ||
	       sig == SIGTRAP || sig == SIGCHLD || sig == SIGPOLL || sig == SIGSYS;
}

/* F_SETSIG 0: the plain SIGIO, no details (SEND_SIG_PRIV); else the
 * chosen signal saying which fd and why. */
static struct ksiginfo sigio_info(int sig, int fd, int reason)
{
	struct ksiginfo i = { .signo = SIGIO, .code = SI_KERNEL };
	if (!sig)
		return i;
	i.signo = sig;
	i.code = sig != SIGPOLL && own_codes(sig) ? SI_SIGIO : reason;
	i.band = reason >= POLL_IN && reason <= POLL_HUP ? band_of[reason - POLL_IN] : ~0L;
	i.fd = fd;
	return i;
}

struct owner {
	int type, nr;
	uint32_t uid, euid;
};

static bool may_sigio(const struct owner *o, const struct task *t)
{
	return o->euid == 0 || o->euid == t->uid || o->euid == t->euid ||
	       o->uid == t->uid || o->uid == t->euid;
}

struct pgrp_targets {
	const struct owner *o;
	int tgid[64];
	int n;
};

static void collect(struct task *t, void *ctx)
{
	struct pgrp_targets *c = ctx;
	if (t->tid == t->tgid && t->pgid == c->o->nr && t->state != TASK_ZOMBIE &&
	    t->state != TASK_DEAD && c->n < 64 && may_sigio(c->o, t))
		c->tgid[c->n++] = t->tgid;
}

static void send_sigio(const struct owner *o, const struct ksiginfo *info)
{
	if (o->type == F_OWNER_PGRP) {
		struct pgrp_targets c = { .o = o };
		task_for_each(collect, &c);
		for (int i = 0; i < c.n; i++)
			signal_send_process(c.tgid[i], info);
		return;
	}
	/* pinned while used; nothing here sleeps (fasync_lock is held) */
	struct task *t = task_find_pinned(o->nr);
	if (!t)
		return;
	if (may_sigio(o, t)) {
		if (o->type == F_OWNER_TID)
			signal_send_thread(t, info);
		else
			signal_send_process(t->tgid, info);
	}
	task_unpin(t);
}

void kill_fasync(struct fasync **list, int sig, int reason)
{
	if (!fasync_wanted(list))
		return;
	uint64_t fl = spin_lock_irqsave(&fasync_lock);
	for (struct fasync *a = *list; a; a = a->next) {
		struct file *f = a->file;
		struct owner o = { f->owner_type, f->owner_pid, f->owner_uid, f->owner_euid };
		if (!o.nr || (sig == SIGURG && !f->owner_sig))
			continue;
		struct ksiginfo info = sigio_info(f->owner_sig, a->fd, reason);
		send_sigio(&o, &info);
	}
	spin_unlock_irqrestore(&fasync_lock, fl);
}
