/*
 * push and pull: a file goes as FILE_BEGIN (mode, size, path),
 * FILE_DATA frames and FILE_END (CRC-32C of the whole file); the
 * receiver checks both and keeps the file only when they match.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "baremon.h"

void guest_tmp_path(const char *local, char *out, size_t size)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", local);
	snprintf(out, size, "/tmp/%s", basename(tmp));
}

bool is_local_program(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Wait for the agent's RESULT; 0, or prints its message and returns it. */
static int wait_result(struct conn *c, const char *what)
{
	struct frame f;
	for (;;) {
		conn_next(c, &f);
		if (f.type == FRAME_RESULT)
			break;
	}
	int err = f.len >= 4 ? (int)get_le32(f.payload) : -EIO;
	if (err) {
		f.payload[f.len < FRAME_MAX_PAYLOAD ? f.len : FRAME_MAX_PAYLOAD - 1] = 0;
		fprintf(stderr, "baremon: %s failed on the target: %s\n", what,
			f.len > 4 ? (char *)f.payload + 4 : strerror(-err));
	}
	return err;
}

int cmd_push(struct conn *c, const char *local, const char *dest, bool quiet)
{
	int fd = open(local, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "baremon: push: cannot read %s: %s\n", local, strerror(errno));
		return EXIT_NOINPUT;
	}
	char path[512];
	if (!dest || dest[strlen(dest) - 1] == '/') {
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%s", local);
		snprintf(path, sizeof(path), "%s%s", dest ? dest : "/tmp/", basename(tmp));
	} else {
		snprintf(path, sizeof(path), "%s", dest);
	}
	uint64_t t0 = host_now_ms();
	uint8_t b[FRAME_MAX_PAYLOAD];
	size_t plen = strlen(path) + 1;
	put_le32(b, st.st_mode & 07777);
	put_le64(b + 4, (uint64_t)st.st_size);
	memcpy(b + 12, path, plen);
	conn_send(c, FRAME_FILE_BEGIN, CHAN_CONTROL, b, 12 + plen);
	uint32_t crc = 0;
	uint64_t total = 0;
	ssize_t n;
	while ((n = read(fd, b, sizeof(b))) > 0) {
		crc = crc32c(crc, b, (size_t)n);
		total += (uint64_t)n;
		conn_send(c, FRAME_FILE_DATA, CHAN_CONTROL, b, (size_t)n);
	}
	close(fd);
	if (n < 0)
		crc = ~crc;   /* the agent will refuse the file */
	put_le32(b, crc);
	conn_send(c, FRAME_FILE_END, CHAN_CONTROL, b, 4);
	if (wait_result(c, "push"))
		return EXIT_IOERR;
	double s = (double)(host_now_ms() - t0) / 1000;
	if (!quiet)
		fprintf(stderr, "baremon: pushed %s to %s: %llu bytes in %.2f s (%.0f bytes/s)\n",
			local, path, (unsigned long long)total, s, s > 0 ? (double)total / s : 0);
	return 0;
}

/* Receive FILE_DATA.. FILE_END into fd; 0 or -EIO on a size/CRC mismatch. */
static int receive_file(struct conn *c, int fd, uint64_t size, uint64_t *total)
{
	struct frame f;
	uint32_t crc = 0;
	*total = 0;
	for (;;) {
		conn_next(c, &f);
		if (f.type == FRAME_FILE_END)
			break;
		if (f.type != FRAME_FILE_DATA)
			continue;
		crc = crc32c(crc, f.payload, f.len);
		*total += f.len;
		if (write(fd, f.payload, f.len) != f.len)
			return -errno;
	}
	/* A file of /proc or /sys says size 0 and has bytes: only a
	 * non-zero size announced is checked; the CRC always is. */
	if (f.len < 4 || get_le32(f.payload) != crc || (size && *total != size))
		return -EIO;
	return 0;
}

int cmd_pull(struct conn *c, const char *path, const char *local, bool quiet)
{
	char tmp[4096], dest[4096], part[4200];
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dest, sizeof(dest), "%s", local ? local : basename(tmp));
	snprintf(part, sizeof(part), "%s.part", dest);
	uint64_t t0 = host_now_ms();
	conn_send(c, FRAME_PULL, CHAN_CONTROL, path, strlen(path) + 1);
	struct frame f;
	do
		conn_next(c, &f);
	while (f.type != FRAME_FILE_BEGIN && f.type != FRAME_RESULT);
	if (f.type == FRAME_RESULT) {
		f.payload[f.len < FRAME_MAX_PAYLOAD ? f.len : FRAME_MAX_PAYLOAD - 1] = 0;
		fprintf(stderr, "baremon: pull: %s\n", f.len > 4 ? (char *)f.payload + 4 : path);
		return EXIT_IOERR;
	}
	if (f.len < 12)
		conn_fail(c, EXIT_PROTOCOL, "pull: malformed FILE_BEGIN");
	uint32_t mode = get_le32(f.payload);
	uint64_t size = get_le64(f.payload + 4);
	int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		conn_fail(c, EXIT_IOERR, "pull: cannot create %s: %s", part, strerror(errno));
	uint64_t total;
	int err = receive_file(c, fd, size, &total);
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && (chmod(part, mode & 0777) != 0 || rename(part, dest) != 0))
		err = -errno;
	if (err) {
		unlink(part);
		fprintf(stderr, "baremon: pull %s: %s\n", path,
			err == -EIO ? "size or CRC mismatch" : strerror(-err));
		return EXIT_IOERR;
	}
	double s = (double)(host_now_ms() - t0) / 1000;
	if (!quiet)
		fprintf(stderr, "baremon: pulled %s to %s: %llu bytes in %.2f s\n", path, dest,
		(unsigned long long)total, s);
	return 0;
}
