/*
 * /proc/cpuinfo: one block per CPU, Linux's field names and layout, and
 * the "flags" line built from CPUID with Linux's names in Linux's order
 * (by feature word). The boot CPU's CPUID stands for all CPUs.
 */
#include <stdio.h>
#include "core/arch/cpu.h"
#include "core/arch/percpu.h"
#include "core/arch/topology.h"
#include "procfs.h"
#include "core/arch/tsc.h"
#include "core/arch/x86.h"

enum { EAX, EBX, ECX, EDX };

struct flag {
	uint32_t leaf;
	uint8_t sub, reg, bit;
	const char *name;
};

/* Linux's capability words 0, 1, 4, 6, 9, 10, 16, 18 in that order. */
static const struct flag flags[] = {
	{1, 0, EDX, 0, "fpu"}, {1, 0, EDX, 1, "vme"}, {1, 0, EDX, 2, "de"},
	{1, 0, EDX, 3, "pse"}, {1, 0, EDX, 4, "tsc"}, {1, 0, EDX, 5, "msr"},
	{1, 0, EDX, 6, "pae"}, {1, 0, EDX, 7, "mce"}, {1, 0, EDX, 8, "cx8"},
	{1, 0, EDX, 9, "apic"}, {1, 0, EDX, 11, "sep"}, {1, 0, EDX, 12, "mtrr"},
	{1, 0, EDX, 13, "pge"}, {1, 0, EDX, 14, "mca"}, {1, 0, EDX, 15, "cmov"},
	{1, 0, EDX, 16, "pat"}, {1, 0, EDX, 17, "pse36"}, {1, 0, EDX, 18, "pn"},
	{1, 0, EDX, 19, "clflush"}, {1, 0, EDX, 21, "dts"}, {1, 0, EDX, 22, "acpi"},
	{1, 0, EDX, 23, "mmx"}, {1, 0, EDX, 24, "fxsr"}, {1, 0, EDX, 25, "sse"},
	{1, 0, EDX, 26, "sse2"}, {1, 0, EDX, 27, "ss"}, {1, 0, EDX, 28, "ht"},
	{1, 0, EDX, 29, "tm"}, {1, 0, EDX, 31, "pbe"},
	{0x80000001, 0, EDX, 11, "syscall"}, {0x80000001, 0, EDX, 20, "nx"},
	{0x80000001, 0, EDX, 22, "mmxext"}, {0x80000001, 0, EDX, 25, "fxsr_opt"},
	{0x80000001, 0, EDX, 26, "pdpe1gb"}, {0x80000001, 0, EDX, 27, "rdtscp"},
	{0x80000001, 0, EDX, 29, "lm"}, {0x80000001, 0, EDX, 30, "3dnowext"},
	{0x80000001, 0, EDX, 31, "3dnow"},
	{1, 0, ECX, 0, "pni"}, {1, 0, ECX, 1, "pclmulqdq"}, {1, 0, ECX, 2, "dtes64"},
	{1, 0, ECX, 3, "monitor"}, {1, 0, ECX, 4, "ds_cpl"}, {1, 0, ECX, 5, "vmx"},
	{1, 0, ECX, 6, "smx"}, {1, 0, ECX, 7, "est"}, {1, 0, ECX, 8, "tm2"},
	{1, 0, ECX, 9, "ssse3"}, {1, 0, ECX, 10, "cid"}, {1, 0, ECX, 11, "sdbg"},
	{1, 0, ECX, 12, "fma"}, {1, 0, ECX, 13, "cx16"}, {1, 0, ECX, 14, "xtpr"},
	{1, 0, ECX, 15, "pdcm"}, {1, 0, ECX, 17, "pcid"}, {1, 0, ECX, 18, "dca"},
	{1, 0, ECX, 19, "sse4_1"}, {1, 0, ECX, 20, "sse4_2"}, {1, 0, ECX, 21, "x2apic"},
	{1, 0, ECX, 22, "movbe"}, {1, 0, ECX, 23, "popcnt"},
	{1, 0, ECX, 24, "tsc_deadline_timer"}, {1, 0, ECX, 25, "aes"},
	{1, 0, ECX, 26, "xsave"}, {1, 0, ECX, 28, "avx"}, {1, 0, ECX, 29, "f16c"},
	{1, 0, ECX, 30, "rdrand"}, {1, 0, ECX, 31, "hypervisor"},
	{0x80000001, 0, ECX, 0, "lahf_lm"}, {0x80000001, 0, ECX, 1, "cmp_legacy"},
	{0x80000001, 0, ECX, 2, "svm"}, {0x80000001, 0, ECX, 3, "extapic"},
	{0x80000001, 0, ECX, 4, "cr8_legacy"}, {0x80000001, 0, ECX, 5, "abm"},
	{0x80000001, 0, ECX, 6, "sse4a"}, {0x80000001, 0, ECX, 7, "misalignsse"},
	{0x80000001, 0, ECX, 8, "3dnowprefetch"}, {0x80000001, 0, ECX, 9, "osvw"},
	{0x80000001, 0, ECX, 10, "ibs"}, {0x80000001, 0, ECX, 11, "xop"},
	{0x80000001, 0, ECX, 12, "skinit"}, {0x80000001, 0, ECX, 13, "wdt"},
	{0x80000001, 0, ECX, 15, "lwp"}, {0x80000001, 0, ECX, 16, "fma4"},
	{0x80000001, 0, ECX, 17, "tce"}, {0x80000001, 0, ECX, 19, "nodeid_msr"},
	{0x80000001, 0, ECX, 21, "tbm"}, {0x80000001, 0, ECX, 22, "topoext"},
	{0x80000001, 0, ECX, 23, "perfctr_core"}, {0x80000001, 0, ECX, 24, "perfctr_nb"},
	{0x80000001, 0, ECX, 26, "bpext"}, {0x80000001, 0, ECX, 27, "ptsc"},
	{0x80000001, 0, ECX, 28, "perfctr_llc"}, {0x80000001, 0, ECX, 29, "mwaitx"},
	{7, 0, EBX, 0, "fsgsbase"}, {7, 0, EBX, 1, "tsc_adjust"}, {7, 0, EBX, 3, "bmi1"},
	{7, 0, EBX, 4, "hle"}, {7, 0, EBX, 5, "avx2"}, {7, 0, EBX, 7, "smep"},
	{7, 0, EBX, 8, "bmi2"}, {7, 0, EBX, 9, "erms"}, {7, 0, EBX, 10, "invpcid"},
	{7, 0, EBX, 11, "rtm"}, {7, 0, EBX, 14, "mpx"}, {7, 0, EBX, 16, "avx512f"},
	{7, 0, EBX, 17, "avx512dq"}, {7, 0, EBX, 18, "rdseed"}, {7, 0, EBX, 19, "adx"},
	{7, 0, EBX, 20, "smap"}, {7, 0, EBX, 21, "avx512ifma"},
	{7, 0, EBX, 23, "clflushopt"}, {7, 0, EBX, 24, "clwb"},
	{7, 0, EBX, 25, "intel_pt"}, {7, 0, EBX, 26, "avx512pf"},
	{7, 0, EBX, 27, "avx512er"}, {7, 0, EBX, 28, "avx512cd"},
	{7, 0, EBX, 29, "sha_ni"}, {7, 0, EBX, 30, "avx512bw"}, {7, 0, EBX, 31, "avx512vl"},
	{0xd, 1, EAX, 0, "xsaveopt"}, {0xd, 1, EAX, 1, "xsavec"},
	{0xd, 1, EAX, 2, "xgetbv1"}, {0xd, 1, EAX, 3, "xsaves"},
	{7, 0, ECX, 1, "avx512vbmi"}, {7, 0, ECX, 2, "umip"}, {7, 0, ECX, 3, "pku"},
	{7, 0, ECX, 5, "waitpkg"}, {7, 0, ECX, 6, "avx512_vbmi2"}, {7, 0, ECX, 8, "gfni"},
	{7, 0, ECX, 9, "vaes"}, {7, 0, ECX, 10, "vpclmulqdq"},
	{7, 0, ECX, 11, "avx512_vnni"}, {7, 0, ECX, 12, "avx512_bitalg"},
	{7, 0, ECX, 14, "avx512_vpopcntdq"}, {7, 0, ECX, 16, "la57"},
	{7, 0, ECX, 22, "rdpid"}, {7, 0, ECX, 25, "cldemote"},
	{7, 0, ECX, 27, "movdiri"}, {7, 0, ECX, 28, "movdir64b"},
	{7, 0, EDX, 4, "fsrm"}, {7, 0, EDX, 8, "avx512_vp2intersect"},
	{7, 0, EDX, 10, "md_clear"}, {7, 0, EDX, 14, "serialize"},
	{7, 0, EDX, 18, "pconfig"}, {7, 0, EDX, 28, "flush_l1d"},
	{7, 0, EDX, 29, "arch_capabilities"},
};

