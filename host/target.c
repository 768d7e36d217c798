/*
 * Reaching the machine: a QEMU started through run-qemu.sh with its
 * console on a Unix socket, a QEMU already listening (unix:PATH or
 * tcp:HOST:PORT), a serial device, or (for tests) a program on a socket
 * pair (exec:COMMAND).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "baremon.h"

#ifndef BAREMON_TOP
#define BAREMON_TOP "."
#endif

static __attribute__((noreturn)) void unavailable(const char *fmt, const char *a,
						   const char *b)
{
	fprintf(stderr, "baremon: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n");
	exit(EXIT_UNAVAILABLE);
}

static int connect_unix(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		return fd;
	int e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}

static int connect_tcp(const char *hostport)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	if (!colon || (size_t)(colon - hostport) >= sizeof(host)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = 0;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	if (getaddrinfo(host, colon + 1, &hints, &res) != 0) {
		errno = EHOSTUNREACH;
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *r = res; r; r = r->ai_next) {
		fd = socket(r->ai_family, r->ai_socktype | SOCK_CLOEXEC, r->ai_protocol);
		if (fd >= 0 && connect(fd, r->ai_addr, r->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/* exec:COMMAND: a program speaking on its stdin/stdout (tests). */
static int connect_exec(struct target *t, const char *cmd)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	t->qemu_pid = pid;
	return sv[0];
}

static speed_t baud_constant(long baud)
{
	static const struct { long baud; speed_t c; } rates[] = {
		{ 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 },
		{ 57600, B57600 }, { 115200, B115200 }, { 230400, B230400 },
		{ 460800, B460800 }, { 921600, B921600 },
	};
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i].baud == baud)
			return rates[i].c;
	return 0;
}

/* A tty in raw mode at the given baud (default 115200). */
static int open_serial(const char *spec)
{
	char dev[256];
	long baud = 115200;
	snprintf(dev, sizeof(dev), "%s", spec);
	char *colon = strrchr(dev, ':');
	if (colon) {
		*colon = 0;
		baud = strtol(colon + 1, NULL, 10);
	}
	speed_t speed = baud_constant(baud);
	if (!speed)
		unavailable("--serial %s: unsupported baud rate%s", spec, "");
	int fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		unavailable("cannot open %s: %s", dev, strerror(errno));
	struct termios tio;
	if (tcgetattr(fd, &tio) != 0)
		unavailable("%s is not a terminal: %s", dev, strerror(errno));
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	cfsetispeed(&tio, speed);
	cfsetospeed(&tio, speed);
	if (tcsetattr(fd, TCSANOW, &tio) != 0)
		unavailable("cannot set up %s: %s", dev, strerror(errno));
	tcflush(fd, TCIOFLUSH);
	return fd;
}

/* The last "run-qemu: " line of the log in *msg (run-qemu.sh's verdict:
 * "QEMU failed: ...", "kernel panic: ..."), or "". */
static void last_verdict(const struct target *t, char *msg, size_t size)
{
	char log[300], line[1024];
	snprintf(log, sizeof(log), "%s/run-qemu.log", t->tmpdir);
	msg[0] = 0;
	FILE *f = t->tmpdir[0] ? fopen(log, "r") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "run-qemu: ", 10) && !strstr(line, " CPU(s), "))
			snprintf(msg, size, "%s", line + 10);
	}
	fclose(f);
}

const char *run_qemu_path(void)
{
	static char script[4096];
	const char *top = getenv("BAREMON_TOP") ? getenv("BAREMON_TOP") : BAREMON_TOP;
	snprintf(script, sizeof(script), "%s/run-qemu.sh", top);
	return script;
}

/* Start run-qemu.sh with the console on a socket in a fresh directory. */
static int start_qemu(struct target *t, bool with_agent)
{
	snprintf(t->tmpdir, sizeof(t->tmpdir), "%s/baremon-host.XXXXXX", host_tmpdir());
	if (!mkdtemp(t->tmpdir))
		unavailable("cannot make a temporary directory: %s%s", strerror(errno), "");
	char script[4096], sock[300], serial[320], log[300];
	snprintf(script, sizeof(script), "%s", run_qemu_path());
	snprintf(sock, sizeof(sock), "%s/console.sock", t->tmpdir);
	snprintf(serial, sizeof(serial), "socket:%s", sock);
	snprintf(log, sizeof(log), "%s/run-qemu.log", t->tmpdir);
	const char *argv[sizeof(t->qemu_args) / sizeof(t->qemu_args[0]) + 32];
	int n = 0;
	argv[n++] = script;
	argv[n++] = "--tcg-icount";
	argv[n++] = TARGET_DEFAULT_ICOUNT;
	for (int i = 0; i < t->nqemu; i++)
		argv[n++] = t->qemu_args[i];
	char exp_sock[300], exp_serial[320];
	snprintf(exp_sock, sizeof(exp_sock), "%s/export.sock", t->tmpdir);
	snprintf(exp_serial, sizeof(exp_serial), "socket:%s", exp_sock);
	argv[n++] = "--serial";
	argv[n++] = serial;
	if (t->export_line) {
		/* The virtio console: no per-byte cost, so pushes, pulls
		 * and the kernel's streams move at memory speed
		 * (docs/export.md); the 16550 path is for real lines. */
		argv[n++] = "--export-virtio";
		argv[n++] = exp_serial;
	}
	snprintf(t->qemu_pidfile, sizeof(t->qemu_pidfile), "%s/qemu.pid", t->tmpdir);
	argv[n++] = "--pidfile";
	argv[n++] = t->qemu_pidfile;
	argv[n++] = "--quiet";
	if (with_agent) {
		argv[n++] = "--run";
		argv[n++] = t->export_line ? "agent /dev/export" : "agent";
	}
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		/* Killed with SIGKILL, the tool cannot stop run-qemu.sh
		 * itself: the kernel sends it SIGTERM then. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (!t->verbose) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0)
				dup2(fd, STDERR_FILENO);
		}
		execv(script, (char *const *)argv);
		fprintf(stderr, "baremon: cannot run %s: %s\n", script, strerror(errno));
		_exit(127);
	}
	t->qemu_pid = pid;
	t->agent_running = with_agent;
	/* QEMU creates the sockets once it has started. */
	for (int tries = 0; tries < 600; tries++) {
		stop_check();
		int fd = connect_unix(sock);
		if (fd >= 0 && t->export_line) {
			int efd = connect_unix(exp_sock);
			if (efd < 0)
				unavailable("QEMU's export socket %s: %s", exp_sock, strerror(errno));
			t->console_fd = fd;
			return efd;
		}
		if (fd >= 0)
			return fd;
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			t->qemu_pid = 0;
			char msg[1024];
			last_verdict(t, msg, sizeof(msg));
			unavailable("QEMU did not start: %s%s", msg[0] ? msg : "run-qemu.sh failed", "");
		}
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	unavailable("QEMU's console socket %s never appeared%s", sock, "");
}

