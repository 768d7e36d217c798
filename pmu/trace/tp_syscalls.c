/*
 * The syscalls:* tracepoints, as Linux's kernel/trace/trace_syscalls.c
 * makes them: for each system call baremon implements, sys_enter_<call>
 * (the number and the call's arguments) and sys_exit_<call> (the number
 * and the result), with ids TP_SC_ID_BASE + 2 * nr (+ 1 for the exit).
 * The fields are named and typed as the call's SYSCALL_DEFINE writes its
 * parameters (__user dropped, as Linux's metadata drops it), each an
 * unsigned long; the format files and print formats are laid out as
 * Linux 6.1 prints them. They fire from the raw_syscalls hooks (tp_sys.c)
 * while tp_sc_active says one is on some CPU's counters.
 */
#include <stdio.h>
#include <string.h>
#include "core/kernel.h"
#include "core/proc/syscall.h"
#include "pmu/events/event.h"
#include "tp_events.h"
#include "tp_records.h"
#include "trace.h"
#include "core/fs/vfs.h"

int tp_sc_active[2];

bool tp_sc_event(uint64_t config, bool *exit)
{
	if (config < TP_SC_ID_BASE || config >= TP_SC_ID_BASE + 2 * MAX_SYSCALL)
		return false;
	*exit = (config - TP_SC_ID_BASE) & 1;
	return syscall_lookup((config - TP_SC_ID_BASE) / 2) != NULL;
}

void tp_syscall_enter(const struct trap_frame *f)
{
	uint64_t nr = f->rax;
	const struct syscall_entry *e = syscall_lookup(nr);
	if (!e)
		return;
	struct tp_syscall_enter r = { .nr = (int32_t)nr };
	const uint64_t args[6] = { f->rdi, f->rsi, f->rdx, f->r10, f->r8, f->r9 };
	memcpy(r.args, args, e->nargs * sizeof(args[0]));
	tp_emit_config(TP_SC_ID_BASE + 2 * nr, &r,
		       (uint32_t)(offsetof(struct tp_syscall_enter, args) + 8 * e->nargs));
}

void tp_syscall_exit(const struct trap_frame *f)
{
	if (f->vector != SYSCALL_VECTOR || !syscall_lookup(f->error))
		return; /* rt_sigreturn's frame: no call to name */
	struct tp_syscall_exit r = { .nr = (int32_t)f->error, .ret = (int64_t)f->rax };
	tp_emit_config(TP_SC_ID_BASE + 2 * f->error + 1, &r, sizeof(r));
}

/* ---- tracefs ---- */

/* Parameter i of e (0-based) into type and name: params is "t0, a0, t1,
 * a1, ..." as the preprocessor wrote it; "__user " is dropped. */
static void param(const struct syscall_entry *e, unsigned i, char *type, char *name,
		  size_t max)
{
	const char *p = e->params;
	for (unsigned skip = 2 * i; skip && p; skip--)
		if ((p = strchr(p, ',')) != NULL)
			p += 2;
	type[0] = name[0] = 0;
	if (!p)
		return;
	const char *comma = strchr(p, ',');
	size_t n = 0;
	for (const char *q = p; q < comma && n + 1 < max; q++) {
		if (strncmp(q, "__user ", 7) == 0) {
			q += 6;
			continue;
		}
		type[n++] = *q;
	}
	type[n] = 0;
	const char *a = comma ? comma + 2 : "";
	const char *end = strchr(a, ',');
	n = end ? (size_t)(end - a) : strlen(a);
	n = n < max - 1 ? n : max - 1;
	memcpy(name, a, n);
	name[n] = 0;
}

static void common_fields(struct seqbuf *out)
{
	for (const struct tp_field *f = tp_common_fields; f->decl; f++)
		sb_printf(out, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			  f->decl, f->offset, f->size, f->is_signed);
	sb_printf(out, "\n\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n");
}

static void enter_format(struct seqbuf *out, const struct syscall_entry *e)
{
	char type[96], name[96];
	for (unsigned i = 0; i < e->nargs; i++) {
		param(e, i, type, name, sizeof(name));
		sb_printf(out, "\tfield:%s %s;\toffset:%u;\tsize:8;\tsigned:0;\n", type, name,
			  16 + 8 * i);
	}
	sb_printf(out, "\nprint fmt: \"");
	for (unsigned i = 0; i < e->nargs; i++) {
		param(e, i, type, name, sizeof(name));
		sb_printf(out, "%s: 0x%%08lx%s", name, i + 1 < e->nargs ? ", " : "");
	}
	sb_printf(out, "\"");
	for (unsigned i = 0; i < e->nargs; i++) {
		param(e, i, type, name, sizeof(name));
		sb_printf(out, ", ((unsigned long)(REC->%s))", name);
	}
	sb_printf(out, "\n");
}

static int gen_format(struct seqbuf *out, void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg;
	const struct syscall_entry *e = syscall_lookup((id - TP_SC_ID_BASE) / 2);
	bool exit = (id - TP_SC_ID_BASE) & 1;
	sb_printf(out, "name: sys_%s_%s\nID: %llu\nformat:\n", exit ? "exit" : "enter",
		  e->name, (unsigned long long)id);
	common_fields(out);
	if (exit)
		sb_printf(out, "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
			  "print fmt: \"0x%%lx\", REC->ret\n");
	else
		enter_format(out, e);
	return 0;
}

static int gen_id(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%llu\n", (unsigned long long)(uintptr_t)arg);
	return 0;
}

void tp_syscalls_tracefs(const char *root)
{
	char path[192];
	for (unsigned nr = 0; nr < MAX_SYSCALL; nr++) {
		const struct syscall_entry *e = syscall_lookup(nr);
		for (unsigned exit = 0; e && exit < 2; exit++) {
			void *id = (void *)(uintptr_t)(TP_SC_ID_BASE + 2 * nr + exit);
			const char *kind = exit ? "exit" : "enter";
			snprintf(path, sizeof(path), "%s/events/syscalls/sys_%s_%s/id", root, kind,
				 e->name);
			sysfs_register(path, gen_id, NULL, id);
			snprintf(path, sizeof(path), "%s/events/syscalls/sys_%s_%s/format", root,
				 kind, e->name);
			sysfs_register(path, gen_format, NULL, id);
		}
	}
}

void tp_syscalls_available(struct seqbuf *out)
{
	for (unsigned nr = 0; nr < MAX_SYSCALL; nr++) {
		const struct syscall_entry *e = syscall_lookup(nr);
		if (e)
			sb_printf(out, "syscalls:sys_enter_%s\nsyscalls:sys_exit_%s\n", e->name,
				  e->name);
	}
}
