/* What /proc shows about tasks (core/fs's procfs calls these). */
#include <string.h>
#include <linux/errno.h>
#include "core/kernel.h"
#include "process.h"
#include "signal.h"
#include "task.h"
#include "tasks.h"
#include "core/mm/usermm.h"
#include "core/fs/vfs.h"

int task_nr_threads(struct task *leader)
{
	int n = 1;
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_for_each(node, &leader->threads)
		n++;
	spin_unlock_irqrestore(&task_lock, f);
	return n;
}

int mm_format_cmdline(struct mm *mm, char *buf, size_t max)
{
	if (!mm->arg_end || mm->arg_end <= mm->arg_start)
		return 0;
	uint64_t len = mm->arg_end - mm->arg_start;
	uint64_t n = len < max ? len : max;
	if (n && mm_read(mm, mm->arg_start, buf, n))
		return -EFAULT;
	return (int)len;
}

int mm_exe_path(struct mm *mm, char *buf, size_t max)
{
	if (!mm->exe[0])
		return -ENOENT;
	if (max)
		strlcpy(buf, mm->exe, max);
	return (int)strlen(mm->exe);
}

void signal_restore_mask_after_delivery(uint64_t old)
{
	current->saved_sigmask = old;
	current->restore_sigmask = true;
}
