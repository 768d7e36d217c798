/*
 * signame.c: names and descriptions of signals (glibc's words), for
 * messages such as the shell's "terminated by signal 11 (SIGSEGV)".
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct signame {
	const char *abbrev;   /* without "SIG" */
	const char *text;
};

static const struct signame names[] = {
	[SIGHUP] = { "HUP", "Hangup" },
	[SIGINT] = { "INT", "Interrupt" },
	[SIGQUIT] = { "QUIT", "Quit" },
	[SIGILL] = { "ILL", "Illegal instruction" },
	[SIGTRAP] = { "TRAP", "Trace/breakpoint trap" },
	[SIGABRT] = { "ABRT", "Aborted" },
	[SIGBUS] = { "BUS", "Bus error" },
	[SIGFPE] = { "FPE", "Floating point exception" },
	[SIGKILL] = { "KILL", "Killed" },
	[SIGUSR1] = { "USR1", "User defined signal 1" },
	[SIGSEGV] = { "SEGV", "Segmentation fault" },
	[SIGUSR2] = { "USR2", "User defined signal 2" },
	[SIGPIPE] = { "PIPE", "Broken pipe" },
	[SIGALRM] = { "ALRM", "Alarm clock" },
	[SIGTERM] = { "TERM", "Terminated" },
	[SIGSTKFLT] = { "STKFLT", "Stack fault" },
	[SIGCHLD] = { "CHLD", "Child exited" },
	[SIGCONT] = { "CONT", "Continued" },
	[SIGSTOP] = { "STOP", "Stopped (signal)" },
	[SIGTSTP] = { "TSTP", "Stopped" },
	[SIGTTIN] = { "TTIN", "Stopped (tty input)" },
	[SIGTTOU] = { "TTOU", "Stopped (tty output)" },
	[SIGURG] = { "URG", "Urgent I/O condition" },
	[SIGXCPU] = { "XCPU", "CPU time limit exceeded" },
	[SIGXFSZ] = { "XFSZ", "File size limit exceeded" },
	[SIGVTALRM] = { "VTALRM", "Virtual timer expired" },
	[SIGPROF] = { "PROF", "Profiling timer expired" },
	[SIGWINCH] = { "WINCH", "Window changed" },
	[SIGIO] = { "IO", "I/O possible" },
	[SIGPWR] = { "PWR", "Power failure" },
	[SIGSYS] = { "SYS", "Bad system call" },
};

#define NNAMES ((int)(sizeof(names) / sizeof(names[0])))

const char *sigabbrev_np(int sig)
{
	return sig > 0 && sig < NNAMES ? names[sig].abbrev : NULL;
}

char *strsignal(int sig)
{
	static char other[32];

	if (sig > 0 && sig < NNAMES && names[sig].text)
		return (char *)names[sig].text;
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(other, sizeof(other), "Real-time signal %d",
		         sig - SIGRTMIN);
	else
		snprintf(other, sizeof(other), "Unknown signal %d", sig);
	return other;
}
