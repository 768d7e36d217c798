/*
 * Capabilities as capget(2)/capset(2) report them (caps.c). baremon's
 * privilege checks are Linux's for root without capabilities beyond it:
 * euid 0 may do everything. A task's sets follow from its ids (root: all
 * of Linux's capabilities permitted and effective, none inheritable; any
 * other uid: none) until capset sets them; exec and a change of uid go
 * back to the ids' sets, as Linux's rules give for root and for plain
 * users without file capabilities. The sets are reported, not enforced:
 * a root task that drops one with capset keeps its power.
 */
#ifndef BAREMON_CAPS_H
#define BAREMON_CAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/capability.h>

struct task_caps {
	bool set;                 /* capset gave these; else from the ids */
	uint64_t effective, permitted, inheritable;
};

struct task;
/* Exec and setuid: back to the sets the ids give. */
void caps_reset(struct task *t);
/* t's sets now (capget, /proc/PID/status). */
struct task_caps caps_of(const struct task *t);
/* Every capability Linux 6.1 has (CAP_LAST_CAP and below). */
#define CAPS_ALL ((1ULL << (CAP_LAST_CAP + 1)) - 1)

#endif
