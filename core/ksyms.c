/* Symbol lookup over the table tools/gen-ksyms.sh embeds. Read-only data:
 * no locking, safe from any context including panic and NMI. */
#include <string.h>
#include "ksyms.h"

extern const uint64_t ksyms_num;
extern const uint64_t ksyms_addr[];
extern const uint32_t ksyms_name_off[];
extern const char ksyms_names[];
extern const char __text_start[], __text_end[];

uint64_t ksym_count(void)
{
	return ksyms_num;
}

const char *ksym_at(uint64_t i, uint64_t *addr)
{
	*addr = ksyms_addr[i];
	return &ksyms_names[ksyms_name_off[i]];
}

void ksym_text(uint64_t *start, uint64_t *end)
{
	*start = (uint64_t)__text_start;
	*end = (uint64_t)__text_end;
}

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	if (addr < (uint64_t)__text_start || addr >= (uint64_t)__text_end ||
	    ksyms_num == 0 || addr < ksyms_addr[0])
		return 0;
	uint64_t lo = 0, hi = ksyms_num; /* find last entry with addr <= addr */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ksyms_addr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksyms_addr[lo];
	return &ksyms_names[ksyms_name_off[lo]];
}

uint64_t ksym_address(const char *name)
{
	for (uint64_t i = 0; i < ksyms_num; i++)
		if (strcmp(&ksyms_names[ksyms_name_off[i]], name) == 0)
			return ksyms_addr[i];
	return 0;
}
