/*
 * Build ids and perf's build-id cache. perf finds the binary behind a
 * perf.data mapping by the build id the file's BUILD_ID feature gives,
 * under ~/.debug: .build-id/XX/REST (the first
 * byte in hex, then the rest). A regular file there is read as the ELF
 * itself (perf's "old style" cache entry), for user programs and for
 * the kernel alike, and perf accepts it only when its build-id note
 * matches.
 *
 * A binary without a build-id note (the kernel, programs linked with
 * plain ld) gets one: 20 bytes derived from its contents, added to the
 * cached copy as a non-loaded .note.gnu.build-id section by objcopy.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "perfdata.h"

/* The GNU build-id note of an ELF image in memory; its size or 0. */
static size_t find_note(const uint8_t *img, size_t size, uint8_t *id)
{
	const Elf64_Ehdr *eh = (const void *)img;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		return 0;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		size_t off = sh[i].sh_offset, end = off + sh[i].sh_size;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *n = (const void *)(img + off);
			size_t name = off + sizeof(*n);
			size_t desc = name + ((n->n_namesz + 3) & ~3u);
			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(img + name, "GNU", 4) == 0 && n->n_descsz <= BUILD_ID_MAX) {
				memcpy(id, img + desc, n->n_descsz);
				return n->n_descsz;
			}
			off = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

/* 20 bytes from the contents: two FNV-1a hashes and a CRC-32C. */
static void derive_id(const uint8_t *img, size_t size, uint8_t *id)
{
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
	for (size_t i = 0; i < size; i++) {
		h1 = (h1 ^ img[i]) * 0x100000001b3ull;
		h2 = (h2 ^ img[size - 1 - i]) * 0x100000001b3ull;
	}
	put_le64(id, h1);
	put_le64(id + 8, h2);
	put_le32(id + 16, crc32c(0, img, size));
}

static int mkdirs(const char *path)
{
	char tmp[4400];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char buf[65536];
	ssize_t n = 0;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	int ok = in >= 0 && out >= 0 && n == 0;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* objcopy FROM TO, adding the note. */
static int add_note(const char *from, const char *to, const uint8_t *id, size_t len)
{
	char note[] = "/tmp/baremon-note.XXXXXX";
	int fd = mkstemp(note);
	if (fd < 0)
		return -1;
	Elf64_Nhdr n = { .n_namesz = 4, .n_descsz = (Elf64_Word)len, .n_type = NT_GNU_BUILD_ID };
	int ok = write(fd, &n, sizeof(n)) == sizeof(n) && write(fd, "GNU", 4) == 4 &&
		 write(fd, id, len) == (ssize_t)len;
	close(fd);
	char sect[4200];
	snprintf(sect, sizeof(sect), ".note.gnu.build-id=%s", note);
	pid_t pid = ok ? fork() : -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDERR_FILENO);
		execlp("objcopy", "objcopy", "--add-section", sect, "--set-section-flags",
		       ".note.gnu.build-id=readonly", from, to, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	if (pid > 0)
		waitpid(pid, &st, 0);
	unlink(note);
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* perf's default, $HOME/.debug (perf reads no environment variable
 * for it; a test sets HOME). */
static const char *cache_dir(char *buf, size_t size)
{
	const char *home = getenv("HOME");
	snprintf(buf, size, "%s/.debug", home && *home ? home : ".");
	return buf;
}

int buildid_cache_add(const char *path, struct build_id *bid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	uint8_t *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return -1;
	bid->size = find_note(img, (size_t)st.st_size, bid->data);
	bool has_note = bid->size != 0;
	if (!has_note) {
		derive_id(img, (size_t)st.st_size, bid->data);
		bid->size = 20;
	}
	munmap(img, (size_t)st.st_size);

	char dirbuf[4096], dir[4200], file[4300];
	const char *root = cache_dir(dirbuf, sizeof(dirbuf));
	snprintf(dir, sizeof(dir), "%s/.build-id/%02x", root, bid->data[0]);
	int n = snprintf(file, sizeof(file), "%s/", dir);
	for (size_t i = 1; i < bid->size; i++)
		n += snprintf(file + n, sizeof(file) - (size_t)n, "%02x", bid->data[i]);
	if (mkdirs(dir) != 0)
		return -1;
	struct stat cached;
	if (stat(file, &cached) == 0 && S_ISREG(cached.st_mode))
		return 0;   /* already there: same id, same contents */
	unlink(file);
	return has_note ? copy_file(path, file) : add_note(path, file, bid->data, bid->size);
}
