/*
 * Self-tests of the lock-free writer (write.c): a writer that nests in
 * another one mid-record - called directly, and from a real NMI sent to
 * this CPU while the outer record is half-copied - leaves every record
 * whole, none lost or duplicated, and data_head unpublished until the
 * outer writer ends; a nested writer that finds no room is counted and
 * reported by the next record's LOST.
 */
#include <string.h>
#include "core/arch/apic.h"
#include "core/arch/nmi.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"
#include "core/mm/mm.h"
#include "core/mm/usermm.h"
#include "ringbuf.h"
#include "core/selftest.h"

#define TEST_TYPE 0x7e57 /* not a Linux record type */

/* A record: header, its sequence number, then `words` copies of it. */
struct test_rec {
	struct perf_event_header h;
	uint64_t seq;
	uint64_t body[6];
};

static uint32_t rec_size(unsigned words)
{
	return (uint32_t)(sizeof(struct perf_event_header) + 8 + 8 * words);
}

static void fill(struct test_rec *r, uint64_t seq, unsigned words)
{
	r->h.type = TEST_TYPE;
	r->h.misc = 0;
	r->h.size = (uint16_t)rec_size(words);
	r->seq = seq;
	for (unsigned i = 0; i < words; i++)
		r->body[i] = seq * 1000 + i;
}

/* One whole record, begin to end; false when it was dropped. */
static bool write_one(struct ring_buffer *rb, uint64_t seq, unsigned words)
{
	struct test_rec r;
	struct rb_output o;
	fill(&r, seq, words);
	if (!rb_output_begin(&o, rb, r.h.size, 24, false))
		return false;
	if (o.lost_record) {
		uint64_t lost[3] = { PERF_RECORD_LOST | (24ULL << 48), 0, o.lost };
		rb_output_copy(&o, lost, sizeof(lost));
	}
	rb_output_copy(&o, &r, r.h.size);
	rb_output_end(&o, 0, 0);
	return true;
}

/* len bytes from data position pos, across the wrap and page edges. */
static void copy_out(struct ring_buffer *rb, uint64_t pos, void *dst, uint64_t len)
{
	uint8_t *d = dst;
	uint64_t size = rb->nr_pages * PAGE_SIZE;
	for (uint64_t i = 0; i < len; i++) {
		uint64_t off = (pos + i) & (size - 1);
		d[i] = ((uint8_t *)shm_kaddr(rb->shm, 1 + off / PAGE_SIZE))[off % PAGE_SIZE];
	}
}

/* Walk [tail, data_head): every test record whole (its body matches its
 * seq), seen[seq] counted; LOST records add their count to *lost.
 * False at the first broken record. */
static bool walk(struct ring_buffer *rb, uint8_t *seen, unsigned max_seq, uint64_t *lost)
{
	uint64_t head = __atomic_load_n(&rb->user_page->data_head, __ATOMIC_ACQUIRE);
	for (uint64_t pos = rb->user_page->data_tail; pos < head;) {
		struct test_rec r;
		copy_out(rb, pos, &r.h, sizeof(r.h));
		if (r.h.size < 8 || r.h.size > sizeof(r))
			return false;
		copy_out(rb, pos, &r, r.h.size);
		pos += r.h.size;
		if (r.h.type == PERF_RECORD_LOST) {
			*lost += r.body[0];
			continue;
		}
		unsigned words = (r.h.size - rec_size(0)) / 8;
		if (r.h.type != TEST_TYPE || r.seq >= max_seq)
			return false;
		for (unsigned i = 0; i < words; i++)
			if (r.body[i] != r.seq * 1000 + i)
				return false;
		seen[r.seq]++;
	}
	return true;
}

/* A writer nested between the outer one's begin and end (an NMI's, in
 * effect): both records whole, the nested one after the outer one's
 * reservation, data_head published once both ended. */
SELFTEST(ringbuf_nested_writer_whole)
{
	struct ring_buffer *rb = rb_alloc(1, true);
	ST_CHECK(t, rb);
	if (!rb)
		return;
	struct test_rec a;
	struct rb_output o;
	fill(&a, 0, 6);
	ST_CHECK(t, rb_output_begin(&o, rb, a.h.size, 24, false));
	rb_output_copy(&o, &a, 16); /* half the outer record */
	ST_CHECK(t, write_one(rb, 1, 3));
	ST_CHECK(t, rb->user_page->data_head == 0); /* the outer one is mid-record */
	rb_output_copy(&o, (uint8_t *)&a + 16, a.h.size - 16);
	rb_output_end(&o, 0, 0);
	ST_CHECK(t, rb->user_page->data_head == rec_size(6) + rec_size(3));
	uint8_t seen[2] = { 0, 0 };
	uint64_t lost = 0;
	ST_CHECK(t, walk(rb, seen, 2, &lost));
	ST_CHECK(t, seen[0] == 1 && seen[1] == 1 && lost == 0);
	ST_CHECK(t, rb->nest == 0);
	rb_put(rb);
}

