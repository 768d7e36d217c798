/*
 * The files in /proc/<pid>/: status, stat and comm from struct task in
 * Linux's formats, with the task pinned (nothing there sleeps); cmdline,
 * maps and exe from a reference to its mm, cwd from one to its
 * fs_context, taken under the pin and used after it (they may sleep).
 * Fields baremon does not track (memory sizes, signal dispositions,
 * capabilities beyond root's) read as Linux shows an idle task: zeros,
 * or root's full set.
 *
 * A task's fields are read without its lock: the text is a snapshot
 * that may mix values from moments apart, as on Linux.
 */
#include "procfs.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"
#include "core/mm/usermm.h"

#define CLOCK_TICK_NS 10000000ULL   /* USER_HZ = 100 */

static char state_char(const struct task *t)
{
	static const char s[] = { 'R', 'S', 'D', 'T', 'Z', 'X' };
	return t->state >= 0 && t->state < (int)sizeof(s) ? s[t->state] : '?';
}

static const char *state_name(const struct task *t)
{
	static const char *const n[] = { "running", "sleeping", "disk sleep",
					 "stopped", "zombie", "dead" };
	return t->state >= 0 && t->state < 6 ? n[t->state] : "unknown";
}

/* Under task_lock: the parent, a family link, cannot be reaped then. */
static int ppid_of(const struct task *t)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	/* init is its own parent internally; Linux shows 0 */
	int ppid = t->parent && t->parent != t->leader ? t->parent->tgid : 0;
	spin_unlock_irqrestore(&task_lock, f);
	return ppid;
}

/* Cpus_allowed as Linux prints a mask of nr_cpu_ids bits: 32-bit hex
 * groups, highest first, comma-separated, the first as wide as its bits. */
static void cpu_hex(struct seqbuf *out, const struct cpumask *m)
{
	unsigned nbits = cpu_ids;
	for (int g = (int)((nbits - 1) / 32); g >= 0; g--) {
		unsigned bits = g == (int)((nbits - 1) / 32) ? nbits - (unsigned)g * 32 : 32;
		uint32_t v = (uint32_t)(m->bits[g / 2] >> (g % 2 * 32));
		if (bits < 32)
			v &= (1u << bits) - 1;
		sb_printf(out, "%s%0*x", g == (int)((nbits - 1) / 32) ? "" : ",",
			  (int)((bits + 3) / 4), v);
	}
}

/* The task's allowed CPUs among those that exist. */
static void allowed_cpus(struct cpumask *m, const struct task *t)
{
	cpumask_clear(m);
	for_each_cpu(c, &t->affinity)
		if (c < cpu_ids)
			cpumask_set(m, c);
}

/* Threads in t's process, from its leader pinned for the count. */
static int nr_threads(struct task *t)
{
	struct task *leader = task_find_pinned(t->tgid);
	if (!leader)
		return 1;
	int n = task_nr_threads(leader);
	task_unpin(leader);
	return n;
}

/* t's file-creation mask: t->fs is let go under task_lock at exit. */
static unsigned umask_of(struct task *t)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	unsigned m = t->fs ? t->fs->umask : 022;
	spin_unlock_irqrestore(&task_lock, f);
	return m;
}

/* RLIMIT_SIGPENDING of t's process, or 0 once its leader is gone. */
static unsigned long long sigpending_limit(struct task *t)
{
	struct task *leader = task_find_pinned(t->tgid);
	if (!leader)
		return 0;
	unsigned long long v = leader->rlimits[RLIMIT_SIGPENDING].rlim_cur;
	task_unpin(leader);
	return v;
}

static void status_ids(struct seqbuf *out, struct task *t)
{
	sb_printf(out, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n"
		  "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nFDSize:\t%d\n"
		  "Groups:\t\nNStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n"
		  "Threads:\t%d\n",
		  t->tgid, t->tid, ppid_of(t), t->uid, t->euid, t->euid, t->euid,
		  t->gid, t->egid, t->egid, t->egid, MAX_FDS, t->tgid, t->tid,
		  t->pgid, t->sid, nr_threads(t));
}

