/*
 * Linux's msr driver (arch/x86/kernel/msr.c) as /dev/cpu/N/msr: pread of
 * 8 bytes at offset R reads MSR R on CPU N, pwrite writes it; a count
 * that is not a multiple of 8 is EINVAL, an MSR whose access raises #GP
 * is EIO, and the position does not move (each 8 bytes is the same MSR
 * again, as on Linux). The device is 0600 root, and opening it needs
 * CAP_SYS_RAWIO on Linux: root only here (devfs_cpu.c). Writes are
 * allowed, as Linux's default msr.allow_writes does (with a log line).
 * Under the vpmu, the model's registers come from the model (pmu/msr.h),
 * so likwid and nanoBench's user mode see the counters perf uses.
 *
 * Each access runs on CPU N through a cross-CPU call (an IPI when N is
 * another CPU, which an isolated CPU then takes), with interrupts off.
 */
#include <linux/fs.h>
#include "core/kernel.h"
#include "core/fs/fs.h"
#include "pmu/events/event.h"
#include "pmu/x86/msr.h"
#include "core/proc/task.h"

struct msr_call {
	uint32_t msr;
	bool write;
	uint64_t value;
	int err;
};

static void msr_on_cpu(void *arg)
{
	struct msr_call *c = arg;
	c->err = c->write ? msr_write_any(c->msr, c->value)
			  : msr_read_any(c->msr, &c->value);
}

static long msr_read(struct file *f, struct uio *u, uint64_t *pos)
{
	if (u->resid % 8)
		return -EINVAL;
	long done = 0;
	while (u->resid) {
		struct msr_call c = { .msr = (uint32_t)*pos };
		perf_xcall(devfs_cpu_of(f), msr_on_cpu, &c);
		if (c.err)
			return done ? done : c.err;
		if (uio_copy_out(u, &c.value, 8) != 8)
			return done ? done : -EFAULT;
		done += 8;
	}
	return done;
}

static long msr_write(struct file *f, struct uio *u, uint64_t *pos)
{
	if (u->resid % 8)
		return -EINVAL;
	long done = 0;
	while (u->resid) {
		struct msr_call c = { .msr = (uint32_t)*pos, .write = true };
		if (uio_copy_in(u, &c.value, 8) != 8)
			return done ? done : -EFAULT;
		klog("msr: %s[%d] writes MSR %#x on CPU %u", current->comm,
		     current->tid, c.msr, devfs_cpu_of(f));
		perf_xcall(devfs_cpu_of(f), msr_on_cpu, &c);
		if (c.err)
			return done ? done : c.err;
		done += 8;
	}
	return done;
}

/* Linux's no_seek_end_llseek: SEEK_SET and SEEK_CUR, no negative place. */
int64_t cpudev_lseek(struct file *f, int64_t off, int whence)
{
	int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)f->pos : -1;
	if (base < 0 || (off > 0 && base > INT64_MAX - off) || base + off < 0)
		return -EINVAL;
	f->pos = (uint64_t)(base + off);
	return (int64_t)f->pos;
}

const struct file_ops msr_dev_fops = {
	.read = msr_read, .write = msr_write, .lseek = cpudev_lseek,
};