static bool leaf_exists(uint32_t leaf)
{
	return leaf >= 0x80000000 ? leaf <= cpu.max_ext_leaf : leaf <= cpu.max_leaf;
}

static uint32_t reg_of(struct cpuid_regs r, int reg)
{
	return reg == EAX ? r.eax : reg == EBX ? r.ebx : reg == ECX ? r.ecx : r.edx;
}

/* Linux's synthetic flags (word 3) that can be read from CPUID. */
static void synthetic_flags(struct seqbuf *out)
{
	if (cpu.invariant_tsc)
		sb_printf(out, " constant_tsc");
	if (cpu.pmu_version)
		sb_printf(out, " arch_perfmon");
	if (cpu.invariant_tsc)
		sb_printf(out, " nonstop_tsc");
	if (cpu.crystal_hz)
		sb_printf(out, " tsc_known_freq");
}

void cpuinfo_flags(struct seqbuf *out)
{
	sb_printf(out, "flags\t\t:");
	for (unsigned i = 0; i < ARRAY_SIZE(flags); i++) {
		const struct flag *f = &flags[i];
		if (i > 0 && flags[i - 1].leaf == 0x80000001 && f->leaf == 1 &&
		    f->reg == ECX && f->bit == 0)
			synthetic_flags(out);
		if (!leaf_exists(f->leaf))
			continue;
		if (reg_of(cpuid(f->leaf, f->sub), f->reg) >> f->bit & 1)
			sb_printf(out, " %s", f->name);
	}
	sb_printf(out, "\n");
}

