/*
 * The local APIC (x2APIC through MSRs when the CPU has it, xAPIC through
 * MMIO otherwise) and its timer. Each CPU programs its own APIC.
 */
#ifndef BAREMON_APIC_H
#define BAREMON_APIC_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_ID        0x020
#define APIC_VERSION   0x030
#define APIC_TPR       0x080
#define APIC_EOI       0x0b0
#define APIC_SVR       0x0f0
#define APIC_ESR       0x280
#define APIC_ICR       0x300  /* x2APIC: one 64-bit MSR; xAPIC: 0x300 + 0x310 */
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PMC   0x340
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR 0x390
#define APIC_TIMER_DIV 0x3e0

#define LVT_MASKED     (1u << 16)
#define LVT_DELIVERY_NMI (4u << 8)
#define LVT_ACTIVE_LOW (1u << 13)
#define LVT_TIMER_PERIODIC (1u << 17)
#define LVT_TIMER_TSC_DEADLINE (2u << 17)

/* Enable this CPU's APIC (x2APIC mode when available, unless nox2apic
 * and no APIC ID needs it), mask the LVTs, LINT0/1 as the MADT's NMI
 * entries say. */
void apic_init_cpu(void);
bool apic_x2apic_mode(void);
uint32_t apic_read(uint32_t reg);
void apic_write(uint32_t reg, uint32_t value);
uint32_t apic_current_id(void);
void apic_eoi(void);
/* Send a fixed-vector IPI (or INIT/SIPI with the delivery mode bits). */
void apic_send_ipi(uint32_t apic_id, uint32_t icr_low);

/* This CPU's timer, one-shot on VEC_TIMER (left unarmed): TSC-deadline
 * mode when the CPU has it, else the APIC timer in one-shot mode,
 * calibrated against the TSC. Only hrtimer.c arms it: */
void timer_init_cpu(void);
/* One interrupt at TSC value `deadline` or, for a past one, at once. */
void timer_arm(uint64_t deadline);
void timer_disarm(void);
const char *timer_mode(void);  /* "tsc-deadline" or "apic one-shot" */

#endif
