/*
 * sh.h: the session shell, /bin/sh on baremon (and a program like any
 * other on Linux). The language (docs/session.md, libc-lite's words.h):
 * blanks separate words, "..." and '...' quote, # at the start of a word
 * begins a comment, $? is the last status (not inside '...'); built-ins
 * help, cd, pwd, echo, true, false, set -e/+e, exit [N]; anything else is
 * a program found in $PATH (/bin when unset), run with fork + execve and
 * waited for with wait4.
 *
 * Statuses: a program's exit code; 128 + N when signal N killed it; 127
 * when no such program exists, 126 when it cannot be executed; 2 for a
 * syntax or usage error. One process, one thread: the state is global.
 */
#ifndef SH_H
#define SH_H

#include <stdbool.h>
#include <stddef.h>

#define SH_LINE_MAX 1024   /* longer lines are cut */
#define SH_MAX_ARGS 64     /* words per command, with the NULL */
#define SH_PROMPT "baremon> "

struct shell_state {
	int last_status;       /* $? */
	bool stop_on_error;    /* set -e */
	bool interactive;      /* reading a terminal: prompt, no echo */
	bool exit_requested;   /* the exit built-in ran */
	int exit_status;       /* its status */
};
extern struct shell_state sh;

/* If argv[0] is a built-in, run it, set *status and return true. */
bool sh_builtin(int argc, char **argv, int *status);

/* Run a program and wait for it; returns the status as described above. */
int sh_exec(char **argv);

/* Reap adopted orphans from now on, at the prompt and while a command
 * runs (exec.c). */
void sh_reap_orphans_init(void);

/* Run one line; returns its status, which also becomes $?. */
int sh_run_line(const char *line);

#endif
