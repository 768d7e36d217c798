/*
 * Ending what the tool started, on every way out (docs/host.md,
 * "Signals and temporary files").
 *
 * SIGINT, SIGTERM and SIGHUP only record the signal: every loop that
 * waits (conn.c's pump and emit, target.c's waits, the shell, bench's
 * assembler) polls in steps of at most 100 ms without SA_RESTART, sees
 * stop_signal and calls stop_now. stop_now asks the agent to end its
 * command (BYE; the agent kills the command's process group), stops the
 * target the tool started (target_close: run-qemu.sh, which stops its
 * QEMU), and dies of the same signal, so the caller sees 128+N, as a
 * shell or perf would. The temporary files of the tool are removed by
 * the functions given to stop_cleanup, which run at exit() too (every
 * error path ends in exit) and from stop_now.
 *
 * Only the main thread runs all this; the handler writes one variable.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "baremon.h"

#define MAX_CLEANUPS 8
#define BYE_WAIT_MS 2000

volatile sig_atomic_t stop_signal;

static struct conn *active_conn;
static struct target *active_target;
static void (*cleanups[MAX_CLEANUPS])(void);
static int ncleanups;
static bool stopping;

static void on_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

static void run_cleanups(void)
{
	while (ncleanups > 0)
		cleanups[--ncleanups]();
}

void stop_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: waits return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(run_cleanups);
}

void stop_cleanup(void (*fn)(void))
{
	if (ncleanups < MAX_CLEANUPS)
		cleanups[ncleanups++] = fn;
}

void stop_watch(struct target *t, struct conn *c)
{
	active_target = t;
	active_conn = c;
}

bool stop_pending(void)
{
	return stop_signal && !stopping;
}

void stop_check(void)
{
	if (stop_pending())
		stop_now();
}

const char *host_tmpdir(void)
{
	const char *d = getenv("TMPDIR");
	return d && d[0] == '/' && strlen(d) < 200 ? d : "/tmp";
}

void stop_now(void)
{
	int sig = stop_signal ? stop_signal : SIGTERM;
	stopping = true;
	if (active_conn)
		conn_cancel(active_conn, (uint32_t)(128 + sig), BYE_WAIT_MS);
	if (active_target)
		target_close(active_target);
	run_cleanups();
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(128 + sig);
}
