/*
 * ACPI table discovery. Table layouts follow the ACPI 6.x specification;
 * every table's checksum is verified before use. Tables live in RAM the
 * direct map covers (ACPI reclaim/NVS regions).
 */
#include <string.h>
#include "acpi.h"
#include "core/cmdline.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "x86.h"

struct acpi_info acpi;

struct rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t ext_checksum;
	uint8_t reserved[3];
} __packed;

struct sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __packed;

struct generic_address {
	uint8_t space, bit_width, bit_offset, access_size;
	uint64_t address;
} __packed;

struct fadt {
	struct sdt_header h;
	uint32_t firmware_ctrl, dsdt;
	uint8_t reserved0, preferred_pm_profile;
	uint16_t sci_int;
	uint32_t smi_cmd;
	uint8_t acpi_enable, acpi_disable, s4bios_req, pstate_cnt;
	uint32_t pm1a_evt_blk, pm1b_evt_blk, pm1a_cnt_blk, pm1b_cnt_blk;
	uint32_t pm2_cnt_blk, pm_tmr_blk, gpe0_blk, gpe1_blk;
	uint8_t pm1_evt_len, pm1_cnt_len, pm2_cnt_len, pm_tmr_len;
	uint8_t gpe0_blk_len, gpe1_blk_len, gpe1_base, cst_cnt;
	uint16_t p_lvl2_lat, p_lvl3_lat, flush_size, flush_stride;
	uint8_t duty_offset, duty_width, day_alrm, mon_alrm, century;
	uint16_t iapc_boot_arch;
	uint8_t reserved1;
	uint32_t flags;
	struct generic_address reset_reg;
	uint8_t reset_value;
	uint16_t arm_boot_arch;
	uint8_t fadt_minor_version;
	uint64_t x_firmware_ctrl, x_dsdt;
	struct generic_address x_pm1a_evt_blk, x_pm1b_evt_blk;
	struct generic_address x_pm1a_cnt_blk, x_pm1b_cnt_blk;
	struct generic_address x_pm2_cnt_blk, x_pm_tmr_blk;
} __packed;

#define FADT_TMR_VAL_EXT (1u << 8)

struct madt {
	struct sdt_header h;
	uint32_t lapic_addr;
	uint32_t flags;
	uint8_t entries[];
} __packed;

#define MADT_PCAT_COMPAT 1u

struct hpet_table {
	struct sdt_header h;
	uint32_t block_id;
	struct generic_address base;
	uint8_t number;
	uint16_t min_tick;
	uint8_t protection;
} __packed;

static const struct sdt_header *tables[64];
static unsigned ntables;

static bool checksum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

static const struct sdt_header *map_table(uint64_t phys)
{
	const struct sdt_header *h = phys_to_virt(phys);
	if (h->length < sizeof(*h) || !checksum_ok(h, h->length)) {
		klog("acpi: table at %#llx (%.4s) has a bad checksum, ignored",
		     (unsigned long long)phys, h->signature);
		return 0;
	}
	return h;
}

const void *acpi_find_table(const char sig[4])
{
	for (unsigned i = 0; i < ntables; i++)
		if (memcmp(tables[i]->signature, sig, 4) == 0)
			return tables[i];
	return 0;
}

static void collect_tables(const struct rsdp *r)
{
	bool x = r->revision >= 2 && r->xsdt;
	const struct sdt_header *root = map_table(x ? r->xsdt : r->rsdt);
	if (!root)
		return;
	size_t width = x ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / width;
	const uint8_t *p = (const uint8_t *)(root + 1);
	for (size_t i = 0; i < n && ntables < ARRAY_SIZE(tables); i++) {
		uint64_t phys = 0;
		memcpy(&phys, p + i * width, width);
		const struct sdt_header *t = phys ? map_table(phys) : 0;
		if (t)
			tables[ntables++] = t;
	}
}

/* A processor entry (type 0 local APIC, type 9 local x2APIC). */
static void madt_cpu(uint32_t apic_id, uint32_t uid, uint32_t flags)
{
	if (!(flags & 3)) /* neither enabled nor online capable */
		return;
	if (apic_id > acpi.max_apic_id)
		acpi.max_apic_id = apic_id;
	if (acpi.ncpus == ACPI_MAX_CPUS) {
		acpi.ncpus_dropped++;
		return;
	}
	acpi.cpus[acpi.ncpus++] = (struct acpi_cpu){
		.apic_id = apic_id, .acpi_uid = uid, .enabled = flags & 1,
		.state = CPU_NOT_TRIED, .cpu = -1 };
}

