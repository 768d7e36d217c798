/* Checked access to user memory; the copying is in uaccess.asm. */
#include <linux/errno.h>
#include "uaccess.h"


/* Set once at boot when CR4.SMAP is on; read by uaccess.asm. */
bool smap_enabled;

struct ex_entry {
	uint64_t fault_ip, fixup_ip;
};
/* .ex_table, then .ex_table_nofault: adjacent (linker.ld). */
extern const struct ex_entry __ex_table_start[], __ex_table_nofault_start[],
	__ex_table_end[];

static const struct ex_entry *ex_find(uint64_t rip)
{
	for (const struct ex_entry *e = __ex_table_start; e < __ex_table_end; e++)
		if (e->fault_ip == rip)
			return e;
	return NULL;
}

uint64_t uaccess_fixup(uint64_t rip)
{
	const struct ex_entry *e = ex_find(rip);
	return e ? e->fixup_ip : 0;
}

bool uaccess_may_resolve(uint64_t rip)
{
	const struct ex_entry *e = ex_find(rip);
	return e && e < __ex_table_nofault_start && !this_cpu()->pagefault_disabled;
}

int copy_from_user(void *dst, const void *usrc, size_t n)
{
	if (!user_range_ok((uint64_t)usrc, n))
		return -EFAULT;
	return uaccess_copy(dst, usrc, n) ? -EFAULT : 0;
}

int copy_to_user(void *udst, const void *src, size_t n)
{
	if (!user_range_ok((uint64_t)udst, n))
		return -EFAULT;
	return uaccess_copy(udst, src, n) ? -EFAULT : 0;
}

int clear_user(void *udst, size_t n)
{
	if (!user_range_ok((uint64_t)udst, n))
		return -EFAULT;
	return uaccess_clear(udst, n) ? -EFAULT : 0;
}

long strncpy_from_user(char *dst, const char *usrc, size_t max)
{
	if (max == 0)
		return -ENAMETOOLONG;
	uint64_t a = (uint64_t)usrc;
	if (a >= USER_TOP)
		return -EFAULT;
	/* Never read past the user half. */
	size_t limit = max;
	if (limit > USER_TOP - a)
		limit = USER_TOP - a;
	int64_t n = uaccess_strncpy(dst, usrc, (int64_t)limit);
	if (n < 0)
		return -EFAULT;
	if ((size_t)n == limit) {
		dst[limit - 1] = 0;
		return limit < max ? -EFAULT : -ENAMETOOLONG;
	}
	return n;
}
