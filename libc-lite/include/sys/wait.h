/*
 * sys/wait.h: waiting for child processes (libc-lite, user programs).
 *
 * WNOHANG and the other options come from <linux/wait.h>. A status word
 * from wait4 is, as Linux builds it: exit code in bits 8..15 with bits
 * 0..6 zero; or the killing signal in bits 0..6, bit 7 set for a core
 * dump; or 0x7f in bits 0..7 and the stop signal in bits 8..15; or 0xffff
 * for "continued".
 */
#ifndef LIBC_LITE_SYS_WAIT_H
#define LIBC_LITE_SYS_WAIT_H

#include <sys/types.h>
#include <linux/resource.h>
#include <linux/wait.h>

#define WEXITSTATUS(s)  (((s) >> 8) & 0xff)
#define WTERMSIG(s)     ((s) & 0x7f)
#define WSTOPSIG(s)     WEXITSTATUS(s)
#define WCOREDUMP(s)    ((s) & 0x80)
#define WIFEXITED(s)    (WTERMSIG(s) == 0)
#define WIFSTOPPED(s)   (((s) & 0xff) == 0x7f)
#define WIFSIGNALED(s)  (WTERMSIG(s) != 0 && WTERMSIG(s) != 0x7f)
#define WIFCONTINUED(s) ((s) == 0xffff)

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru);
pid_t waitpid(pid_t pid, int *status, int options);
pid_t wait(int *status);

#endif
