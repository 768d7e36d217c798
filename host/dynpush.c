/*
 * run of a dynamic program: its interpreter and libraries (dynlibs.c)
 * go where the target's ld.so looks for them, once per target, by
 * content. A QEMU the tool starts gets them in its initrd (no transfer
 * at all); on any target each file, the program's too, is asked for
 * first (FRAME_SUM: size, CRC-32C and mode) and pushed only when it is
 * missing or differs (a push sets the mode too), so a second run pushes
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "baremon.h"

static struct dyn_closure closure;

/* The local program a run/stat/record command line names, or NULL. */
static const char *local_program(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[0], "run") != 0)
		return NULL;
	return is_local_program(argv[1]) ? argv[1] : NULL;
}

void dyn_prepare(struct target *t, int argc, char **argv)
{
	const char *prog = local_program(argc, argv);
	char guest[512];
	if (!prog || t->kind != TARGET_QEMU)
		return;
	guest_tmp_path(prog, guest, sizeof(guest));
	if (dyn_closure(prog, t->sysroot, guest, &closure) != 0)
		return; /* said why; the run itself will show the failure */
	size_t max = sizeof(t->qemu_args) / sizeof(t->qemu_args[0]);
	for (int i = 0; i < closure.n && (size_t)t->nqemu + 2 <= max; i++) {
		/* /tmp is a tmpfs over the initrd's: those are pushed */
		if (strncmp(closure.f[i].guest, "/tmp/", 5) == 0)
			continue;
		char *spec;
		if (asprintf(&spec, "%s:%s", closure.f[i].host, closure.f[i].guest) < 0)
			return;
		t->qemu_args[t->nqemu++] = "--add";
		t->qemu_args[t->nqemu++] = spec;
	}
}

/* What the target's copy of a file must match. */
struct file_sum {
	uint64_t size;
	uint32_t crc;
	uint32_t mode; /* st_mode & 07777 */
};

/* Size, CRC-32C and mode of a local file; false if unreadable. */
static bool local_sum(const char *path, struct file_sum *sum)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	sum->mode = st.st_mode & 07777;
	sum->size = 0;
	sum->crc = 0;
	uint8_t b[65536];
	ssize_t n;
	while ((n = read(fd, b, sizeof(b))) > 0) {
		sum->crc = crc32c(sum->crc, b, (size_t)n);
		sum->size += (uint64_t)n;
	}
	close(fd);
	return n == 0;
}

/* Does the target hold path with this size, CRC and mode? (An agent
 * without FRAME_SUM answers EINVAL, one whose answer has no mode is
 * 16 bytes: no.) */
static bool target_has(struct conn *c, const char *path, const struct file_sum *sum)
{
	conn_send(c, FRAME_SUM, CHAN_CONTROL, path, strlen(path) + 1);
	struct frame f;
	do
		conn_next(c, &f);
	while (f.type != FRAME_RESULT);
	return f.len >= 20 && get_le32(f.payload) == 0 && get_le64(f.payload + 4) == sum->size &&
	       get_le32(f.payload + 12) == sum->crc && get_le32(f.payload + 16) == sum->mode;
}

int push_cached(struct conn *c, const char *local, const char *guest, bool *pushed)
{
	struct file_sum sum;
	*pushed = false;
	if (!local_sum(local, &sum)) {
		fprintf(stderr, "baremon: cannot read %s\n", local);
		return EXIT_NOINPUT;
	}
	if (target_has(c, guest, &sum))
		return 0;
	*pushed = true;
	return cmd_push(c, local, guest, true);
}

int dyn_push(struct conn *c, const char *prog, const char *guest_prog)
{
	if (dyn_closure(prog, c->target->sysroot, guest_prog, &closure) != 0)
		return EXIT_NOINPUT;
	int pushed = 0;
	uint64_t bytes = 0, t0 = host_now_ms();
	for (int i = 0; i < closure.n; i++) {
		bool sent;
		int r = push_cached(c, closure.f[i].host, closure.f[i].guest, &sent);
		if (r == EXIT_NOINPUT)
			return r;
		if (r) {
			fprintf(stderr, "baremon: %s needs %s on the target (a target with a "
				"read-only / needs it in its initrd: run-qemu.sh --add-dyn)\n",
				prog, closure.f[i].guest);
			return r;
		}
		if (sent) {
			struct stat st;
			pushed++;
			bytes += stat(closure.f[i].host, &st) == 0 ? (uint64_t)st.st_size : 0;
		}
	}
	if (pushed && c->target->verbose)
		fprintf(stderr, "baremon: pushed %d of the %d files %s needs, %llu bytes in %.2f s\n",
			pushed, closure.n, prog, (unsigned long long)bytes,
			(double)(host_now_ms() - t0) / 1000);
	return 0;
}
