/* poll.c: waiting for file descriptors with poll(2) and select(2). */
#include <poll.h>
#include <sys/select.h>
#include "sys.h"

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	return __syscall_ret(sys3(__NR_poll, fds, n, timeout));
}

int select(int nfds, fd_set *restrict r, fd_set *restrict w,
           fd_set *restrict e, struct timeval *restrict timeout)
{
	return __syscall_ret(sys5(__NR_select, nfds, r, w, e, timeout));
}