/* --export-connect ADDR: the frames' line beside the console's: a
 * socket, or a serial device (/dev/ttyUSB1[:BAUD]) as for --serial. */
static int open_export_line(struct target *t, int console)
{
	const char *a = t->export_device;
	errno = 0;
	int fd = strncmp(a, "unix:", 5) == 0 ? connect_unix(a + 5) :
		 strncmp(a, "tcp:", 4) == 0 ? connect_tcp(a + 4) :
		 a[0] == '/' ? open_serial(a) : -1;
	if (fd < 0)
		unavailable("cannot connect to the export line %s: %s", a,
			    errno ? strerror(errno) :
				    "want unix:PATH, tcp:HOST:PORT or /dev/DEVICE[:BAUD]");
	t->console_fd = console;
	return fd;
}

/* The console's line (or the only line). */
static int open_console_line(struct target *t, bool with_agent)
{
	int fd;
	switch (t->kind) {
	case TARGET_QEMU:
		return start_qemu(t, with_agent);
	case TARGET_SERIAL:
		return open_serial(t->device);
	case TARGET_CONNECT:
		if (strncmp(t->device, "unix:", 5) == 0)
			fd = connect_unix(t->device + 5);
		else if (strncmp(t->device, "tcp:", 4) == 0)
			fd = connect_tcp(t->device + 4);
		else if (strncmp(t->device, "exec:", 5) == 0)
			fd = connect_exec(t, t->device + 5);
		else
			unavailable("--connect %s: want unix:PATH or tcp:HOST:PORT%s", t->device, "");
		if (fd < 0)
			unavailable("cannot connect to %s: %s", t->device, strerror(errno));
		return fd;
	}
	return -1;
}

int target_open(struct target *t, bool with_agent)
{
	t->console_fd = -1;
	if (t->kind == TARGET_QEMU)
		t->export_line = t->export_line && with_agent;
	int fd = open_console_line(t, with_agent);
	if (t->kind != TARGET_QEMU && t->export_device && with_agent) {
		t->export_line = true;
		return open_export_line(t, fd);
	}
	return fd;
}

const char *target_gone_reason(struct target *t)
{
	static char msg[1024];
	if (t->kind != TARGET_QEMU || !t->qemu_pid || t->verbose)
		return NULL;   /* -v: run-qemu.sh said it on stderr */
	if (target_wait(t, 5) < 0)
		return NULL;
	last_verdict(t, msg, sizeof(msg));
	return msg[0] ? msg : NULL;
}

int target_wait(struct target *t, int timeout_s)
{
	if (!t->qemu_pid)
		return -1;
	for (int i = 0; i < timeout_s * 10; i++) {
		stop_check();
		int st;
		if (waitpid(t->qemu_pid, &st, WNOHANG) == t->qemu_pid) {
			t->qemu_pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* Stop what we started and remove its directory: the one place a
 * target the tool started ends (on every exit path, stop.c). */
void target_close(struct target *t)
{
	warm_release(t);   /* a warm target stays up */
	if (t->console_fd >= 0) {
		close(t->console_fd);
		t->console_fd = -1;
	}
	if (t->qemu_pid) {
		/* run-qemu.sh stops QEMU, waits for it and removes its
		 * files before it exits (its EXIT trap). */
		kill(t->qemu_pid, SIGTERM);
		while (waitpid(t->qemu_pid, NULL, 0) < 0 && errno == EINTR)
			;
		t->qemu_pid = 0;
	}
	if (t->tmpdir[0]) {
		char path[300];
		snprintf(path, sizeof(path), "%s/console.sock", t->tmpdir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/export.sock", t->tmpdir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/run-qemu.log", t->tmpdir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/qemu.pid", t->tmpdir);
		unlink(path);
		rmdir(t->tmpdir);
		t->tmpdir[0] = 0;
	}
}
