/*
 * pmi_kernel nmi|irq: a kernel-heavy program (getppid in a loop) sampled
 * with cycles, kernel included, recording each sample's interrupted
 * RFLAGS (PERF_SAMPLE_REGS_INTR). A sample whose RFLAGS has IF clear was
 * taken in code running with interrupts off: only an NMI PMI can land
 * there. So with `nmi` (the kernel booted with pmi=nmi, the default)
 * some kernel samples have IF clear; with `irq` (pmi=irq) none does,
 * while kernel samples are still taken. Prints the kernel profile (the
 * functions of the samples, from /proc/kallsyms) of both kinds. On the
 * software model the NMI is sent as the model's update ends, and a wrap
 * in kernel time samples the kernel code that called the model, as a
 * hardware NMI would land there: with `nmi` almost no interrupts-off
 * sample's IP is the model's own (apic_send_ipi, raise_pmi, ...). The samples are
 * also shown by the first caller outside the model in their callchain.
 *
 * Ends with "pmi_kernel: N passed, N failed"; exit status 1 on failure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>
#include "abi.h"

#define RING_PAGES 256
#define MAX_SYMS 16384
#define MAX_FUNCS 64
#define RFLAGS_IF 0x200

struct sym { uint64_t addr; char name[128]; };
static struct sym syms[MAX_SYMS];
static int nsyms;

struct func { const char *name; unsigned n; };
struct profile { struct func f[MAX_FUNCS]; int n; unsigned total; };

static void load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[160], name[128], type;
	unsigned long long addr;
	if (!f)
		return;
	while (nsyms < MAX_SYMS && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T')) {
			syms[nsyms].addr = addr;
			snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name);
			nsyms++;
		}
	fclose(f);
}

/* The function holding ip: the symbol with the highest address <= ip. */
static const char *func_of(uint64_t ip)
{
	const struct sym *best = NULL;
	for (int i = 0; i < nsyms; i++)
		if (syms[i].addr <= ip && (!best || syms[i].addr > best->addr))
			best = &syms[i];
	return best ? best->name : "?";
}

/* The software model's and the APIC's functions (the PMI's raiser). */
static int in_model(const char *name)
{
	static const char *const model[] = {
		"apic_send_ipi", "apic_write", "raise_pmi", "wrapped", "advance",
		"charge", "charge_user_stint", "leave", "sync_model", "bump", NULL,
	};
	if (strncmp(name, "vpmu_", 5) == 0)
		return 1;
	for (int i = 0; model[i]; i++)
		if (strcmp(name, model[i]) == 0)
			return 1;
	return 0;
}

/* The first function of the kernel callchain outside the model. */
static const char *first_caller(const uint64_t *chain, uint64_t nr)
{
	for (uint64_t i = 0; i < nr; i++) {
		if (chain[i] >= PERF_CONTEXT_MAX)
			continue; /* a context marker */
		const char *name = func_of(chain[i]);
		if (!in_model(name))
			return name;
	}
	return "?";
}

static void count(struct profile *p, const char *name)
{
	p->total++;
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->f[i].name, name) == 0) {
			p->f[i].n++;
			return;
		}
	if (p->n < MAX_FUNCS)
		p->f[p->n++] = (struct func){ name, 1 };
}

static void show(const char *title, struct profile *p)
{
	abi_note("%s: %u samples", title, p->total);
	for (int shown = 0; shown < 8; shown++) {
		int top = -1;
		for (int i = 0; i < p->n; i++)
			if (p->f[i].n && (top < 0 || p->f[i].n > p->f[top].n))
				top = i;
		if (top < 0)
			break;
		abi_note("  %5.1f%%  %s", 100.0 * p->f[top].n / p->total, p->f[top].name);
		p->f[top].n = 0;
	}
}

int main(int argc, char **argv)
{
	int want_nmi = argc > 1 && strcmp(argv[1], "nmi") == 0;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.sample_period = 20011;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_INTR;
	a.exclude_callchain_user = 1;
	a.sample_regs_intr = 1ULL << PERF_REG_X86_FLAGS;
	a.disabled = 1;
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (!CHECK(fd >= 0, "open cycles, kernel included, sampling IP and RFLAGS"))
		return abi_done("pmi_kernel");
	size_t len = (RING_PAGES + 1) * 4096;
	struct perf_event_mmap_page *pg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(pg != MAP_FAILED, "map the ring"))
		return abi_done("pmi_kernel");
	load_kallsyms();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 20000; i++)
		getppid();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	struct profile irqoff = { .n = 0 }, kernel = { .n = 0 }, callers = { .n = 0 };
	unsigned samples = 0, in_model_ip = 0;
	const char *data = (const char *)pg + 4096;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t size = RING_PAGES * 4096ULL;
	for (uint64_t at = pg->data_tail; at < head;) {
		const struct perf_event_header *h = (const void *)(data + at % size);
		if (h->type == PERF_RECORD_SAMPLE) {
			/* ip, nr, chain[nr], abi, flags: 8-byte fields; a
			 * record that wraps the ring's end is skipped */
			const uint64_t *v = (const uint64_t *)(h + 1);
			samples++;
			if (at % size + h->size <= size &&
			    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
				uint64_t nr = v[1];
				const uint64_t *regs = v + 2 + nr;
				count(&kernel, func_of(v[0]));
				if (regs[0] != PERF_SAMPLE_REGS_ABI_NONE && !(regs[1] & RFLAGS_IF)) {
					count(&irqoff, func_of(v[0]));
					in_model_ip += in_model(func_of(v[0]));
					count(&callers, first_caller(v + 2, nr));
				}
			}
		}
		at += h->size;
	}
	abi_note("%u samples, %u in the kernel, %u of them with interrupts off",
		 samples, kernel.total, irqoff.total);
	show("kernel profile", &kernel);
	show("with interrupts off", &irqoff);
	show("with interrupts off, by the first caller outside the model", &callers);
	CHECK(kernel.total > 0, "kernel code is sampled");
	if (want_nmi) {
		CHECK(irqoff.total > 0, "pmi=nmi: code running with interrupts off is sampled");
		/* One in a hundred at most: a wrap owed to kernel time but
		 * seen only by the wrap timer, after the return to user mode,
		 * has no kernel caller left to sample, and its NMI lands in
		 * the model (1 of 1826 once, on a busy host). Systematic
		 * attribution to the model still fails. */
		CHECK(in_model_ip * 100 <= irqoff.total,
		      "pmi=nmi: almost no sample's IP is the model's own "
		      "(%u of %u are)", in_model_ip, irqoff.total);
	}
	else
		CHECK(irqoff.total == 0, "pmi=irq: no sample lands where interrupts are off");
	return abi_done("pmi_kernel");
}
