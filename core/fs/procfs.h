/* procfs internals: the files under /proc are registered by these. */
#ifndef BAREMON_PROCFS_H
#define BAREMON_PROCFS_H

#include "genfs.h"

void proc_system_files_init(void);   /* proc_files.c: cpuinfo, ... */
void proc_task_files_init(void);     /* proc_task.c: <pid>/status, ... */
void sysctl_init(void);              /* sysctl.c: /proc/sys */
/* cpuinfo.c */
void cpuinfo_flags(struct seqbuf *out);
void cpuinfo_block(struct seqbuf *out, unsigned i, uint32_t apic_id);
/* sysctl.c: one integer as /proc/sys takes it; 0 or -EINVAL. */
int sysctl_parse_int(const char *s, int *out); /* bytes taken or -EINVAL */
int procfs_register_link(const char *path, glink_fn link, void *arg);
/* proc_fd.c, for /proc/<pid>/fd and task: at most max ids in out, the
 * count or -ENOENT when pid is gone; a descriptor's link text (length,
 * as readlink) or -ENOENT. */
int proc_fd_list(int pid, int *out, int max);
bool proc_fd_open(int pid, int fd);
int proc_fd_link(int pid, int fd, char *buf, size_t max);
int proc_thread_list(int pid, int *out, int max);

#endif
