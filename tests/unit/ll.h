/*
 * ll.h: libc-lite's API under the names the host tests link against.
 *
 * The build renames every global symbol of libc-lite's host objects to
 * ll_<name> (see the Makefile). Here the generated ll_rename.h turns each
 * name into a macro for ll_<name> while libc-lite's own headers are read,
 * so they declare ll_memcpy, ll_snprintf, ...; ll_unrename.h then removes
 * the macros so that memcpy, snprintf, ... are glibc's again, the oracle.
 *
 * Include system headers before or after this file, as you like. libc-lite
 * headers are included by path, never through -I libc-lite/include, so a
 * test's <string.h> is always glibc's.
 */
#ifndef UNIT_LL_H
#define UNIT_LL_H

#include "ll_rename.h"
#include "libc-lite/include/string.h"
#include "libc-lite/include/ctype.h"
#include "libc-lite/include/stdlib.h"
#include "libc-lite/include/stdio.h"
#include "libc-lite/include/cpio.h"
#include "libc-lite/include/elf64.h"
#include "libc-lite/include/words.h"
#include "ll_unrename.h"

#endif
