/* What /proc shows about tasks (core/fs's procfs calls these). */
#include <string.h>
#include <linux/errno.h>
#include "kernel.h"
#include "process.h"
#include "signal.h"
#include "task.h"
#include "tasks.h"
#include "mm/usermm.h"
#include "fs/vfs.h"

int task_nr_threads(struct task *leader)
{
	int n = 1;
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_for_each(node, &leader->threads)
		n++;
	spin_unlock_irqrestore(&task_lock, f);
	return n;
}

/* fn on t's mm through a reference (task_mm_get): the task may exit
 * while /proc reads it. 0 when it has no mm any more. */
static int with_task_mm(struct task *t, int (*fn)(struct mm *, char *, size_t),
			char *buf, size_t max)
{
	struct mm *mm = task_mm_get(t);
	if (!mm)
		return 0;
	int r = fn(mm, buf, max);
	mm_put(mm);
	return r;
}

int task_format_maps(struct task *t, char *buf, size_t max)
{
	return with_task_mm(t, mm_format_maps, buf, max);
}

static int format_cmdline(struct mm *mm, char *buf, size_t max)
{
	if (!mm->arg_end || mm->arg_end <= mm->arg_start)
		return 0;
	uint64_t len = mm->arg_end - mm->arg_start;
	uint64_t n = len < max ? len : max;
	if (n && mm_read(mm, mm->arg_start, buf, n))
		return -EFAULT;
	return (int)len;
}

int task_format_cmdline(struct task *t, char *buf, size_t max)
{
	return with_task_mm(t, format_cmdline, buf, max);
}

int task_exe_path(struct task *t, char *buf, size_t max)
{
	struct mm *mm = task_mm_get(t);
	int r = -ENOENT;
	if (mm && mm->exe[0]) {
		r = (int)strlen(mm->exe);
		if (max)
			strlcpy(buf, mm->exe, max);
	}
	if (mm)
		mm_put(mm);
	return r;
}

void signal_restore_mask_after_delivery(uint64_t old)
{
	current->saved_sigmask = old;
	current->restore_sigmask = true;
}
