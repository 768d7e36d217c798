/*
 * baremon, the host tool (docs/host.md): reaches a baremon machine (a QEMU
 * it starts, a QEMU already running, a serial line), talks to the guest
 * agent over the frame protocol (docs/export.md) and runs commands, moves
 * files, records.
 */
#ifndef HOST_BAREMON_H
#define HOST_BAREMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include "wire/link.h"
#include "export_rx.h"

/* Exit statuses of the tool itself (a command run on the target exits
 * with its own status). */
enum {
	EXIT_USAGE = 2,       /* bad command line (before anything starts) */
	EXIT_NOINPUT = 66,    /* a local file cannot be read */
	EXIT_UNAVAILABLE = 69,/* no device, cannot connect, QEMU failed */
	EXIT_SOFTWARE = 70,   /* the agent refused (busy, bad request) */
	EXIT_CANTCREAT = 73,  /* a local file cannot be written */
	EXIT_IOERR = 74,      /* a transfer failed (size, CRC, errno) */
	EXIT_TIMEOUT = 75,    /* the target stopped answering */
	EXIT_PROTOCOL = 76,   /* the line closed or garbage only */
	EXIT_PANIC = 125,     /* the target kernel panicked */
};

/* Files of a dynamic program's closure at most (dynlibs.c). */
#define DYN_MAX_FILES 128

/* Where the machine is. */
struct target {
	enum { TARGET_QEMU, TARGET_SERIAL, TARGET_CONNECT } kind;
	const char *device;       /* --serial DEVICE[:BAUD] or --connect ADDR */
	const char *qemu_args[64 + 2 * DYN_MAX_FILES]; /* run-qemu.sh options
				     * to pass through (and a closure's --add) */
	const char *sysroot;      /* --sysroot DIR: a dynamic program's libraries */
	int nqemu;
	bool agent_running;       /* QEMU: started with --run agent */
	/* Frames on a second line (the guest's export UART, export=):
	 * --export starts QEMU with one; --export-connect ADDR reaches it.
	 * The first line then carries only console text. */
	bool export_line;
	const char *export_device;
	int console_fd;           /* the console's line when export_line, else -1 */
	bool verbose;
	int timeout_s;            /* give up after this long without progress */
	pid_t qemu_pid;           /* the run-qemu.sh we started, or 0 */
	char tmpdir[256];
	int nuser;                /* qemu_args[0..nuser): given by the user */
	/* The warm target (warm.c): a QEMU kept running between commands. */
	bool warm;                /* this command uses it */
	bool warm_ready;          /* its agent serves already: HELLO at once */
	int warm_lock;            /* the state lock this command holds, or -1 */
	char qemu_pidfile[512];   /* QEMU's pid (run-qemu.sh --pidfile), or "" */
};

/* target.c: reach the machine; returns a file descriptor or exits. */
int target_open(struct target *t, bool with_agent);
/* Wait for a QEMU we started; its run-qemu.sh status (or -1). */
int target_wait(struct target *t, int timeout_s);
void target_close(struct target *t);
/* The line closed: when the target is a QEMU we started, run-qemu.sh's
 * reason once it has ended ("QEMU failed: ..."), else NULL. */
const char *target_gone_reason(struct target *t);

/* The run-qemu.sh this tool runs (BAREMON_TOP, else the build's tree). */
const char *run_qemu_path(void);
/* Exact by default (docs/host.md): a QEMU the tool starts gets this
 * before the user's options, which may override it (--icount N, --kvm,
 * --no-icount). */
#define TARGET_DEFAULT_ICOUNT "6"

/* warm.c: the warm target's state directory and attaching to it.
 * warm_open: the console of a warm target booted with this command's
 * target options (the lock taken), or -1 (none: boot as usual). */
#define WARM_IDLE_DEFAULT_S 3600
const char *warm_dir(void);
void warm_path(char *out, size_t size, const char *name);
bool warm_read(const char *name, char *buf, size_t size);
bool warm_write(const char *name, const char *text);
void warm_remove(const char *name);
void warm_clean(void);
void warm_touch(void);
pid_t warm_keeper(void);
void warm_options_text(char *const *args, int n, char *out, size_t size);
int warm_open(struct target *t);
void warm_mark_ready(struct target *t);
void warm_release(struct target *t);
/* keeper.c: start the keeper of a new warm target (0, or -1 said). */
int warm_start(struct target *t, int idle_s);
/* warmcmd.c: up [--idle MIN], down, status. */
int cmd_warm(struct target *t, int argc, char **argv);

