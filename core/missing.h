/*
 * What programs ask for and do not get: system calls that return ENOSYS
 * and path lookups that fail with ENOENT. By default an unknown call is
 * logged once per number; with `log_missing` on the kernel command line
 * (docs/cmdline.md) every such call is logged with its arguments and every
 * failed lookup by a user program with its path: the list of what a
 * Linux tool needs that baremon lacks.
 */
#ifndef BAREMON_MISSING_H
#define BAREMON_MISSING_H

#include <stdbool.h>
#include <stdint.h>

/* Read the command line; before the first user program. */
void missing_init(void);
/* log_missing is on. */
bool missing_logging(void);
/* A call with no handler: log it (once per number unless log_missing). */
void missing_syscall(uint64_t nr, const uint64_t args[6]);
/* A lookup of path gave ENOENT (logged only with log_missing, only for
 * user tasks). */
void missing_path(const char *path);
/* Linux's name of call nr, or NULL for a number Linux does not have. */
const char *linux_syscall_name(uint64_t nr);

#endif
