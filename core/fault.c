/*
 * Fault injection. Each kind is a real CPU exception (or a panic() call)
 * raised from a named function a few frames deep, so the panic report's
 * symbolised backtrace has something to show.
 */
#include <string.h>
#include "fault.h"
#include "kernel.h"

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

static const struct {
	const char *name;
	void (*fn)(void);
} kinds[] = {
	{ "pagefault", fault_page },
	{ "gp", fault_gp },
	{ "ud", fault_ud },
	{ "divide", fault_divide },
	{ "stack", fault_stack },
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
