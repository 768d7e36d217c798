/*
 * clone3(2): clone's arguments in a struct clone_args that can grow, as
 * Linux's kernel/fork.c takes them (glibc tries it first for
 * pthread_create and posix_spawn). The checks and errnos are Linux's,
 * in its order: the size (EINVAL below version 0, E2BIG above a page or
 * with unknown fields not zero), EFAULT, then the fields; the work is
 * clone's (process_clone).
 *
 * Not supported: set_tid (choosing the child's pid needs
 * CAP_CHECKPOINT_RESTORE in Linux's namespaces; here it is EPERM, what an
 * unprivileged Linux caller gets) and CLONE_INTO_CGROUP (no cgroup file
 * system: any descriptor is EBADF, as Linux says of one that is not a
 * cgroup directory).
 */
#include <string.h>
#include <linux/sched.h>
#include "core/kernel.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"
#include "process.h"
#include "signal.h"
#include "syscall.h"

#define CLONE_LEGACY_FLAGS 0xffffffffULL
#define MAX_PID_NS_LEVEL 32

/* Copy size bytes of user args into *k (the rest zero): Linux's
 * copy_struct_from_user. */
static int copy_args(struct clone_args *k, uint64_t uargs, size_t size)
{
	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	size_t known = size < sizeof(*k) ? size : sizeof(*k);
	if (copy_from_user(k, (const void __user *)uargs, known))
		return -EFAULT;
	for (size_t at = known; at < size; at += 8) { /* unknown fields: zero */
		uint64_t word = 0;
		size_t n = size - at < 8 ? size - at : 8;
		if (copy_from_user(&word, (const void __user *)(uargs + at), n))
			return -EFAULT;
		if (word)
			return -E2BIG;
	}
	return 0;
}

/* Linux's copy_clone_args_from_user checks after the copy. */
static int check_fields(const struct clone_args *k, size_t size)
{
	if (k->set_tid_size > MAX_PID_NS_LEVEL || (!k->set_tid && k->set_tid_size) ||
	    (k->set_tid && !k->set_tid_size))
		return -EINVAL;
	if ((k->exit_signal & ~(uint64_t)CSIGNAL) || k->exit_signal > NSIGNALS)
		return -EINVAL;
	if ((k->flags & CLONE_INTO_CGROUP) &&
	    (k->cgroup > 0x7fffffff || size < CLONE_ARGS_SIZE_VER2))
		return -EINVAL;
	return 0;
}

/* Linux's clone3_args_valid: EINVAL when false. */
static bool args_valid(const struct clone_args *k)
{
	if (k->flags & ~(CLONE_LEGACY_FLAGS | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
		return false;
	/* CLONE_DETACHED and the CSIGNAL byte are reserved in clone3 */
	if (k->flags & (CLONE_DETACHED | (CSIGNAL & ~(uint64_t)CLONE_NEWTIME)))
		return false;
	if ((k->flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND)) ==
	    (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND))
		return false;
	if ((k->flags & (CLONE_THREAD | CLONE_PARENT)) && k->exit_signal)
		return false;
	if (!k->stack)
		return !k->stack_size;
	return k->stack_size && user_range_ok(k->stack, k->stack_size);
}

SYSCALL_DEFINE2(clone3, uint64_t, uargs, size_t, size)
{
	struct clone_args k;
	int r = copy_args(&k, uargs, size);
	if (!r)
		r = check_fields(&k, size);
	if (r)
		return r;
	if (!args_valid(&k))
		return -EINVAL;
	if ((k.flags & CLONE_PIDFD) && (k.flags & CLONE_PARENT_SETTID) &&
	    k.pidfd == k.parent_tid)
		return -EINVAL;
	if (k.set_tid_size)
		return -EPERM;
	if (k.flags & CLONE_INTO_CGROUP)
		return -EBADF;
	uint64_t newsp = k.stack ? k.stack + k.stack_size : 0; /* the stack grows down */
	return process_clone((k.flags & ~CLONE_INTO_CGROUP) | k.exit_signal, newsp,
			     k.parent_tid, k.child_tid, k.tls, k.pidfd);
}
