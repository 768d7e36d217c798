/*
 * sys/sysmacros.h: a device number's major and minor (libc-lite, user
 * programs), in Linux's encoding of dev_t: minor bits 0-7 and 20-31,
 * major bits 8-19 and 32-43.
 */
#ifndef LIBC_LITE_SYS_SYSMACROS_H
#define LIBC_LITE_SYS_SYSMACROS_H

#include <sys/types.h>

#define major(dev) ((unsigned)((((dev) >> 31 >> 1) & 0xfffff000u) | (((dev) >> 8) & 0xfffu)))
#define minor(dev) ((unsigned)((((dev) >> 12) & 0xffffff00u) | ((dev) & 0xffu)))
#define makedev(x, y) ((dev_t)((((x) & 0xfffff000ull) << 32) | (((x) & 0xfffull) << 8) | \
			       (((y) & 0xffffff00ull) << 12) | ((y) & 0xffull)))

#endif
