/*
 * execve for ELF executables: static (ET_EXEC, static PIE) or dynamic,
 * with the interpreter they name (PT_INTERP) mapped beside them and run
 * first (exec_elf.c maps the images), and the vDSO (vdso.c). The new
 * address space is built completely before the old one is dropped, so a
 * failing exec returns an error to the unchanged caller.
 *
 * Initial stack, from the top: AT_RANDOM bytes, "x86_64", the file name,
 * environment strings, argument strings; then (16-byte aligned) auxv,
 * envp[], argv[] and argc at the stack pointer, as Linux lays them out.
 */
#include <string.h>
#include <asm-generic/mman-common.h>
#include <asm/siginfo.h>
#include <linux/auxvec.h>
#include <linux/binfmts.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <elf64.h>
#include "core/arch/cpu.h"
#include "exec.h"
#include "core/arch/gdt.h"
#include "core/arch/msr-index.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "process.h"
#include "pmu/perf.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "tasks.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"
#include "core/proc/exec_elf.h"
#include "core/proc/vdso.h"
#include "core/fs/vfs.h"
#include "core/arch/x86.h"

#define ARGS_MAX (128 * 1024)   /* bytes of argument + environment strings */
#define ARGS_FIRST 2048         /* the buffer's first size: doubled as needed */
#define ARGC_MAX 4096
#define PATH_MAX_LEN 4096

/* Argument and environment strings gathered in kernel memory. */
struct exec_args {
	char *buf;           /* all strings, NUL-separated: argv then envp */
	size_t used, cap;    /* cap: buf's size, ARGS_FIRST doubled up to ARGS_MAX */
	int argc, envc;
};

/* Double the buffer: -E2BIG past ARGS_MAX (as Linux), -ENOMEM. */
static int args_grow(struct exec_args *a)
{
	if (a->cap >= ARGS_MAX)
		return -E2BIG;
	char *b = kmalloc(a->cap * 2);
	if (!b)
		return -ENOMEM;
	memcpy(b, a->buf, a->used);
	kfree(a->buf);
	a->buf = b;
	a->cap *= 2;
	return 0;
}

static int args_add(struct exec_args *a, const char *s, size_t len)
{
	while (a->used + len + 1 > a->cap) {
		int r = args_grow(a);
		if (r)
			return r;
	}
	memcpy(a->buf + a->used, s, len);
	a->buf[a->used + len] = 0;
	a->used += len + 1;
	return 0;
}

static int args_from_kernel(struct exec_args *a, char *const v[], int *count)
{
	for (*count = 0; v && v[*count]; (*count)++) {
		int r = args_add(a, v[*count], strlen(v[*count]));
		if (r)
			return r;
	}
	return 0;
}

static int args_from_user(struct exec_args *a, uint64_t uvec, int *count)
{
	*count = 0;
	if (!uvec)
		return 0;
	for (;;) {
		uint64_t p;
		if (copy_from_user(&p, (void *)(uvec + 8ULL * (uint64_t)*count), 8))
			return -EFAULT;
		if (!p)
			return 0;
		if (*count >= ARGC_MAX)
			return -E2BIG;
		long n;
		while ((n = strncpy_from_user(a->buf + a->used, (const char *)p,
					      a->cap - a->used)) == -ENAMETOOLONG) {
			int r = args_grow(a); /* then the string again, whole */
			if (r)
				return r;
		}
		if (n < 0)
			return (int)n;
		a->used += (size_t)n + 1;
		(*count)++;
	}
}