/* progress.c: waiting for a boot. */
struct boot_watch {
	int phase;                /* 0 firmware, 1 loader, 2 kernel, 3 agent */
	pid_t pid;                /* QEMU's, once its pidfile is there */
	unsigned long long cpu;   /* its CPU time (ticks) at the last look */
	unsigned long long silent_ticks; /* of it, since the last console line */
	uint64_t start_ms, shown_s;
	bool shown;               /* a status line is on the terminal */
};

/* conn.c: one session with the agent over fd. */
struct conn {
	int fd;
	struct link link;
	struct frame_reader reader;
	struct target *target;
	/* Messages delivered but not yet taken by conn_next. */
	struct frame *queue;
	int q_head, q_count;
	/* Console text outside frames: the current line, the panic report. */
	char line[512];
	size_t line_len;
	uint64_t text_bytes;      /* console text seen so far */
	uint64_t odd_bytes;       /* of it, bytes no console prints */
	uint64_t last_text_ms;    /* when the last of it arrived */
	bool seen_prompt;         /* a line of it ended "> " (the shell's) */
	bool panicked;
	char *panic_text;
	size_t panic_len;
	uint64_t last_progress;   /* ms: an ACK or a message arrived */
	uint8_t *stash;           /* read while waiting to write (emit) */
	size_t stash_len, stash_cap;
	bool closed;
	char closed_why[64];      /* which line and how: "the export line (read: EPIPE)" */
	bool powered_off;         /* cmd_poweroff: the agent has gone */
	struct export_rx *exported; /* the kernel exporter's frames */
	int console_fd;           /* console text only (export line), or -1 */
	struct boot_watch boot;
};

uint64_t host_now_ms(void);
/* Bring the link up; exits with a message when the agent never answers. */
void conn_init(struct conn *c, int fd, struct target *t);
void conn_start(struct conn *c, bool type_agent);
/* Send a message, waiting for room in the window. */
void conn_send(struct conn *c, uint8_t type, uint8_t chan, const void *p, size_t n);
/* The next message; exits on panic, closed line or timeout. */
void conn_next(struct conn *c, struct frame *f);
/* Wait until everything sent is acknowledged. */
void conn_flush(struct conn *c);
/* Say goodbye: the agent exits with status. */
void conn_bye(struct conn *c, uint32_t status);
/* Read (console text, stray frames) until the line closes or ms pass;
 * whether it closed. */
bool conn_wait_closed(struct conn *c, int ms);
/* Report damage seen on the line (stderr), when there was any. */
void conn_report(struct conn *c);
/* Print a one-line error and the panic report if any; exit(status). */
__attribute__((noreturn)) void conn_fail(struct conn *c, int status, const char *fmt, ...);

/* Wait for the agent to acknowledge a BYE(status), at most ms, without
 * failing on a closed line: how a signal cancels the guest command. */
void conn_cancel(struct conn *c, uint32_t status, int ms);

/* A console line seen while booting (the phase); whether QEMU has run
 * since the last call (progress); the terminal's status line. */
void boot_watch_line(struct conn *c, const char *line);
bool boot_watch_ran(struct conn *c);
void boot_watch_show(struct conn *c);
void boot_watch_done(struct conn *c);

/* stop.c: signals and temporary files (docs/host.md). stop_init at
 * start; stop_watch names what stop_now must end; the waiting loops
 * call stop_check. stop_cleanup functions run at exit and on a signal. */
extern volatile sig_atomic_t stop_signal;
void stop_init(void);
void stop_watch(struct target *t, struct conn *c);
void stop_cleanup(void (*fn)(void));
bool stop_pending(void);
void stop_check(void);
__attribute__((noreturn)) void stop_now(void);
/* Where temporary files go: $TMPDIR, else /tmp. */
const char *host_tmpdir(void);

/* help.c: usage texts (help to stdout, errors to stderr). */
void help_usage(FILE *to);
bool help_command_to(const char *cmd, FILE *to);
void help_version(void);

/* check.c: the command line and local inputs, before anything starts;
 * exits with EXIT_USAGE, EXIT_NOINPUT or EXIT_CANTCREAT (0 after help). */
void check_command(int argc, char **argv);
/* A ./prog or ../prog to push must be an executable file here. */
void check_program(const char *cmd, const char *path);
void check_readable(const char *cmd, const char *path);

/* list.c: perf list of the target's events. */
int cmd_list(struct conn *c);

