/*
 * unistd.h: the POSIX system interface (libc-lite, user programs).
 *
 * Every wrapper returns what the system call returns, or -1 with errno set
 * (pointer results: NULL or (void *)-1, as noted). Nothing is retried
 * after EINTR.
 */
#ifndef LIBC_LITE_UNISTD_H
#define LIBC_LITE_UNISTD_H

#include <sys/types.h>

#define STDIN_FILENO  0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

/*
 * lseek whence values and access() modes. These have no uapi header of
 * their own (SEEK_* sit in <linux/fs.h>, too broad to include here);
 * file.c checks SEEK_* against it.
 */
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

/* sysconf() names (libc-lite's own numbering). */
enum {
	_SC_PAGESIZE,
	_SC_CLK_TCK,
	_SC_OPEN_MAX,
	_SC_NPROCESSORS_ONLN,
	_SC_NPROCESSORS_CONF,
};
#define _SC_PAGE_SIZE _SC_PAGESIZE

extern char **environ;

/* files */
ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
ssize_t pread(int fd, void *buf, size_t n, off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
off_t lseek(int fd, off_t off, int whence);
int close(int fd);
int dup(int fd);
int dup2(int fd, int newfd);
int dup3(int fd, int newfd, int flags);
int pipe(int fds[2]);
int pipe2(int fds[2], int flags);
int isatty(int fd);          /* 1 if ioctl(fd, TCGETS) succeeds, else 0 */
int access(const char *path, int mode);
int unlink(const char *path);
int rmdir(const char *path);
int chdir(const char *path);
/* buf NULL: a malloc'd buffer of size bytes (PATH_MAX when size is 0). */
char *getcwd(char *buf, size_t size);

/* processes */
pid_t fork(void);
int execve(const char *path, char *const argv[], char *const envp[]);
int execv(const char *path, char *const argv[]);
/* Searches $PATH (or "/bin" when PATH is unset) when file has no '/'. */
int execvp(const char *file, char *const argv[]);
__attribute__((noreturn)) void _exit(int status);   /* exit_group(2) */
pid_t getpid(void);
pid_t getppid(void);
pid_t gettid(void);
uid_t getuid(void);
uid_t geteuid(void);
gid_t getgid(void);
gid_t getegid(void);
int setuid(uid_t uid);
int setgid(gid_t gid);
int setpgid(pid_t pid, pid_t pgid);
pid_t getpgid(pid_t pid);
pid_t getpgrp(void);
pid_t setsid(void);

/* time and signals */
unsigned sleep(unsigned seconds);       /* returns the seconds not slept */
int usleep(useconds_t usec);
unsigned alarm(unsigned seconds);
int pause(void);

/* memory: brk returns 0 or -1 (ENOMEM); sbrk the old break or (void *)-1 */
int brk(void *end);
void *sbrk(intptr_t increment);
int getpagesize(void);

long sysconf(int name);

/* Any system call: the number and up to six arguments, each a long. */
long syscall(long nr, ...);

#endif
