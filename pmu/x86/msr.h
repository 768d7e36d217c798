/*
 * Intel architectural performance monitoring: the CPUID leaf 0AH layout
 * and event encodings (Intel SDM vol. 3B, chapter "Performance
 * Monitoring"; the registers and their bits are core/arch/msr-index.h's),
 * and the accessors every PMU register access goes through.
 *
 * The accessors reach the real registers, or the software model (vpmu.c)
 * once pmu_use_model() has been called at boot. They run on the CPU whose
 * registers they touch; the model's registers are per CPU too.
 */
#ifndef BAREMON_PMU_MSR_H
#define BAREMON_PMU_MSR_H

#include <stdbool.h>
#include <stdint.h>
#include "core/arch/msr-index.h"  /* the PMU's MSRs and their bits */
#include "core/arch/x86.h"

/* CPUID.01H:ECX: IA32_PERF_CAPABILITIES exists. */
#define CPUID_1_ECX_PDCM (1u << 15)

/* CPUID leaf 0AH */
#define CPUID_PERFMON 0x0a
#define PERFMON_EAX_VERSION(eax)   ((eax) & 0xff)
#define PERFMON_EAX_GP(eax)        (((eax) >> 8) & 0xff)
#define PERFMON_EAX_GP_WIDTH(eax)  (((eax) >> 16) & 0xff)
#define PERFMON_EAX_EBX_LEN(eax)   (((eax) >> 24) & 0xff)
#define PERFMON_EDX_FIXED(edx)     ((edx) & 0x1f)
#define PERFMON_EDX_FIXED_WIDTH(edx) (((edx) >> 5) & 0xff)
#define PERFMON_EDX_ANY_DEPRECATED (1u << 15)
/* EBX: a set bit means the architectural event is NOT available. */
#define PERFMON_EBX_CORE_CYCLES    (1u << 0)
#define PERFMON_EBX_INSTRUCTIONS   (1u << 1)
#define PERFMON_EBX_REF_CYCLES     (1u << 2)
#define PERFMON_EBX_LLC_REFS       (1u << 3)
#define PERFMON_EBX_LLC_MISSES     (1u << 4)
#define PERFMON_EBX_BRANCHES       (1u << 5)
#define PERFMON_EBX_BRANCH_MISSES  (1u << 6)
#define PERFMON_EVENTS             7  /* events every EBX must describe */

/* Architectural event encodings (event | umask << 8). */
#define ARCH_CORE_CYCLES   0x003c
#define ARCH_REF_CYCLES    0x013c  /* on a GP counter */
#define ARCH_INSTRUCTIONS  0x00c0
#define ARCH_LLC_REFS      0x4f2e
#define ARCH_LLC_MISSES    0x412e
#define ARCH_BRANCHES      0x00c4
#define ARCH_BRANCH_MISSES 0x00c5
/* Linux's pseudo-encoding for reference cycles on fixed counter 2 only. */
#define ARCH_REF_CYCLES_FIXED 0x0300

uint64_t pmu_rdmsr(uint32_t msr);
void pmu_wrmsr(uint32_t msr, uint64_t value);
struct cpuid_regs pmu_cpuid(uint32_t leaf, uint32_t subleaf);
/* WRMSR and RDPMC that report the #GP the instruction raises (a
 * counter write beyond its width, a bad counter index) as -EIO instead
 * of taking it (msr_extable.c); 0 when it went through. Kernel mode. */
int pmu_wrmsr_safe(uint32_t msr, uint64_t value);
int pmu_rdpmc_safe(uint32_t ecx, uint64_t *value);
/* Any MSR, for Linux's msr driver (/dev/cpu/N/msr, core/arch/msr_dev.c):
 * the model's registers from the model, the others from the CPU; -EIO
 * for the #GP the CPU raises. */
int msr_read_any(uint32_t msr, uint64_t *value);
int msr_write_any(uint32_t msr, uint64_t value);
/* The registers the PMI taken with frame f samples: f, or on the model
 * the user's registers when the overflow happened in user mode. */
struct trap_frame;
struct trap_frame *pmu_pmi_frame(struct trap_frame *f);
/* Did an NMI land inside the model (which must not be entered then)? */
bool pmu_model_busy(void);
/* Route the accessors to the software model from now on (boot; a
 * second call does nothing). */
void pmu_use_model(void);
/* Does the CPU lack the PMU its vendor's driver needs (msr.c)? */
bool pmu_need_model(void);
/* AuthenticAMD or HygonGenuine: the AMD driver's CPUs. */
bool pmu_cpu_is_amd(void);
bool pmu_model_in_use(void);
/* What the model says of itself, for the drivers (which know no more
 * of it): its name (caps/pmu_name, the boot log); whether it counts
 * selector `evtsel` exactly (0, else -EOPNOTSUPP: refused at open; 0
 * without the model); whether it counts the event at all (drivers
 * leave what it never counts out of their tables; true without the
 * model); whether instructions come from QEMU's instruction clock (both
 * modes) rather than single-stepping (user mode only). */
const char *pmu_model_name(void);
int pmu_model_event_check(uint64_t evtsel);
bool pmu_model_event_known(uint64_t evtsel);
bool pmu_model_insns_by_clock(void);
/* Counter idx (a GLOBAL index) now holds a CPU-wide event or a task's:
 * the model caps its stepping for the former (pmu/vpmu/step_cap.c). */
void pmu_model_counter_owner(int idx, bool cpu_wide);
/* The model's LBR face ("arch", "legacy", "amd", "none"); NULL without
 * the model. For the self-tests. */
const char *pmu_model_lbr_face(void);

#endif
