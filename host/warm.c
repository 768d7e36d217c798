/*
 * The warm target (docs/host.md, "The warm target"): a QEMU kept
 * running between commands by a keeper process (keeper.c), found
 * through a per-user state directory:
 *
 *   keeper.pid   the keeper; it owns QEMU (run-qemu.sh is its child)
 *   qemu.pid     QEMU's own pid (run-qemu.sh --pidfile)
 *   options      the run-qemu.sh options it was booted with, one a line
 *   console.sock QEMU's console; the agent (agent --serve) runs there
 *   lock         flock()ed by the one command that uses the target
 *   ready        this boot's agent has answered once: HELLO at once
 *   used         touched by each command: the keeper's idle timer
 *   note         why the keeper booted a new machine, for the next command
 *   run-qemu.log run-qemu.sh's messages (its verdict when QEMU stops)
 *
 * A command uses the warm target when one is up with the same target
 * options as its own; the agent gives each command a fresh machine
 * (apps/agent/reset.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "baremon.h"

#define SOCKET_WAIT_S 120

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

const char *warm_dir(void)
{
	static char dir[256];
	if (dir[0])
		return dir;
	const char *env = getenv("BAREMON_STATE");
	const char *run = getenv("XDG_RUNTIME_DIR");
	if (env && env[0])
		snprintf(dir, sizeof(dir), "%s", env);
	else if (run && run[0] && access(run, W_OK) == 0)
		snprintf(dir, sizeof(dir), "%s/baremon", run);
	else
		snprintf(dir, sizeof(dir), "%s/baremon-%u", host_tmpdir(), (unsigned)getuid());
	return dir;
}

void warm_path(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", warm_dir(), name);
}

/* A small state file's text (NUL-terminated), or false. */
bool warm_read(const char *name, char *buf, size_t size)
{
	char path[512];
	warm_path(path, sizeof(path), name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n >= 0;
}

bool warm_write(const char *name, const char *text)
{
	char path[512], part[520];
	warm_path(path, sizeof(path), name);
	snprintf(part, sizeof(part), "%s.new", path);
	int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n;
	close(fd);
	return ok && rename(part, path) == 0;
}

void warm_remove(const char *name)
{
	char path[512];
	warm_path(path, sizeof(path), name);
	unlink(path);
}

static pid_t read_pid(const char *name)
{
	char buf[32];
	return warm_read(name, buf, sizeof(buf)) ? (pid_t)strtol(buf, NULL, 10) : 0;
}

/* Is pid a live process? Not a zombie: a killed keeper whose parent
 * (init, once `up` has exited) has not reaped it yet is gone. */
static bool running(pid_t pid)
{
	char path[64], buf[512];
	if (pid <= 0 || kill(pid, 0) != 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return true;   /* no /proc: kill() said it is there */
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return !p || (p[2] != 'Z' && p[2] != 'X');
}

pid_t warm_keeper(void)
{
	pid_t pid = read_pid("keeper.pid");
	return running(pid) ? pid : 0;
}

/* The options, one a line, of qemu_args[0..n). */
void warm_options_text(char *const *args, int n, char *out, size_t size)
{
	size_t len = 0;
	out[0] = 0;
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s\n", args[i]);
}

/* The options as one line for messages ("(none)" for none). */
static const char *options_line(const char *text)
{
	static char line[1024];
	snprintf(line, sizeof(line), "%s", text[0] ? text : "(none)");
	for (char *s = line; *s; s++)
		if (*s == '\n')
			*s = s[1] ? ' ' : 0;
	return line;
}

/* The target options this command gave (those run-qemu.sh takes). */
static void own_options(const struct target *t, char *out, size_t size)
{
	warm_options_text((char *const *)t->qemu_args, t->nuser, out, size);
}

/* Remove what a keeper that is gone left behind. */
void warm_clean(void)
{
	static const char *const files[] = { "keeper.pid", "qemu.pid", "options", "console.sock",
		"lock", "ready", "used", "note", "run-qemu.log", "idle" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		warm_remove(files[i]);
	rmdir(warm_dir());
}

static int connect_socket(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Take the target for this command: wait while another holds it. */
static int take_lock(void)
{
	char path[512];
	warm_path(path, sizeof(path), "lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	bool said = false;
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (!said && isatty(STDERR_FILENO))
			fprintf(stderr, "baremon: waiting for the warm target: another command "
				"is using it\n");
		said = true;
		stop_check();
		sleep_ms(100);
	}
	return fd;
}

/* QEMU's console socket, once the keeper's QEMU runs and has made it
 * (the keeper may be booting a new one: a QEMU that has gone is not
 * connected to, its note not yet written); -1 when the keeper went
 * away meanwhile. */
static int connect_console(void)
{
	char sock[512];
	warm_path(sock, sizeof(sock), "console.sock");
	for (int tries = 0; tries < SOCKET_WAIT_S * 10; tries++) {
		int fd = running(read_pid("qemu.pid")) ? connect_socket(sock) : -1;
		if (fd >= 0)
			return fd;
		if (!warm_keeper())
			return -1;
		stop_check();
		sleep_ms(100);
	}
	return -1;
}

void warm_touch(void)
{
	char path[512];
	warm_path(path, sizeof(path), "used");
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	utimensat(AT_FDCWD, path, NULL, 0);
}

/* Say the keeper's note (the machine it replaced), once. */
static void say_note(void)
{
	char note[1024];
	if (!warm_read("note", note, sizeof(note)) || !note[0])
		return;
	warm_remove("note");
	note[strcspn(note, "\n")] = 0;
	fprintf(stderr, "baremon: %s\n", note);
}

int warm_open(struct target *t)
{
	char want[2048], have[2048];
	if (t->kind != TARGET_QEMU || t->export_line || !warm_read("options", have, sizeof(have)))
		return -1;
	own_options(t, want, sizeof(want));
	for (int i = t->nuser; i < t->nqemu; i++) {
		if (strcmp(t->qemu_args[i], "--add"))
			continue;
		/* dyn_prepare: a dynamic program's libraries, which only
		 * an initrd can hold (the target's / is read-only). */
		fprintf(stderr, "baremon: a dynamic program: booting a QEMU with its libraries "
			"(the warm target's / is read-only)\n");
		return -1;
	}
	if (!warm_keeper()) {
		/* Killed (its QEMU with it): replaced, with this line. */
		bool same = strcmp(want, have) == 0;
		fprintf(stderr, "baremon: the warm target had stopped (its keeper is gone): %s\n",
			same ? "booting a new one" : "this command boots its own");
		char idle[32] = "";
		warm_read("idle", idle, sizeof(idle));
		warm_clean();
		if (!same || warm_start(t, idle[0] ? atoi(idle) : WARM_IDLE_DEFAULT_S) != 0)
			return -1;
	} else if (strcmp(want, have) != 0) {
		fprintf(stderr, "baremon: the warm target runs with other options (%s)",
			options_line(have));
		fprintf(stderr, ": this command boots its own (%s)\n", options_line(want));
		return -1;
	}
	int lock = take_lock();
	if (lock < 0 || !warm_keeper()) {
		if (lock >= 0)
			close(lock);
		return -1;   /* stopped while we waited: boot our own */
	}
	warm_touch();
	int fd = connect_console();
	if (fd < 0) {
		close(lock);
		return -1;
	}
	/* After the connection: a keeper booting a new machine has
	 * written its note and removed the old one's ready. */
	say_note();
	t->warm_ready = warm_read("ready", have, sizeof(have));
	t->warm = true;
	t->warm_lock = lock;
	t->console_fd = -1;   /* one line: frames and console text */
	warm_path(t->qemu_pidfile, sizeof(t->qemu_pidfile), "qemu.pid");
	return fd;
}

void warm_mark_ready(struct target *t)
{
	if (t->warm && !t->warm_ready)
		warm_write("ready", "1\n");
	t->warm_ready = true;
}

void warm_release(struct target *t)
{
	if (!t->warm)
		return;
	warm_touch();
	if (t->warm_lock >= 0)
		close(t->warm_lock);   /* the flock goes with it */
	t->warm_lock = -1;
	t->warm = false;
}
