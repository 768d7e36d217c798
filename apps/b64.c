/*
 * b64 [FILE]: FILE (default standard input) on standard output as
 * base64 (RFC 4648, 76 characters a line) between two marker lines,
 *   ----- begin b64 NAME -----
 *   ----- end b64 NAME SIZE -----
 * where NAME is FILE's last component ("-" for standard input) and SIZE
 * the bytes encoded, for the reader to check. The interim way to take a file (a record's
 * perf.data) off baremon's serial console: tools/b64-extract.sh finds
 * the lines in a console log and writes the file back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_BYTES 57 /* 76 characters */

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* n (1 to 3) bytes into 4 characters. */
static void quantum(const unsigned char *in, size_t n, char *out)
{
	unsigned v = (unsigned)in[0] << 16 | (n > 1 ? (unsigned)in[1] << 8 : 0) |
		     (n > 2 ? in[2] : 0);
	out[0] = alphabet[v >> 18 & 63];
	out[1] = alphabet[v >> 12 & 63];
	out[2] = n > 1 ? alphabet[v >> 6 & 63] : '=';
	out[3] = n > 2 ? alphabet[v & 63] : '=';
}

static void put_line(const unsigned char *in, size_t n)
{
	char line[80];
	size_t len = 0;
	for (size_t i = 0; i < n; i += 3, len += 4)
		quantum(in + i, n - i < 3 ? n - i : 3, line + len);
	line[len++] = '\n';
	fwrite(line, 1, len, stdout);
}

/* Fill buf with up to n bytes; fewer only at the end. */
static ssize_t read_full(int fd, unsigned char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "-";
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	unsigned long long size = 0;
	unsigned char buf[LINE_BYTES];
	ssize_t n;
	if (argc > 2) {
		fputs("usage: b64 [FILE]\n", stderr);
		return 2;
	}
	if (fd < 0) {
		fprintf(stderr, "b64: %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("----- begin b64 %s -----\n", name);
	while ((n = read_full(fd, buf, sizeof buf)) > 0) {
		put_line(buf, (size_t)n);
		size += (unsigned long long)n;
	}
	printf("----- end b64 %s %llu -----\n", name, size);
	fflush(stdout);
	return n < 0 ? 1 : 0;
}
