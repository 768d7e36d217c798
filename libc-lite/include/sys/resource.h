/*
 * sys/resource.h: resource usage and limits (libc-lite, user programs).
 * struct rusage, struct rlimit, RUSAGE_* and RLIMIT_* come from
 * <linux/resource.h>.
 */
#ifndef LIBC_LITE_SYS_RESOURCE_H
#define LIBC_LITE_SYS_RESOURCE_H

#include <sys/types.h>
#include <linux/resource.h>

int getrusage(int who, struct rusage *ru);
int getrlimit(int resource, struct rlimit *rl);
int setrlimit(int resource, const struct rlimit *rl);

#endif
