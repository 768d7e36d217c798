/*
 * builtin.c: the commands the shell runs itself, because they change
 * the shell (cd, set, exit) or are used on every line (echo, true,
 * false), plus help and pwd.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sh.h"

struct builtin {
	const char *name;
	const char *usage;
	int (*fn)(int argc, char **argv);
};

static const struct builtin builtins[];

static int do_help(int argc, char **argv)
{
	for (const struct builtin *b = builtins; b->name; b++)
		printf("  %s\n", b->usage);
	printf("Other commands are programs in $PATH (ls /bin).\n");
	return 0;
}

static int do_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	printf("\n");
	return 0;
}

static int do_true(int argc, char **argv)
{
	return 0;
}

static int do_false(int argc, char **argv)
{
	return 1;
}

static int do_cd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("HOME");

	if (argc > 2) {
		fprintf(stderr, "sh: cd: too many arguments\n");
		return 2;
	}
	if (dir == NULL || *dir == '\0')
		dir = "/";
	if (chdir(dir) < 0) {
		fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static int do_pwd(int argc, char **argv)
{
	char buf[PATH_MAX];

	if (getcwd(buf, sizeof(buf)) == NULL) {
		fprintf(stderr, "sh: pwd: %s\n", strerror(errno));
		return 1;
	}
	printf("%s\n", buf);
	return 0;
}

static int do_set(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "-e") == 0)
		sh.stop_on_error = true;
	else if (argc == 2 && strcmp(argv[1], "+e") == 0)
		sh.stop_on_error = false;
	else {
		fprintf(stderr, "sh: set: usage: set -e|+e\n");
		return 2;
	}
	return 0;
}

static int do_exit(int argc, char **argv)
{
	int status = sh.last_status;

	if (argc > 2) {
		fprintf(stderr, "sh: exit: usage: exit [STATUS]\n");
		return 2;
	}
	if (argc == 2) {
		char *end;
		long v = strtol(argv[1], &end, 0);
		if (*argv[1] == '\0' || *end || v < 0 || v > 255) {
			fprintf(stderr, "sh: exit: bad status '%s' (0-255)\n",
			        argv[1]);
			return 2;
		}
		status = (int)v;
	}
	sh.exit_requested = true;
	sh.exit_status = status;
	return status;
}

static const struct builtin builtins[] = {
	{ "help", "help: list the commands", do_help },
	{ "echo", "echo WORDS: print the words", do_echo },
	{ "true", "true: succeed", do_true },
	{ "false", "false: fail with status 1", do_false },
	{ "cd", "cd [DIR]: change directory (default $HOME, else /)", do_cd },
	{ "pwd", "pwd: print the working directory", do_pwd },
	{ "set", "set -e|+e: stop a script at the first failing command "
	         "(or not)", do_set },
	{ "exit", "exit [STATUS]: end the shell with STATUS (default: $?)",
	  do_exit },
	{ NULL, NULL, NULL },
};

bool sh_builtin(int argc, char **argv, int *status)
{
	for (const struct builtin *b = builtins; b->name; b++) {
		if (strcmp(b->name, argv[0]) == 0) {
			*status = b->fn(argc, argv);
			return true;
		}
	}
	return false;
}