static void madt_entry(uint8_t type, const uint8_t *e)
{
	if (type == 0) { /* processor local APIC */
		uint32_t flags;
		memcpy(&flags, e + 4, 4);
		madt_cpu(e[3], e[2], flags);
	} else if (type == 9) { /* processor local x2APIC */
		uint32_t id, flags, uid;
		memcpy(&id, e + 4, 4);
		memcpy(&flags, e + 8, 4);
		memcpy(&uid, e + 12, 4);
		madt_cpu(id, uid, flags);
	} else if (type == 1 && acpi.nioapics < ACPI_MAX_IOAPICS) {
		struct acpi_ioapic *io = &acpi.ioapics[acpi.nioapics++];
		io->id = e[2];
		memcpy(&io->phys, e + 4, 4);
		memcpy(&io->gsi_base, e + 8, 4);
	} else if (type == 2 && acpi.noverrides < ACPI_MAX_OVERRIDES) {
		struct acpi_override *o = &acpi.overrides[acpi.noverrides++];
		o->irq = e[3];
		memcpy(&o->gsi, e + 4, 4);
		memcpy(&o->flags, e + 8, 2);
	} else if ((type == 4 || type == 10) && acpi.nlapic_nmis < ACPI_MAX_LAPIC_NMIS) {
		struct acpi_lapic_nmi *n = &acpi.lapic_nmis[acpi.nlapic_nmis++];
		if (type == 4) { /* local APIC NMI: one-byte UID, 0xff = all */
			n->uid = e[2] == 0xff ? ACPI_UID_ALL : e[2];
			memcpy(&n->flags, e + 3, 2);
			n->lint = e[5];
		} else {         /* local x2APIC NMI: four-byte UID */
			memcpy(&n->flags, e + 2, 2);
			memcpy(&n->uid, e + 4, 4);
			n->lint = e[8];
		}
	} else if (type == 5) { /* 64-bit LAPIC address override */
		memcpy(&acpi.lapic_phys, e + 4, 8);
	}
}

const struct acpi_cpu *acpi_cpu_by_apic_id(uint32_t apic_id)
{
	for (unsigned i = 0; i < acpi.ncpus; i++)
		if (acpi.cpus[i].apic_id == apic_id)
			return &acpi.cpus[i];
	return 0;
}

static void parse_madt(void)
{
	const struct madt *m = acpi_find_table("APIC");
	if (!m)
		return;
	acpi.lapic_phys = m->lapic_addr;
	acpi.pic_present = m->flags & MADT_PCAT_COMPAT;
	const uint8_t *p = m->entries, *end = (const uint8_t *)m + m->h.length;
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		madt_entry(p[0], p);
		p += p[1];
	}
}

/*
 * Find \_S5's SLP_TYPa/b in the DSDT's AML without an interpreter: the
 * name "_S5_" followed by PackageOp (0x12), PkgLength, NumElements and
 * then the values as byte constants (0x0a xx) or Zero/One opcodes.
 */
static int aml_small_int(const uint8_t **p, const uint8_t *end, uint8_t *out)
{
	if (*p >= end)
		return -1;
	if (**p == 0x0a && *p + 1 < end) { /* BytePrefix */
		*out = (*p)[1];
		*p += 2;
		return 0;
	}
	if (**p == 0x00 || **p == 0x01) { /* ZeroOp, OneOp */
		*out = **p;
		*p += 1;
		return 0;
	}
	return -1;
}

static void find_s5(const struct sdt_header *dsdt)
{
	const uint8_t *b = (const uint8_t *)dsdt, *end = b + dsdt->length;
	for (const uint8_t *p = b + sizeof(*dsdt); p + 8 < end; p++) {
		if (memcmp(p, "_S5_", 4) != 0 || p[4] != 0x12)
			continue;
		const uint8_t *q = p + 5;
		q += 1 + (*q >> 6); /* skip PkgLength (1-4 bytes) */
		q += 1;             /* NumElements */
		if (aml_small_int(&q, end, &acpi.s5_typa) == 0 &&
		    aml_small_int(&q, end, &acpi.s5_typb) == 0)
			acpi.s5_known = true;
		return;
	}
}

