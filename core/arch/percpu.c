/* Per-CPU areas. See percpu.h. */
#include "msr-index.h"
#include "percpu.h"
#include "x86.h"

struct percpu percpu_area[MAX_CPUS];

void percpu_init(unsigned id, uint32_t apic_id)
{
	struct percpu *p = &percpu_area[id];
	p->self = p;
	p->id = id;
	p->apic_id = apic_id;
	wrmsr(MSR_GS_BASE, (uint64_t)p);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}
