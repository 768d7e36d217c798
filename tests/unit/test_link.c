/* The reliable link (wire/link.c) over a simulated serial line that
 * flips, drops and duplicates bytes: every message arrives once, intact
 * and in order. */
#include "unit.h"
#include <string.h>
#include "wire/link.h"

/* One direction of the line: bytes in flight, damaged as they enter. */
struct wire {
	uint8_t buf[1 << 20];
	size_t head, tail;
	int flip, drop, dup;        /* per 10000 bytes */
	uint64_t damaged;
};

struct end {
	struct link link;
	struct frame_reader reader;
	struct wire *out;           /* what this end transmits into */
	/* Messages delivered to this end. */
	uint32_t got;               /* count */
	uint8_t last[FRAME_MAX_PAYLOAD];
	uint16_t last_len;
	bool out_of_order;
};

static void wire_put(struct wire *w, uint8_t c)
{
	w->buf[w->head++ % sizeof(w->buf)] = c;
}

static void emit(void *ctx, const uint8_t *p, size_t n)
{
	struct wire *w = ctx;
	for (size_t i = 0; i < n; i++) {
		int r = rand() % 10000;
		if (r < w->drop) {
			w->damaged++;
			continue;
		}
		uint8_t c = p[i];
		if (r < w->drop + w->flip) {
			c ^= (uint8_t)(1 << (rand() % 8));
			w->damaged++;
		}
		wire_put(w, c);
		if (r >= 10000 - w->dup) {
			wire_put(w, c);
			w->damaged++;
		}
	}
}

/* The payload of message k: its number and a pattern of k's length. */
static uint16_t message(uint32_t k, uint8_t *p)
{
	uint16_t len = (uint16_t)(4 + (k * 37) % (FRAME_MAX_PAYLOAD - 4));
	put_le32(p, k);
	for (uint16_t i = 4; i < len; i++)
		p[i] = (uint8_t)(k + i);
	return len;
}

/* Drain a wire into the receiving end. */
static void deliver(struct wire *w, struct end *e, uint64_t now)
{
	while (w->tail != w->head) {
		uint8_t c = w->buf[w->tail++ % sizeof(w->buf)];
		struct frame f;
		if (frame_reader_push(&e->reader, c, &f) != READ_FRAME)
			continue;
		if (!link_receive(&e->link, &f, now))
			continue;
		uint8_t expect[FRAME_MAX_PAYLOAD];
		uint16_t len = message(e->got, expect);
		if (f.len != len || memcmp(f.payload, expect, len) != 0)
			e->out_of_order = true;
		e->got++;
	}
}

/* The windows exchange() gives its two ends (wire/link.h). */
static unsigned window_a = LINK_WINDOW, window_b = LINK_WINDOW;

/* Send `count` messages each way; returns the simulated ms it took. */
static uint64_t exchange(int flip, int drop, int dup, uint32_t count,
			 struct end **ends)
{
	struct wire *ab = calloc(1, sizeof(*ab)), *ba = calloc(1, sizeof(*ba));
	struct end *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	ab->flip = ba->flip = flip;
	ab->drop = ba->drop = drop;
	ab->dup = ba->dup = dup;
	link_init(&a->link, emit, ab, 50);
	a->link.initiator = true;
	link_init(&b->link, emit, ba, 50);
	link_set_window(&a->link, window_a);
	link_set_window(&b->link, window_b);
	frame_reader_init(&a->reader);
	frame_reader_init(&b->reader);
	uint64_t now = 0;
	uint32_t sent_a = 0, sent_b = 0;
	while (!a->link.up && now < 100000) {
		link_hello(&a->link, 0x1234);
		deliver(ab, b, now);
		deliver(ba, a, now);
		now += 50;
	}
	assert_true(a->link.up && b->link.up);
	unsigned both = window_a < window_b ? window_a : window_b;
	assert_int_equal(link_send_window(&a->link), both);
	assert_int_equal(link_send_window(&b->link), both);
	while ((b->got < count || a->got < count || !link_idle(&a->link) ||
		!link_idle(&b->link)) && now < 10000000) {
		uint8_t p[FRAME_MAX_PAYLOAD];
		while (sent_a < count && link_can_send(&a->link))
			link_send(&a->link, FRAME_FILE_DATA, 0, p, message(sent_a++, p), now);
		while (sent_b < count && link_can_send(&b->link))
			link_send(&b->link, FRAME_OUTPUT, 1, p, message(sent_b++, p), now);
		deliver(ab, b, now);
		deliver(ba, a, now);
		now += 5;
		link_poll(&a->link, now);
		link_poll(&b->link, now);
	}
	free(ab);
	free(ba);
	ends[0] = a;
	ends[1] = b;
	return now;
}

