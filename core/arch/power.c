/* Power-off and exit status. Callable from any context, panic included:
 * it takes no locks beyond the console's (bypassed after a panic). */
#include "power.h"
#include "acpi.h"
#include "core/cmdline.h"
#include "x86.h"

static void __noreturn halt_forever(void)
{
	irq_disable();
	for (;;)
		halt();
}

/* QEMU's isa-debug-exit: the process exits with (value << 1) | 1. */
static void qemu_exit(int status)
{
	uint64_t port = cmdline_get_u64("qemu_exit", 0);
	if (port && port <= 0xffff)
		outb((uint16_t)port, (uint8_t)status);
}

void machine_exit(int status)
{
	kprintf("baremon: exit status %d\n", status);
	irq_disable();
	qemu_exit(status);
	acpi_poweroff();
	kprintf("baremon: power-off failed; halting\n");
	halt_forever();
}

void machine_stop_after_panic(int status)
{
	const char *mode = cmdline_get("panic");
	bool halt_requested = mode ? (mode[0] == 'h') : !cmdline_has("qemu_exit");
	if (halt_requested) {
		kprintf("baremon: halted after panic\n");
		halt_forever();
	}
	machine_exit(status);
}