static int gen_status(struct seqbuf *out, struct task *t)
{
	uint64_t caps = t->euid == 0 ? 0x1ffffffffffULL : 0;
	sb_printf(out, "Name:\t%s\nUmask:\t%04o\nState:\t%c (%s)\n", t->comm,
		  umask_of(t), state_char(t), state_name(t));
	status_ids(out, t);
	sb_printf(out, "SigQ:\t0/%llu\nSigPnd:\t%016llx\nShdPnd:\t%016llx\n"
		  "SigBlk:\t%016llx\nSigIgn:\t%016llx\nSigCgt:\t%016llx\n",
		  sigpending_limit(t),
		  (unsigned long long)t->sigpending, 0ULL,
		  (unsigned long long)t->sigmask, 0ULL, 0ULL);
	sb_printf(out, "CapInh:\t%016llx\nCapPrm:\t%016llx\nCapEff:\t%016llx\n"
		  "CapBnd:\t%016llx\nCapAmb:\t%016llx\nNoNewPrivs:\t0\n"
		  "Seccomp:\t0\nSeccomp_filters:\t0\n",
		  0ULL, (unsigned long long)caps, (unsigned long long)caps,
		  0x1ffffffffffULL, 0ULL);
	struct cpumask allowed;
	char list[256];
	allowed_cpus(&allowed, t);
	cpumask_format(list, sizeof(list), &allowed);
	sb_printf(out, "Cpus_allowed:\t");
	cpu_hex(out, &allowed);
	sb_printf(out, "\nCpus_allowed_list:\t%s\n", list);
	sb_printf(out, "voluntary_ctxt_switches:\t%llu\n"
		  "nonvoluntary_ctxt_switches:\t%llu\n",
		  (unsigned long long)t->nvcsw, (unsigned long long)t->nivcsw);
	return 0;
}

static unsigned long long ticks(uint64_t ns)
{
	return ns / CLOCK_TICK_NS;
}

/* The 52 fields of /proc/<pid>/stat (proc(5)); memory fields are 0. */
static int gen_stat(struct seqbuf *out, struct task *t)
{
	sb_printf(out, "%d (%s) %c %d %d %d 0 -1 %u %llu 0 %llu 0 ",
		  t->tid, t->comm, state_char(t), ppid_of(t), t->pgid, t->sid,
		  t->mm ? 0x400000u : 0x200000u, (unsigned long long)t->minflt,
		  (unsigned long long)t->majflt);
	sb_printf(out, "%llu %llu 0 0 20 0 %d 0 %llu 0 0 18446744073709551615 ",
		  ticks(task_utime_ns(t)), ticks(task_stime_ns(t)),
		  nr_threads(t), ticks(t->start_ns));
	sb_printf(out, "0 0 0 0 0 %llu %llu 0 0 0 0 0 %d %d 0 0 0 0 0 ",
		  (unsigned long long)t->sigpending, (unsigned long long)t->sigmask,
		  t->exit_signal, t->on_cpu);
	sb_printf(out, "0 0 0 0 0 0 0 %d\n", t->state == TASK_ZOMBIE ? t->exit_code : 0);
	return 0;
}

static int gen_comm(struct seqbuf *out, struct task *t)
{
	sb_printf(out, "%.*s\n", TASK_COMM_LEN, t->comm);
	return 0;
}

/* Text from an mm_format_* function that reports the length it needs;
 * empty when the task has let its mm go. */
static int gen_via(struct seqbuf *out, struct mm *mm,
		   int (*fn)(struct mm *, char *, size_t))
{
	size_t want = 4096;
	if (!mm)
		return 0;
	for (int tries = 0; tries < 8; tries++) {
		size_t room = sb_reserve(out, want);
		if (!room)
			return out->err;
		int n = fn(mm, out->buf + out->len, room);
		if (n < 0)
			return n;
		if ((size_t)n <= room) {
			out->len += (size_t)n;
			return 0;
		}
		want = (size_t)n + 1;
	}
	return -EFBIG;
}

static int gen_cmdline(struct seqbuf *out, const struct task_res *r)
{
	return gen_via(out, r->mm, mm_format_cmdline);
}

static int gen_maps(struct seqbuf *out, const struct task_res *r)
{
	return gen_via(out, r->mm, mm_format_maps);
}

static int exe_link(const struct task_res *r, char *buf, size_t max)
{
	return r->mm ? mm_exe_path(r->mm, buf, max) : -ENOENT;
}

static int cwd_link(const struct task_res *r, char *buf, size_t max)
{
	if (!r->fs)
		return -ENOENT;
	long n = vfs_getcwd(r->fs, buf, max);
	if (n == -ERANGE)
		return (int)max;
	return n < 0 ? (int)n : (int)n - 1;
}

void proc_task_files_init(void)
{
	procfs_register_task_file("stat", gen_stat);
	procfs_register_task_file("status", gen_status);
	procfs_register_task_file("comm", gen_comm);
	procfs_register_res_file("cmdline", gen_cmdline);
	procfs_register_res_file("maps", gen_maps);
	procfs_register_res_link("exe", exe_link);
	procfs_register_res_link("cwd", cwd_link);
}
