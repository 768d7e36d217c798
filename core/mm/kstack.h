/*
 * Kernel stacks with a guard page: the page just below every kernel stack
 * (task stacks, the AP stacks, the boot stack, the IST stacks) is not
 * mapped, so running off the bottom faults instead of overwriting the
 * memory below. The fault cannot be delivered on that stack, so it
 * becomes a #DF, taken on the IST_DOUBLE_FAULT stack (exceptions.c),
 * which panics with "kernel stack overflow".
 */
#ifndef BAREMON_KSTACK_H
#define BAREMON_KSTACK_H

#include <stddef.h>
#include <stdint.h>

/* A stack of `size` bytes (a multiple of the page size) with a guard
 * page below it: returns its lowest usable address (direct map), or 0
 * when memory runs out. */
uint64_t kstack_alloc(size_t size);
/* The same, from NUMA node `node`'s memory when it has room (a CPU's
 * own stacks, placed at boot). */
uint64_t kstack_alloc_node(size_t size, unsigned node);
void kstack_free(uint64_t base, size_t size);

/* Make the page below a static stack (boot, IST) its guard; `base` is
 * the stack's lowest address, page aligned. Boot only. */
void kstack_guard_static(uint64_t base);

#endif
