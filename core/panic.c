/*
 * Panic reports on the serial console:
 *   PANIC: <reason>
 *   registers (when a trap frame is known), control registers
 *   backtrace: symbolised frame-pointer walk
 *   end of panic report
 * then the machine stops (power.c decides: QEMU exit with status 125, or
 * halt). Only one CPU reports; a panic inside the report stops at once.
 */
#include "panic.h"
#include "ksyms.h"
#include "log.h"
#include "core/arch/percpu.h"
#include "core/arch/power.h"
#include "core/arch/x86.h"
#include "boot/bootinfo.h"
#include "core/mm/mm.h"

extern const char __kernel_start[], __kernel_end[];

static volatile int panic_depth;

/* A frame address the walk may read: aligned, in the kernel image or the
 * direct map, and mapped (a stack's guard page is not). */
static int plausible_frame(uint64_t rbp)
{
	if (rbp & 7)
		return 0;
	bool kernel = (rbp >= (uint64_t)__kernel_start && rbp < (uint64_t)__kernel_end) ||
		      (rbp >= PHYSMAP_BASE && rbp < PHYSMAP_BASE + GiB(512));
	return kernel && (vm_lookup_flags(rbp) & PTE_PRESENT) &&
	       (vm_lookup_flags(rbp + 15) & PTE_PRESENT);
}

static void print_addr(int n, uint64_t addr)
{
	uint64_t off;
	const char *name = ksym_lookup(addr, &off);
	if (name)
		kprintf("  #%d 0x%016llx %s+0x%llx\n", n, (unsigned long long)addr,
			name, (unsigned long long)off);
	else
		kprintf("  #%d 0x%016llx ?\n", n, (unsigned long long)addr);
}

extern const char __text_start[], __text_end[];

static bool in_text(uint64_t a)
{
	return a >= (uint64_t)__text_start && a < (uint64_t)__text_end;
}

/*
 * Whether rip's function has already pushed its frame: it starts with
 * "push %rbp; mov %rsp,%rbp" and rip is past those 4 bytes. GCC leaves the
 * frame out of small leaf functions even with -fno-omit-frame-pointer.
 */
static bool frame_set_up(uint64_t rip)
{
	uint64_t off;
	if (!ksym_lookup(rip, &off))
		return true;
	const uint8_t *fn = (const uint8_t *)(rip - off);
	bool prologue = fn[0] == 0x55 && fn[1] == 0x48 && fn[2] == 0x89 && fn[3] == 0xe5;
	return prologue && off >= 4;
}

void backtrace_print(uint64_t rip, uint64_t rbp, uint64_t rsp)
{
	kprintf("backtrace:\n");
	int n = 0;
	print_addr(n++, rip);
	/* A frameless function: its caller's address is still on top of
	 * the stack, and rbp already belongs to that caller. */
	if (rsp && !frame_set_up(rip) && plausible_frame(rsp) &&
	    in_text(*(uint64_t *)rsp))
		print_addr(n++, *(uint64_t *)rsp - 1);
	while (n < 32 && plausible_frame(rbp)) {
		uint64_t ret = ((uint64_t *)rbp)[1];
		uint64_t next = ((uint64_t *)rbp)[0];
		if (ret == 0)
			break;
		/* ret points after the call; name the call site itself. */
		print_addr(n++, ret - 1);
		if (next <= rbp)
			break;
		rbp = next;
	}
}

static void print_registers(const struct trap_frame *f)
{
	kprintf("  vector %llu %s, error code 0x%llx\n",
		(unsigned long long)f->vector, trap_name((unsigned)f->vector),
		(unsigned long long)f->error);
	if (f->vector == VEC_PAGE_FAULT)
		kprintf("  page fault: %s, %s, %s%s\n",
			(f->error & 1) ? "protection violation" : "not present",
			(f->error & 2) ? "write" : "read",
			(f->error & 4) ? "user" : "kernel",
			(f->error & 16) ? ", instruction fetch" : "");
	kprintf("  rip %016llx  cs %04llx  rflags %016llx\n",
		(unsigned long long)f->rip, (unsigned long long)f->cs,
		(unsigned long long)f->rflags);
	kprintf("  rsp %016llx  ss %04llx\n", (unsigned long long)f->rsp,
		(unsigned long long)f->ss);
	kprintf("  rax %016llx  rbx %016llx  rcx %016llx\n",
		(unsigned long long)f->rax, (unsigned long long)f->rbx,
		(unsigned long long)f->rcx);
	kprintf("  rdx %016llx  rsi %016llx  rdi %016llx\n",
		(unsigned long long)f->rdx, (unsigned long long)f->rsi,
		(unsigned long long)f->rdi);
	kprintf("  rbp %016llx  r8  %016llx  r9  %016llx\n",
		(unsigned long long)f->rbp, (unsigned long long)f->r8,
		(unsigned long long)f->r9);
	kprintf("  r10 %016llx  r11 %016llx  r12 %016llx\n",
		(unsigned long long)f->r10, (unsigned long long)f->r11,
		(unsigned long long)f->r12);
	kprintf("  r13 %016llx  r14 %016llx  r15 %016llx\n",
		(unsigned long long)f->r13, (unsigned long long)f->r14,
		(unsigned long long)f->r15);
}

static void print_control_registers(void)
{
	kprintf("  cr0 %016llx  cr2 %016llx\n", (unsigned long long)read_cr0(),
		(unsigned long long)read_cr2());
	kprintf("  cr3 %016llx  cr4 %016llx\n", (unsigned long long)read_cr3(),
		(unsigned long long)read_cr4());
}

/* Returns only to the first panicking CPU. */
static void panic_begin(void)
{
	irq_disable();
	if (__atomic_fetch_add(&panic_depth, 1, __ATOMIC_SEQ_CST) != 0) {
		/* A second panic (nested, or another CPU): do not report again. */
		for (;;)
			halt();
	}
	log_enter_panic();
}

static void __noreturn panic_end(void)
{
	kprintf("end of panic report\n");
	machine_stop_after_panic(PANIC_EXIT_STATUS);
}

static void print_reason(const char *fmt, va_list ap)
{
	kprintf("\nPANIC: ");
	vkprintf(fmt, ap);
	kprintf("\n  cpu %u\n", this_cpu_id());
}

void panic_frame(struct trap_frame *f, const char *fmt, ...)
{
	panic_begin();
	va_list ap;
	va_start(ap, fmt);
	print_reason(fmt, ap);
	va_end(ap);
	print_registers(f);
	print_control_registers();
	backtrace_print(f->rip, f->rbp, f->rsp);
	panic_end();
}

void panic(const char *fmt, ...)
{
	panic_begin();
	va_list ap;
	va_start(ap, fmt);
	print_reason(fmt, ap);
	va_end(ap);
	print_control_registers();
	uint64_t *fp = __builtin_frame_address(0);
	backtrace_print(fp[1] - 1, fp[0], 0);
	panic_end();
}
