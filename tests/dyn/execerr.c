/*
 * execerr: exec of dynamic programs whose interpreter (PT_INTERP) is
 * missing or wrong, with Linux's errnos: copies of this program with the
 * interpreter's name patched, and interpreters made for the test.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

static char dir[64];
static uint64_t interp_off, interp_len;
static char *image;
static size_t image_len;

/* This program's file, and where its interpreter's name is in it. */
static int read_self(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return 0;
	image_len = (size_t)st.st_size;
	image = malloc(image_len);
	if (!image || read(fd, image, image_len) != (ssize_t)image_len)
		return 0;
	close(fd);
	const Elf64_Ehdr *eh = (const void *)image;
	const Elf64_Phdr *ph = (const void *)(image + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_INTERP) {
			interp_off = ph[i].p_offset;
			interp_len = ph[i].p_filesz;
		}
	return interp_len > 0;
}

static void write_file(const char *path, const void *data, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		printf("#   cannot write %s\n", path);
	close(fd);
	chmod(path, mode);
}

/* A copy of this program at dir/p-name naming interp (terminated or not). */
static void make_prog(const char *name, const char *interp, int terminated)
{
	char path[128], *copy = malloc(image_len);
	memcpy(copy, image, image_len);
	memset(copy + interp_off, 0, interp_len);
	memcpy(copy + interp_off, interp, strlen(interp));
	if (!terminated)
		memset(copy + interp_off + strlen(interp), 'x', interp_len - strlen(interp));
	snprintf(path, sizeof(path), "%s/p-%s", dir, name);
	write_file(path, copy, image_len, 0755);
	free(copy);
}

/* exec dir/p-name in a child: 0 and the child's exit status in *status
 * when it ran, else the errno. */
static int run(const char *name, int *status)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/p-%s", dir, name);
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { path, "child", NULL };
		execv(path, argv);
		int e = errno;
		write(p[1], &e, sizeof(e));
		_exit(127);
	}
	close(p[1]);
	int err = 0, st = 0;
	if (read(p[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(p[0]);
	waitpid(pid, &st, 0);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return err;
}

static void expect(const char *name, int err, const char *what)
{
	int status, got = run(name, &status);
	if (!CHECK(got == err, "%s: %s", what, err ? strerror(err) : "runs"))
		printf("#   got %s\n", got ? strerror(got) : "no error");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return 42;
	snprintf(dir, sizeof(dir), "/tmp/dx%d", (int)getpid() % 100000);
	mkdir(dir, 0755);
	if (!CHECK(read_self() && interp_len > strlen(dir) + 12, "this program names an interpreter"))
		return abi_done("dyn-execerr");
	char interp[128], text[200];
	memset(text, '#', sizeof(text));

	snprintf(interp, sizeof(interp), "%s/ld.so", dir);
	int fd = open((const char *)image + interp_off, O_RDONLY);
	static char ld[4 << 20];
	ssize_t n = fd >= 0 ? read(fd, ld, sizeof(ld)) : -1;
	close(fd);
	write_file(interp, ld, n > 0 ? (size_t)n : 0, 0755);
	make_prog("good", interp, 1);
	int status = -1;
	CHECK(run("good", &status) == 0 && status == 42,
	      "a program runs with the interpreter it names (exit %d)", status);

	snprintf(interp, sizeof(interp), "%s/missing", dir);
	make_prog("missing", interp, 1);
	expect("missing", ENOENT, "a missing interpreter");

	snprintf(interp, sizeof(interp), "%s/text", dir);
	write_file(interp, text, sizeof(text), 0755);
	make_prog("text", interp, 1);
	expect("text", ELIBBAD, "an interpreter that is not ELF");

	snprintf(interp, sizeof(interp), "%s/short", dir);
	write_file(interp, "\177ELF", 4, 0755);
	make_prog("short", interp, 1);
	expect("short", EIO, "an interpreter shorter than an ELF header");

	snprintf(interp, sizeof(interp), "%s/i386", dir);
	memcpy(text, ld, 64);
	((Elf64_Ehdr *)text)->e_machine = EM_386;
	write_file(interp, text, sizeof(text), 0755);
	make_prog("i386", interp, 1);
	expect("i386", ELIBBAD, "an interpreter for another machine");

	snprintf(interp, sizeof(interp), "%s/noexec", dir);
	write_file(interp, ld, n > 0 ? (size_t)n : 0, 0644);
	make_prog("noexec", interp, 1);
	expect("noexec", EACCES, "an interpreter without execute permission");

	snprintf(interp, sizeof(interp), "%s", dir);
	make_prog("isdir", interp, 1);
	expect("isdir", EACCES, "a directory as the interpreter");

	snprintf(interp, sizeof(interp), "%s/ld.so", dir);
	make_prog("unterminated", interp, 0);
	expect("unterminated", ENOEXEC, "an interpreter name without its NUL");

	char path[400];
	snprintf(path, sizeof(path), "%s/p-trunc", dir);
	write_file(path, image, 64, 0755); /* the header: no program headers */
	expect("trunc", ENOEXEC, "a program cut short after its ELF header");
	snprintf(path, sizeof(path), "%s/p-script", dir);
	write_file(path, "echo not a program\n", 19, 0755);
	expect("script", ENOEXEC, "a text file without #!");

	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return abi_done("dyn-execerr");
}
