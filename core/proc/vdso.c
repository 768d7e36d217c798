/*
 * The vDSO's pages (vdso.h). The image (build/vdso/vdso.so, built from
 * vdso/ and linked into the kernel as data) is copied once into shared
 * pages that every process maps read-only; the data page is written
 * only here, under its seqlock (vdso/vvar.h).
 */
#include <string.h>
#include <asm-generic/mman-common.h>
#include <linux/errno.h>
#include "core/kernel.h"
#include "core/arch/cpu.h"
#include "core/arch/msr-index.h"
#include "core/arch/numa.h"
#include "core/arch/percpu.h"
#include "core/arch/tsc.h"
#include "core/arch/x86.h"
#include "core/mm/mm.h"
#include "core/mm/usermm.h"
#include "core/proc/timekeeping.h"
#include "core/proc/vdso.h"
#include "vdso/vvar.h"

/* vdso_image.o (Makefile): the linked vDSO. */
extern const char vdso_image_start[], vdso_image_end[];

static struct shared_anon *vdso_pages, *vvar_pages;
static uint64_t vdso_npages;

uint64_t vdso_size(void)
{
	return vdso_npages * PAGE_SIZE;
}

/* Publish the clock's parameters under the seqlock. */
static void vvar_publish(struct vdso_data *d)
{
	__atomic_store_n(&d->seq, d->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	d->mult = tsc_clock.mult;
	d->shift = tsc_clock.shift;
	d->boot_ns = tsc_clock.boot_ns;
	d->epoch_ns = realtime_epoch_ns();
	d->tai_offset_ns = TAI_OFFSET_NS;
	d->clock_mode = tsc_clock.mult ? VDSO_CLOCK_TSC : 0;
	d->cpu_mode = cpu.rdtscp ? VDSO_CPU_RDTSCP : 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&d->seq, d->seq + 1, __ATOMIC_RELAXED);
}

void vdso_init(void)
{
	uint64_t size = (uint64_t)(vdso_image_end - vdso_image_start);
	vdso_npages = ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE;
	vdso_pages = shm_create(vdso_npages);
	vvar_pages = shm_create(1);
	if (!vdso_pages || !vvar_pages)
		panic("vdso: no memory for its %llu pages", (unsigned long long)vdso_npages + 1);
	for (uint64_t i = 0; i < vdso_npages; i++) {
		uint64_t n = size - i * PAGE_SIZE < PAGE_SIZE ? size - i * PAGE_SIZE : PAGE_SIZE;
		memcpy(shm_kaddr(vdso_pages, i), vdso_image_start + i * PAGE_SIZE, n);
	}
	vvar_publish(shm_kaddr(vvar_pages, 0));
	klog("vdso: %llu bytes, clock %s, getcpu %s", (unsigned long long)size,
	     tsc_clock.mult ? "from the TSC" : "by system call",
	     cpu.rdtscp ? "by RDTSCP" : "by system call");
}

void vdso_init_cpu(void)
{
	if (!cpu.rdtscp)
		return;
	unsigned id = this_cpu_id();
	wrmsr(MSR_TSC_AUX, ((uint64_t)numa_node_of_cpu(id) << 12) | (id & 0xfff));
}

int vdso_map(struct mm *mm, uint64_t *base)
{
	*base = 0;
	if (!vdso_pages)
		return 0; /* kernel self-tests before vdso_init: no vDSO */
	uint64_t len = (1 + vdso_npages) * PAGE_SIZE;
	uint64_t at = mm_find_free(mm, len);
	if (!at)
		return -ENOMEM;
	int r = mm_map_shm(mm, at, PAGE_SIZE, PROT_READ, VMA_SPECIAL, vvar_pages,
			   NULL, NULL, "[vvar]");
	if (!r)
		r = mm_map_shm(mm, at + PAGE_SIZE, len - PAGE_SIZE, PROT_READ | PROT_EXEC,
			       VMA_SPECIAL, vdso_pages, NULL, NULL, "[vdso]");
	if (!r)
		*base = at + PAGE_SIZE;
	return r;
}
