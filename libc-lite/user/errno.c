/*
 * errno.c: the errno variable and the raw-result conversion every system
 * call wrapper ends with.
 */
#include <errno.h>
#include "sys.h"

int errno;

long __syscall_ret(long raw)
{
	if ((unsigned long)raw > -4096UL) {
		errno = (int)-raw;
		return -1;
	}
	return raw;
}
