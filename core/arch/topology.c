/*
 * CPU topology from the APIC ID layout. See topology.h.
 *
 * An APIC ID is [package | core | thread] bit fields: the low smt_shift
 * bits number the threads of a core, the bits up to pkg_shift the cores
 * (and dies, modules, tiles) of a package, the rest the package.
 */
#include "topology.h"
#include "cpu.h"
#include "core/kernel.h"
#include "x86.h"

#define LEVEL_INVALID 0
#define LEVEL_SMT     1

static unsigned smt_shift, pkg_shift;
static const char *source = "none (one thread per core, one package)";

/* The smallest s with (1 << s) >= n. */
static unsigned order(uint32_t n)
{
	unsigned s = 0;
	while ((1u << s) < n && s < 31)
		s++;
	return s;
}

/* Leaf 0BH or 1FH: one subleaf per level, each giving the shift to the
 * next level's ID; the last valid level's shift is the package's. */
static bool from_extended_leaf(uint32_t leaf)
{
	if (cpu.max_leaf < leaf || cpuid(leaf, 0).ebx == 0)
		return false;
	bool smt_seen = false;
	for (uint32_t sub = 0; sub < 16; sub++) {
		struct cpuid_regs r = cpuid(leaf, sub);
		uint32_t type = (r.ecx >> 8) & 0xff;
		if (type == LEVEL_INVALID)
			break;
		if (type == LEVEL_SMT) {
			smt_shift = r.eax & 0x1f;
			smt_seen = true;
		}
		pkg_shift = r.eax & 0x1f;
	}
	if (!smt_seen)
		smt_shift = 0;
	return true;
}

/* AMD: 8000_0008H ECX gives the core-ID width of the APIC ID,
 * 8000_001EH EBX the threads per core (with TopologyExtensions). */
static bool from_amd_leaves(void)
{
	if (cpu.max_ext_leaf < 0x80000008)
		return false;
	uint32_t ecx = cpuid(0x80000008, 0).ecx;
	pkg_shift = (ecx >> 12) & 0xf;
	if (!pkg_shift)
		pkg_shift = order((ecx & 0xff) + 1);
	smt_shift = 0;
	if (cpu.max_ext_leaf >= 0x8000001e && (cpuid(0x80000001, 0).ecx >> 22 & 1))
		smt_shift = order(((cpuid(0x8000001e, 0).ebx >> 8) & 0xff) + 1);
	return true;
}

/* Leaf 1: logical CPUs per package; leaf 4: cores per package. */
static void from_legacy_leaves(void)
{
	uint32_t logical = (cpuid(1, 0).ebx >> 16) & 0xff;
	if (!(cpuid(1, 0).edx & (1u << 28)) || logical <= 1)
		return; /* no HTT: one logical CPU per package */
	uint32_t cores = 1;
	if (cpu.max_leaf >= 4)
		cores = (cpuid(4, 0).eax >> 26) + 1;
	pkg_shift = order(logical);
	smt_shift = order(logical / (cores ? cores : 1));
	source = "cpuid 1/4";
}

static bool vendor_amd(void)
{
	return cpu.vendor[0] == 'A' || cpu.vendor[0] == 'H'; /* AuthenticAMD, Hygon */
}

void topology_init(void)
{
	if (from_extended_leaf(0x1f))
		source = "cpuid 1fh";
	else if (from_extended_leaf(0xb))
		source = "cpuid 0bh";
	else if (vendor_amd() && from_amd_leaves())
		source = "cpuid 8000_0008h/8000_001eh";
	else
		from_legacy_leaves();
	if (smt_shift > pkg_shift)
		smt_shift = pkg_shift;
	klog("topology: from %s: apic id >> %u = core, >> %u = package", source,
	     smt_shift, pkg_shift);
}

struct cpu_topology topology_of(uint32_t apic_id)
{
	uint32_t core_bits = pkg_shift - smt_shift;
	return (struct cpu_topology){
		.package = pkg_shift >= 32 ? 0 : apic_id >> pkg_shift,
		.core = (apic_id >> smt_shift) & ((1u << core_bits) - 1),
		.thread = apic_id & ((1u << smt_shift) - 1),
	};
}

const char *topology_source(void) { return source; }
unsigned topology_smt_shift(void) { return smt_shift; }
unsigned topology_pkg_shift(void) { return pkg_shift; }
