/* The initrd (a cpio newc archive from the loader), read-only. */
#ifndef BAREMON_INITRD_H
#define BAREMON_INITRD_H

#include <stdbool.h>
#include <stddef.h>
#include <cpio.h>

void initrd_init(uint64_t phys, uint64_t size);
/* Find a file by path ("/etc/x" or "etc/x"). */
bool initrd_find(const char *path, struct cpio_entry *out);
/* Call fn for every entry; stops early when fn returns false. */
void initrd_foreach(bool (*fn)(const struct cpio_entry *e, void *ctx), void *ctx);

#endif