static void parse_fadt(void)
{
	const struct fadt *f = acpi_find_table("FACP");
	if (!f)
		return;
	size_t len = f->h.length;
	acpi.pm_timer_port = f->pm_tmr_blk;
	if (len >= offsetof(struct fadt, x_pm_tmr_blk) + sizeof(f->x_pm_tmr_blk) &&
	    f->x_pm_tmr_blk.space == 1 && f->x_pm_tmr_blk.address)
		acpi.pm_timer_port = (uint32_t)f->x_pm_tmr_blk.address;
	acpi.pm_timer_32bit = f->flags & FADT_TMR_VAL_EXT;
	/* nopmtimer: behave as on a machine whose FADT has no PM timer (a
	 * test aid: QEMU's q35 always has one). */
	if (acpi.pm_timer_port && cmdline_has("nopmtimer")) {
		klog("acpi: pm timer %#x ignored (nopmtimer)", acpi.pm_timer_port);
		acpi.pm_timer_port = 0;
	}
	acpi.pm1a_cnt = f->pm1a_cnt_blk;
	acpi.pm1b_cnt = f->pm1b_cnt_blk;
	acpi.smi_cmd = f->smi_cmd;
	acpi.acpi_enable = f->acpi_enable;
	uint64_t dsdt = f->dsdt;
	if (len >= offsetof(struct fadt, x_dsdt) + 8 && f->x_dsdt)
		dsdt = f->x_dsdt;
	const struct sdt_header *d = dsdt ? map_table(dsdt) : 0;
	if (d)
		find_s5(d);
}

static void parse_hpet(void)
{
	const struct hpet_table *h = acpi_find_table("HPET");
	if (h && h->base.space == 0)
		acpi.hpet_phys = h->base.address;
}

void acpi_init(uint64_t rsdp_phys)
{
	if (!rsdp_phys) {
		klog("acpi: no RSDP from the loader; single CPU, no power-off");
		return;
	}
	const struct rsdp *r = phys_to_virt(rsdp_phys);
	if (memcmp(r->signature, "RSD PTR ", 8) != 0 || !checksum_ok(r, 20)) {
		klog("acpi: RSDP at %#llx is invalid", (unsigned long long)rsdp_phys);
		return;
	}
	acpi.present = true;
	acpi.revision = r->revision;
	memcpy(acpi.oem, r->oem_id, 6);
	collect_tables(r);
	parse_madt();
	parse_fadt();
	parse_hpet();
	klog("acpi: rev %u oem '%s', %u tables, %u cpus, %u ioapics, lapic %#llx",
	     acpi.revision, acpi.oem, ntables, acpi.ncpus + acpi.ncpus_dropped,
	     acpi.nioapics, (unsigned long long)acpi.lapic_phys);
	klog("acpi: highest apic id %u, %u local apic nmi entr%s", acpi.max_apic_id,
	     acpi.nlapic_nmis, acpi.nlapic_nmis == 1 ? "y" : "ies");
	if (acpi.ncpus_dropped)
		klog("acpi: %u more MADT cpus than the %u kept are ignored",
		     acpi.ncpus_dropped, ACPI_MAX_CPUS);
	klog("acpi: pm timer %#x (%s), hpet %#llx, S5 %s (%u/%u)",
	     acpi.pm_timer_port, acpi.pm_timer_32bit ? "32-bit" : "24-bit",
	     (unsigned long long)acpi.hpet_phys,
	     acpi.s5_known ? "found" : "not found", acpi.s5_typa, acpi.s5_typb);
}

#define SLP_EN (1u << 13)

void acpi_poweroff(void)
{
	if (!acpi.s5_known || !acpi.pm1a_cnt)
		return;
	/* If the firmware left ACPI mode off (SCI_EN clear), switch it on. */
	if (!(inw((uint16_t)acpi.pm1a_cnt) & 1) && acpi.smi_cmd && acpi.acpi_enable) {
		outb((uint16_t)acpi.smi_cmd, acpi.acpi_enable);
		for (int i = 0; i < 100000 && !(inw((uint16_t)acpi.pm1a_cnt) & 1); i++)
			cpu_relax();
	}
	outw((uint16_t)acpi.pm1a_cnt, (uint16_t)((acpi.s5_typa << 10) | SLP_EN));
	if (acpi.pm1b_cnt)
		outw((uint16_t)acpi.pm1b_cnt, (uint16_t)((acpi.s5_typb << 10) | SLP_EN));
	for (int i = 0; i < 1000000; i++)
		cpu_relax();
}
