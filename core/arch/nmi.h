/*
 * NMIs: their own entry (nmi_entry.asm, on the IST_NMI stack), which
 * works out which GS base is loaded instead of trusting CS, since an NMI
 * can land between SYSCALL and its SWAPGS; then the registered handlers
 * (the PMU's PMI, when LVTPC delivers it as an NMI), each saying
 * whether the NMI was its own. One nobody claims is counted as unknown
 * and reported once in the log (from deferred work: the log takes a
 * lock), as Linux's "NMI received for unknown reason".
 *
 * An NMI handler takes no lock the interrupted code may hold (trylock
 * at most), never sleeps, and leaves the rest to irq_work.h.
 */
#ifndef BAREMON_NMI_H
#define BAREMON_NMI_H

#include <stdbool.h>
#include <stdint.h>
#include "trap.h"

/* True when the NMI was this handler's. */
typedef bool (*nmi_handler)(struct trap_frame *f);

/* Boot: handlers are tried in the order registered. */
void nmi_register(nmi_handler h);
void nmi_init(void);
/* Is this CPU inside an NMI handler? */
bool in_nmi(void);
/* Per-CPU counts: every NMI, and those no handler claimed. */
uint64_t nmi_count(unsigned cpu);
uint64_t nmi_unknown_count(unsigned cpu);

/* The C side of nmi_entry.asm. */
void nmi_dispatch(struct trap_frame *f);

#endif
