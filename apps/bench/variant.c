/*
 * variant.c: a generated benchmark function in memory: built into an
 * executable mapping (written, then made read+exec), called in user
 * mode or through /dev/kbench, and, when the snippet faults, the
 * faulting address named as a part of the code and an offset in it.
 * A fault ends bench with status 1 (in kernel mode the kernel recovered
 * first).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h> /* after signal.h and sigcontext.h: it needs both */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bench.h"

static const struct variant *running; /* the one a signal interrupts */

void variant_build(struct variant *v, const struct codegen_in *in, const char *init_name)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (v->buf)
		munmap(v->buf, v->cap);
	v->cap = (codegen_bound(in) + page - 1) / page * page;
	v->buf = mmap(NULL, v->cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v->buf == MAP_FAILED || !(v->len = codegen(in, v->buf, v->cap, &v->map))) {
		fprintf(stderr, "bench: cannot generate %llu copies of the code\n",
			(unsigned long long)in->copies);
		exit(1);
	}
	if (mprotect(v->buf, v->cap, PROT_READ | PROT_EXEC)) {
		perror("bench: mprotect");
		exit(1);
	}
	v->fn = (void (*)(void))(uintptr_t)v->buf;
	v->code_len = in->code.len;
	v->init_len = in->init.len;
	v->late_len = in->late_init.len;
	v->init_name = init_name;
}

static const char *vector_name(unsigned v)
{
	static const char *const names[] = {
		"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "?",
		"#TS", "#NP", "#SS", "#GP", "#PF", "?", "#MF", "#AC", "#MC", "#XM",
	};
	return v < sizeof names / sizeof names[0] ? names[v] : "exception";
}

/* "at offset 0x3 of -code (copy 1)": where rip lies in v. */
static void where(const struct variant *v, uint64_t rip, char *buf, size_t len)
{
	uint64_t base = (uint64_t)(uintptr_t)v->buf, off = rip - base;
	const struct codegen_map *m = &v->map;
	if (rip < base || off >= v->len)
		snprintf(buf, len, "at rip %#llx, outside the generated code", (unsigned long long)rip);
	else if (off >= m->body_off && off < m->body_end && v->code_len)
		snprintf(buf, len, "at offset %#llx of -code (copy %llu)",
			 (unsigned long long)((off - m->body_off) % v->code_len),
			 (unsigned long long)((off - m->body_off) / v->code_len + 1));
	else if (off >= m->init_off && off < m->init_off + v->init_len)
		snprintf(buf, len, "at offset %#llx of %s", (unsigned long long)(off - m->init_off),
			 v->init_name);
	else if (off >= m->late_off && off < m->late_off + v->late_len)
		snprintf(buf, len, "at offset %#llx of -code_late_init",
			 (unsigned long long)(off - m->late_off));
	else
		snprintf(buf, len, "at offset %#llx of the harness's own code", (unsigned long long)off);
}

static void user_fault(int sig, siginfo_t *si, void *uc)
{
	char w[160];
	uint64_t rip = ((struct ucontext *)uc)->uc_mcontext.rip;
	where(running, rip, w, sizeof w);
	dprintf(2, "bench: the snippet died of %s %s (address %#llx); nothing measured\n",
		sigabbrev_np(sig) ? sigabbrev_np(sig) : "a signal", w,
		(unsigned long long)(uintptr_t)si->si_addr);
	_exit(1);
}

void variant_catch_faults(void)
{
	static const int sigs[] = { SIGSEGV, SIGILL, SIGBUS, SIGFPE, SIGTRAP };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = user_fault;
	sa.sa_flags = SA_SIGINFO;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

void variant_call(const struct variant *v, struct bench_ctx *ctx, bool kernel)
{
	running = v;
	if (!kernel) {
		v->fn();
		return;
	}
	struct kbench_run r;
	int rc = kmode_call(v->fn, ctx, &r);
	if (rc < 0)
		exit(1);
	if (rc > 0 && r.fault_msr != KBENCH_NO_FAULT) {
		printf("bench: %s: MSR %#x raised %s (vector %u) in ring 0 before the run; "
		       "the kernel recovered\n", kmode_msr_origin(r.fault_msr),
		       kmode_msr_address(r.fault_msr), vector_name(r.fault_vector), r.fault_vector);
		exit(1);
	}
	if (rc > 0) {
		char w[160];
		where(v, r.fault_rip, w, sizeof w);
		printf("bench: the snippet raised %s (vector %u) in ring 0 %s",
		       vector_name(r.fault_vector), r.fault_vector, w);
		if (r.fault_vector == 14)
			printf(", address %#llx", (unsigned long long)r.fault_addr);
		printf("; the kernel recovered\n");
		exit(1);
	}
}
