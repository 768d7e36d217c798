/*
 * sys/un.h: AF_UNIX addresses (libc-lite, user programs): Linux's
 * struct sockaddr_un from the uapi header.
 */
#ifndef LIBC_LITE_SYS_UN_H
#define LIBC_LITE_SYS_UN_H

#include <sys/socket.h>
#include <linux/un.h>

#endif
