/*
 * stat and record: the guest's own stat and record tools (docs/stat.md,
 * docs/record.md) run through the agent. A local program named among
 * the arguments is pushed to /tmp first and named there. stat's output
 * is relayed as it is; record writes pipe format in the guest, which is
 * pulled and turned into a seekable perf.data with feature sections
 * (perfdata.c), or kept in pipe format with -o -, the same build ids
 * and features added as records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "baremon.h"
#include "perfdata.h"

#ifndef BAREMON_TOP
#define BAREMON_TOP "."
#endif
#define GUEST_DATA "/tmp/baremon-record.data"

/* Push every argument that names a local program; rewrite it to the
 * guest path. programs[] receives the local paths. */
static int push_programs(struct conn *c, int argc, char **argv,
			 const char **programs, const char **guests, int *nprograms)
{
	static char guest[64][512];
	for (int i = 1; i < argc && *nprograms < 64; i++) {
		if (!is_local_program(argv[i]))
			continue;
		guest_tmp_path(argv[i], guest[*nprograms], sizeof(guest[0]));
		int r = cmd_push(c, argv[i], guest[*nprograms], true);
		if (r)
			return r;
		programs[*nprograms] = argv[i];
		guests[*nprograms] = guest[*nprograms];
		argv[i] = guest[(*nprograms)++];
	}
	return 0;
}

int cmd_stat(struct conn *c, int argc, char **argv)
{
	const char *programs[64], *guests[64];
	int n = 0;
	int r = push_programs(c, argc, argv, programs, guests, &n);
	if (r)
		return r;
	return run_remote(c, argc, argv, STDOUT_FILENO, STDERR_FILENO);
}

/* The kernel ELF that runs on the target: $BAREMON_KERNEL, else the
 * tree's build. */
static const char *kernel_elf(void)
{
	static char path[4096];
	const char *k = getenv("BAREMON_KERNEL");
	if (k && *k)
		return k;
	const char *top = getenv("BAREMON_TOP") ? getenv("BAREMON_TOP") : BAREMON_TOP;
	snprintf(path, sizeof(path), "%s/build/kernel.elf", top);
	return access(path, R_OK) == 0 ? path : NULL;
}

/* Where the tree's build of the initrd's /bin programs is. */
static const char *apps_dir(void)
{
	static char path[4096];
	const char *top = getenv("BAREMON_TOP") ? getenv("BAREMON_TOP") : BAREMON_TOP;
	snprintf(path, sizeof(path), "%s/build/apps", top);
	return access(path, R_OK) == 0 ? path : NULL;
}

