/*
 * The ENOSYS and missing-file log (missing.h). The names of Linux's calls
 * come from <asm/unistd_64.h>, turned into a table at build time
 * (syscall_names.h, Makefile), so a call baremon lacks is named too.
 * The once-only bitmap is racy on purpose: two CPUs may both log a number
 * the first time; nothing else reads it.
 */
#include "core/kernel.h"
#include "core/cmdline.h"
#include "missing.h"
#include "core/proc/task.h"
#include "core/proc/syscall.h"

static const char *const names[MAX_SYSCALL] = {
#include "syscall_names.h"
};

static bool log_all;
static uint8_t logged[MAX_SYSCALL / 8];

void missing_init(void)
{
	log_all = cmdline_has("log_missing");
	if (log_all)
		klog("missing: logging every ENOSYS call and failed lookup");
}

bool missing_logging(void)
{
	return log_all;
}

const char *linux_syscall_name(uint64_t nr)
{
	return nr < MAX_SYSCALL ? names[nr] : NULL;
}

/* First time for nr: remember it. */
static bool first_time(uint64_t nr)
{
	if (nr >= MAX_SYSCALL)
		return true;
	uint8_t bit = (uint8_t)(1u << (nr % 8));
	if (logged[nr / 8] & bit)
		return false;
	logged[nr / 8] |= bit;
	return true;
}

void missing_syscall(uint64_t nr, const uint64_t a[6])
{
	const char *name = linux_syscall_name(nr);
	if (!first_time(nr) && !log_all)
		return;
	if (!log_all) {
		klog("syscall: %llu (%s) not implemented (ENOSYS), by %s",
		     (unsigned long long)nr, name ? name : "not a Linux call",
		     current->comm);
		return;
	}
	klog("missing: %s[%d] %s(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx) "
	     "= ENOSYS (call %llu)", current->comm, current->tid,
	     name ? name : "?", (unsigned long long)a[0],
	     (unsigned long long)a[1], (unsigned long long)a[2],
	     (unsigned long long)a[3], (unsigned long long)a[4],
	     (unsigned long long)a[5], (unsigned long long)nr);
}

void missing_path(const char *path)
{
	if (!log_all || !current || !current->mm)
		return;
	klog("missing: %s[%d] %s: ENOENT", current->comm, current->tid, path);
}