/* Collapse "//", "/./" and "dir/.." in an absolute path, in place. */
static void normalize(char *p)
{
	char *out = p;
	const char *in = p;
	while (*in) {
		while (*in == '/')
			in++;
		const char *end = strchr(in, '/');
		size_t n = end ? (size_t)(end - in) : strlen(in);
		if (n == 0)
			break;
		if (n == 1 && in[0] == '.') {
			/* skip */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	if (out == p)
		*out++ = '/';
	*out = 0;
}

/*
 * The executable's path as /proc/<pid>/exe shows it: absolute, with
 * symbolic links in the last component followed (so exec of
 * /proc/self/exe records the real file, not a link to itself).
 */
static void resolve_exe_path(const char *path, char *out, size_t max)
{
	char *tmp = kmalloc(PATH_MAX_LEN);
	if (!tmp) {
		strlcpy(out, path, max);
		return;
	}
	if (path[0] == '/') {
		strlcpy(out, path, max);
	} else {
		long n = vfs_getcwd(current->fs, out, max);
		if (n < 0)
			out[0] = 0;
		strlcat(out, "/", max);
		strlcat(out, path, max);
	}
	for (int depth = 0; depth < 8; depth++) {
		int n = vfs_readlink(out, tmp, PATH_MAX_LEN - 1);
		if (n <= 0)
			break;
		tmp[n] = 0;
		if (tmp[0] == '/') {
			strlcpy(out, tmp, max);
		} else {
			char *slash = strrchr(out, '/');
			if (slash)
				slash[1] = 0;
			strlcat(out, tmp, max);
		}
	}
	normalize(out);
	kfree(tmp);
}

/* What exec mapped: the program, and its interpreter when it names
 * one (interp_path[0] != 0). */
struct loaded {
	struct elf_image prog, interp;
	char interp_path[PATH_MAX_LEN];
	char interp_name[256];     /* absolute, as /proc/PID/maps names it */
	uint64_t vdso;             /* AT_SYSINFO_EHDR, 0 without a vDSO */
	uint64_t entry;            /* where the new program starts */
};

/*
 * The address an ET_DYN program is loaded at: Linux's ELF_ET_DYN_BASE
 * for a PIE under an interpreter and, here, for a static PIE or an
 * interpreter run as the program too; with
 * /proc/sys/kernel/randomize_va_space set (0 by default), plus a
 * random number of pages below 2^28, as Linux's arch_mmap_rnd.
 */
static uint64_t program_bias(const struct exec_file *x)
{
	const Elf64_Ehdr *eh = (const void *)x->head;
	if (eh->e_type != ET_DYN)
		return 0;
	uint64_t lo, hi, rnd = 0;
	elf64_load_span(x->head, &lo, &hi);
	if (sysctl_randomize_va_space()) {
		random_bytes(&rnd, sizeof(rnd));
		rnd = (rnd & ((1ULL << 28) - 1)) * PAGE_SIZE;
	}
	return USER_PIE_BASE + rnd - ALIGN_DOWN(lo, PAGE_SIZE);
}

/*
 * Map the interpreter named by the program: Linux's errnos (whatever
 * opening it gives, -ELIBBAD for a file that is not an x86-64 ELF
 * executable, -EIO for one too short to be one). An ET_DYN interpreter
 * goes below the top of the mmap area, as Linux puts it.
 */
static int load_interp(struct mm *mm, struct loaded *ld)
{
	struct exec_file ix;
	long r = exec_file_open(ld->interp_path, &ix, -ELIBBAD);
	if (r)
		return (int)r;
	resolve_exe_path(ld->interp_path, ld->interp_name, sizeof(ld->interp_name));
	const Elf64_Ehdr *eh = (const void *)ix.head;
	uint64_t bias = 0;
	if (eh->e_type == ET_DYN && !(bias = exec_free_base(mm, &ix)))
		r = -ENOMEM;
	if (!r)
		r = exec_map_image(mm, &ix, bias, ld->interp_name, &ld->interp);
	exec_file_close(&ix);
	return (int)r;
}

/* Map the program, its interpreter and the vDSO into mm. */
static int load_all(struct mm *mm, struct exec_file *x, struct loaded *ld)
{
	int r = exec_interp_path(x, ld->interp_path, sizeof(ld->interp_path));
	if (r < 0)
		return r;
	if (r == 0)
		ld->interp_path[0] = 0;
	r = exec_map_image(mm, x, program_bias(x), mm->exe, &ld->prog);
	if (!r && ld->interp_path[0])
		r = load_interp(mm, ld);
	if (!r)
		r = vdso_map(mm, &ld->vdso);
	ld->entry = ld->interp_path[0] ? ld->interp.entry : ld->prog.entry;
	return r;
}

/* Push bytes below *sp in the new address space. */
static int push(struct mm *mm, uint64_t *sp, const void *data, size_t n)
{
	*sp -= n;
	return mm_write(mm, *sp, data, n);
}

static uint64_t random_u64(void)
{
	uint64_t x = rdtsc();
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int build_stack(struct mm *mm, const struct exec_args *a, const char *path,
		       const struct loaded *ld, uint64_t *sp_out)
{
	uint64_t sp = USER_STACK_TOP;
	int r = mm_map_anon(mm, USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE,
			    PROT_READ | PROT_WRITE, VMA_STACK, "");
	if (r)
		return r;
	uint64_t rnd[2] = { random_u64(), random_u64() };
	r |= push(mm, &sp, rnd, sizeof(rnd));
	uint64_t at_random = sp;
	r |= push(mm, &sp, "x86_64", 7);
	uint64_t at_platform = sp;
	r |= push(mm, &sp, path, strlen(path) + 1);
	uint64_t at_execfn = sp;
	r |= push(mm, &sp, a->buf, a->used);
	uint64_t strings = sp;
	if (r)
		return -EFAULT;
	mm->arg_start = strings;
	/* Linux's order (ARCH_DLINFO first); AT_BASE is the interpreter's
	 * load address, AT_ENTRY and AT_PHDR the program's. */
	const struct elf_image *prog = &ld->prog;
	uint64_t auxv[][2] = {
		{ AT_SYSINFO_EHDR, ld->vdso }, { AT_MINSIGSTKSZ, 2048 },
		{ AT_HWCAP, cpuid(1, 0).edx }, { AT_PAGESZ, PAGE_SIZE }, { AT_CLKTCK, 100 },
		{ AT_PHDR, prog->phdr }, { AT_PHENT, sizeof(Elf64_Phdr) },
		{ AT_PHNUM, prog->phnum },
		{ AT_BASE, ld->interp_path[0] ? ld->interp.bias : 0 },
		{ AT_FLAGS, 0 }, { AT_ENTRY, prog->entry },
		{ AT_UID, current->uid }, { AT_EUID, current->euid },
		{ AT_GID, current->gid }, { AT_EGID, current->egid },
		{ AT_SECURE, 0 }, { AT_RANDOM, at_random }, { AT_HWCAP2, 0 },
		{ AT_EXECFN, at_execfn }, { AT_PLATFORM, at_platform }, { AT_NULL, 0 },
	};
	size_t nptr = 1 + (size_t)a->argc + 1 + (size_t)a->envc + 1;
	sp = (sp - sizeof(auxv) - nptr * 8) & ~15ULL;
	uint64_t at = sp;
	uint64_t argc = (uint64_t)a->argc;
	r |= mm_write(mm, at, &argc, 8);
	at += 8;
	uint64_t s = strings;
	for (int i = 0; i < a->argc + a->envc + 1; i++) {
		uint64_t p = s;
		if (i == a->argc) { /* argv's NULL, then envp */
			p = 0;
			r |= mm_write(mm, at, &p, 8);
			at += 8;
			p = s;
		}
		if (i == a->argc + a->envc)
			p = 0;
		r |= mm_write(mm, at, &p, 8);
		at += 8;
		if (p) {
			size_t off = s - strings;
			s += strlen(a->buf + off) + 1;
			if (i == a->argc - 1)
				mm->arg_end = s;
		}
	}
	mm->env_start = mm->arg_end ? mm->arg_end : strings;
	mm->env_end = s;
	r |= mm_write(mm, at, auxv, sizeof(auxv));
	*sp_out = sp;
	return r ? -EFAULT : 0;
}

static void set_comm(struct task *t, const char *path)
{
	const char *base = strrchr(path, '/');
	strlcpy(t->comm, base ? base + 1 : path, sizeof(t->comm));
}

static void set_exec_task(struct signal_state *s, struct task *t)
{
	uint64_t f = spin_lock_irqsave(&s->lock);
	__atomic_store_n(&s->exec_task, t, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&s->lock, f);
}

/* A thread exec must still kill: alive, no SIGKILL pending yet. */
static bool needs_kill(struct task *t)
{
	uint64_t kill = 1ULL << (SIGKILL - 1);
	return t->state != TASK_ZOMBIE &&
	       !(__atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE) & kill);
}

static int unkilled_threads(struct task *self, struct task **v, int max)
{
	struct task *leader = self->leader;
	int n = 0;
	if (leader != self && needs_kill(leader))
		v[n++] = leader;
	list_for_each(node, &leader->threads) {
		struct task *t = list_entry(node, struct task, thread_node);
		if (n == max)
			break;
		if (t != self && needs_kill(t))
			v[n++] = t;
	}
	return n;
}

/* Kill the other threads of the process before it changes program, in
 * batches: a process may have any number of threads. */
static void drop_other_threads(struct task *self)
{
	struct task *leader = self->leader;
	if (list_empty(&leader->threads) && leader == self)
		return;
	struct ksiginfo kill = { .signo = SIGKILL, .code = SI_KERNEL };
	struct task *victims[64];
	int n;
	set_exec_task(self->sig, self);
	do {
		uint64_t f = spin_lock_irqsave(&task_lock);
		n = unkilled_threads(self, victims, 64);
		spin_unlock_irqrestore(&task_lock, f);
		for (int i = 0; i < n; i++)
			signal_send_thread(victims[i], &kill);
	} while (n == 64);
	while (__atomic_load_n(&leader->nr_live, __ATOMIC_ACQUIRE) > 1) {
		if (self->sig->group_exiting) /* a fatal signal beat us */
			process_exit_group_now(self->sig->group_exit_code);
		sched_yield_now();
	}
	set_exec_task(self->sig, NULL);
}

/*
 * Build the new address space in a fresh mm; each step that fails
 * unwinds what the ones before it made. Only then the point of no
 * return: the old mm and everything else of the old program goes.
 */
/* Tell perf about an image's executable mappings (MMAP2 records),
 * named, with device and inode, as /proc/<pid>/maps shows them (name
 * when maps has none there). */
static void record_image_mmaps(struct mm *mm, const struct elf_image *im, const char *name)
{
	if (!perf_sideband_possible())
		return;
	struct mm_ident *id = kmalloc(sizeof(*id));
	for (unsigned i = 0; i < im->nseg; i++) {
		struct perf_mmap_file mf = { .name = name, .build_id = im->build_id,
					     .build_id_size = im->build_id_size };
		if (id && !mm_ident_at(mm, im->seg[i].start, id)) {
			mf = (struct perf_mmap_file){ .name = *id->name ? id->name : name,
				.maj = id->maj, .min = id->min, .ino = id->ino,
				.build_id = im->build_id, .build_id_size = im->build_id_size };
		}
		perf_record_mmap(im->seg[i].start, im->seg[i].len, im->seg[i].pgoff,
				 im->seg[i].prot, &mf);
	}
	kfree(id);
}

static long do_exec(const char *path, struct exec_args *a)
{
	struct exec_file x;
	long r = exec_file_open(path, &x, -ENOEXEC);
	if (r)
		return r;
	r = -ENOMEM;
	struct loaded *ld = kzalloc(sizeof(*ld));
	if (!ld)
		goto close_file;
	struct mm *mm = mm_create();
	if (!mm)
		goto free_ld;
	resolve_exe_path(path, mm->exe, sizeof(mm->exe));
	uint64_t sp = 0;
	r = load_all(mm, &x, ld);
	if (r)
		goto put_mm;
	r = build_stack(mm, a, path, ld, &sp);
	if (r)
		goto put_mm;
	exec_file_close(&x);
	mm->brk_start = mm->brk = ld->prog.end;

	/* The point of no return. */
	struct task *self = current;
	drop_other_threads(self);
	uint64_t flags = spin_lock_irqsave(&task_lock); /* see task_mm_get */
	struct mm *old = self->mm;
	self->mm = mm;
	spin_unlock_irqrestore(&task_lock, flags);
	mm_activate(mm);
	if (old)
		mm_put(old);
	/* The name first, as Linux's begin_new_exec: a parent that waits
	 * for a close-on-exec pipe to close finds the new comm and maps. */
	set_comm(self, path);
	process_release_vfork(self);
	files_close_on_exec(self->files);
	signal_reset_for_exec(self->sig);
	self->altstack_sp = self->altstack_size = 0;
	caps_reset(self);
	self->fs_base = self->gs_base = 0;
	wrmsr(MSR_FS_BASE, 0);
	fpu_init_state(self);
	fpu_restore(self);
	perf_task_exec(self);
	perf_record_comm(self, true);
	record_image_mmaps(mm, &ld->prog, mm->exe);
	if (ld->interp_path[0])
		record_image_mmaps(mm, &ld->interp, ld->interp_name);
	trace_sched_process_exec(self, path, self->tid); /* after enable_on_exec */

	struct trap_frame *f = self->frame;
	uint64_t vector = f->vector, nr = f->error; /* still execve's frame */
	memset(f, 0, sizeof(*f));
	f->vector = vector;
	f->error = nr;
	f->rip = ld->entry;
	f->rsp = sp;
	f->rflags = 0x202;
	f->cs = USER_CS;
	f->ss = USER_DS;
	kfree(ld);
	return 0;

put_mm:
	mm_put(mm);
free_ld:
	kfree(ld);
close_file:
	exec_file_close(&x);
	return r;
}

static struct exec_args *args_new(void)
{
	struct exec_args *a = kzalloc(sizeof(*a));
	if (a)
		a->cap = ARGS_FIRST;
	if (a && !(a->buf = kmalloc(ARGS_FIRST))) {
		kfree(a);
		return NULL;
	}
	return a;
}

static void args_free(struct exec_args *a)
{
	kfree(a->buf);
	kfree(a);
}

long exec_kernel(const char *path, char *const argv[], char *const envp[])
{
	struct exec_args *a = args_new();
	if (!a)
		return -ENOMEM;
	long r = args_from_kernel(a, argv, &a->argc);
	if (!r)
		r = args_from_kernel(a, envp, &a->envc);
	if (!r)
		r = do_exec(path, a);
	args_free(a);
	return r;
}

/* What it takes (the path buffer, the argument block) is released in
 * reverse order through the labels, on success as on failure. */
SYSCALL_DEFINE3(execve, const char __user *, filename, uint64_t, uargv, uint64_t, uenvp)
{
	long r = -ENOMEM;
	char *path = kmalloc(PATH_MAX_LEN);
	if (!path)
		return r;
	struct exec_args *a = args_new();
	if (!a)
		goto free_path;
	r = strncpy_from_user(path, filename, PATH_MAX_LEN);
	if (r <= 0) {
		r = r ? r : -ENOENT;
		goto free_args;
	}
	r = args_from_user(a, uargv, &a->argc);
	if (r)
		goto free_args;
	r = args_from_user(a, uenvp, &a->envc);
	if (r)
		goto free_args;
	r = do_exec(path, a); /* on success the frame holds the new program; rax = 0 */
	if (r == 0)
		ptrace_exec_event();
free_args:
	args_free(a);
free_path:
	kfree(path);
	return r;
}
