/*
 * capget(2) and capset(2), as Linux's kernel/capability.c: version
 * negotiation (_LINUX_CAPABILITY_VERSION_1 with one 32-bit word per set,
 * versions 2 and 3 with two; any other version is written back as
 * _LINUX_CAPABILITY_VERSION_3 and fails with EINVAL, or succeeds for
 * capget with a NULL data pointer: how libcap asks for the version),
 * capget of any task by pid (0: the caller), capset of the caller only
 * (EPERM for another pid), and cap_capset's rules (EPERM when permitted
 * would grow, effective would leave permitted, or inheritable would leave
 * the old inheritable and permitted). See caps.h for what the sets mean.
 * A task's sets are written only by the task itself (capset, exec,
 * setuid); another's capget may read a set torn between words, as Linux's
 * RCU read of a changing cred cannot, which no caller here can notice.
 */
#include <linux/capability.h>
#include "core/kernel.h"
#include "caps.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"
#include "core/mm/uaccess.h"

void caps_reset(struct task *t)
{
	t->caps.set = false;
}

struct task_caps caps_of(const struct task *t)
{
	if (t->caps.set)
		return t->caps;
	uint64_t all = t->euid == 0 ? CAPS_ALL : 0;
	return (struct task_caps){ .effective = all, .permitted = all };
}

/* Words per set for the header's version, or -EINVAL after writing
 * Linux's preferred version back (-EFAULT when that fails). */
static int cap_words(struct __user_cap_header_struct __user *h)
{
	uint32_t version;
	if (get_user(version, &h->version))
		return -EFAULT;
	switch (version) {
	case _LINUX_CAPABILITY_VERSION_1:
		return _LINUX_CAPABILITY_U32S_1;
	case _LINUX_CAPABILITY_VERSION_2:
	case _LINUX_CAPABILITY_VERSION_3:
		return _LINUX_CAPABILITY_U32S_3;
	}
	if (put_user((uint32_t)_LINUX_CAPABILITY_VERSION_3, &h->version))
		return -EFAULT;
	return -EINVAL;
}

SYSCALL_DEFINE2(capget, struct __user_cap_header_struct __user *, h,
		struct __user_cap_data_struct __user *, data)
{
	int words = cap_words(h);
	if (!data || words < 0)
		return !data && words == -EINVAL ? 0 : words;
	int pid;
	if (get_user(pid, &h->pid))
		return -EFAULT;
	if (pid < 0)
		return -EINVAL;
	struct task_caps c;
	if (pid == 0 || pid == current->tid) {
		c = caps_of(current);
	} else {
		struct task *t = task_find_pinned(pid);
		if (!t)
			return -ESRCH;
		c = caps_of(t);
		task_unpin(t);
	}
	struct __user_cap_data_struct out[_LINUX_CAPABILITY_U32S_3];
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		out[i].effective = (uint32_t)(c.effective >> (32 * i));
		out[i].permitted = (uint32_t)(c.permitted >> (32 * i));
		out[i].inheritable = (uint32_t)(c.inheritable >> (32 * i));
	}
	return copy_to_user(data, out, (size_t)words * sizeof(out[0]));
}

/* A set from the user's words: bits past CAP_LAST_CAP are dropped, as
 * Linux masks them with CAP_VALID_MASK. */
static uint64_t join(const struct __user_cap_data_struct *d, int words,
		     size_t field)
{
	uint64_t v = 0;
	for (int i = 0; i < words; i++)
		v |= (uint64_t)*(const uint32_t *)((const char *)&d[i] + field) << (32 * i);
	return v & CAPS_ALL;
}

SYSCALL_DEFINE2(capset, struct __user_cap_header_struct __user *, h,
		const struct __user_cap_data_struct __user *, data)
{
	int words = cap_words(h);
	if (words < 0)
		return words;
	int pid;
	if (get_user(pid, &h->pid))
		return -EFAULT;
	if (pid != 0 && pid != current->tid)
		return -EPERM;
	struct __user_cap_data_struct in[_LINUX_CAPABILITY_U32S_3];
	if (copy_from_user(in, data, (size_t)words * sizeof(in[0])))
		return -EFAULT;
	struct task_caps old = caps_of(current), c = { .set = true };
	c.effective = join(in, words, offsetof(struct __user_cap_data_struct, effective));
	c.permitted = join(in, words, offsetof(struct __user_cap_data_struct, permitted));
	c.inheritable = join(in, words, offsetof(struct __user_cap_data_struct, inheritable));
	bool setpcap = old.effective & (1ULL << CAP_SETPCAP);
	uint64_t inh_limit = old.inheritable | (setpcap ? CAPS_ALL : old.permitted);
	if ((c.inheritable & ~inh_limit) || (c.permitted & ~old.permitted) ||
	    (c.effective & ~c.permitted))
		return -EPERM;
	current->caps = c;
	return 0;
}
