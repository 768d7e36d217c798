/*
 * cpio.h: reader for cpio "newc" archives held in memory (the initrd
 * format of Linux, written by `cpio -o -H newc`, magic "070701"; the
 * "070702" crc variant is accepted too and its checksum ignored).
 *
 * Nothing is copied: entries point into the archive. No function reads
 * outside [archive, archive + len), whatever the archive contains.
 */
#ifndef LIBC_LITE_CPIO_H
#define LIBC_LITE_CPIO_H

#include <stddef.h>
#include <stdint.h>

/* One archive member. name and data point into the archive. */
struct cpio_entry {
	const char *name;   /* NUL-terminated, as stored (may start "./") */
	size_t namelen;     /* without the NUL */
	const void *data;
	size_t size;        /* bytes of data */
	uint32_t mode;      /* file type and permission bits (S_IF*, 0777) */
	uint32_t ino;
	uint32_t nlink;
	uint32_t mtime;     /* seconds since the epoch */
};

/* Errors (negative) returned by cpio_next and cpio_find. */
enum cpio_error {
	CPIO_E_BADMAGIC     = -1,  /* header does not start with 07070[12] */
	CPIO_E_TRUNC_HEADER = -2,  /* fewer than 110 header bytes left */
	CPIO_E_TRUNC_NAME   = -3,  /* name runs past the end */
	CPIO_E_TRUNC_DATA   = -4,  /* data runs past the end */
	CPIO_E_BADHEX       = -5,  /* a header field is not 8 hex digits */
	CPIO_E_NAME_NUL     = -6,  /* name does not end in its only NUL */
};

/*
 * Read the entry at *offset (start with *offset = 0).
 * Returns 1 with *out filled and *offset moved past the entry and its
 * padding; 0 at the "TRAILER!!!" entry or when *offset == len (*offset
 * unchanged, so further calls return 0 again); a CPIO_E_* code for
 * malformed input (*out and *offset unchanged).
 * Padding that would run past the end of the archive is tolerated.
 */
int cpio_next(const void *archive, size_t len, size_t *offset,
              struct cpio_entry *out);

/*
 * Find the first entry named path. Leading "/" and "./" are ignored on
 * both sides, and "." alone names the root, like "/" ("./etc/x" matches
 * "/etc/x"). Returns 1 with *out filled, 0 if the archive has no such
 * entry, or a CPIO_E_* code if it is malformed before one is found.
 */
int cpio_find(const void *archive, size_t len, const char *path,
              struct cpio_entry *out);

/* A short English description of a cpio_next/cpio_find result. */
const char *cpio_strerror(int err);

#endif