/* "cache size" as Linux gives it: Intel's last-level cache from leaf 4,
 * otherwise the L2 size from leaf 8000_0006H. */
static uint32_t cache_kb(void)
{
	uint32_t kb = 0;
	if (strcmp(cpu.vendor, "GenuineIntel") == 0 && leaf_exists(4)) {
		for (uint32_t i = 0; i < 16; i++) {
			struct cpuid_regs r = cpuid(4, i);
			if ((r.eax & 31) == 0)
				break;
			kb = (uint32_t)((uint64_t)((r.ebx >> 22) + 1) *
					(((r.ebx >> 12) & 0x3ff) + 1) *
					((r.ebx & 0xfff) + 1) * (r.ecx + 1) / 1024);
		}
	}
	if (!kb && leaf_exists(0x80000006))
		kb = cpuid(0x80000006, 0).ecx >> 16;
	return kb;
}

static void address_sizes(struct seqbuf *out)
{
	uint32_t a = leaf_exists(0x80000008) ? cpuid(0x80000008, 0).eax : 0x3024;
	sb_printf(out, "address sizes\t: %u bits physical, %u bits virtual\n",
		  a & 0xff, (a >> 8) & 0xff);
}

/* Online CPUs in `package`: all of them, and those that are a core's
 * first thread (how many cores it has). */
static void package_counts(uint32_t package, unsigned *siblings, unsigned *cores)
{
	*siblings = *cores = 0;
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		if (!percpu_area[c].online)
			continue;
		struct cpu_topology t = topology_of(percpu_area[c].apic_id);
		if (t.package != package)
			continue;
		++*siblings;
		*cores += t.thread == 0;
	}
}

void cpuinfo_block(struct seqbuf *out, unsigned i, uint32_t apic_id)
{
	uint64_t khz = tsc_hz() / 1000;
	uint32_t clflush = ((cpuid(1, 0).ebx >> 8) & 0xff) * 8;
	struct cpu_topology t = topology_of(apic_id);
	unsigned siblings, cores;
	package_counts(t.package, &siblings, &cores);
	sb_printf(out, "processor\t: %u\nvendor_id\t: %s\ncpu family\t: %u\n"
		  "model\t\t: %u\nmodel name\t: %s\nstepping\t: %u\n"
		  "microcode\t: 0x1\ncpu MHz\t\t: %llu.%03llu\n"
		  "cache size\t: %u KB\n",
		  i, cpu.vendor, cpu.family, cpu.model, cpu.brand, cpu.stepping,
		  (unsigned long long)(khz / 1000), (unsigned long long)(khz % 1000),
		  cache_kb());
	sb_printf(out, "physical id\t: %u\nsiblings\t: %u\ncore id\t\t: %u\n"
		  "cpu cores\t: %u\napicid\t\t: %u\ninitial apicid\t: %u\n"
		  "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: %u\n"
		  "wp\t\t: yes\n",
		  t.package, siblings, t.core, cores ? cores : 1, apic_id, apic_id,
		  cpu.max_leaf);
	cpuinfo_flags(out);
	sb_printf(out, "bugs\t\t:\nbogomips\t: %llu.%02llu\nclflush size\t: %u\n"
		  "cache_alignment\t: %u\n",
		  (unsigned long long)(khz * 2 / 1000),
		  (unsigned long long)(khz * 2 % 1000 / 10), clflush, clflush);
	address_sizes(out);
	sb_printf(out, "power management:\n\n");
}
