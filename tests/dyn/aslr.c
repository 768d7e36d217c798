/*
 * aslr: where exec puts a PIE follows /proc/sys/kernel/randomize_va_space
 * (baremon's default is 0, Linux's 2): two runs of this program load at
 * one base with 0 and at two with 1 or 2. Where the file can be written
 * (root), both settings are tried and the old value put back.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

static const char *knob = "/proc/sys/kernel/randomize_va_space";

static int get_knob(void)
{
	char b[16] = "";
	int fd = open(knob, O_RDONLY);
	if (fd < 0 || read(fd, b, sizeof(b) - 1) <= 0)
		b[0] = '?';
	close(fd);
	return b[0] == '?' ? -1 : atoi(b);
}

static int set_knob(int v)
{
	char b[4] = { (char)('0' + v), '\n' };
	int fd = open(knob, O_WRONLY);
	int ok = fd >= 0 && write(fd, b, 2) == 2;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* The address of main in a fresh exec of this program. */
static uintptr_t child_main(void)
{
	int p[2];
	uintptr_t at = 0;
	if (pipe(p) != 0)
		return 0;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execl("/proc/self/exe", "aslr", "child", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &at, sizeof(at)) != sizeof(at))
		at = 0;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return at;
}

static void two_runs(int v)
{
	uintptr_t a = child_main(), b = child_main();
	if (v == 0)
		CHECK(a && a == b, "with randomize_va_space 0 two runs load at one base");
	else
		CHECK(a && b && a != b, "with randomize_va_space %d two runs load at two bases", v);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		uintptr_t at = (uintptr_t)main;
		return write(1, &at, sizeof(at)) == sizeof(at) ? 0 : 1;
	}
	int old = get_knob();
	CHECK(old >= 0 && old <= 2, "randomize_va_space reads 0, 1 or 2");
	uintptr_t a = child_main(), b = child_main();
	CHECK(a && (old == 0) == (a == b), "two runs' bases follow its value");
	if (set_knob(0)) {
		two_runs(0);
		set_knob(2);
		two_runs(2);
		set_knob(old);
		CHECK(get_knob() == old, "its old value is back");
	} else {
		abi_note("%s cannot be written here: the settings were not changed", knob);
	}
	return abi_done("dyn-aslr");
}