/* What perf report --header shows, read from the target's /proc. */
static int cmd_pull_facts(struct conn *c, struct machine_info *m)
{
	char *argv[] = { "cat", "/proc/sys/kernel/hostname", "/proc/sys/kernel/osrelease",
			 "/proc/cpuinfo", "/proc/meminfo", NULL };
	int fd = memfd_create("baremon-facts", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	int st = run_remote(c, 5, argv, fd, STDERR_FILENO);
	off_t len = lseek(fd, 0, SEEK_END);
	char *text = malloc((size_t)len + 1);
	if (!text || pread(fd, text, (size_t)len, 0) != len) {
		free(text);
		close(fd);
		return -1;
	}
	text[len] = 0;
	close(fd);
	machine_info_parse(m, text);
	free(text);
	return st == 0 ? 0 : -1;
}

/* The command line as one string (perf.data's CMDLINE feature). */
static void join_args(int argc, char **argv, char *out, size_t size)
{
	size_t n = snprintf(out, size, "baremon");
	for (int i = 0; i < argc && n < size; i++)
		n += snprintf(out + n, size - n, " %s", argv[i]);
}

/* record --export: the guest's file has the header, attrs and
 * side-band; the kernel streamed the buffers. Join them. */
static int append_exported(struct conn *c, const char *local)
{
	FILE *f = fopen(local, "ab");
	if (!f)
		return -1;
	struct export_summary sum;
	export_rx_append(c->exported, f, &sum);
	if (fclose(f) != 0)
		return -1;
	fprintf(stderr, "baremon: exported by the kernel: %d stream(s) (%d ended), %llu bytes, "
		"%llu records, %llu samples, %llu LOST records (%llu samples lost), "
		"%llu dropped unreported, %llu bytes of frames missing, %llu bytes cut; "
		"%.2f s first frame to last\n",
		sum.streams, sum.ended, (unsigned long long)sum.bytes,
		(unsigned long long)sum.records, (unsigned long long)sum.samples,
		(unsigned long long)sum.lost_records, (unsigned long long)sum.lost,
		(unsigned long long)sum.unreported, (unsigned long long)sum.gap_bytes,
		(unsigned long long)sum.partial, sum.ms / 1000.0);
	const struct export_rx *x = c->exported;
	if (x->line_bytes)
		fprintf(stderr, "baremon: the line carried %llu payload bytes for them "
			"(%.1f to 1; %llu packed frames, %llu that did not decode)\n",
			(unsigned long long)x->line_bytes, (double)sum.bytes / (double)x->line_bytes,
			(unsigned long long)x->packed_frames, (unsigned long long)x->bad_packed);
	export_rx_free(c->exported);
	return 0;
}

static char local_data[300];

static void remove_local_data(void)
{
	if (local_data[0])
		unlink(local_data);
	local_data[0] = 0;
}

/* perf record's way with an existing output: FILE becomes FILE.old. */
static void keep_old(const char *out)
{
	struct stat st;
	char old[4200];
	if (stat(out, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	snprintf(old, sizeof(old), "%s.old", out);
	if (rename(out, old) != 0)
		fprintf(stderr, "baremon: record: cannot rename %s to %s: %s\n", out, old,
			strerror(errno));
}


/* -z: the level asked for (record_take_compression). */
static int z_level;

/* Is a the option -z[N] or --compression-level[=N]? Its level in *level. */
static bool compression_option(const char *a, int *level)
{
	const char *v = NULL;
	if (strncmp(a, "-z", 2) == 0)
		v = a + 2;
	else if (strcmp(a, "--compression-level") == 0)
		v = "";
	else if (strncmp(a, "--compression-level=", 20) == 0)
		v = a + 20;
	if (!v)
		return false;
	char *end;
	long n = *v ? strtol(v, &end, 10) : 1;   /* perf record's default: 1 */
	*level = *v && (*end || n < 1 || n > 22) ? -1 : (int)n;
	return true;
}

int record_take_compression(int *argc, char **argv)
{
	int n = 0;
	bool to_stdout = false;
	for (int i = 0; i < *argc; i++) {
		int level;
		if (strcmp(argv[i], "--") == 0) {
			while (i < *argc)
				argv[n++] = argv[i++];
			break;
		}
		if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) &&
		    i + 1 < *argc && strcmp(argv[i + 1], "-") == 0)
			to_stdout = true;
		if (i > 0 && compression_option(argv[i], &level)) {
			if (level < 0) {
				fprintf(stderr, "baremon: record: %s: the level is 1 to 22\n", argv[i]);
				exit(EXIT_USAGE);
			}
			z_level = level;
			continue;
		}
		argv[n++] = argv[i];
	}
	argv[n] = NULL;
	*argc = n;
	if (z_level && to_stdout) {
		fprintf(stderr, "baremon: record: -z compresses a perf.data file; "
			"with -o - the output is a pipe\n");
		exit(EXIT_USAGE);
	}
	return z_level;
}

int cmd_record(struct conn *c, int argc, char **argv)
{
	char cmdline[2048];
	join_args(argc, argv, cmdline, sizeof(cmdline));
	/* Take -o FILE out; the guest writes GUEST_DATA. */
	const char *out = "perf.data";
	char *args[256];
	int n = 0;
	args[n++] = "record";
	bool end_of_options = false, exporting = false;
	for (int i = 1; i < argc && n < 250; i++) {
		if (!end_of_options && strcmp(argv[i], "--") == 0)
			end_of_options = true;
		if (!end_of_options && strcmp(argv[i], "--export") == 0)
			exporting = true;
		if (!end_of_options && (strcmp(argv[i], "-o") == 0 ||
					strcmp(argv[i], "--output") == 0) && i + 1 < argc) {
			out = argv[++i];
			continue;
		}
		args[n++] = argv[i];
	}
	/* -o goes first: the program's own arguments follow the options. */
	memmove(args + 3, args + 1, (size_t)(n - 1) * sizeof(args[0]));
	args[1] = "-o";
	args[2] = GUEST_DATA;
	n += 2;
	args[n] = NULL;
	const char *programs[64], *guest_names[64];
	int np = 0;
	int r = push_programs(c, n, args, programs, guest_names, &np);
	if (r)
		return r;
	struct machine_info facts;
	/* With -o - the data goes to stdout: the program's output to
	 * stderr, as perf record does. */
	bool to_stdout = strcmp(out, "-") == 0;
	/* An empty GUEST_DATA first: still empty after a failed record,
	 * it says the record never started (an event the target does not
	 * have, say: status 2), and record has said why. */
	r = cmd_push(c, "/dev/null", GUEST_DATA, true);
	if (r)
		return r;
	int status = run_remote(c, n, args, to_stdout ? STDERR_FILENO : STDOUT_FILENO,
				STDERR_FILENO);
	char *local = local_data;
	snprintf(local_data, sizeof(local_data), "%s/baremon-record.XXXXXX", host_tmpdir());
	stop_cleanup(remove_local_data);
	int fd = mkstemp(local);
	if (fd < 0)
		return EXIT_IOERR;
	close(fd);
	if (cmd_pull(c, GUEST_DATA, local, true) != 0) {
		unlink(local);
		return EXIT_IOERR;
	}
	struct stat st;
	if (status != 0 && stat(local, &st) == 0 && st.st_size == 0) {
		unlink(local);
		return status;
	}
	if (exporting && append_exported(c, local) != 0) {
		unlink(local);
		return EXIT_IOERR;
	}
	if (cmd_pull_facts(c, &facts) != 0) {
		unlink(local);
		return EXIT_IOERR;
	}
	struct program progs[64];
	static char real[64][4096];
	for (int i = 0; i < np; i++) {
		const char *path = realpath(programs[i], real[i]) ? real[i] : programs[i];
		progs[i] = (struct program){ guest_names[i], path };
	}
	if (perfdata_map_paths(local, progs, np) != 0) {
		fprintf(stderr, "baremon: record: cannot rewrite %s: %s\n", local, strerror(errno));
		unlink(local);
		return EXIT_IOERR;
	}
	if (to_stdout) {
		r = perfdata_pipe(local, stdout, progs, np, kernel_elf(), apps_dir(), &facts,
				  cmdline);
	} else {
		keep_old(out);
		perfdata_set_compression(z_level);
		r = perfdata_convert(local, out, progs, np, kernel_elf(), apps_dir(), &facts,
				     cmdline);
		if (r == 0)
			fprintf(stderr, "baremon: wrote %s\n", out);
	}
	unlink(local);
	return r ? EXIT_IOERR : status;
}
