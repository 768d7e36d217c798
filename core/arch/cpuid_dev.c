/*
 * Linux's cpuid driver (arch/x86/kernel/cpuid.c) as /dev/cpu/N/cpuid:
 * a read of 16 bytes at offset L | S << 32 gives EAX, EBX, ECX, EDX of
 * CPUID leaf L, subleaf S on CPU N, and each 16 bytes read moves the
 * position one leaf on (Linux's ++pos); a count that is not a multiple
 * of 16 is EINVAL; writes are EINVAL (no write op). 0600 root, as udev
 * makes it. The leaves are the kernel's view (pmu_cpuid): under the vpmu,
 * the model's PMU leaves (0AH, AMD's 8000_0022H), which user code's own
 * CPUID instruction does not see (docs/pmu.md).
 */
#include "core/kernel.h"
#include "x86.h"
#include "core/fs/fs.h"
#include "pmu/events/event.h"
#include "pmu/x86/msr.h"

struct cpuid_call {
	uint64_t pos;
	struct cpuid_regs r;
};

static void cpuid_on_cpu(void *arg)
{
	struct cpuid_call *c = arg;
	c->r = pmu_cpuid((uint32_t)c->pos, (uint32_t)(c->pos >> 32));
}

static long cpuid_read(struct file *f, struct uio *u, uint64_t *pos)
{
	if (u->resid % 16)
		return -EINVAL;
	long done = 0;
	while (u->resid) {
		struct cpuid_call c = { .pos = *pos };
		perf_xcall(devfs_cpu_of(f), cpuid_on_cpu, &c);
		if (uio_copy_out(u, &c.r, 16) != 16)
			return done ? done : -EFAULT;
		done += 16;
		*pos = c.pos + 1;
	}
	return done;
}

const struct file_ops cpuid_dev_fops = {
	.read = cpuid_read, .lseek = cpudev_lseek,
};
