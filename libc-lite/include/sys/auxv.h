/*
 * sys/auxv.h: the auxiliary vector the kernel put after envp on the
 * initial stack (libc-lite, user programs). AT_* from <linux/auxvec.h>.
 */
#ifndef LIBC_LITE_SYS_AUXV_H
#define LIBC_LITE_SYS_AUXV_H

#include <linux/auxvec.h>

/* The value of entry type, or 0 (errno ENOENT) when there is none. */
unsigned long getauxval(unsigned long type);

#endif
