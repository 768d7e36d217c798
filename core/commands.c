/* Built-in session commands that report on the machine and the kernel. */
#include <stdlib.h>
#include <string.h>
#include "core/arch/acpi.h"
#include "core/arch/apic.h"
#include "cmdline.h"
#include "core/arch/cpu.h"
#include "fault.h"
#include "core/fs/initrd.h"
#include "log.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "selftest.h"
#include "shell.h"
#include "core/arch/trap.h"
#include "core/arch/tsc.h"
#include "core/arch/x86.h"
#include "report.h"
#include "core/fs/vfs.h"

SHELL_CMD(cat, "cat FILE...: print initrd files")
{
	int st = 0;
	for (int i = 1; i < argc; i++) {
		struct cpio_entry e;
		if (!initrd_find(argv[i], &e)) {
			kprintf("cat: %s: No such file or directory\n", argv[i]);
			st = 1;
			continue;
		}
		console_write(e.data, e.size);
	}
	return st;
}

static bool print_initrd_entry(const struct cpio_entry *e, void *ctx)
{
	(void)ctx;
	kprintf("%c%03o %8zu %s\n", (e->mode & 0170000) == 0040000 ? 'd' : '-',
		e->mode & 0777, e->size, e->name);
	return true;
}

SHELL_CMD(ls, "ls: list the initrd")
{
	initrd_foreach(print_initrd_entry, 0);
	return 0;
}

SHELL_CMD(cpus, "cpus: CPUs from ACPI and what the PMU offers")
{
	struct seqbuf sb = { 0 };
	report_cpus(&sb, NULL);
	if (sb.buf)
		console_write(sb.buf, sb.len);
	kfree(sb.buf);
	return sb.err ? 1 : 0;
}

SHELL_CMD(mem, "mem: physical memory and heap use")
{
	kprintf("mem: %zu KiB free of %zu KiB usable, heap %zu bytes in use\n",
		pmm_free_count() * 4, pmm_total_count() * 4, heap_in_use());
	return 0;
}

SHELL_CMD(dmesg, "dmesg: print the kernel log")
{
	char *buf = kmalloc(LOG_RING_SIZE);
	if (!buf)
		return 1;
	size_t n = log_read(buf, LOG_RING_SIZE);
	console_write(buf, n);
	kfree(buf);
	return 0;
}

SHELL_CMD(uptime, "uptime: time since the loader handed over")
{
	uint64_t us = time_since_boot_ns() / 1000;
	kprintf("up %llu.%06llu s\n", (unsigned long long)(us / 1000000),
		(unsigned long long)(us % 1000000));
	return 0;
}

SHELL_CMD(cmdline, "cmdline: print the kernel command line")
{
	kprintf("%s\n", cmdline_text());
	return 0;
}

SHELL_CMD(interrupts, "interrupts: per-CPU interrupt counts by vector")
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t total = 0;
		for (unsigned c = 0; c < MAX_CPUS; c++)
			total += trap_count(c, v);
		if (total)
			kprintf("%3u: %10llu  %s\n", v, (unsigned long long)total,
				trap_name(v));
	}
	return 0;
}

SHELL_CMD(sleep, "sleep MS: wait MS milliseconds")
{
	if (argc != 2) {
		kprintf("sleep: usage: sleep MS\n");
		return 2;
	}
	char *end;
	unsigned long ms = strtoul(argv[1], &end, 10);
	if (*end) {
		kprintf("sleep: bad number '%s'\n", argv[1]);
		return 2;
	}
	uint64_t until = time_since_boot_ns() + ms * 1000000ULL;
	while (time_since_boot_ns() < until)
		halt();
	return 0;
}

SHELL_CMD(selftest, "selftest [FILTER]: run kernel self-tests; status = failures")
{
	int failed = selftest_run(argc > 1 ? argv[1] : 0);
	return failed > 255 ? 255 : failed;
}

SHELL_CMD(fault, "fault KIND: trigger a kernel fault (pagefault, gp, ud, divide, stack, panic)")
{
	if (argc != 2 || !fault_kind_valid(argv[1])) {
		kprintf("fault: usage: fault %s\n", FAULT_KINDS);
		return 2;
	}
	fault_inject(argv[1]);
	return 1; /* not reached */
}
