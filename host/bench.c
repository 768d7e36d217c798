/*
 * bench: nanoBench's command line against the target (docs/bench.md),
 * the host side of what host/bench/bench-qemu.sh does with a boot per
 * call:
 *
 *   baremon [TARGET] bench -asm 'add rax, rbx' -fixed_counters
 *
 * bench_prepare (before the target is reached, so NASM's errors come
 * first) assembles every -asm* string with host/bench/bench-asm.sh into
 * a temporary directory and, for a QEMU the tool starts without --smp,
 * asks for two CPUs with CPU 1 isolated. cmd_bench pushes the code and
 * the -code*, -config and -msr_config files to /tmp/bench-N on the
 * target and runs bench there (on CPU 1 in that default machine),
 * streaming its output; the status is bench's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "baremon.h"
#include "host/guestopts.h"

#define BENCH_MAX_ARGS 128

static char *args[BENCH_MAX_ARGS + 4];   /* what runs on the target */
static char local[BENCH_MAX_ARGS][300];  /* files to push, by argument */
static int nargs;
static bool add_cpu;
static char tmpdir[256];

static bool is_file_option(const char *a)
{
	static const char *const opts[] = { "-code", "-code_init", "-code_late_init",
		"-code_one_time_init", "-config", "-msr_config", NULL };
	for (int i = 0; opts[i]; i++)
		if (!strcmp(a, opts[i]))
			return true;
	return false;
}

static bool is_asm_option(const char *a)
{
	return !strcmp(a, "-asm") || !strcmp(a, "-asm_init") ||
	       !strcmp(a, "-asm_late_init") || !strcmp(a, "-asm_one_time_init");
}

/* host/bench/bench-asm.sh TEXT OUT; exits with 2 (bench's bad-input
 * status) when NASM refuses it: NASM's messages are already on stderr. */
static void assemble(const char *text, const char *out)
{
	const char *top = getenv("BAREMON_TOP") ? getenv("BAREMON_TOP") : BAREMON_TOP;
	char script[4096];
	snprintf(script, sizeof(script), "%s/host/bench/bench-asm.sh", top);
	pid_t pid = fork();
	if (pid == 0) {
		execl(script, script, text, out, (char *)NULL);
		fprintf(stderr, "baremon: bench: %s: %s\n", script, strerror(errno));
		_exit(127);
	}
	int st = 0;
	pid_t r;
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {
		if (stop_pending()) {
			kill(pid, SIGTERM);
			waitpid(pid, NULL, 0);
			stop_now();
		}
	}
	if (pid < 0 || r < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "baremon: bench: cannot assemble '%s'\n", text);
		exit(2);
	}
}

static void too_many(void)
{
	fprintf(stderr, "baremon: bench: more than %d arguments\n", BENCH_MAX_ARGS);
	exit(EXIT_USAGE);
}

static void cleanup(void);

void bench_prepare(struct target *t, int argc, char **argv)
{
	bool cpu_given = false, smp_given = false, fixed_given = false;
	snprintf(tmpdir, sizeof(tmpdir), "%s/baremon-bench.XXXXXX", host_tmpdir());
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "baremon: bench: cannot make a directory: %s\n", strerror(errno));
		exit(EXIT_UNAVAILABLE);
	}
	stop_cleanup(cleanup);
	args[nargs++] = "bench";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (nargs + 2 > BENCH_MAX_ARGS)
			too_many();
		if ((is_asm_option(a) || is_file_option(a)) && i + 1 < argc) {
			int k = nargs + 1;
			if (is_asm_option(a)) {
				snprintf(local[k], sizeof(local[k]), "%s/asm%d.bin", tmpdir, k);
				assemble(argv[i + 1], local[k]);
				static char opt[BENCH_MAX_ARGS][32];
				snprintf(opt[k], sizeof(opt[k]), "-code%s", a + 4);
				args[nargs++] = opt[k];
			} else {
				snprintf(local[k], sizeof(local[k]), "%s", argv[i + 1]);
				if (access(local[k], R_OK)) {
					fprintf(stderr, "baremon: bench: %s: cannot read %s\n", a, local[k]);
					exit(EXIT_NOINPUT);
				}
				args[nargs++] = argv[i];
			}
			static char dest[BENCH_MAX_ARGS][32];
			snprintf(dest[k], sizeof(dest[k]), "/tmp/bench-%d", k);
			args[nargs++] = dest[k];
			i++;
			continue;
		}
		cpu_given |= !strcmp(a, "-cpu");
		fixed_given |= !strcmp(a, "-fixed_counters");
		args[nargs++] = argv[i];
	}
	/* Exact by default (docs/host.md): instructions, core and reference
	 * cycles beside RDTSC, from the fixed counters. */
	if (!fixed_given && nargs + 1 <= BENCH_MAX_ARGS)
		args[nargs++] = "-fixed_counters";
	for (int i = 0; i < t->nqemu; i++)
		smp_given |= !strcmp(t->qemu_args[i], "--smp");
	if (t->kind == TARGET_QEMU && !smp_given && t->nqemu + 4 <= 60) {
		t->qemu_args[t->nqemu++] = "--smp";
		t->qemu_args[t->nqemu++] = "2";
		t->qemu_args[t->nqemu++] = "--cmdline";
		t->qemu_args[t->nqemu++] = "isolcpus=1";
		add_cpu = !cpu_given;
	}
	if (add_cpu) {
		args[nargs++] = "-cpu";
		args[nargs++] = "1";
	}
	args[nargs] = NULL;
	bench_options(nargs, args);   /* bench's own checks, before any boot */
}

/* The assembled snippets and their directory (at exit, on a signal). */
static void cleanup(void)
{
	if (!tmpdir[0])
		return;
	for (int k = 0; k < nargs; k++)
		if (local[k][0] && !strncmp(local[k], tmpdir, strlen(tmpdir)))
			unlink(local[k]);
	rmdir(tmpdir);
	tmpdir[0] = 0;
}

int cmd_bench(struct conn *c)
{
	int status = 0;
	for (int k = 0; k < nargs && !status; k++)
		if (local[k][0])
			status = cmd_push(c, local[k], args[k], true);
	if (!status)
		status = run_remote(c, nargs, args, STDOUT_FILENO, STDERR_FILENO);
	cleanup();
	return status;
}
