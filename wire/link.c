/*
 * Go-back-N over frames; see link.h. Sequence numbers are compared by
 * signed difference, so they may wrap.
 */
#include <string.h>
#include "link.h"

void link_init(struct link *l, link_emit_fn emit, void *ctx, uint64_t timeout_ms)
{
	memset(l, 0, sizeof(*l));
	l->emit = emit;
	l->ctx = ctx;
	l->timeout = l->rto = timeout_ms;
	l->window = l->peer_window = LINK_WINDOW;
}

static unsigned clamp_window(unsigned frames)
{
	return frames < 1 ? 1 : frames > LINK_WINDOW_MAX ? LINK_WINDOW_MAX : frames;
}

void link_set_window(struct link *l, unsigned frames)
{
	l->window = (uint16_t)clamp_window(frames);
}

unsigned link_send_window(const struct link *l)
{
	return l->window < l->peer_window ? l->window : l->peer_window;
}

/* A HELLO's payload: the nonce, then our window. */
#define HELLO_LEN 6
static void hello_payload(const struct link *l, uint32_t nonce, uint8_t *p)
{
	put_le32(p, nonce);
	put_le16(p + 4, l->window);
}

static void take_peer_window(struct link *l, const struct frame *f)
{
	l->peer_window = (uint16_t)(f->len >= HELLO_LEN ? clamp_window(get_le16(f->payload + 4))
						      : LINK_WINDOW);
}

static void emit_frame(struct link *l, const struct frame *f)
{
	uint8_t wire[FRAME_MAX_WIRE];
	size_t n = frame_encode(f, wire);
	if (n)
		l->emit(l->ctx, wire, n);
}

static void send_control(struct link *l, uint8_t type, uint8_t flags,
			 uint32_t seq, const void *payload, uint16_t len)
{
	struct frame f = { .type = type, .flags = flags, .seq = seq, .len = len };
	if (len)
		memcpy(f.payload, payload, len);
	emit_frame(l, &f);
}

static void reset_session(struct link *l, uint32_t nonce)
{
	l->nonce = nonce;
	l->tx_next = l->tx_acked = l->rx_next = 0;
	l->rto = l->timeout;
	l->peer_window = LINK_WINDOW;   /* until its HELLO says */
}

void link_hello(struct link *l, uint32_t nonce)
{
	if (nonce != l->nonce)
		reset_session(l, nonce);
	uint8_t p[HELLO_LEN];
	hello_payload(l, nonce, p);
	send_control(l, FRAME_HELLO, 0, 0, p, sizeof(p));
}

static uint32_t in_flight(const struct link *l)
{
	return l->tx_next - l->tx_acked;
}

bool link_can_send(const struct link *l)
{
	return in_flight(l) < link_send_window(l);
}

bool link_idle(const struct link *l)
{
	return in_flight(l) == 0;
}

int link_send(struct link *l, uint8_t type, uint8_t channel,
	      const void *payload, size_t len, uint64_t now)
{
	if (!link_can_send(l) || len > FRAME_MAX_PAYLOAD)
		return -1;
	struct frame *f = &l->tx[l->tx_next % LINK_WINDOW_MAX];
	f->type = type;
	f->channel = channel;
	f->flags = 0;
	f->seq = l->tx_next++;
	f->len = (uint16_t)len;
	if (len)
		memcpy(f->payload, payload, len);
	if (in_flight(l) == 1)
		l->tx_deadline = now + l->rto;
	emit_frame(l, f);
	return 0;
}

/* Go back N: every unacknowledged frame again, oldest first. */
static void resend_all(struct link *l, uint64_t now)
{
	for (uint32_t s = l->tx_acked; s != l->tx_next; s++) {
		emit_frame(l, &l->tx[s % LINK_WINDOW_MAX]);
		l->retransmits++;
	}
	l->tx_deadline = now + l->rto;
}

/* An ACK for `next`: everything before it arrived. */
static void take_ack(struct link *l, uint32_t next, uint64_t now)
{
	int32_t ahead = (int32_t)(next - l->tx_acked);
	int32_t sent = (int32_t)(l->tx_next - l->tx_acked);
	if (ahead == 0 && sent > 0 && !l->fast_resent && ++l->dup_acks == LINK_DUP_ACKS) {
		/* The receiver got later frames but not tx_acked: it was
		 * lost. Resend now rather than at the timeout, but once
		 * until the window moves: the resent frames bring more
		 * repeated ACKs, and answering those too would flood a
		 * slow receiver (congestion collapse). */
		l->fast_resent = true;
		resend_all(l, now);
		return;
	}
	if (ahead <= 0 || ahead > sent)
		return;   /* old or impossible: ignore */
	l->tx_acked = next;
	l->dup_acks = 0;
	l->fast_resent = false;
	l->rto = l->timeout;
	l->tx_deadline = now + l->rto;
}

static void take_hello(struct link *l, const struct frame *f)
{
	if (f->len < 4)
		return;
	uint32_t nonce = get_le32(f->payload);
	if (f->flags & LINK_HELLO_REPLY) {
		if (nonce == l->nonce && nonce != 0) {
			l->up = true;
			take_peer_window(l, f);
		}
		return;
	}
	if (nonce == 0 || l->initiator)
		return;   /* an announcement, or a request echoed back to us */
	if (nonce != l->nonce)
		reset_session(l, nonce);
	l->up = true;
	take_peer_window(l, f);
	uint8_t p[HELLO_LEN];
	hello_payload(l, nonce, p);
	send_control(l, FRAME_HELLO, LINK_HELLO_REPLY, 0, p, sizeof(p));
}

bool link_receive(struct link *l, const struct frame *f, uint64_t now)
{
	if (f->type == FRAME_ACK) {
		take_ack(l, f->seq, now);
		return false;
	}
	if (f->type == FRAME_HELLO) {
		take_hello(l, f);
		return false;
	}
	bool fresh = f->seq == l->rx_next;
	if (fresh)
		l->rx_next++;
	else
		l->duplicates++;
	send_control(l, FRAME_ACK, 0, l->rx_next, NULL, 0);
	return fresh;
}

void link_poll(struct link *l, uint64_t now)
{
	if (link_idle(l) || now < l->tx_deadline)
		return;
	/* Nothing acknowledged for a whole wait: the copies still queue
	 * ahead of the receiver; wait longer before the next ones. */
	if (l->rto < l->timeout * LINK_BACKOFF_MAX)
		l->rto *= 2;
	resend_all(l, now);
}

long link_wait_ms(const struct link *l, uint64_t now)
{
	if (link_idle(l))
		return -1;
	return now >= l->tx_deadline ? 0 : (long)(l->tx_deadline - now);
}
