/*
 * cat [FILE...]: copy each FILE ("-" or none: standard input) to
 * standard output. Status 1 if any file could not be read or written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int write_all(const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(1, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy fd to standard output; 0, or -1 with errno set. */
static int copy(int fd)
{
	char buf[8192];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(buf, (size_t)n) < 0)
			return -1;
	}
	return 0;
}

static int cat(const char *name)
{
	int fd = strcmp(name, "-") == 0 ? 0 : open(name, O_RDONLY);

	if (fd < 0 || copy(fd) < 0) {
		fprintf(stderr, "cat: %s: %s\n", name, strerror(errno));
		if (fd > 0)
			close(fd);
		return 1;
	}
	if (fd > 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc == 1)
		return cat("-");
	for (int i = 1; i < argc; i++)
		status |= cat(argv[i]);
	return status;
}
