/*
 * sys/ioctl.h: device control (libc-lite, user programs).
 * Request numbers (TCGETS, TIOCGWINSZ, FIONREAD...), struct winsize and
 * the kernel's struct termios come from <asm/termios.h>.
 */
#ifndef LIBC_LITE_SYS_IOCTL_H
#define LIBC_LITE_SYS_IOCTL_H

#include <asm/ioctls.h>
#include <asm/termios.h>

/* The third argument, when the request takes one, is read as a long. */
int ioctl(int fd, unsigned long request, ...);

#endif
