/* execve: replace the calling process's program. See exec.c. */
#ifndef BAREMON_EXEC_H
#define BAREMON_EXEC_H

/* Run path in the current task with kernel-space argv/envp (used for
 * init). On success the task's trap frame enters the new program. */
long exec_kernel(const char *path, char *const argv[], char *const envp[]);

#endif
