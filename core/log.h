/* Kernel console and log. See log.c for the locking rules. */
#ifndef BAREMON_LOG_H
#define BAREMON_LOG_H

#include <stddef.h>
#include "kernel.h"

/* Size of the in-memory log ring (dmesg). */
#define LOG_RING_SIZE (64 * 1024)

/* Copy the log ring, oldest first, into buf; returns bytes copied. */
size_t log_read(char *buf, size_t max);

/* After this, console output stops taking the console lock (panic path:
 * the lock may be held by the CPU that is panicking). */
void log_enter_panic(void);

/* Write text to the console under the console lock ("\n" -> "\r\n"). */
void console_write(const char *s, size_t n);
/* Write bytes unchanged in one piece under the console lock: a binary
 * frame (docs/export.md) never has log text inside it. */
void console_write_raw(const void *p, size_t n);

#endif