static void check_exchange(int flip, int drop, int dup, uint32_t count)
{
	struct end *e[2];
	srand((unsigned)(flip * 7 + drop * 13 + dup * 17 + 1));
	exchange(flip, drop, dup, count, e);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(e[i]->got, count);
		assert_false(e[i]->out_of_order);
		assert_true(link_idle(&e[i]->link));
	}
	if (flip + drop + dup == 0) {
		assert_int_equal(e[0]->link.retransmits + e[1]->link.retransmits, 0);
		assert_int_equal(e[0]->reader.bad_frames + e[1]->reader.bad_frames, 0);
	} else {
		assert_true(e[0]->link.retransmits + e[1]->link.retransmits > 0);
		assert_true(e[0]->reader.bad_frames + e[1]->reader.bad_frames > 0);
	}
	free(e[0]);
	free(e[1]);
}

static void test_clean_line(void **state)
{
	(void)state;
	check_exchange(0, 0, 0, 500);
}

static void test_flips(void **state)
{
	(void)state;
	check_exchange(5, 0, 0, 300);   /* 1 in 2000 bytes */
}

static void test_drops(void **state)
{
	(void)state;
	check_exchange(0, 5, 0, 300);
}

static void test_duplicates(void **state)
{
	(void)state;
	check_exchange(0, 0, 5, 300);
}

static void test_everything_at_once(void **state)
{
	(void)state;
	check_exchange(3, 3, 3, 300);
}

/* A duplicated data frame is acknowledged again but delivered once; an
 * ACK from the past or the future is ignored. */
static void test_duplicates_and_stale_acks(void **state)
{
	(void)state;
	struct wire *w = calloc(1, sizeof(*w));
	struct link *l = calloc(1, sizeof(*l));
	link_init(l, emit, w, 100);
	struct frame f = { .type = FRAME_RUN, .seq = 0, .len = 1 };
	assert_true(link_receive(l, &f, 0));
	assert_false(link_receive(l, &f, 0));
	assert_int_equal(l->duplicates, 1);
	f.seq = 5;   /* early: not delivered */
	assert_false(link_receive(l, &f, 0));
	assert_int_equal(l->rx_next, 1);

	assert_int_equal(link_send(l, FRAME_OUTPUT, 1, "x", 1, 0), 0);
	struct frame ack = { .type = FRAME_ACK, .seq = 7 };
	link_receive(l, &ack, 0);
	assert_false(link_idle(l));
	ack.seq = 1;
	link_receive(l, &ack, 0);
	assert_true(link_idle(l));
	/* A full window refuses more. */
	for (int i = 0; i < LINK_WINDOW; i++)
		assert_int_equal(link_send(l, FRAME_OUTPUT, 1, "x", 1, 0), 0);
	assert_int_equal(link_send(l, FRAME_OUTPUT, 1, "x", 1, 0), -1);
	assert_int_equal(link_wait_ms(l, 40), 60);
	link_poll(l, 100);
	assert_int_equal(l->retransmits, LINK_WINDOW);
	/* Two ACKs repeating the oldest number: resent before the timeout. */
	ack.seq = l->tx_acked;
	link_receive(l, &ack, 101);
	assert_int_equal(l->retransmits, LINK_WINDOW);
	link_receive(l, &ack, 102);
	assert_int_equal(l->retransmits, 2 * LINK_WINDOW);
	/* More repeats: no second fast resend until the window moves. */
	for (int i = 0; i < 6; i++)
		link_receive(l, &ack, 103);
	assert_int_equal(l->retransmits, 2 * LINK_WINDOW);
	ack.seq = l->tx_acked + 1;
	link_receive(l, &ack, 104);
	ack.seq = l->tx_acked;
	link_receive(l, &ack, 105);
	link_receive(l, &ack, 106);
	assert_int_equal(l->retransmits, 2 * LINK_WINDOW + (LINK_WINDOW - 1));
	free(w);
	free(l);
}

/* Timeouts with no ACK between them back off (twice the wait each time,
 * up to LINK_BACKOFF_MAX times the base); an ACK that moves the window
 * restores the base wait. */
