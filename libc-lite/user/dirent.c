/*
 * dirent.c: opendir/readdir/closedir over getdents64.
 *
 * Invariant of struct dir: buf[pos..len) holds the records not yet
 * returned; pos == len means the next readdir asks the kernel for more.
 * A dirent returned by readdir stays valid until the next readdir.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct dir {
	int fd;
	size_t pos, len;
	char buf[4096] __attribute__((aligned(8)));
};

DIR *opendir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = malloc(sizeof(*d));
	if (d == NULL) {
		close(fd);
		return NULL;
	}
	d->fd = fd;
	d->pos = d->len = 0;
	return d;
}

struct dirent *readdir(DIR *d)
{
	struct dirent *e;

	if (d->pos >= d->len) {
		ssize_t n = getdents64(d->fd, d->buf, sizeof(d->buf));
		if (n <= 0)
			return NULL;   /* end (errno untouched) or error */
		d->len = (size_t)n;
		d->pos = 0;
	}
	e = (struct dirent *)(d->buf + d->pos);
	d->pos += e->d_reclen;
	return e;
}

int closedir(DIR *d)
{
	int r = close(d->fd);

	free(d);
	return r;
}

int dirfd(DIR *d)
{
	return d->fd;
}
