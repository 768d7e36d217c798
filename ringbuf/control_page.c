/*
 * The control page's seqlock (perf_event_mmap_page.lock): odd while the
 * kernel rewrites the page, so that a reader in user space retries a
 * read that overlapped a change. Under the writers' lock: one writer.
 */
#include "ringbuf.h"

struct perf_event_mmap_page *rb_userpage_begin(struct ring_buffer *rb)
{
	struct perf_event_mmap_page *p = rb->user_page;
	__atomic_add_fetch(&p->lock, 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return p;
}

void rb_userpage_end(struct ring_buffer *rb)
{
	struct perf_event_mmap_page *p = rb->user_page;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_add_fetch(&p->lock, 1, __ATOMIC_RELEASE);
}
