/*
 * The framebuffer console: the kernel log and the console's output drawn
 * as text on the UEFI GOP framebuffer the loader found, for machines
 * without a serial line. Called with console_lock held (log.c), so it
 * needs no lock of its own.
 */
#ifndef BAREMON_FBCON_H
#define BAREMON_FBCON_H

#include <stdbool.h>
#include <stddef.h>
#include "boot/bootinfo.h"

/* Map and clear the framebuffer, draw `banner` and the log so far.
 * False (and the console stays off) without a usable framebuffer or
 * with fbcon=off. */
bool fbcon_init(const struct boot_framebuffer *fb, const char *banner);
/* Draw text; does nothing while the console is off. */
void fbcon_write(const char *s, size_t n);

#endif
