/*
 * ACPI tables the kernel reads at boot: MADT (CPUs, LAPIC, IOAPICs,
 * interrupt overrides), FADT (PM timer, S5 power-off, DSDT) and HPET.
 * Parsed once by the boot CPU; the results are read-only afterwards.
 */
#ifndef BAREMON_ACPI_H
#define BAREMON_ACPI_H

#include <stdbool.h>
#include <stdint.h>
#include "gdt.h"

#define ACPI_MAX_CPUS 4096     /* MADT entries kept; beyond: counted only */
#define ACPI_MAX_IOAPICS 8
#define ACPI_MAX_OVERRIDES 16
#define ACPI_MAX_LAPIC_NMIS 16
#define ACPI_UID_ALL 0xffffffffu /* a local APIC NMI entry for every CPU */

/* What became of a MADT CPU at boot (smp.c writes it, once, before any
 * reader runs). */
enum cpu_boot_state {
	CPU_NOT_TRIED,        /* disabled in the MADT, or nosmp */
	CPU_ONLINE,           /* running: `cpu` is its number */
	CPU_FAILED,           /* did not answer INIT-SIPI-SIPI in time */
	CPU_OVER_LIMIT,       /* beyond MAX_CPUS: not started */
	CPU_NO_MEMORY,        /* no pages for its stack */
	CPU_NEEDS_X2APIC,     /* APIC ID > 254 on a CPU without x2APIC */
};

struct acpi_cpu {
	uint32_t apic_id;
	uint32_t acpi_uid;
	bool enabled;         /* usable now (or online-capable) */
	uint8_t state;        /* enum cpu_boot_state */
	int cpu;              /* its CPU number when online, else -1 */
};

/* A local APIC input wired to NMI (MADT types 4 and 10). */
struct acpi_lapic_nmi {
	uint32_t uid;         /* the CPU's ACPI processor UID, or ACPI_UID_ALL */
	uint8_t lint;         /* LINT0 or LINT1 */
	uint16_t flags;       /* MPS INTI flags: polarity bits 1:0 */
};

struct acpi_ioapic {
	uint32_t id, phys, gsi_base;
};

struct acpi_override {        /* ISA IRQ -> global system interrupt */
	uint8_t irq;
	uint32_t gsi;
	uint16_t flags;
};

struct acpi_info {
	bool present;
	char oem[7];
	uint8_t revision;          /* RSDP revision: 0 = ACPI 1.0, 2+ = XSDT */
	unsigned ncpus;            /* entries in cpus[] */
	unsigned ncpus_dropped;    /* MADT CPUs beyond ACPI_MAX_CPUS */
	struct acpi_cpu cpus[ACPI_MAX_CPUS];
	uint64_t lapic_phys;
	bool pic_present;          /* MADT PCAT_COMPAT: legacy 8259s present */
	unsigned nioapics;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	unsigned noverrides;
	struct acpi_override overrides[ACPI_MAX_OVERRIDES];
	unsigned nlapic_nmis;
	struct acpi_lapic_nmi lapic_nmis[ACPI_MAX_LAPIC_NMIS];
	uint32_t max_apic_id;      /* the highest APIC ID in the MADT */
	/* FADT */
	uint32_t pm_timer_port;    /* 0 if none */
	bool pm_timer_32bit;
	uint32_t pm1a_cnt, pm1b_cnt;
	bool s5_known;
	uint8_t s5_typa, s5_typb;
	uint32_t smi_cmd;
	uint8_t acpi_enable;
	/* HPET */
	uint64_t hpet_phys;        /* 0 if none */
};

extern struct acpi_info acpi;

/* Parse from the RSDP the loader found; logs what was found. */
void acpi_init(uint64_t rsdp_phys);
/* Find a table by signature; NULL if absent or its checksum is bad. */
const void *acpi_find_table(const char sig[4]);
/* The MADT entry of the CPU with this APIC ID; NULL if none. */
const struct acpi_cpu *acpi_cpu_by_apic_id(uint32_t apic_id);
/* Enter S5 (soft off). Returns only if that failed. */
void acpi_poweroff(void);

#endif
