/*
 * Typing and filtering branch records by decoding their instructions
 * (see branch_type.h). The decoder is the vpmu's (decode.c), which
 * knows every near branch form; a record whose instruction cannot be
 * read or is no near branch is of no kind (kept only by ANY, untyped).
 *
 * No locking: works on the caller's entries and the current task's
 * user memory.
 */
#include <linux/perf_event.h>
#include "core/mm/uaccess.h"
#include "pmu/vpmu/vpmu.h"
#include "branch_type.h"

#define X86_MAX_INSN 15
#define PAGE_BYTES 4096ULL
#define BR(x) PERF_SAMPLE_BRANCH_##x
#define KINDS (BR(ANY) | BR(ANY_CALL) | BR(ANY_RETURN) | BR(IND_CALL) | BR(COND) | \
	       BR(IND_JUMP) | BR(CALL))

/* The kind of the user branch from -> to (VPMU_BR_*), 0: none known. */
static unsigned kind_at(uint64_t from, uint64_t to)
{
	uint8_t bytes[X86_MAX_INSN];
	unsigned len = X86_MAX_INSN;
	if (copy_from_user(bytes, (const void *)from, len) != 0) {
		len = (unsigned)(PAGE_BYTES - (from & (PAGE_BYTES - 1)));
		if (len >= X86_MAX_INSN || copy_from_user(bytes, (const void *)from, len) != 0)
			return 0;
	}
	return vpmu_decode_branch(bytes, len, from, to);
}

unsigned branch_type_of_kind(unsigned kind)
{
	bool ind = kind & VPMU_BR_INDIRECT;
	if (kind & (VPMU_BR_COND_TAKEN | VPMU_BR_COND_NOT_TAKEN))
		return PERF_BR_COND;
	if (kind & VPMU_BR_CALL)
		return ind ? PERF_BR_IND_CALL : PERF_BR_CALL;
	if (kind & VPMU_BR_RET)
		return PERF_BR_RET;
	if (kind & VPMU_BR_JMP)
		return ind ? PERF_BR_IND : PERF_BR_UNCOND;
	return PERF_BR_UNKNOWN;
}

bool branch_type_wanted(unsigned kind, uint64_t bst)
{
	bool ind = kind & VPMU_BR_INDIRECT;
	bool call = kind & VPMU_BR_CALL, cond = kind & (VPMU_BR_COND_TAKEN | VPMU_BR_COND_NOT_TAKEN);
	return (bst & BR(ANY)) ||
	       ((bst & BR(ANY_CALL)) && call) ||
	       ((bst & BR(ANY_RETURN)) && (kind & VPMU_BR_RET)) ||
	       ((bst & BR(IND_CALL)) && call && ind) ||
	       ((bst & BR(CALL)) && call && !ind) ||
	       ((bst & BR(COND)) && cond) ||
	       ((bst & BR(IND_JUMP)) && (kind & VPMU_BR_JMP) && ind) ||
	       ((bst & BR(CALL_STACK)) && (call || (kind & VPMU_BR_RET)));
}

uint32_t branch_type_filter(struct perf_branch_entry *entries, uint32_t nr, uint64_t bst)
{
	bool save = bst & BR(TYPE_SAVE);
	if ((bst & KINDS) == BR(ANY) && !save)
		return nr; /* everything wanted, nothing to type */
	uint32_t out = 0;
	for (uint32_t i = 0; i < nr; i++) {
		struct perf_branch_entry e = entries[i];
		unsigned kind = kind_at(e.from, e.to);
		if (!branch_type_wanted(kind, bst))
			continue;
		if (save)
			e.type = branch_type_of_kind(kind) & 0xf;
		entries[out++] = e;
	}
	return out;
}
