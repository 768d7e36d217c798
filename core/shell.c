/*
 * The rescue shell (kshell): the session language of docs/session.md,
 * split into words by libc-lite's split_words() as /bin/sh does, with
 * built-in commands only. `set -e` makes a script stop at the first
 * failing command with that status. At the end of a script the session's
 * status is the last command's. Runs on the boot CPU only; no locking.
 */
#include <stdlib.h>
#include <string.h>
#include <words.h>
#include "log.h"
#include "core/arch/power.h"
#include "serial.h"
#include "shell.h"
#include "core/arch/x86.h"

#define LINE_MAX 512
#define PROMPT "baremon> "

extern const struct shell_cmd __shell_cmds_start[], __shell_cmds_end[];

static int last_status;
static bool stop_on_error;
static bool exit_requested;
static int exit_status;

int shell_last_status(void)
{
	return last_status;
}

static const struct shell_cmd *find_cmd(const char *name)
{
	for (const struct shell_cmd *c = __shell_cmds_start; c < __shell_cmds_end; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return 0;
}

int shell_run_line(const char *line)
{
	char buf[LINE_MAX * 2];   /* room for $? expansions */
	char *argv[SHELL_MAX_ARGS];
	int argc = split_words(line, last_status, buf, sizeof(buf), argv, SHELL_MAX_ARGS);
	if (argc == WORDS_E_QUOTE)
		kprintf("sh: unterminated quote\n");
	else if (argc == WORDS_E_TOO_MANY)
		kprintf("sh: more than %d words\n", SHELL_MAX_ARGS - 1);
	else if (argc == WORDS_E_TOO_LONG)
		kprintf("sh: line too long\n");
	if (argc < 0)
		return last_status = 2;
	if (argc == 0)
		return last_status;
	const struct shell_cmd *c = find_cmd(argv[0]);
	if (!c) {
		kprintf("sh: %s: command not found\n", argv[0]);
		return last_status = 127;
	}
	return last_status = c->fn(argc, argv);
}

int shell_run_script(const char *text, size_t len)
{
	size_t pos = 0;
	while (pos < len && !exit_requested) {
		char line[LINE_MAX];
		size_t n = 0;
		while (pos < len && text[pos] != '\n') {
			if (n + 1 < sizeof(line) && text[pos] != '\r')
				line[n++] = text[pos];
			pos++;
		}
		pos++;
		line[n] = 0;
		kprintf(PROMPT "%s\n", line);
		int st = shell_run_line(line);
		if (st != 0 && stop_on_error && !exit_requested) {
			kprintf("sh: stopping: status %d with set -e\n", st);
			return st;
		}
	}
	return exit_requested ? exit_status : last_status;
}

/* Read one line from the console with echo and backspace. */
static void read_line(char *line, size_t max)
{
	size_t n = 0;
	for (;;) {
		int c = serial_getc();
		if (c < 0) {
			halt(); /* the timer tick wakes us to poll again */
			continue;
		}
		if (c == '\r' || c == '\n') {
			console_write("\n", 1);
			break;
		}
		if ((c == 0x7f || c == 0x08) && n > 0) {
			n--;
			console_write("\b \b", 3);
		} else if (c >= 0x20 && c < 0x7f && n + 1 < max) {
			line[n++] = (char)c;
			char ch = (char)c;
			console_write(&ch, 1);
		}
	}
	line[n] = 0;
}

int shell_interactive(void)
{
	while (!exit_requested) {
		char line[LINE_MAX];
		kprintf(PROMPT);
		read_line(line, sizeof(line));
		shell_run_line(line);
	}
	return exit_status;
}

/* ---- commands that belong to the shell itself ---- */

SHELL_CMD(help, "help: list the commands")
{
	for (const struct shell_cmd *c = __shell_cmds_start; c < __shell_cmds_end; c++)
		kprintf("  %s\n", c->usage);
	return 0;
}

SHELL_CMD(echo, "echo WORDS: print the words")
{
	for (int i = 1; i < argc; i++)
		kprintf("%s%s", argv[i], i + 1 < argc ? " " : "");
	kprintf("\n");
	return 0;
}

SHELL_CMD(true, "true: succeed")
{
	return 0;
}

SHELL_CMD(false, "false: fail with status 1")
{
	return 1;
}

SHELL_CMD(set, "set -e|+e: stop a script at the first failing command (or not)")
{
	if (argc == 2 && strcmp(argv[1], "-e") == 0)
		stop_on_error = true;
	else if (argc == 2 && strcmp(argv[1], "+e") == 0)
		stop_on_error = false;
	else {
		kprintf("set: usage: set -e|+e\n");
		return 2;
	}
	return 0;
}

static int parse_status(int argc, char **argv, const char *cmd, int *status)
{
	*status = last_status;
	if (argc > 2) {
		kprintf("%s: usage: %s [STATUS]\n", cmd, cmd);
		return -1;
	}
	if (argc == 2) {
		char *end;
		long v = strtol(argv[1], &end, 0);
		if (*end || v < 0 || v > 255) {
			kprintf("%s: bad status '%s' (0-255)\n", cmd, argv[1]);
			return -1;
		}
		*status = (int)v;
	}
	return 0;
}

SHELL_CMD(exit, "exit [STATUS]: end the session with STATUS (default: $?)")
{
	int st;
	if (parse_status(argc, argv, "exit", &st))
		return 2;
	exit_requested = true;
	exit_status = st;
	return st;
}

SHELL_CMD(poweroff, "poweroff [STATUS]: power off now, reporting STATUS")
{
	int st;
	if (parse_status(argc, argv, "poweroff", &st))
		return 2;
	machine_exit(st);
}
