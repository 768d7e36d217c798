/*
 * Fault injection. Each kind is a real CPU exception (or a panic() call)
 * raised from a named function a few frames deep, so the panic report's
 * symbolised backtrace has something to show.
 */
#include <string.h>
#include "fault.h"
#include "kernel.h"
#include "core/arch/apic.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"

/* An address no page table maps: the lowest page is never mapped. */
static volatile uint64_t *volatile unmapped_ptr = (uint64_t *)0x8;
static volatile int zero;

static void __attribute__((noinline)) fault_page(void)
{
	*unmapped_ptr = 0xbad;
}

static void __attribute__((noinline)) fault_gp(void)
{
	/* A non-canonical address raises #GP. */
	*(volatile uint64_t *)0x8000000000000000ULL = 1;
}

static void __attribute__((noinline)) fault_ud(void)
{
	__asm__ volatile("ud2");
}

static void __attribute__((noinline)) fault_divide(void)
{
	/* In C a division by zero is undefined and GCC may drop it: use the
	 * instruction itself. */
	uint32_t lo = 1, hi = 0;
	__asm__ volatile("divl %2" : "+a"(lo), "+d"(hi) : "r"((uint32_t)zero));
}

/* Recursion that never ends (the bound is never reached): each level
 * takes 256 bytes of stack until the guard page below it faults. */
static volatile int recursion_bound = 1 << 30;

static int __attribute__((noinline)) fault_stack_recurse(int depth)
{
	volatile char frame[256];
	frame[0] = (char)depth;
	if (depth < recursion_bound)
		frame[1] = (char)fault_stack_recurse(depth + 1);
	return frame[0] + frame[1];
}

static void __attribute__((noinline)) fault_stack(void)
{
	fault_stack_recurse(0);
}

/* A page fault that cannot push its frame: RSP on page 0, which is never
 * mapped. The CPU turns it into a double fault, taken on its own IST
 * stack, whose handler reports it. */
static void __attribute__((noinline)) fault_double(void)
{
	__asm__ volatile("mov %0, %%rsp\n\tpush %%rax" : : "r"(0x1000ULL) : "memory");
}

/* No IDT at all: #UD cannot be delivered, nor the #GP and #DF that
 * follow, and the CPU shuts down (a reset, or QEMU's exit under
 * -no-reboot). Nothing in the kernel can report it: the log line
 * before it and run-qemu.sh's "triple fault" verdict (QEMU's -d
 * cpu_reset log) are what is seen. */
static void __attribute__((noinline)) fault_triple(void)
{
	struct __attribute__((packed)) { uint16_t limit; uint64_t base; } none = { 0, 0 };
	__asm__ volatile("cli\n\tlidt %0\n\tud2" : : "m"(none));
}

/* Every NMI sends the next one to this CPU: the interrupted code never
 * runs again, until nmi.c calls it a storm and panics. */
static void nmi_again(struct trap_frame *f)
{
	(void)f;
	apic_send_ipi(this_cpu()->apic_id, LVT_DELIVERY_NMI);
}

static void __attribute__((noinline)) fault_nmi_storm(void)
{
	trap_set_handler(VEC_NMI, nmi_again);
	apic_send_ipi(this_cpu()->apic_id, LVT_DELIVERY_NMI);
	for (uint64_t i = 0; i < (1ULL << 34); i++)
		__asm__ volatile("pause");
}

static const struct {
	const char *name;
	void (*fn)(void);
} kinds[] = {
	{ "pagefault", fault_page },
	{ "gp", fault_gp },
	{ "ud", fault_ud },
	{ "divide", fault_divide },
	{ "stack", fault_stack },
	{ "doublefault", fault_double },
	{ "triplefault", fault_triple },
	{ "nmistorm", fault_nmi_storm },
};

bool fault_kind_valid(const char *kind)
{
	if (strcmp(kind, "panic") == 0)
		return true;
	for (unsigned i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strcmp(kinds[i].name, kind) == 0)
			return true;
	return false;
}

void __attribute__((noinline)) fault_inject(const char *kind)
{
	klog("fault: injecting '%s'", kind);
	if (strcmp(kind, "panic") == 0)
		panic("injected by request (fault=panic)");
	for (unsigned i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strcmp(kinds[i].name, kind) == 0)
			kinds[i].fn();
	klog("fault: '%s' did not fault", kind);
}
