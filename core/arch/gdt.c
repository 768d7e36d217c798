/*
 * GDT and TSS, one pair per CPU: static for the boot CPU (set up before
 * memory is), a per-CPU table for the others (percpu_table.h);
 * interrupt stacks static for the boot CPU, allocated on the CPU's NUMA
 * node by smp.c for the others (gdt_alloc_ist) before they start.
 * A CPU writes only its own entries, at bring-up, before it takes
 * interrupts; nothing else changes them afterwards except tss_set_rsp0,
 * which each CPU calls for itself. No lock is needed.
 */
#include <string.h>
#include "gdt.h"
#include "core/kernel.h"
#include "percpu_table.h"
#include "core/mm/kstack.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __packed;

struct gdt_ptr {
	uint16_t limit;
	uint64_t base;
} __packed;

struct cpu_segments {
	uint64_t gdt[7]; /* null, kcode, kdata, udata, ucode, tss (2 slots) */
	struct tss tss;
} __attribute__((aligned(64)));

/* Each IST stack has a guard page below it: the boot CPU's are static
 * (guarded by gdt_guard_ist_stacks), the others' come from kstack_alloc
 * (gdt_alloc_ist). ist_base holds each stack's lowest address, NULL for
 * a CPU that has none. */
struct ist_stack {
	uint8_t guard[PAGE_SIZE];
	uint8_t stack[IST_STACK_SIZE];
};

static struct cpu_segments boot_segs;
PERCPU_TABLE(struct cpu_segments, segs); /* entry 0 unused: boot_segs */
static struct ist_stack boot_ist[IST_COUNT] __attribute__((aligned(4096)));
static uint8_t *ist_base[MAX_CPUS][IST_COUNT] = {
	{ boot_ist[0].stack, boot_ist[1].stack, boot_ist[2].stack },
};

static struct cpu_segments *segs_of(unsigned cpu)
{
	return cpu ? &segs[cpu] : &boot_segs;
}

bool gdt_alloc_ist(unsigned cpu, unsigned node)
{
	for (unsigned i = 0; i < IST_COUNT; i++) {
		uint64_t base = kstack_alloc_node(IST_STACK_SIZE, node);
		if (!base) {
			while (i--) {
				kstack_free((uint64_t)ist_base[cpu][i], IST_STACK_SIZE);
				ist_base[cpu][i] = NULL;
			}
			return false;
		}
		ist_base[cpu][i] = (uint8_t *)base;
	}
	return true;
}

#define SEG_CODE64_KERNEL 0x00af9a000000ffffULL /* L, P, DPL0, exec/read */
#define SEG_DATA_KERNEL   0x00cf92000000ffffULL /* P, DPL0, read/write */
#define SEG_DATA_USER     0x00cff2000000ffffULL /* P, DPL3, read/write */
#define SEG_CODE64_USER   0x00affa000000ffffULL /* L, P, DPL3, exec/read */

static void set_tss_descriptor(uint64_t *slot, const struct tss *tss)
{
	uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;
	slot[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		  (0x89ULL << 40) /* present, 64-bit TSS available */ |
		  (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	slot[1] = base >> 32;
}

uint64_t ist_stack_top(unsigned cpu, unsigned ist)
{
	return (uint64_t)ist_base[cpu][ist - 1] + IST_STACK_SIZE;
}

void gdt_guard_ist_stacks(void)
{
	for (unsigned i = 0; i < IST_COUNT; i++)
		kstack_guard_static((uint64_t)boot_ist[i].stack);
}

static bool overlaps(uint64_t start, uint64_t end, const void *p, uint64_t size)
{
	return start < (uint64_t)p + size && end > (uint64_t)p;
}

bool gdt_overlaps(uint64_t start, uint64_t end)
{
	if (overlaps(start, end, &boot_segs, sizeof(boot_segs)) ||
	    (segs && overlaps(start, end, segs, sizeof(*segs) * percpu_slots())))
		return true;
	for (unsigned c = 0; c < MAX_CPUS; c++)
		for (unsigned i = 0; i < IST_COUNT; i++)
			if (ist_base[c][i] &&
			    overlaps(start, end, ist_base[c][i], IST_STACK_SIZE))
				return true;
	return false;
}

/* Reload CS with a far return, then the data segments. */
static void load_segments(void)
{
	__asm__ volatile("pushq %0\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w1, %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 "xorl %%eax, %%eax\n\t"
			 "movw %%ax, %%fs\n\t"
			 "movw %%ax, %%gs\n\t"
			 :
			 : "i"(KERNEL_CS), "r"(KERNEL_DS)
			 : "rax", "memory");
}

void gdt_init_cpu(unsigned cpu)
{
	BUG_ON(cpu >= percpu_slots() || !ist_base[cpu][0]);
	struct cpu_segments *s = segs_of(cpu);
	memset(s, 0, sizeof(*s));
	s->gdt[1] = SEG_CODE64_KERNEL;
	s->gdt[2] = SEG_DATA_KERNEL;
	s->gdt[3] = SEG_DATA_USER;
	s->gdt[4] = SEG_CODE64_USER;
	for (unsigned i = 1; i <= IST_COUNT; i++)
		s->tss.ist[i - 1] = ist_stack_top(cpu, i);
	s->tss.iomap_base = sizeof(struct tss); /* no I/O bitmap */
	set_tss_descriptor(&s->gdt[5], &s->tss);

	struct gdt_ptr p = { sizeof(s->gdt) - 1, (uint64_t)s->gdt };
	__asm__ volatile("lgdt %0" : : "m"(p));
	load_segments();
	__asm__ volatile("ltr %w0" : : "r"((uint16_t)TSS_SEL));
}

void tss_set_rsp0(unsigned cpu, uint64_t rsp0)
{
	segs_of(cpu)->tss.rsp[0] = rsp0;
}
