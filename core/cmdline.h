/*
 * The kernel command line: blank-separated words, each "key" or
 * "key=value" (value may be "double quoted" to hold blanks). Parsed once at
 * boot into a read-only table; documented in docs/cmdline.md.
 */
#ifndef BAREMON_CMDLINE_H
#define BAREMON_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

void cmdline_parse(const char *text);
const char *cmdline_text(void);
/* Value of key, "" for a bare key, NULL when absent. Last one wins. */
const char *cmdline_get(const char *key);
bool cmdline_has(const char *key);
/* Numeric value (decimal or 0x hex) or `dflt` when absent or malformed. */
uint64_t cmdline_get_u64(const char *key, uint64_t dflt);
/* Print a line for each word no code has looked up (a typo, an option of
 * another kernel); call once start-up has read its options. Returns how
 * many. */
unsigned cmdline_report_unknown(void);

#endif
