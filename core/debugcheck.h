/*
 * Reports of the debug build's self-checks (heap_debug.c, the spinlock
 * owner checks): a report panics with its message, unless a self-test
 * asked to catch reports, in which case the message is kept for it and
 * the checked operation is dropped.
 */
#ifndef BAREMON_DEBUGCHECK_H
#define BAREMON_DEBUGCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel.h"

/* Report a failed check: returns true when caught, else panics. */
bool debug_report(const char *fmt, ...) __printf(1, 2);
/* Catch the reports made until debug_catch_end() into buf (a self-test;
 * one at a time). Returns how many were caught. */
void debug_catch_begin(char *buf, size_t len);
int debug_catch_end(void);
/* "name+0xoff" for a kernel text address, in buf. */
const char *debug_site(uint64_t addr, char *buf, size_t len);

#endif
