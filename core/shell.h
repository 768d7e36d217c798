/*
 * The kernel's rescue shell (kshell): used instead of /bin/sh when the
 * command line says `kshell` or the initrd has no /bin/sh. It reads
 * command lines from the serial console (interactive) or from a session
 * script in the initrd (session=PATH on the command line), runs built-in
 * commands registered with SHELL_CMD(), and tracks exit statuses; it
 * needs no user space. The language is /bin/sh's (docs/session.md).
 */
#ifndef BAREMON_SHELL_H
#define BAREMON_SHELL_H

#include "kernel.h"

#define SHELL_MAX_ARGS 32

struct shell_cmd {
	const char *name;
	const char *usage;   /* "name ARGS: what it does" for help */
	int (*fn)(int argc, char **argv);
};

#define SHELL_CMD(id, usage_text)                                          \
	static int shell_cmd_##id(int argc, char **argv);                   \
	static const struct shell_cmd shell_entry_##id                      \
		__attribute__((section(".shell_cmds"), used, aligned(8))) =  \
			{ #id, usage_text, shell_cmd_##id };                 \
	static int shell_cmd_##id(int argc, char **argv)

/* Run one command line; returns its status (also stored as $?). */
int shell_run_line(const char *line);
/* Run a script held in memory line by line, echoing each line after the
 * prompt. Returns the status the session ends with. */
int shell_run_script(const char *text, size_t len);
/* Interactive loop on the console; returns when `exit` is used. */
int shell_interactive(void);
/* Exit status of the last command. */
int shell_last_status(void);

#endif
