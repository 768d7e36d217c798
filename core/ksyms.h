/*
 * The kernel's own symbol table, embedded at build time
 * (tools/gen-ksyms.sh, second link pass): function addresses sorted
 * ascending with their names.
 */
#ifndef BAREMON_KSYMS_H
#define BAREMON_KSYMS_H

#include <stdint.h>

/* Name of the function containing addr and the offset into it; NULL when
 * addr lies outside the kernel's text. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);
/* Address of a function by name, 0 if unknown. */
uint64_t ksym_address(const char *name);
uint64_t ksym_count(void);
/* Entry i (i < ksym_count(), ascending addresses): its name and address. */
const char *ksym_at(uint64_t i, uint64_t *addr);
/* The kernel's text: [start, end). */
void ksym_text(uint64_t *start, uint64_t *end);

#endif
