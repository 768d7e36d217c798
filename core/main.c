/*
 * kmain: bring the boot CPU up, one subsystem at a time, then hand over to
 * the session: /bin/sh as pid 1, or the rescue shell. The order matters: per-CPU data before anything that
 * can trap, console before anything that logs, page tables before MMIO,
 * ACPI before the timers it describes.
 */
#include <stdio.h>
#include <string.h>
#include "main.h"
#include "core/arch/acpi.h"
#include "core/arch/apic.h"
#include "cmdline.h"
#include "core/arch/cpu.h"
#include "fault.h"
#include "core/arch/gdt.h"
#include "core/arch/hpet.h"
#include "core/fs/initrd.h"
#include "core/mm/kstack.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "core/arch/power.h"
#include "selftest.h"
#include "serial.h"
#include "shell.h"
#include "core/arch/trap.h"
#include "core/arch/tsc.h"
#include "core/arch/x86.h"
#include "core/proc/exec.h"
#include "core/proc/process.h"
#include "core/proc/sched.h"
#include "core/arch/smp.h"
#include "core/arch/topology.h"
#include "core/arch/numa.h"
#include "core/arch/percpu_table.h"
#include "fbcon.h"
#include "kbd.h"
#include "core/mm/tlb.h"
#include "core/mm/uaccess.h"
#include "report.h"
#include "pmu/perf.h"
#include "core/arch/ioapic.h"
#include "core/proc/syscall.h"
#include "core/proc/tasks.h"
#include "core/proc/timekeeping.h"
#include "core/fs/vfs.h"

extern uint8_t boot_stack[];

#ifndef BAREMON_VERSION
#define BAREMON_VERSION "dev"
#endif

#define TICK_HZ 100

static void check_boot_info(const struct boot_info *bi)
{
	if (bi->magic != BOOT_INFO_MAGIC)
		panic("boot_info at %p has bad magic %#llx", (const void *)bi,
		      (unsigned long long)bi->magic);
	if (bi->version != BOOT_INFO_VERSION || bi->size < sizeof(*bi))
		panic("boot_info version %u size %u; this kernel needs version %u size %zu",
		      bi->version, bi->size, BOOT_INFO_VERSION, sizeof(*bi));
}

/* The first line on every console. */
static char banner[128];

static void early_init(struct boot_info *bi)
{
	serial_init(115200);
	gdt_init_cpu(0);     /* reloading GS clears its base: percpu after */
	percpu_init(0, 0);
	idt_init();
	check_boot_info(bi);
	cmdline_parse(bi->cmdline);
	uint32_t baud = (uint32_t)cmdline_get_u64("baud", 115200);
	const char *console = cmdline_get("console");
	bool console_ok = !console || serial_select(console, &baud) >= 0;
	serial_init(baud);
	tsc_set_boot(bi->handoff_tsc);
	snprintf(banner, sizeof(banner), "baremon %s booting (boot-info v%u from %s)\n",
		 BAREMON_VERSION, bi->version, bi->loader_name);
	kprintf("\n%s", banner);
	klog("cmdline: %s", cmdline_text());
	if (!console_ok)
		klog("serial: console=%s: no such port; staying on ttyS%d", console,
		     serial_index());
}

static void memory_init(struct boot_info *bi)
{
	pmm_init(bi);
	vm_init(bi);
	kstack_guard_static((uint64_t)boot_stack);
	gdt_guard_ist_stacks();
	pageref_init();
	fbcon_init(&bi->fb, banner); /* needs vm_map_mmio */
}

static void platform_init(struct boot_info *bi)
{
	cpu_detect();
	cpu_report();
	topology_init();
	acpi_init(bi->rsdp_phys);
	numa_init();
	serial_late_init();
	hpet_init();
	tsc_calibrate();
	apic_init_cpu();
	this_cpu()->apic_id = apic_current_id();
	percpu_tables_init(smp_plan_cpus(), numa_node_of_cpu);
	this_cpu()->online = 1;
	sched_tick_start();
	irq_enable();
	klog("apic: %s mode, boot cpu apic id %u, timer %s at %u Hz",
	     apic_x2apic_mode() ? "x2apic" : "xapic", this_cpu()->apic_id,
	     timer_mode(), TICK_HZ);
	initrd_init(bi->initrd_phys, bi->initrd_size);
}