/* files.c */
int cmd_push(struct conn *c, const char *local, const char *dest, bool quiet);
int cmd_pull(struct conn *c, const char *path, const char *local, bool quiet);
/* Guest path for a pushed local file: /tmp/BASENAME. */
void guest_tmp_path(const char *local, char *out, size_t size);
/* A local regular file that can be executed? */
bool is_local_program(const char *path);

/* run.c: a local program named as argv[0] is pushed to /tmp and argv[0]
 * renamed (0, or the push's status). */
int push_if_local(struct conn *c, char **argv);
/* run argv on the target, streaming its output; its status. */
int cmd_run(struct conn *c, int argc, char **argv);
int run_remote(struct conn *c, int argc, char **argv,
	       int out_fd, int err_fd);
/* Run argv (NULL-terminated) on the target; its stdout as a malloc'd
 * string (NULL when it cannot be kept), its stderr dropped. */
char *run_capture(struct conn *c, char **argv, int *status);

/* dynlibs.c: what a dynamic program needs on the target. */
struct dyn_closure {
	int n;
	struct { char host[4096], guest[4096]; } f[DYN_MAX_FILES];
	char interp[4096];        /* "" for a static program */
	char sysroot[1024];       /* "" or --sysroot DIR */
	char prog_dir[4096];      /* the program's directory (its $ORIGIN) */
	char guest_dir[4096];     /* where its copy goes on the target */
};
/* The interpreter and library closure of prog (which goes to guest_prog
 * on the target): host paths (under sysroot, if not NULL) and guest
 * paths (without it; beside guest_prog for those beside prog). 0 (n is
 * 0 for a static program or one that is not x86-64 ELF), or -1 (a
 * library was not found: said on stderr). */
int dyn_closure(const char *prog, const char *sysroot, const char *guest_prog,
		struct dyn_closure *c);

/* dynpush.c: carry a dynamic program's closure. dyn_prepare, before a
 * QEMU target the tool starts boots: the closure of the run command's
 * local program goes into the initrd (run-qemu.sh --add). dyn_push:
 * after the program is pushed, each file the target lacks (its size
 * and CRC-32C differ, FRAME_SUM) is pushed; 0 or the push's status. */
void dyn_prepare(struct target *t, int argc, char **argv);
/* Push local to guest unless the target has those bytes there already
 * (*pushed says which); 0, or cmd_push's status. */
int push_cached(struct conn *c, const char *local, const char *guest, bool *pushed);
int dyn_push(struct conn *c, const char *prog, const char *guest_prog);

/* shell.c: the interactive console (no agent). */
int cmd_shell(int fd, struct target *t);

/* poweroff.c: ask the agent to power the machine off; wait until the
 * line closes (QEMU exits) or a few seconds (a real line stays open). */
int cmd_poweroff(struct conn *c);

/* session.c */
/* junit: NULL, or where to write the steps as JUnit XML (junit.c). */
int cmd_session(struct conn *c, const char *file, const char *junit);
/* Every step understood, every local file there (exits as check.c). */
void session_check(const char *file);

/* targets.c: --targets FILE: argv[cmd..] on every target of FILE at
 * once, then one table with a column per target; the status. */
int cmd_targets(const char *file, int argc, char **argv, int cmd);

/* junit.c: a JUnit XML file of test cases, written at junit_close
 * (false, with a message, when it could not be). */
enum junit_result { JUNIT_PASSED, JUNIT_FAILED, JUNIT_SKIPPED };
struct junit;
struct junit *junit_open(const char *path);
void junit_case(struct junit *j, const char *suite, const char *name, double seconds,
		enum junit_result result, const char *message, const char *out, size_t out_len);
bool junit_close(struct junit *j, const char *suite);

/* record.c */
int cmd_record(struct conn *c, int argc, char **argv);
/* perf record's -z[N] / --compression-level[=N], taken out of a
 * record command line (the host compresses perf.data, perfzstd.c;
 * the target never sees it): the level, 0 when not asked. Exits
 * EXIT_USAGE on a bad level or with -o -. */
int record_take_compression(int *argc, char **argv);
int cmd_stat(struct conn *c, int argc, char **argv);

/* bench.c: `bench` with nanoBench's options. bench_prepare (argv[0] is
 * "bench") assembles -asm strings and shapes a QEMU target before it is
 * reached; cmd_bench pushes the files and runs bench. */
void bench_prepare(struct target *t, int argc, char **argv);
int cmd_bench(struct conn *c);


#endif
