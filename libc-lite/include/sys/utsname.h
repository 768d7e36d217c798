/*
 * sys/utsname.h: system name (libc-lite, user programs).
 *
 * struct utsname has the layout of the kernel's struct new_utsname
 * (<linux/utsname.h>), which uname(2) fills; utsname.c asserts it.
 */
#ifndef LIBC_LITE_SYS_UTSNAME_H
#define LIBC_LITE_SYS_UTSNAME_H

#include <linux/utsname.h>

struct utsname {
	char sysname[__NEW_UTS_LEN + 1];
	char nodename[__NEW_UTS_LEN + 1];
	char release[__NEW_UTS_LEN + 1];
	char version[__NEW_UTS_LEN + 1];
	char machine[__NEW_UTS_LEN + 1];
	char domainname[__NEW_UTS_LEN + 1];
};

int uname(struct utsname *u);

#endif