/* Protection the CPU offers against the kernel touching user memory. */
static void user_protection_init(void)
{
	if (cpu.smep)
		write_cr4(read_cr4() | CR4_SMEP);
	if (cpu.smap) {
		write_cr4(read_cr4() | CR4_SMAP);
		smap_enabled = true;
	}
	klog("cpu: smep %s, smap %s", cpu.smep ? "on" : "off", cpu.smap ? "on" : "off");
}

static void tasks_init(void)
{
	fpu_init_cpu();
	tlb_init_cpu();
	exceptions_init();
	user_protection_init();
	syscall_init();
	syscall_init_cpu();
	timekeeping_init();
	sched_init_cpu(task_create_idle(0, (uint64_t)boot_stack));
	report_init();
	perf_init();
	vfs_init();
	kbench_init();
	smp_init();
	perf_pmu_smp_init();
	sysfs_topology_init();
}


static void uart_interrupt(struct trap_frame *f)
{
	(void)f;
	console_poll_serial();
	apic_eoi();
}

/* From now on console input goes to the tty (user programs), by IRQ 4
 * (and IRQ 1 from a PS/2 keyboard). */
static void console_input_init(void)
{
	static char name[] = "ttyS0";
	int irq = serial_irq();
	name[4] = (char)('0' + serial_index());
	if (irq >= 0) {
		trap_set_handler(VEC_IRQ_BASE + irq, uart_interrupt);
		trap_set_irq_name(irq, name);
	}
	if (irq >= 0 && ioapic_route_isa(irq, VEC_IRQ_BASE + irq) == 0) {
		serial_enable_rx_irq();
		sched_allow_tickless_idle();
	} else {
		klog("console: no I/O APIC route for the UART; input is polled");
		timers_set_poll_hook(console_poll_serial);
	}
	kbd_init(); /* a PS/2 keyboard types into the same terminal */
}

/* Start /bin/sh as pid 1 when the initrd has it (and kshell is not
 * asked for); it runs the session script if there is one. */
static bool start_user_init(void)
{
	const char *init = cmdline_get("init");
	struct cpio_entry e;
	if (cmdline_has("kshell") || (!init && !initrd_find("/bin/sh", &e)))
		return false;
	static char *argv[4];
	argv[0] = (char *)(init && *init ? init : "/bin/sh");
	const char *session = cmdline_get("session");
	int n = 1;
	if (session && *session) {
		if (cmdline_has("stay"))
			argv[n++] = "-i"; /* the session, then the prompt */
		argv[n++] = (char *)session;
	}
	argv[n] = NULL;
	console_input_init();
	int pid = process_spawn_init(argv[0], argv);
	if (pid < 0)
		panic("cannot create init: %d", pid);
	klog("init: started %s%s%s%s%s as pid %d", argv[0], argv[1] ? " " : "",
	     argv[1] ? argv[1] : "", n > 2 ? " " : "", n > 2 ? argv[2] : "", pid);
	return true;
}

static int run_session(void)
{
	const char *path = cmdline_get("session");
	if (!path || !*path)
		return -1;
	struct cpio_entry e;
	if (!initrd_find(path, &e)) {
		kprintf("sh: session script %s: No such file in the initrd\n", path);
		return 127;
	}
	return shell_run_script(e.data, e.size);
}

void kmain(struct boot_info *bi)
{
	early_init(bi);
	memory_init(bi);
	platform_init(bi);
	tasks_init();

	uint64_t cycles = rdtsc() - tsc_boot();
	klog("init: done in %llu us (%llu TSC cycles since the loader's hand-off)",
	     (unsigned long long)(tsc_to_ns(cycles) / 1000), (unsigned long long)cycles);
	cmdline_report_unknown();

	const char *fault = cmdline_get("fault");
	if (fault)
		fault_inject(fault);
	if (cmdline_has("selftest")) {
		int failed = selftest_run(cmdline_get("selftest"));
		if (!cmdline_has("session") && !cmdline_has("stay"))
			machine_exit(failed > 255 ? 255 : failed);
	}

	if (start_user_init())
		sched_idle_loop();
	int status = run_session();
	if (status >= 0 && !cmdline_has("stay"))
		machine_exit(status);
	machine_exit(shell_interactive());
}
