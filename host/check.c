/*
 * Everything local is checked before a machine is started or reached
 * (docs/host.md, "Exit status"): the command and the number of its
 * arguments, the syntax of stat's, record's and bench's options (their
 * own parsers, opts_*.c), the event names the host can judge
 * (evcheck.c), and the local files a command would push or write. A
 * usage error exits EXIT_USAGE, a local file that cannot be read
 * EXIT_NOINPUT, one that cannot be written EXIT_CANTCREAT; help (CMD -h,
 * CMD --help, help CMD) prints to stdout and exits 0.
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
#include "host/guestopts.h"

static __attribute__((noreturn)) void usage_error(const char *cmd, const char *fmt,
						   const char *arg)
{
	fprintf(stderr, "baremon: %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	if (!help_command_to(cmd, stderr))
		help_usage(stderr);
	exit(EXIT_USAGE);
}

static void nargs(int argc, char **argv, int lo, int hi, const char *what)
{
	if (argc - 1 < lo || argc - 1 > hi)
		usage_error(argv[0], "%s", what);
}

/* A path meant as a file here: ./prog or ../prog (the target has no
 * such working directory); others may name the target's files. */
static bool meant_local(const char *s)
{
	return !strncmp(s, "./", 2) || !strncmp(s, "../", 3);
}

/* A program to push: it must be a readable executable file. */
void check_program(const char *cmd, const char *path)
{
	if (!meant_local(path) || is_local_program(path))
		return;
	struct stat st;
	const char *why = stat(path, &st) != 0 ? strerror(errno) :
			  !S_ISREG(st.st_mode) ? "not a regular file" : "not executable";
	fprintf(stderr, "baremon: %s: %s: %s\n", cmd, path, why);
	exit(EXIT_NOINPUT);
}

void check_readable(const char *cmd, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int e = errno;
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		e = EISDIR;
	if (fd < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "baremon: %s: cannot read %s: %s\n", cmd, path,
			e == EISDIR ? "not a regular file" : strerror(e));
		exit(EXIT_NOINPUT);
	}
	close(fd);
}

/* record -o FILE, session --junit FILE: its directory must take a new
 * file. */
static void check_writable(const char *cmd, const char *path)
{
	char copy[4096];
	snprintf(copy, sizeof(copy), "%s", path);
	const char *dir = dirname(copy);
	if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "baremon: %s: cannot write %s: %s\n", cmd, path, strerror(errno));
		exit(EXIT_CANTCREAT);
	}
}

/* The -o of record's options (the last one wins), or NULL. */
static const char *record_output(char **argv, int prog)
{
	const char *out = NULL;
	for (int i = 1; i < prog; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < prog)
			out = argv[++i];
		else if (!strncmp(argv[i], "--output=", 9))
			out = argv[i] + 9;
		else if (!strncmp(argv[i], "-o", 2) && argv[i][2])
			out = argv[i] + 2;
	}
	return out;
}

static void check_perf_tool(int argc, char **argv)
{
	struct guest_args g;
	bool record = !strcmp(argv[0], "record");
	int r = (record ? record_options : stat_options)(argc, argv, &g);
	if (r < 0)
		exit(0);
	if (r > 0)
		exit(EXIT_USAGE);
	if (!events_check(argv[0], g.events, g.nevents))
		exit(EXIT_USAGE);
	for (int i = g.prog; i < argc; i++)
		check_program(argv[0], argv[i]);
	const char *out = record ? record_output(argv, g.prog) : NULL;
	if (out && strcmp(out, "-"))
		check_writable(argv[0], out);
}

static bool is_help(const char *a)
{
	return a && (!strcmp(a, "-h") || !strcmp(a, "--help"));
}

void check_command(int argc, char **argv)
{
	const char *cmd = argv[0];
	if (!strcmp(cmd, "help")) {
		nargs(argc, argv, 0, 1, "help [COMMAND]");
		if (argc == 1)
			help_usage(stdout);
		else if (!help_command_to(argv[1], stdout))
			usage_error("help", "no command '%s'", argv[1]);
		exit(0);
	}
	if (argc > 1 && is_help(argv[1])) {
		if (!help_command_to(cmd, stdout))
			usage_error(cmd, "%s", "unknown command");
		exit(0);
	}
	if (!strcmp(cmd, "run")) {
		nargs(argc, argv, 1, 1 << 20, "which command?");
		check_program(cmd, argv[1]);
	} else if (!strcmp(cmd, "push")) {
		nargs(argc, argv, 1, 2, "FILE [DEST]");
		check_readable(cmd, argv[1]);
	} else if (!strcmp(cmd, "pull")) {
		nargs(argc, argv, 1, 2, "PATH [LOCAL]");
	} else if (!strcmp(cmd, "stat") || !strcmp(cmd, "record")) {
		check_perf_tool(argc, argv);
	} else if (!strcmp(cmd, "session")) {
		nargs(argc, argv, 1, 3, "FILE [--junit OUT]");
		if (argc > 2 && (argc != 4 || strcmp(argv[2], "--junit")))
			usage_error(cmd, "%s", "FILE [--junit OUT]");
		check_readable(cmd, argv[1]);
		if (argc == 4)
			check_writable(cmd, argv[3]);
		session_check(argv[1]);
	} else if (!strcmp(cmd, "shell") || !strcmp(cmd, "poweroff") || !strcmp(cmd, "list") ||
		   !strcmp(cmd, "down") || !strcmp(cmd, "status")) {
		nargs(argc, argv, 0, 0, "takes no arguments");
	} else if (!strcmp(cmd, "up")) {
		if (argc != 1 && (argc != 3 || strcmp(argv[1], "--idle") ||
				  strspn(argv[2], "0123456789") != strlen(argv[2]) || !argv[2][0]))
			usage_error(cmd, "%s", "want up [--idle MINUTES]");
	} else if (strcmp(cmd, "bench")) {
		fprintf(stderr, "baremon: '%s' is not a baremon command\n", cmd);
		help_usage(stderr);
		exit(EXIT_USAGE);
	}
}
