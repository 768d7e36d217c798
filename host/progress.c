/*
 * Waiting for a boot (docs/host.md, "Targets"): what counts as progress
 * while the agent has not answered yet, and what a terminal is shown.
 *
 * OVMF prints nothing for its first 3 s of CPU (35 s at -icount shift
 * 0), and on a busy host the kernel's lines and the agent's start come
 * seconds apart, so until the agent answers, besides console text,
 * QEMU's own CPU time counts: a QEMU that runs, or waits for a CPU
 * (a thread in state R), is booting. One silent
 * for BOOT_SILENT_CPU_S seconds of its CPU time is stuck, whatever the
 * host's load. The phase (firmware,
 * loader, kernel, agent) comes from the console's lines; on a terminal
 * a status line on stderr says which one we wait for, and for how long.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "baremon.h"

#define BOOT_SILENT_CPU_S 300

static const char *const phase_name[] = {
	"the firmware (OVMF)", "the loader", "the kernel", "the agent",
};

void boot_watch_line(struct conn *c, const char *line)
{
	int phase = c->boot.phase;
	if (strstr(line, "BdsDxe: ") || strstr(line, "baremon-loader: "))
		phase = 1;
	if (!strncmp(line, "baremon ", 8) && strstr(line, " booting"))
		phase = 2;
	if (strstr(line, "init: started "))
		phase = 3;
	if (phase > c->boot.phase)
		c->boot.phase = phase;
	c->boot.silent_ticks = 0;
}

/* QEMU's pid from its pidfile (run-qemu.sh --pidfile), once it is there. */
static pid_t qemu_pid(struct conn *c)
{
	if (c->boot.pid || !c->target || !c->target->qemu_pidfile[0])
		return c->boot.pid;
	FILE *f = fopen(c->target->qemu_pidfile, "r");
	long pid = 0;
	if (f && fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	if (f)
		fclose(f);
	c->boot.pid = (pid_t)pid;
	return c->boot.pid;
}

/* utime + stime of pid, in clock ticks (0 when unknown). */
static unsigned long long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	unsigned long long ut = 0, st = 0;
	/* after ") ": state, then fields 4..13; utime is 14, stime 15 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return 0;
	return ut + st;
}

/* Is one of pid's threads running or waiting for a CPU (state R)? On
 * a busy host QEMU may wait seconds for one: that is not a hang. */
static bool runnable(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	bool r = false;
	while (d && !r && (e = readdir(d))) {
		char stat[400], buf[512];
		if (e->d_name[0] == '.')
			continue;
		snprintf(stat, sizeof(stat), "%s/%s/stat", path, e->d_name);
		FILE *f = fopen(stat, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		char *p = strrchr(buf, ')');
		r = p && p[1] && p[2] == 'R';
	}
	if (d)
		closedir(d);
	return r;
}

bool boot_watch_ran(struct conn *c)
{
	/* A warm target's agent serves already: frames are the progress
	 * (an idle QEMU under -icount sleep=off runs flat out). */
	if (c->target && c->target->warm_ready)
		return false;
	pid_t pid = qemu_pid(c);
	if (!pid)
		return false;
	unsigned long long now = cpu_ticks(pid);
	bool ran = now > c->boot.cpu || runnable(pid);
	if (now > c->boot.cpu && c->boot.cpu)
		c->boot.silent_ticks += now - c->boot.cpu;
	c->boot.cpu = now;
	long hz = sysconf(_SC_CLK_TCK);
	return ran && c->boot.silent_ticks < (unsigned long long)BOOT_SILENT_CPU_S * (hz > 0 ? hz : 100);
}

void boot_watch_show(struct conn *c)
{
	if (!c->boot.start_ms)
		c->boot.start_ms = host_now_ms();
	if ((c->target && c->target->verbose) || !isatty(STDERR_FILENO))
		return;
	uint64_t s = (host_now_ms() - c->boot.start_ms) / 1000;
	if (s < 1 || (s == c->boot.shown_s && c->boot.shown))
		return;   /* a warm target answers at once: no flash */
	fprintf(stderr, "\rbaremon: waiting for %s (%llu s)\033[K", phase_name[c->boot.phase],
		(unsigned long long)s);
	c->boot.shown = true;
	c->boot.shown_s = s;
}

void boot_watch_done(struct conn *c)
{
	if (c->boot.shown)
		fprintf(stderr, "\r\033[K");
	c->boot.shown = false;
}