static void test_timeout_backoff(void **state)
{
	(void)state;
	struct wire *w = calloc(1, sizeof(*w));
	struct link *l = calloc(1, sizeof(*l));
	link_init(l, emit, w, 100);
	assert_int_equal(link_send(l, FRAME_OUTPUT, 1, "x", 1, 0), 0);
	link_poll(l, 100);
	assert_int_equal(l->retransmits, 1);
	assert_int_equal(link_wait_ms(l, 100), 200);
	link_poll(l, 299);
	assert_int_equal(l->retransmits, 1);
	link_poll(l, 300);
	assert_int_equal(l->retransmits, 2);
	assert_int_equal(link_wait_ms(l, 300), 400);
	uint64_t now = 300;
	for (int i = 0; i < 10; i++) {
		now += (uint64_t)link_wait_ms(l, now);
		link_poll(l, now);
	}
	assert_int_equal(l->retransmits, 12);
	assert_int_equal(link_wait_ms(l, now), 100 * LINK_BACKOFF_MAX);
	struct frame ack = { .type = FRAME_ACK, .seq = 1 };
	assert_int_equal(link_send(l, FRAME_OUTPUT, 1, "y", 1, now), 0);
	link_receive(l, &ack, now);
	assert_int_equal(link_wait_ms(l, now), 100);
	free(w);
	free(l);
}

/* A new HELLO nonce restarts both directions; the same nonce does not. */
static void test_hello_resets_once(void **state)
{
	(void)state;
	struct wire *w = calloc(1, sizeof(*w));
	struct link *l = calloc(1, sizeof(*l));
	link_init(l, emit, w, 100);
	struct frame h = { .type = FRAME_HELLO, .len = 4 };
	put_le32(h.payload, 42);
	link_receive(l, &h, 0);
	assert_true(l->up);
	struct frame d = { .type = FRAME_RUN, .seq = 0 };
	assert_true(link_receive(l, &d, 0));
	link_receive(l, &h, 0);             /* a repeated HELLO */
	assert_int_equal(l->rx_next, 1);
	put_le32(h.payload, 43);
	link_receive(l, &h, 0);             /* a new session */
	assert_int_equal(l->rx_next, 0);
	free(w);
	free(l);
}

/* HELLOs carry each side's window; each sends at most the smaller. */
static void test_window_negotiated(void **state)
{
	(void)state;
	struct wire *w = calloc(1, sizeof(*w));
	struct link *l = calloc(1, sizeof(*l));
	link_init(l, emit, w, 100);
	assert_int_equal(link_send_window(l), LINK_WINDOW);
	link_set_window(l, LINK_WINDOW_MAX);
	struct frame h = { .type = FRAME_HELLO, .len = 6 };
	put_le32(h.payload, 42);
	put_le16(h.payload + 4, 20);
	link_receive(l, &h, 0);
	assert_int_equal(link_send_window(l), 20);
	/* The reply says our window: nonce, then LINK_WINDOW_MAX. */
	struct frame_reader r;
	frame_reader_init(&r);
	struct frame reply = { 0 };
	while (w->tail != w->head &&
	       frame_reader_push(&r, w->buf[w->tail++], &reply) != READ_FRAME)
		;
	assert_int_equal(reply.type, FRAME_HELLO);
	assert_int_equal(reply.len, 6);
	assert_int_equal(get_le16(reply.payload + 4), LINK_WINDOW_MAX);
	/* Can we send 20 frames and not 21? */
	uint8_t p[8] = { 0 };
	for (int i = 0; i < 20; i++)
		assert_int_equal(link_send(l, FRAME_OUTPUT, 1, p, sizeof(p), 0), 0);
	assert_int_equal(link_send(l, FRAME_OUTPUT, 1, p, sizeof(p), 0), -1);
	/* An older peer's 4-byte HELLO (a new session) means LINK_WINDOW;
	 * a window beyond LINK_WINDOW_MAX is cut to it. */
	h.len = 4;
	put_le32(h.payload, 43);
	link_receive(l, &h, 0);
	assert_int_equal(link_send_window(l), LINK_WINDOW);
	h.len = 6;
	put_le32(h.payload, 44);
	put_le16(h.payload + 4, 60000);
	link_receive(l, &h, 0);
	assert_int_equal(link_send_window(l), LINK_WINDOW_MAX);
	link_set_window(l, 0);
	assert_int_equal(link_send_window(l), 1);
	free(w);
	free(l);
}

/* A wide window on a damaged line: still once, intact, in order; and
 * the narrower side's window wins. */
static void test_wide_window_damaged(void **state)
{
	(void)state;
	window_a = window_b = LINK_WINDOW_MAX;
	check_exchange(5, 5, 5, 3000);
	window_b = 7;
	check_exchange(5, 5, 5, 1000);
	window_a = window_b = LINK_WINDOW;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_line),
		cmocka_unit_test(test_flips),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_everything_at_once),
		cmocka_unit_test(test_duplicates_and_stale_acks),
		cmocka_unit_test(test_timeout_backoff),
		cmocka_unit_test(test_hello_resets_once),
		cmocka_unit_test(test_window_negotiated),
		cmocka_unit_test(test_wide_window_damaged),
	};
	setvbuf(stdout, NULL, _IONBF, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