/* The NMI's writer (a test handler for unclaimed NMIs). */
static struct ring_buffer *nmi_rb;
static uint64_t nmi_seq;
static unsigned nmi_writes, nmi_drops;
static bool nmi_nested;

static void nmi_writer(struct trap_frame *f)
{
	(void)f;
	nmi_nested = nmi_nested || nmi_rb->nest > 0;
	if (write_one(nmi_rb, nmi_seq, (unsigned)(nmi_seq % 7)))
		nmi_writes++;
	else
		nmi_drops++;
}

#define NMI_ROUNDS 40

/* Real NMIs sent while a task-context writer is at every point of its
 * record: each round's two records whole, each once, in the order
 * reserved. */
SELFTEST(ringbuf_nmi_writer_mid_record)
{
	if (trap_get_handler(VEC_NMI)) {
		ST_FAIL(t, "a test NMI handler is installed");
		return;
	}
	struct ring_buffer *rb = rb_alloc(4, true);
	ST_CHECK(t, rb);
	if (!rb)
		return;
	nmi_rb = rb;
	nmi_writes = nmi_drops = 0;
	nmi_nested = false;
	trap_set_handler(VEC_NMI, nmi_writer);
	for (unsigned i = 0; i < NMI_ROUNDS; i++) {
		struct test_rec a;
		struct rb_output o;
		unsigned words = i % 7, cut = 8 * (i % (words + 3));
		fill(&a, 2 * i, words);
		uint64_t f = irq_save();
		if (rb_output_begin(&o, rb, a.h.size, 24, false)) {
			rb_output_copy(&o, &a, cut);
			nmi_seq = 2 * i + 1;
			apic_send_ipi(this_cpu()->apic_id, LVT_DELIVERY_NMI);
			rb_output_copy(&o, (uint8_t *)&a + cut, a.h.size - cut);
			rb_output_end(&o, 0, 0);
		}
		irq_restore(f);
	}
	trap_set_handler(VEC_NMI, NULL);
	uint8_t seen[2 * NMI_ROUNDS];
	memset(seen, 0, sizeof(seen));
	uint64_t lost = 0;
	ST_CHECK(t, walk(rb, seen, 2 * NMI_ROUNDS, &lost));
	unsigned once = 0;
	for (unsigned i = 0; i < 2 * NMI_ROUNDS; i++)
		once += seen[i] == 1;
	ST_CHECK(t, once == 2 * NMI_ROUNDS);
	ST_CHECK(t, nmi_writes == NMI_ROUNDS && nmi_drops == 0 && lost == 0);
	ST_CHECK(t, nmi_nested);
	ST_CHECK(t, rb->nest == 0);
	ST_CHECK(t, rb->user_page->data_head == rb->head);
	rb_put(rb);
}

/* A nested writer that finds no room (the outer one holds the last of
 * it) drops its record and counts it; the next record that fits says
 * so in a LOST record first. */
SELFTEST(ringbuf_nested_writer_lost)
{
	struct ring_buffer *rb = rb_alloc(1, true);
	ST_CHECK(t, rb);
	if (!rb)
		return;
	unsigned n = 0;
	while (rb->head + 2 * rec_size(6) < PAGE_SIZE - 1)
		ST_CHECK(t, write_one(rb, n++, 6));
	struct test_rec a;
	struct rb_output o;
	fill(&a, n, 6);
	ST_CHECK(t, rb_output_begin(&o, rb, a.h.size, 24, false));
	rb_output_copy(&o, &a, 8);
	ST_CHECK(t, !write_one(rb, n + 1, 6)); /* no room: dropped */
	ST_CHECK(t, rb->lost == 1);
	rb_output_copy(&o, (uint8_t *)&a + 8, a.h.size - 8);
	rb_output_end(&o, 0, 0);
	uint8_t seen[256];
	memset(seen, 0, sizeof(seen));
	uint64_t lost = 0;
	ST_CHECK(t, n + 3 <= sizeof(seen));
	ST_CHECK(t, walk(rb, seen, n + 3, &lost));
	rb->user_page->data_tail = rb->user_page->data_head; /* the reader's */
	ST_CHECK(t, write_one(rb, n + 2, 1));
	ST_CHECK(t, rb->lost == 0);
	uint8_t seen2[256];
	memset(seen2, 0, sizeof(seen2));
	ST_CHECK(t, walk(rb, seen2, n + 3, &lost));
	ST_CHECK(t, lost == 1 && seen[n] == 1 && !seen[n + 1] && seen2[n + 2] == 1);
	rb_put(rb);
}
