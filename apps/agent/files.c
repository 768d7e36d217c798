/*
 * Files between host and guest. A push is written to PATH.part and
 * renamed over PATH only when its size and CRC-32C match what the host
 * announced, so a failed upload never leaves a half file under the name.
 * A pull sends FILE_BEGIN, FILE_DATA frames and FILE_END (docs/export.md).
 * A push makes the directories its path needs (a library's /lib64/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "agent.h"

#define PATH_LEN 512

static struct {
	int fd;              /* -1 when no push is in progress */
	int err;             /* first error (negative errno), reported at the end */
	uint32_t mode;
	uint64_t size, got;
	uint32_t crc;
	char path[PATH_LEN], part[PATH_LEN + 8];
} push = { .fd = -1 };

static struct {
	int fd;              /* -1 when no pull is in progress */
	uint32_t crc;
} pull = { .fd = -1 };

/* Parse u32 mode, u64 size, path. False when malformed. */
static bool parse_begin(const uint8_t *p, size_t n, uint32_t *mode,
			uint64_t *size, char *path)
{
	if (n < 13 || n - 12 > PATH_LEN || p[n - 1] != 0)
		return false;
	*mode = get_le32(p);
	*size = get_le64(p + 4);
	memcpy(path, p + 12, n - 12);
	return path[0] != 0;
}

/* mkdir -p of path's directory (mode 0755); errors show at the open. */
static void make_parents(const char *path)
{
	char dir[PATH_LEN];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(dir, 0755);
		*s = '/';
	}
}

void push_begin(const uint8_t *p, size_t n)
{
	if (push.fd >= 0)
		close(push.fd);
	push.fd = -1;
	push.err = 0;
	push.got = 0;
	push.crc = 0;
	if (!parse_begin(p, n, &push.mode, &push.size, push.path)) {
		push.err = -EINVAL;
		return;
	}
	snprintf(push.part, sizeof(push.part), "%s.part", push.path);
	make_parents(push.path);
	push.fd = open(push.part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (push.fd < 0)
		push.err = -errno;
}

void push_data(const uint8_t *p, size_t n)
{
	if (push.err || push.fd < 0)
		return;
	push.crc = crc32c(push.crc, p, n);
	push.got += n;
	while (n) {
		ssize_t r = write(push.fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			push.err = r < 0 ? -errno : -ENOSPC;
			return;
		}
		p += r;
		n -= (size_t)r;
	}
}

void push_end(const uint8_t *p, size_t n)
{
	int err = push.err;
	if (!err && push.fd < 0)
		err = -EINVAL;   /* FILE_END without FILE_BEGIN */
	if (!err && (n < 4 || push.got != push.size || get_le32(p) != push.crc))
		err = -EIO;
	if (push.fd >= 0 && close(push.fd) != 0 && !err)
		err = -errno;
	push.fd = -1;
	if (!err && chmod(push.part, push.mode & 07777) != 0)
		err = -errno;
	if (!err && syscall(SYS_rename, push.part, push.path) != 0)
		err = -errno;
	if (err) {
		unlink(push.part);
		char msg[PATH_LEN + 64];
		snprintf(msg, sizeof(msg), "%s: %s", push.path,
			 err == -EIO ? "size or CRC mismatch" : strerror(-err));
		send_result(err, msg);
		return;
	}
	send_result(0, push.path);
}

void pull_start(const uint8_t *p, size_t n)
{
	char path[PATH_LEN];
	if (n == 0 || n > PATH_LEN || p[n - 1] != 0) {
		send_result(-EINVAL, "bad path");
		return;
	}
	memcpy(path, p, n);
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : EISDIR;
		if (fd >= 0)
			close(fd);
		char msg[PATH_LEN + 64];
		snprintf(msg, sizeof(msg), "%s: %s", path, strerror(e));
		send_result(-e, msg);
		return;
	}
	uint8_t b[12 + PATH_LEN];
	put_le32(b, st.st_mode & 07777);
	put_le64(b + 4, (uint64_t)st.st_size);
	memcpy(b + 12, path, n);
	out_send(FRAME_FILE_BEGIN, CHAN_CONTROL, b, 12 + n);
	pull.fd = fd;
	pull.crc = 0;
}

bool pull_active(void)
{
	return pull.fd >= 0;
}

void pull_step(void)
{
	uint8_t buf[FRAME_MAX_PAYLOAD];
	ssize_t n = read(pull.fd, buf, sizeof(buf));
	if (n > 0) {
		pull.crc = crc32c(pull.crc, buf, (size_t)n);
		out_send(FRAME_FILE_DATA, CHAN_CONTROL, buf, (size_t)n);
		return;
	}
	/* End of file or an error: the CRC tells the host which. */
	close(pull.fd);
	pull.fd = -1;
	uint8_t c[4];
	put_le32(c, n == 0 ? pull.crc : ~pull.crc);
	out_send(FRAME_FILE_END, CHAN_CONTROL, c, sizeof(c));
}

void sum_file(const uint8_t *p, size_t n)
{
	char path[PATH_LEN];
	uint8_t buf[FRAME_MAX_PAYLOAD];
	if (n == 0 || n > PATH_LEN || p[n - 1] != 0) {
		send_result(-EINVAL, "bad path");
		return;
	}
	memcpy(path, p, n);
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		err = fd < 0 ? errno : EISDIR;
	uint32_t crc = 0;
	uint64_t size = 0;
	ssize_t got;
	while (!err && (got = read(fd, buf, sizeof(buf))) != 0) {
		if (got < 0) {
			err = errno;
			break;
		}
		crc = crc32c(crc, buf, (size_t)got);
		size += (uint64_t)got;
	}
	if (fd >= 0)
		close(fd);
	put_le32(buf, (uint32_t)-err);
	put_le64(buf + 4, size);
	put_le32(buf + 12, crc);
	put_le32(buf + 16, err ? 0 : st.st_mode & 07777);
	out_send(FRAME_RESULT, CHAN_CONTROL, buf, 20);
}

void files_abort(void)
{
	if (push.fd >= 0) {
		close(push.fd);
		unlink(push.part);
	}
	push.fd = -1;
	if (pull.fd >= 0)
		close(pull.fd);
	pull.fd = -1;
}
