/*
 * sys/mman.h: memory mappings (libc-lite, user programs).
 * PROT_*, MAP_*, MREMAP_* come from <linux/mman.h>.
 */
#ifndef LIBC_LITE_SYS_MMAN_H
#define LIBC_LITE_SYS_MMAN_H

#include <sys/types.h>
#include <linux/mman.h>

#define MAP_FAILED ((void *)-1)

/* Returns the mapping, or MAP_FAILED with errno set. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);

/* With MREMAP_FIXED, a fifth argument gives the new address. */
void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...);

#endif
