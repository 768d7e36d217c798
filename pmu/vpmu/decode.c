/*
 * Which branch, if any, a single-stepped user instruction was: enough
 * x86-64 decoding to find near branches (Intel SDM vol. 2, the one-byte
 * and 0F opcode maps) and, for conditional ones, whether they were taken
 * - the next instruction is not the one that follows in memory.
 *
 * Legacy prefixes (66, 67, F2, F3, segment overrides and branch hints)
 * and one REX prefix may precede the opcode. Far transfers, SYSCALL,
 * INT n and IRET are not counted as branches (the model's branch events
 * have no far-branch kind).
 */
#include "vpmu.h"

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x66: case 0x67: case 0xf2: case 0xf3:
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
		return true;
	}
	return false;
}

/* FF /2 and /3 are calls, /4 and /5 jumps (near when /2, /4). */
static unsigned group5(uint8_t modrm)
{
	switch (modrm >> 3 & 7) {
	case 2: return VPMU_BR_CALL | VPMU_BR_INDIRECT;
	case 4: return VPMU_BR_JMP | VPMU_BR_INDIRECT;
	}
	return 0;
}

/* A conditional branch of `len` bytes: its kind waits for the outcome. */
static struct vpmu_insn_class conditional(unsigned len)
{
	return (struct vpmu_insn_class){ .cond_len = (uint8_t)len };
}

static struct vpmu_insn_class always(unsigned kind)
{
	return (struct vpmu_insn_class){ .kind = (uint8_t)kind };
}

struct vpmu_insn_class vpmu_decode_class(const uint8_t *b, unsigned len)
{
	unsigned i = 0;
	while (i < len && is_legacy_prefix(b[i]))
		i++;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++; /* REX */
	if (i >= len)
		return always(0);
	uint8_t op = b[i];
	if (op >= 0x70 && op <= 0x7f)           /* Jcc rel8 */
		return conditional(i + 2);
	if (op >= 0xe0 && op <= 0xe3)           /* LOOPNE, LOOPE, LOOP, JrCXZ rel8 */
		return conditional(i + 2);
	switch (op) {
	case 0xe8: return always(VPMU_BR_CALL);         /* CALL rel32 */
	case 0xe9: case 0xeb: return always(VPMU_BR_JMP); /* JMP rel32, rel8 */
	case 0xc2: case 0xc3: return always(VPMU_BR_RET); /* RET imm16, RET */
	case 0xff: return always(i + 1 < len ? group5(b[i + 1]) : 0);
	case 0x0f:
		if (i + 1 < len && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f) /* Jcc rel32 */
			return conditional(i + 6);
		return always(0);
	}
	return always(0);
}

unsigned vpmu_decode_branch(const uint8_t *b, unsigned len, uint64_t ip, uint64_t next_ip)
{
	return vpmu_class_branch(vpmu_decode_class(b, len), ip, next_ip);
}

/* Is b a REP/REPE/REPNE string instruction (MOVS, CMPS, STOS, LODS,
 * SCAS, INS, OUTS with an F2 or F3 prefix)? The CPU single-steps each
 * of its iterations, but retires it once, as the last ends. */
bool vpmu_decode_rep_string(const uint8_t *b, unsigned len)
{
	unsigned i = 0;
	bool rep = false;
	while (i < len && is_legacy_prefix(b[i]))
		rep |= b[i] == 0xf2 || b[i] == 0xf3, i++;
	if (i < len && (b[i] & 0xf0) == 0x40)
		i++; /* REX */
	if (!rep || i >= len)
		return false;
	uint8_t op = b[i];
	return (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f);
}
