/*
 * The vDSO (vdso/): a shared object the kernel maps into every process
 * with its data page, as Linux does: [vvar] (read-only, the clock's
 * parameters, vdso/vvar.h) and one page above it [vdso] (its text).
 * glibc and musl find it by AT_SYSINFO_EHDR and call its clock_gettime,
 * gettimeofday, time and getcpu instead of entering the kernel.
 */
#ifndef BAREMON_VDSO_H
#define BAREMON_VDSO_H

#include <stdint.h>

struct mm;

/* Make the pages and publish the clock (after timekeeping_init). */
void vdso_init(void);
/* Per CPU: what getcpu reads in user mode (TSC_AUX = node << 12 | cpu). */
void vdso_init_cpu(void);
/* Map [vvar] and [vdso] into mm below the mmap top; *base: the vDSO's
 * ELF header (AT_SYSINFO_EHDR). 0 or -ENOMEM. */
int vdso_map(struct mm *mm, uint64_t *base);
/* The vDSO's size in bytes (its MMAP record). */
uint64_t vdso_size(void);

#endif
