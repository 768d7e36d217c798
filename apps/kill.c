/*
 * kill [-SIGNAL | -s SIGNAL] PID...: send SIGNAL (default TERM) to each
 * PID. SIGNAL is a number or a name, with or without "SIG" (KILL,
 * SIGKILL, 9). kill -l lists the names. Status 1 if any kill failed.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The signal number for a name or number, or -1. */
static int signal_number(const char *s)
{
	char *end;
	long v;

	if (isdigit((unsigned char)*s)) {
		v = strtol(s, &end, 10);
		return *end || v < 0 || v > 64 ? -1 : (int)v;
	}
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (int sig = 1; sig < 32; sig++) {
		const char *name = sigabbrev_np(sig);
		if (name && strcmp(name, s) == 0)
			return sig;
	}
	return -1;
}

static void list(void)
{
	for (int sig = 1; sig < 32; sig++)
		if (sigabbrev_np(sig))
			printf("%2d %s\n", sig, sigabbrev_np(sig));
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, status = 0;

	if (argc == 2 && strcmp(argv[1], "-l") == 0) {
		list();
		return 0;
	}
	if (i < argc && strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
		sig = signal_number(argv[i + 1]);
		i += 2;
	} else if (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
		sig = signal_number(argv[i] + 1);
		i++;
	}
	if (sig < 0 || i == argc) {
		fprintf(stderr, "usage: kill [-SIGNAL | -s SIGNAL] PID...\n"
		                "       kill -l\n");
		return 2;
	}
	for (; i < argc; i++) {
		char *end;
		long pid = strtol(argv[i], &end, 10);
		if (*argv[i] == '\0' || *end) {
			fprintf(stderr, "kill: %s: not a process id\n", argv[i]);
			status = 1;
		} else if (kill((pid_t)pid, sig) < 0) {
			fprintf(stderr, "kill: (%ld): %s\n", pid, strerror(errno));
			status = 1;
		}
	}
	return status;
}
