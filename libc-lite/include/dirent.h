/*
 * dirent.h: reading directories (libc-lite, user programs).
 *
 * struct dirent is the record getdents64(2) writes (the kernel's struct
 * linux_dirent64, which has no uapi header): d_reclen bytes long, d_name
 * NUL-terminated inside it, records 8-byte aligned. glibc and musl use the
 * same layout on x86-64. DT_* are the d_type values Linux stores.
 */
#ifndef LIBC_LITE_DIRENT_H
#define LIBC_LITE_DIRENT_H

#include <sys/types.h>

struct dirent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[256];   /* may be shorter in a record: see d_reclen */
};

enum {
	DT_UNKNOWN = 0, DT_FIFO = 1, DT_CHR = 2, DT_DIR = 4, DT_BLK = 6,
	DT_REG = 8, DT_LNK = 10, DT_SOCK = 12, DT_WHT = 14,
};

typedef struct dir DIR;

/* Raw directory reading: fills buf with records, 0 at the end. */
ssize_t getdents64(int fd, void *buf, size_t len);

DIR *opendir(const char *path);
struct dirent *readdir(DIR *d);   /* NULL at the end or on error (errno) */
int closedir(DIR *d);
int dirfd(DIR *d);

#endif
