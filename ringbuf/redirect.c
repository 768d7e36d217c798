/*
 * Output redirection (PERF_FLAG_FD_OUTPUT, PERF_EVENT_IOC_SET_OUTPUT):
 * an owner stops writing to its own buffer and writes to another's.
 * The buffers' side of Linux's rules, each EINVAL: the owner's buffer
 * not mapped, the target mapped. Which owners may share a buffer (same
 * CPU, task, clock, direction) is the caller's rule.
 */
#include <linux/errno.h>
#include "ringbuf.h"

int rb_redirect(struct ring_buffer **slot, struct ring_buffer *to)
{
	if (rb_is_mapped(*slot) || (to && !rb_is_mapped(to)))
		return -EINVAL;
	if (*slot)
		rb_put(*slot);
	*slot = to;
	if (to)
		rb_get(to);
	return 0;
}
